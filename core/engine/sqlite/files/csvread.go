package files

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// csvReader reads RFC 4180 records: fields separated by sep, a field in
// double quotes may hold the separator, newlines and doubled quotes, and
// an empty line is skipped. A line without a quote is split without
// looking at each byte twice, its fields slices of the line read. A
// record's fields are valid until the next read: whoever keeps them
// copies them (insert does, into its batch).
type csvReader struct {
	br    *bufio.Reader
	sep   byte
	line  int64  // lines read so far
	rec   []byte // the record being read, quotes removed
	ends  []int  // where each field of rec ends
	cells []cell // the last record's fields, reused
	long  []byte // a line longer than br's buffer
}

// csvError is a record that is not valid CSV, and the line it starts on.
type csvError struct {
	line int64
	msg  string
}

func (e *csvError) Error() string { return e.msg }

var errQuote = `extraneous or missing " in quoted-field`

// readLine returns the next line with its newline, valid until the next
// call.
func (r *csvReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if len(line) > 0 && err == io.EOF {
		err = nil
	}
	if len(line) > 0 {
		r.line++
	}
	return line, err
}

// trimEOL drops a line's \n or \r\n.
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// read returns the next record's fields, valid until the next call, and
// the line it starts on; io.EOF at the end.
func (r *csvReader) read() ([]cell, int64, error) {
	var line []byte
	for {
		l, err := r.readLine()
		if err != nil {
			return nil, 0, err
		}
		if line = trimEOL(l); len(line) > 0 {
			break
		}
	}
	start := r.line
	r.cells = r.cells[:0]
	if bytes.IndexByte(line, '"') < 0 { // fields are slices of the line
		for {
			i := bytes.IndexByte(line, r.sep)
			if i < 0 {
				r.cells = append(r.cells, cell{b: line[:len(line):len(line)]})
				return r.cells, start, nil
			}
			r.cells = append(r.cells, cell{b: line[:i:i]})
			line = line[i+1:]
		}
	}
	r.rec, r.ends = r.rec[:0], r.ends[:0]
	if err := r.quoted(line, start); err != nil {
		return nil, start, err
	}
	from := 0
	for _, end := range r.ends {
		r.cells = append(r.cells, cell{b: r.rec[from:end:end]})
		from = end
	}
	return r.cells, start, nil
}

// quoted parses a record with quotes in it, reading more lines while a
// quoted field goes on.
func (r *csvReader) quoted(line []byte, start int64) error {
	for {
		if len(line) > 0 && line[0] == '"' { // a quoted field
			line = line[1:]
			for {
				i := bytes.IndexByte(line, '"')
				switch {
				case i < 0: // the field goes on past the line
					r.rec = append(r.rec, line...)
					r.rec = append(r.rec, '\n')
					l, err := r.readLine()
					if err != nil {
						if errors.Is(err, io.EOF) {
							return &csvError{start, errQuote}
						}
						return err
					}
					line = trimEOL(l)
					continue
				case i+1 < len(line) && line[i+1] == '"': // a doubled quote
					r.rec = append(r.rec, line[:i+1]...)
					line = line[i+2:]
					continue
				}
				r.rec = append(r.rec, line[:i]...)
				line = line[i+1:]
				break
			}
			switch {
			case len(line) == 0:
				r.ends = append(r.ends, len(r.rec))
				return nil
			case line[0] == r.sep:
				r.ends = append(r.ends, len(r.rec))
				line = line[1:]
				continue
			}
			return &csvError{r.line, errQuote}
		}
		i := bytes.IndexByte(line, r.sep)
		field := line
		if i >= 0 {
			field = line[:i]
		}
		if bytes.IndexByte(field, '"') >= 0 {
			return &csvError{r.line, `bare " in non-quoted-field`}
		}
		r.rec = append(r.rec, field...)
		r.ends = append(r.ends, len(r.rec))
		if i < 0 {
			return nil
		}
		line = line[i+1:]
	}
}
