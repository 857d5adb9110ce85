// Package export writes query results as they stream: CSV (RFC 4180, safe
// against formula injection), JSON, JSON Lines and Markdown.
package export

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// Writer is a query.Sink that also closes the output when the run ends.
type Writer interface {
	query.Sink
	// Finish writes what follows the rows and flushes. sum may be nil when
	// the run failed before it began.
	Finish(sum *query.Summary) error
}

// Formats lists the names New accepts.
var Formats = []string{"csv", "json", "jsonl", "markdown"}

// Options tune the writers.
type Options struct {
	// Raw turns off the CSV formula-injection guard.
	Raw bool
}

// New returns a writer for format.
func New(format string, w io.Writer, opt Options) (Writer, error) {
	switch format {
	case "csv":
		return NewCSV(w, opt.Raw), nil
	case "json":
		return NewJSON(w), nil
	case "jsonl", "ndjson":
		return NewJSONL(w), nil
	case "markdown", "md":
		return NewMarkdown(w), nil
	}
	return nil, &FormatError{Format: format}
}

// FormatError is a format New does not know.
type FormatError struct{ Format string }

func (e *FormatError) Error() string { return format.WithHint(e.Message(), e.Hint()) }

// Message names the unknown format.
func (e *FormatError) Message() string { return fmt.Sprintf("unknown format %q", e.Format) }

// Hint lists the formats there are.
func (e *FormatError) Hint() string { return "choose " + strings.Join(Formats, ", ") }

// buffered accumulates output and flushes in large writes.
type buffered struct {
	w   io.Writer
	buf []byte
	err error
}

const flushAt = 64 << 10

func (b *buffered) maybeFlush() error {
	if len(b.buf) >= flushAt {
		return b.flush()
	}
	return nil
}

func (b *buffered) flush() error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf) > 0 {
		_, b.err = b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
	return b.err
}

// appendBlob renders a blob for text formats: 0x followed by hex.
func appendBlob(b, blob []byte) []byte {
	b = append(b, "0x"...)
	return hex.AppendEncode(b, blob)
}

// ---- CSV ----

type csvWriter struct {
	buffered
	raw bool
}

// NewCSV writes RFC 4180 CSV with a header row and CRLF line ends. Text is
// written as valid UTF-8: an invalid byte, and a NUL byte (which CSV readers
// choke on), become U+FFFD; other characters are kept. Unless raw, a text
// cell a spreadsheet could read as a formula (see formulaLike) is prefixed
// with a single quote (OWASP).
func NewCSV(w io.Writer, raw bool) Writer {
	return &csvWriter{buffered: buffered{w: w, buf: make([]byte, 0, flushAt+4096)}, raw: raw}
}

func (c *csvWriter) Begin(cols []query.Column) error {
	for i, col := range cols {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = c.appendText(c.buf, []byte(col.Name))
	}
	c.buf = append(c.buf, '\r', '\n')
	return c.maybeFlush()
}

func (c *csvWriter) Row(cur query.Cursor) error {
	b := c.buf
	for i, n := 0, cur.Len(); i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		switch cur.Kind(i) {
		case query.Integer:
			b = strconv.AppendInt(b, cur.Int64(i), 10)
		case query.Real:
			b = format.AppendFloat(b, cur.Float64(i))
		case query.Text:
			b = c.appendText(b, cur.Bytes(i))
		case query.Blob:
			b = appendBlob(b, cur.Bytes(i))
		}
	}
	c.buf = append(b, '\r', '\n')
	return c.maybeFlush()
}

// csvPlain marks the bytes a text cell can hold and still be written as it
// is: ASCII other than NUL, comma, double quote, CR and LF.
var csvPlain = func() (t [256]bool) {
	for ch := 1; ch < utf8.RuneSelf; ch++ {
		t[ch] = ch != ',' && ch != '"' && ch != '\n' && ch != '\r'
	}
	return t
}()

func (c *csvWriter) appendText(b, s []byte) []byte {
	formula := !c.raw && formulaLike(s)
	plain := true
	for _, ch := range s {
		if !csvPlain[ch] {
			plain = false
			break
		}
	}
	if plain { // the common case: one pass, one copy
		if formula {
			b = append(b, '\'')
		}
		return append(b, s...)
	}
	quote := false
	for _, ch := range s {
		if ch == ',' || ch == '"' || ch == '\n' || ch == '\r' {
			quote = true
			break
		}
	}
	if quote {
		b = append(b, '"')
	}
	if formula {
		b = append(b, '\'')
	}
	if !quote && bytes.IndexByte(s, 0) < 0 && utf8.Valid(s) {
		return append(b, s...) // the common case, in one copy
	}
	for i := 0; i < len(s); {
		ch := s[i]
		if ch < utf8.RuneSelf {
			switch {
			case ch == '"':
				b = append(b, '"', '"')
			case ch == 0:
				b = append(b, "\ufffd"...)
			default:
				b = append(b, ch)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	if quote {
		b = append(b, '"')
	}
	return b
}

// formulaLike says whether a spreadsheet could read text as a formula: it
// starts with a tab, CR or LF, or its first character after any leading
// whitespace (which Google Sheets, and LibreOffice when trimming spaces,
// drop) and invisible marks (BOM, zero-width space) is =, +, - or @, or one
// of their full-width forms (＝ ＋ － ＠), which some spreadsheets read in
// East Asian locales.
func formulaLike(s []byte) bool {
	if len(s) > 0 && s[0] < utf8.RuneSelf && !formulaStart[s[0]] {
		return false // the common case: text that starts with a letter or digit
	}
	if len(s) > 0 && (s[0] == '\t' || s[0] == '\r' || s[0] == '\n') {
		return true
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		switch r {
		case '=', '+', '-', '@', '＝', '＋', '－', '＠':
			return true
		case '\ufeff', '\u200b', '\u200c', '\u200d', '\u2060':
		default:
			if !unicode.IsSpace(r) {
				return false
			}
		}
		i += size
	}
	return false
}

// formulaStart marks the ASCII characters a formula, as formulaLike sees
// it, can start with: the triggers, and the whitespace it skips or stops
// at.
var formulaStart = func() (t [utf8.RuneSelf]bool) {
	for _, ch := range "=+-@\t\r\n" {
		t[ch] = true
	}
	for ch := range utf8.RuneSelf {
		t[ch] = t[ch] || unicode.IsSpace(rune(ch))
	}
	return t
}()

func (c *csvWriter) Finish(*query.Summary) error { return c.flush() }

// ---- JSON ----

// AppendJSONValue appends v (nil, int64, float64, string, []byte) as JSON,
// with types as sqlite3 -json gives them: integers stay integers, NULL is
// null. Blobs become base64 strings; infinite REALs become null (JSON has
// no infinity).
func AppendJSONValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return appendJSONFloat(b, x)
	case string:
		return appendJSONString(b, x)
	case []byte:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, x)
		return append(b, '"')
	}
	return appendJSONString(b, fmt.Sprint(v))
}

func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	return format.AppendFloat(b, f)
}

func appendCursorJSON(b []byte, cur query.Cursor, i int) []byte {
	switch cur.Kind(i) {
	case query.Integer:
		return strconv.AppendInt(b, cur.Int64(i), 10)
	case query.Real:
		return appendJSONFloat(b, cur.Float64(i))
	case query.Text:
		return appendJSONString(b, cur.Bytes(i))
	case query.Blob:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, cur.Bytes(i))
		return append(b, '"')
	}
	return append(b, "null"...)
}

const hexDigits = "0123456789abcdef"

func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+4, len(s))]))
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

type jsonWriter struct {
	buffered
	rows int
}

// NewJSON writes one object: {"columns":[{"name","type"}…],"rows":[[…]…],
// "row_count":N,"truncated":bool,"elapsed_ms":N,"sql":"…"}, streaming the
// rows as they come.
func NewJSON(w io.Writer) Writer { return &jsonWriter{buffered: buffered{w: w}} }

func (j *jsonWriter) Begin(cols []query.Column) error {
	j.buf = append(j.buf, `{"columns":[`...)
	for i, c := range cols {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = append(j.buf, `{"name":`...)
		j.buf = appendJSONString(j.buf, c.Name)
		j.buf = append(j.buf, `,"type":`...)
		j.buf = appendJSONString(j.buf, c.Type)
		j.buf = append(j.buf, '}')
	}
	j.buf = append(j.buf, `],"rows":[`...)
	return nil
}

func (j *jsonWriter) Row(cur query.Cursor) error {
	if j.rows > 0 {
		j.buf = append(j.buf, ',')
	}
	j.rows++
	j.buf = append(j.buf, '[')
	for i := 0; i < cur.Len(); i++ {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = appendCursorJSON(j.buf, cur, i)
	}
	j.buf = append(j.buf, ']')
	return j.maybeFlush()
}

func (j *jsonWriter) Finish(sum *query.Summary) error {
	if sum == nil {
		return j.flush()
	}
	if len(j.buf) == 0 && j.rows == 0 && sum.Columns == nil {
		j.Begin(nil)
	}
	j.buf = append(j.buf, `],"row_count":`...)
	j.buf = strconv.AppendInt(j.buf, int64(sum.RowCount), 10)
	j.buf = append(j.buf, `,"truncated":`...)
	j.buf = strconv.AppendBool(j.buf, sum.Truncated)
	j.buf = append(j.buf, `,"elapsed_ms":`...)
	j.buf = strconv.AppendInt(j.buf, sum.Elapsed.Milliseconds(), 10)
	j.buf = append(j.buf, `,"sql":`...)
	j.buf = appendJSONString(j.buf, sum.SQL)
	j.buf = append(j.buf, "}\n"...)
	return j.flush()
}

type jsonlWriter struct {
	buffered
	keys [][]byte
}

// NewJSONL writes one JSON object per row, keyed by column name.
func NewJSONL(w io.Writer) Writer { return &jsonlWriter{buffered: buffered{w: w}} }

func (j *jsonlWriter) Begin(cols []query.Column) error {
	seen := map[string]int{}
	for _, c := range cols {
		name := c.Name
		if n := seen[c.Name]; n > 0 {
			name = fmt.Sprintf("%s:%d", c.Name, n+1)
		}
		seen[c.Name]++
		j.keys = append(j.keys, appendJSONString(nil, name))
	}
	return nil
}

func (j *jsonlWriter) Row(cur query.Cursor) error {
	j.buf = append(j.buf, '{')
	for i := 0; i < cur.Len(); i++ {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = append(j.buf, j.keys[i]...)
		j.buf = append(j.buf, ':')
		j.buf = appendCursorJSON(j.buf, cur, i)
	}
	j.buf = append(j.buf, '}', '\n')
	return j.maybeFlush()
}

func (j *jsonlWriter) Finish(*query.Summary) error { return j.flush() }

// ---- Markdown ----

type mdWriter struct {
	buffered
	cols int
}

// NewMarkdown writes a GitHub-flavoured Markdown table. NULL shows as an
// empty cell; pipes are escaped, line breaks become <br>, and control
// characters and invalid UTF-8 are made visible (see appendMarkdown).
func NewMarkdown(w io.Writer) Writer { return &mdWriter{buffered: buffered{w: w}} }

func (m *mdWriter) Begin(cols []query.Column) error {
	m.cols = len(cols)
	m.buf = append(m.buf, '|')
	for _, c := range cols {
		m.buf = append(m.buf, ' ')
		m.buf = appendMarkdown(m.buf, c.Name)
		m.buf = append(m.buf, " |"...)
	}
	m.buf = append(m.buf, "\n|"...)
	for _, c := range cols {
		if format.IsNumericType(c.Type) {
			m.buf = append(m.buf, " ---: |"...)
		} else {
			m.buf = append(m.buf, " --- |"...)
		}
	}
	m.buf = append(m.buf, '\n')
	return nil
}

func (m *mdWriter) Row(cur query.Cursor) error {
	m.buf = append(m.buf, '|')
	for i := 0; i < cur.Len(); i++ {
		m.buf = append(m.buf, ' ')
		switch cur.Kind(i) {
		case query.Integer:
			m.buf = strconv.AppendInt(m.buf, cur.Int64(i), 10)
		case query.Real:
			m.buf = format.AppendFloat(m.buf, cur.Float64(i))
		case query.Text:
			m.buf = appendMarkdown(m.buf, string(cur.Bytes(i)))
		case query.Blob:
			m.buf = appendBlob(m.buf, cur.Bytes(i))
		}
		m.buf = append(m.buf, " |"...)
	}
	m.buf = append(m.buf, '\n')
	return m.maybeFlush()
}

// appendMarkdown appends s as the text of a table cell: pipes escaped, line
// breaks as <br>, and, as the output is for reading, control characters
// and invalid UTF-8 made visible (format.PrintableLine: ␛, ␀, �).
func appendMarkdown(b []byte, s string) []byte {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b = append(b, "<br>"...)
		}
		line = format.PrintableLine(line)
		for j := 0; j < len(line); j++ {
			if line[j] == '|' {
				b = append(b, '\\')
			}
			b = append(b, line[j])
		}
	}
	return b
}

func (m *mdWriter) Finish(*query.Summary) error { return m.flush() }
