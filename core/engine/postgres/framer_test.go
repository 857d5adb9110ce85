package postgres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/tablewise/tablewise/core/query"
)

// message is a backend message of type typ with body.
func message(typ byte, body string) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(len(body)+4))
	return append(b, body...)
}

// TestFramerRefusesAtHeader: the framer passes on every byte before the
// header of a message it refuses (and of that header, at most the bytes
// read before it was whole: never enough for pgproto3 to read a length),
// however the reads split the stream, and refuses a row past its bound
// but not an error of the same length.
func TestFramerRefusesAtHeader(t *testing.T) {
	small := append(message('D', "abc"), message('E', string(bytes.Repeat([]byte{'e'}, 100)))...)
	for _, c := range []struct {
		name string
		next []byte
		want error
	}{
		{"row", message('D', string(bytes.Repeat([]byte{'r'}, 100))), &pgproto3.ExceededMaxBodyLenErr{}},
		{"row at its bound", message('D', string(bytes.Repeat([]byte{'r'}, 10))), nil},
	} {
		stream := append(append([]byte{}, small...), c.next...)
		for _, split := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"one byte", iotest.OneByteReader}, {"halves", iotest.HalfReader}} {
			f := &framer{r: split.r(bytes.NewReader(stream))}
			f.rowMax.Store(10)
			got, err := io.ReadAll(f)
			switch {
			case c.want == nil && (err != nil || !bytes.Equal(got, stream)):
				t.Errorf("%s, %s: %d bytes of %d, %v", c.name, split.name, len(got), len(stream), err)
			case c.want != nil && (!errors.As(err, new(*pgproto3.ExceededMaxBodyLenErr)) || !bytes.HasPrefix(got, small) || len(got) >= len(small)+5):
				t.Errorf("%s, %s: %d bytes (want %d), %v", c.name, split.name, len(got), len(small), err)
			}
		}
	}
	// An error is refused only past errorMaxBytes, and not as a row.
	f := &framer{r: bytes.NewReader(message('E', string(make([]byte, errorMaxBytes+1))))}
	f.rowMax.Store(10)
	var lim *query.LimitError
	if _, err := io.ReadAll(f); !errors.As(err, &lim) || lim.Kind != "memory" {
		t.Errorf("an error past errorMaxBytes: %v", err)
	}
}
