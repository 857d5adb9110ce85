package files

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// json loads a JSON array of objects (lines false) or JSON Lines, one
// object per line. It reads the file twice: once for the keys (the
// columns, in the order first seen) and the types of their values, once to
// insert the rows. A nested object or array is kept as its JSON text.
func (t *tableLoad) json(f *os.File, lines bool) error {
	size := t.prog.Total.Load()
	t.prog.Total.Store(2 * size)
	index := map[string]int{}
	var gs []guess
	n := 0
	err := t.eachObject(f, lines, func(keys []string, cells []cell, _ int64) error {
		if n++; n%4096 == 0 {
			if err := t.ctx.Err(); err != nil {
				return err
			}
		}
		for i, k := range keys {
			j, ok := index[k]
			if !ok {
				j = len(t.cols)
				index[k] = j
				t.cols = append(t.cols, &column{name: k})
				gs = append(gs, newGuess())
			}
			gs[j].add(cells[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(t.cols) == 0 {
		return &InputError{File: t.file, Msg: "holds no object with a key: an array of objects (or one object per line) was expected"}
	}
	seen := map[string]bool{}
	for i, c := range t.cols {
		c.typ = gs[i].typ()
		c.name = distinctName(c.name, i, seen)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", t.file, err)
	}
	if err := t.create(); err != nil {
		return err
	}
	row := make([]cell, len(t.cols))
	return t.finish(t.eachObject(f, lines, func(keys []string, cells []cell, at int64) error {
		for i := range row {
			row[i] = cell{k: kNull}
		}
		for i, k := range keys {
			if j, ok := index[k]; ok { // the file changed since the first reading
				row[j] = cells[i]
			}
		}
		return t.insert(row, at)
	}))
}

// eachObject calls fn with the keys and values of each object in f, and
// its line.
func (t *tableLoad) eachObject(f *os.File, lines bool, fn func(keys []string, cells []cell, at int64) error) error {
	r := bufio.NewReaderSize(&countingReader{r: f, n: &t.prog.Bytes}, 256<<10)
	if head, _ := r.Peek(3); bytes.Equal(head, []byte{0xEF, 0xBB, 0xBF}) {
		r.Discard(3)
	}
	if lines {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxLine)
		var n int64
		for sc.Scan() {
			n++
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			keys, cells, err := object(line)
			if err != nil {
				return &InputError{File: t.file, Line: n, Msg: err.Error()}
			}
			if err := fn(keys, cells, n); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return &InputError{File: t.file, Line: n + 1, Msg: "line too long"}
			}
			return fmt.Errorf("read %s: %w", t.file, err)
		}
		return nil
	}
	dec := json.NewDecoder(r)
	lineOf := func(off int64) int64 { return lineAt(t.file, off) }
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return &InputError{File: t.file, Msg: "is empty: a JSON array of objects was expected"}
		}
		return &InputError{File: t.file, Line: lineOf(dec.InputOffset()), Msg: jsonMsg(err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &InputError{File: t.file, Line: 1, Msg: "is not a JSON array: an array of objects ([{...}, {...}]) was expected (for one object per line, name the file .jsonl)"}
	}
	for dec.More() {
		at := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			off := dec.InputOffset()
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = se.Offset
			}
			return &InputError{File: t.file, Line: lineOf(off), Msg: jsonMsg(err)}
		}
		keys, cells, err := object(raw)
		if err != nil {
			return &InputError{File: t.file, Line: lineOf(at + 1), Msg: err.Error()}
		}
		if err := fn(keys, cells, lineOf(at+1)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return &InputError{File: t.file, Line: lineOf(dec.InputOffset()), Msg: jsonMsg(err)}
	}
	return nil
}

// maxLine is the longest line of JSON Lines read.
const maxLine = 64 << 20

func jsonMsg(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "the JSON ends too early (is the file complete?)"
	}
	return "invalid JSON: " + err.Error()
}

// lineAt counts the lines of file up to byte off, for messages. It
// returns 0 when the file cannot be read.
func lineAt(file string, off int64) int64 {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := int64(1)
	buf := make([]byte, 64<<10)
	for off > 0 {
		k, err := f.Read(buf[:min(int64(len(buf)), off)])
		n += int64(bytes.Count(buf[:k], []byte("\n")))
		off -= int64(k)
		if err != nil {
			break
		}
	}
	return n
}

// object reads one JSON object's keys and values.
func object(raw []byte) ([]string, []cell, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, errors.New(jsonMsg(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("a JSON object was expected, not %s", clipJSON(raw))
	}
	var keys []string
	var cells []cell
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, errors.New(jsonMsg(err))
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, errors.New(jsonMsg(err))
		}
		c, err := jsonCell(v)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		cells = append(cells, c)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, errors.New(jsonMsg(err))
	}
	return keys, cells, nil
}

func jsonCell(v json.RawMessage) (cell, error) {
	switch v[0] {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return cell{}, errors.New(jsonMsg(err))
		}
		return cell{b: []byte(s), k: kString}, nil
	case 't', 'f':
		return cell{b: v, k: kBool}, nil
	case 'n':
		return cell{k: kNull}, nil
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			v = b.Bytes()
		}
		return cell{b: v, k: kJSON}, nil
	}
	return cell{b: v, k: kNumber}, nil
}

func clipJSON(raw []byte) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
