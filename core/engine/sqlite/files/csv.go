package files

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// peekSize is how much of a file decides its encoding and delimiter.
const peekSize = 64 << 10

// decode returns a reader of r's text as UTF-8: a UTF-8 byte order mark
// is dropped, UTF-16 with a byte order mark is converted, and text that
// is not valid UTF-8 in its first 64 KiB is read as Latin-1 (with a
// note).
func (t *tableLoad) decode(r io.Reader) *bufio.Reader {
	br := bufio.NewReaderSize(r, 256<<10)
	head, _ := br.Peek(peekSize)
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
		return br
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return bufio.NewReaderSize(unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Reader(br), 256<<10)
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return bufio.NewReaderSize(unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Reader(br), 256<<10)
	}
	// A character cut at the end of the peek is not an error.
	check := head
	if len(head) == peekSize {
		for i := 0; i < utf8.UTFMax && len(check) > 0 && !utf8.RuneStart(check[len(check)-1]); i++ {
			check = check[:len(check)-1]
		}
		if len(check) > 0 {
			check = check[:len(check)-1]
		}
	}
	if !utf8.Valid(check) {
		t.l.Warn(t.file + ": not UTF-8 (no byte order mark, invalid UTF-8 in the first 64 KiB): read as Latin-1 (ISO 8859-1)")
		return bufio.NewReaderSize(charmap.ISO8859_1.NewDecoder().Reader(br), 256<<10)
	}
	return br
}

// delimiters are the field separators detected, in order of preference.
var delimiters = []byte{',', ';', '\t', '|'}

// detectDelimiter picks the separator that splits the first lines of
// text into the same number of fields (more than one), preferring the one
// that gives the most fields; a comma when none does.
func detectDelimiter(text []byte) rune {
	lines := splitLines(text, 50)
	best, bestN := byte(','), 0
	for _, d := range delimiters {
		n := -1
		for _, l := range lines {
			c := countOutsideQuotes(l, d)
			if n == -1 {
				n = c
			} else if c != n {
				n = 0
				break
			}
		}
		if n > bestN {
			best, bestN = d, n
		}
	}
	if bestN == 0 { // no separator is consistent: take the commonest in the first line
		for _, d := range delimiters {
			if len(lines) > 0 {
				if c := countOutsideQuotes(lines[0], d); c > bestN {
					best, bestN = d, c
				}
			}
		}
	}
	return rune(best)
}

// splitLines returns up to n complete records of text (a newline inside
// quotes does not end one).
func splitLines(text []byte, n int) [][]byte {
	var out [][]byte
	quoted, start := false, 0
	for i, c := range text {
		switch c {
		case '"':
			quoted = !quoted
		case '\n':
			if !quoted {
				l := bytes.TrimSuffix(text[start:i], []byte("\r"))
				if len(bytes.TrimSpace(l)) > 0 {
					out = append(out, l)
				}
				start = i + 1
				if len(out) == n {
					return out
				}
			}
		}
	}
	if start == 0 && len(text) < peekSize && len(bytes.TrimSpace(text)) > 0 { // one line, no newline
		out = append(out, text)
	}
	return out
}

func countOutsideQuotes(line []byte, d byte) int {
	n, quoted := 0, false
	for _, c := range line {
		if c == '"' {
			quoted = !quoted
		} else if c == d && !quoted {
			n++
		}
	}
	return n
}

// csv loads delimited text; delim 0 detects the separator.
func (t *tableLoad) csv(r io.Reader, delim rune) error {
	br := t.decode(r)
	if delim == 0 {
		head, _ := br.Peek(peekSize)
		delim = detectDelimiter(head)
	}
	cr := &csvReader{br: br, sep: byte(delim)}
	read := func() ([]cell, int64, error) {
		cells, at, err := cr.read()
		if err != nil {
			var ce *csvError
			if errors.As(err, &ce) {
				return nil, ce.line, &InputError{File: t.file, Line: ce.line, Msg: ce.msg + " (check the quoting: a field with a quote in it is written \"like \"\"this\"\"\")"}
			}
			if err == io.EOF {
				return nil, 0, err
			}
			return nil, 0, fmt.Errorf("read %s: %w", t.file, err)
		}
		return cells, at, nil
	}
	first, firstAt, err := read()
	if err == io.EOF {
		return &InputError{File: t.file, Msg: "is empty: a header row and rows of data were expected"}
	}
	if err != nil {
		return err
	}
	header := make([]string, len(first))
	firstCells := keep(first)
	for i, c := range first {
		header[i] = string(c.b)
	}
	var sample []row
	for len(sample) < sampleRows {
		cells, at, err := read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sample = append(sample, row{cells: keep(cells), at: at})
	}
	width := len(header)
	for _, r := range sample {
		width = max(width, len(r.cells))
	}
	t.cols = columnNames(make([]string, width))
	t.inferTypes(sample)
	if t.headerless(header) {
		sample = append([]row{{cells: firstCells, at: firstAt}}, sample...)
	} else {
		if len(header) < width {
			for _, r := range sample {
				if len(r.cells) > len(header) {
					return t.tooWide(len(r.cells), len(header), r.at)
				}
			}
		}
		types := make([]string, len(t.cols))
		for i, c := range t.cols {
			types[i] = c.typ
		}
		t.cols = columnNames(header)
		for i, c := range t.cols {
			c.typ = types[i]
		}
	}
	if err := t.create(); err != nil {
		return err
	}
	return t.finish(t.csvRows(sample, read))
}

// keep copies cells whose bytes are valid only until the next read.
func keep(cells []cell) []cell {
	n := 0
	for _, c := range cells {
		n += len(c.b)
	}
	buf := make([]byte, 0, n)
	out := make([]cell, len(cells))
	for i, c := range cells {
		buf = append(buf, c.b...)
		out[i] = cell{b: buf[len(buf)-len(c.b):], k: c.k}
	}
	return out
}

// csvRows inserts the sampled rows, then the rest.
func (t *tableLoad) csvRows(sample []row, read func() ([]cell, int64, error)) error {
	for _, r := range sample {
		if err := t.insert(r.cells, r.at); err != nil {
			return err
		}
	}
	for {
		cells, at, err := read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(cells) > len(t.cols) {
			return t.tooWide(len(cells), len(t.cols), at)
		}
		if err := t.insert(cells, at); err != nil {
			return err
		}
	}
}

func (t *tableLoad) tooWide(n, want int, at int64) error {
	return &InputError{File: t.file, Line: at, Msg: fmt.Sprintf("%d fields, but the header has %d (is a separator inside an unquoted field?)", n, want)}
}

// headerless reports whether the first row is data rather than names:
// every column whose sampled values have a type other than text has a
// value of that type in the first row.
func (t *tableLoad) headerless(first []string) bool {
	typed := 0
	for i, c := range t.cols {
		if c.typ == typeText {
			continue
		}
		typed++
		if i >= len(first) || first[i] == "" {
			return false
		}
		g := newGuess()
		g.add(cell{b: []byte(first[i])})
		if got := g.typ(); got != c.typ && !(c.typ == typeReal && got == typeInteger) && !(c.typ == typeDatetime && got == typeDate) {
			return false
		}
	}
	return typed > 0
}
