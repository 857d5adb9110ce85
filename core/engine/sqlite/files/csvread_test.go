package files

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// readAll reads text with csvReader: the records, and the first error.
func readAll(text string, sep byte) ([][]string, []int64, error) {
	r := &csvReader{br: bufio.NewReaderSize(strings.NewReader(text), 16), sep: sep}
	var out [][]string
	var lines []int64
	for {
		cells, at, err := r.read()
		if err == io.EOF {
			return out, lines, nil
		}
		if err != nil {
			return out, lines, err
		}
		rec := make([]string, len(cells))
		for i, c := range cells {
			rec[i] = string(c.b)
		}
		out = append(out, rec)
		lines = append(lines, at)
	}
}

// stdlib reads text with encoding/csv as tablewise used it.
func stdlib(text string, sep byte) ([][]string, []int64, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = rune(sep)
	r.FieldsPerRecord = -1
	var out [][]string
	var lines []int64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, lines, nil
		}
		if err != nil {
			return out, lines, err
		}
		line, _ := r.FieldPos(0)
		out = append(out, rec)
		lines = append(lines, int64(line))
	}
}

func TestCSVReaderMatchesEncodingCSV(t *testing.T) {
	cases := []string{
		"a,b,c\n1,2,3\n",
		"a,b\r\n1,2\r\n",
		"a,b\n\n\n1,2\n",                         // empty lines are skipped
		"a,b\n1,2",                               // no final newline
		"a,\"b,c\",d\n",                          // separator in quotes
		"\"a \"\"quoted\"\" word\",x\n",          // doubled quotes
		"\"multi\nline\",x\n\"and\r\nCRLF\",y\n", // newlines in quotes
		"a,,c,\n,,\n",                            // empty fields
		"\"\",x\n",                               // an empty quoted field
		strings.Repeat("long", 100) + ",x\n",     // a line past the reader's buffer
		"only\n",
	}
	bad := []string{
		"a,b\n1,x\"y\n",        // bare quote
		"a,b\n1,\"open\n2,3\n", // never closed
		"a,b\n\"x\"y,2\n",      // text after a closing quote
	}
	for _, text := range cases {
		want, wantLines, werr := stdlib(text, ',')
		got, gotLines, gerr := readAll(text, ',')
		if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotLines, wantLines) {
			t.Errorf("%q:\n got %q %v (%v)\nwant %q %v (%v)", text, got, gotLines, gerr, want, wantLines, werr)
		}
	}
	for _, text := range bad {
		_, _, werr := stdlib(text, ',')
		_, _, gerr := readAll(text, ',')
		pe, ok := werr.(*csv.ParseError)
		ce, ok2 := gerr.(*csvError)
		if !ok || !ok2 || ce.msg != pe.Err.Error() || ce.line != int64(pe.StartLine) && ce.line != int64(pe.Line) {
			t.Errorf("%q: got %v, encoding/csv %v", text, gerr, werr)
		}
	}
	// Random records written by encoding/csv read back the same.
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "é", " ", ",", ";", "\"", "\n", "\r\n", "1", "-", "\t"}
	for i := range 300 {
		sep := []byte{',', ';', '\t', '|'}[i%4]
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Comma = rune(sep)
		for range 1 + rng.IntN(5) {
			rec := make([]string, 1+rng.IntN(4))
			for j := range rec {
				var b strings.Builder
				for range rng.IntN(6) {
					b.WriteString(alphabet[rng.IntN(len(alphabet))])
				}
				rec[j] = b.String()
			}
			w.Write(rec)
		}
		w.Flush()
		want, wantLines, werr := stdlib(buf.String(), sep)
		got, gotLines, gerr := readAll(buf.String(), sep)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotLines, wantLines) {
			t.Fatalf("%q:\n got %q %v (%v)\nwant %q %v (%v)", buf.String(), got, gotLines, gerr, want, wantLines, werr)
		}
	}
}
