package files

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tablewise/tablewise/core/engine/sqlite"
)

// kind says what a cell is known to be before its column's type is
// inferred: CSV gives only text; JSON and Parquet say more.
type kind uint8

const (
	kText   kind = iota // text of unknown type (a CSV field): anything may be inferred
	kString             // a JSON string: a date or datetime may be inferred, never a number
	kNumber             // a JSON number
	kBool               // true or false
	kNull               // null, or an empty CSV field
	kJSON               // a JSON object or array, kept as its JSON text
)

// cell is one value as read.
type cell struct {
	b []byte
	k kind
}

// Declared types of the columns tablewise creates.
const (
	typeInteger  = "INTEGER"
	typeReal     = "REAL"
	typeBoolean  = "BOOLEAN"
	typeDate     = "DATE"
	typeDatetime = "DATETIME"
	typeText     = "TEXT"
)

// guess accumulates what a column's sampled values could all be.
type guess struct {
	seen                                     int
	canInt, canReal, canBool, canDate, canDT bool
}

func newGuess() guess {
	return guess{canInt: true, canReal: true, canBool: true, canDate: true, canDT: true}
}

// add narrows g by one cell.
func (g *guess) add(c cell) {
	if c.k == kNull || c.k == kText && len(c.b) == 0 {
		return
	}
	g.seen++
	switch c.k {
	case kNumber:
		g.canBool, g.canDate, g.canDT = false, false, false
		g.canInt = g.canInt && isInt(c.b)
	case kBool:
		g.canInt, g.canReal, g.canDate, g.canDT = false, false, false, false
	case kJSON:
		*g = guess{seen: g.seen}
	case kString:
		g.canInt, g.canReal, g.canBool = false, false, false
		g.dates(c.b)
	default:
		if g.canInt && !isInt(c.b) {
			g.canInt = false
		}
		if g.canReal && !g.canInt && !isReal(c.b) {
			g.canReal = false
		}
		if g.canBool {
			_, ok := parseBool(c.b)
			g.canBool = ok
		}
		g.dates(c.b)
	}
}

func (g *guess) dates(b []byte) {
	if g.canDate && !isDate(b) {
		g.canDate = false
	}
	if g.canDT && !isDate(b) && !isDatetime(b) {
		g.canDT = false
	}
}

// typ is the declared type the sampled values support.
func (g guess) typ() string {
	switch {
	case g.seen == 0:
		return typeText
	case g.canInt:
		return typeInteger
	case g.canReal:
		return typeReal
	case g.canBool:
		return typeBoolean
	case g.canDate:
		return typeDate
	case g.canDT:
		return typeDatetime
	}
	return typeText
}

// str views b as a string without copying, for the parsers.
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// isInt reports whether b is a decimal integer that fits in 64 bits,
// without a leading zero (a code such as 007 or a ZIP code stays text).
func isInt(b []byte) bool {
	_, ok := parseInt(b)
	return ok
}

func parseInt(b []byte) (int64, bool) {
	d := b
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 1 && d[0] == '0' {
		return 0, false
	}
	if len(d) < 19 {
		var n int64
		for _, c := range d {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int64(c-'0')
		}
		if b[0] == '-' {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(str(b), 10, 64)
	return n, err == nil
}

// isReal reports whether b is a decimal number (digits, a point, an
// exponent): not NaN, Inf, hexadecimal or a number with a leading zero.
func isReal(b []byte) bool {
	_, ok := parseReal(b)
	return ok
}

func parseReal(b []byte) (float64, bool) {
	digits := false
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == 'e' || c == 'E':
		case c == '-' || c == '+':
			if i > 0 && b[i-1] != 'e' && b[i-1] != 'E' {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	d := b
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		d = d[1:]
	}
	if !digits || len(d) > 1 && d[0] == '0' && d[1] != '.' && d[1] != 'e' && d[1] != 'E' {
		return 0, false
	}
	f, err := strconv.ParseFloat(str(b), 64)
	return f, err == nil
}

func parseBool(b []byte) (bool, bool) {
	switch {
	case len(b) == 4 && bytes.EqualFold(b, []byte("true")):
		return true, true
	case len(b) == 5 && bytes.EqualFold(b, []byte("false")):
		return false, true
	}
	return false, false
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDate reports whether b is an ISO 8601 date, YYYY-MM-DD, that exists.
func isDate(b []byte) bool {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' || !digits(b[:4]) || !digits(b[5:7]) || !digits(b[8:]) {
		return false
	}
	m := int(b[5]-'0')*10 + int(b[6]-'0')
	d := int(b[8]-'0')*10 + int(b[9]-'0')
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	y, _ := strconv.Atoi(str(b[:4]))
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// isDatetime reports whether b is an ISO 8601 date and time:
// YYYY-MM-DD, then T or a space, HH:MM, optional :SS and fraction, and an
// optional Z or ±HH:MM.
func isDatetime(b []byte) bool {
	if len(b) < 16 || !isDate(b[:10]) || b[10] != 'T' && b[10] != ' ' {
		return false
	}
	t := b[11:]
	hm := func(p []byte) bool {
		return len(p) >= 5 && digits(p[:2]) && p[2] == ':' && digits(p[3:5]) &&
			(p[0]-'0')*10+(p[1]-'0') < 24 && (p[3]-'0')*10+(p[4]-'0') < 60
	}
	if !hm(t) {
		return false
	}
	t = t[5:]
	if len(t) >= 3 && t[0] == ':' && digits(t[1:3]) && (t[1]-'0')*10+(t[2]-'0') < 61 {
		t = t[3:]
		if len(t) > 1 && t[0] == '.' {
			i := 1
			for i < len(t) && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			if i == 1 {
				return false
			}
			t = t[i:]
		}
	}
	switch {
	case len(t) == 0:
		return true
	case len(t) == 1 && t[0] == 'Z':
		return true
	case len(t) == 6 && (t[0] == '+' || t[0] == '-') && hm(t[1:]):
		return true
	}
	return false
}

// column is one column being loaded: its name, its type and how many
// values did not fit the type (kept as text).
type column struct {
	name    string
	typ     string
	conv    uint8 // how value converts its cells, from typ (set by create)
	misfits int64
	first   int64 // line (or record) of the first misfit
}

// Conversions of a column's cells (column.conv).
const (
	convText = iota
	convInteger
	convReal
	convBoolean
	convDate
	convDatetime
)

// convOf is the conversion of a column of declared type typ.
func convOf(typ string) uint8 {
	switch typ {
	case typeInteger:
		return convInteger
	case typeReal:
		return convReal
	case typeBoolean:
		return convBoolean
	case typeDate:
		return convDate
	case typeDatetime:
		return convDatetime
	}
	return convText
}

// value converts c for a column of conversion conv, by the column's
// type; a value that does not fit is kept as text (SQLite stores any
// value in any column): misfit says so. latin1 says the text was not
// UTF-8 and was read as Latin-1.
func value(conv uint8, c cell) (v sqlite.Value, misfit, latin1 bool) {
	if c.k == kNull || c.k == kText && len(c.b) == 0 {
		return sqlite.Value{}, false, false
	}
	switch conv {
	case convInteger:
		if c.k == kText || c.k == kNumber {
			if n, ok := parseInt(c.b); ok {
				return sqlite.Value{Kind: sqlite.Int, Int: n}, false, false
			}
			if f, ok := parseReal(c.b); ok {
				return sqlite.Value{Kind: sqlite.Float, Float: f}, false, false
			}
		}
	case convReal:
		if c.k == kText || c.k == kNumber {
			if f, ok := parseReal(c.b); ok {
				return sqlite.Value{Kind: sqlite.Float, Float: f}, false, false
			}
		}
	case convBoolean:
		if c.k == kText || c.k == kBool {
			if v, ok := parseBool(c.b); ok {
				if v {
					return sqlite.Value{Kind: sqlite.Int, Int: 1}, false, false
				}
				return sqlite.Value{Kind: sqlite.Int}, false, false
			}
		}
	case convDate:
		if (c.k == kText || c.k == kString) && isDate(c.b) {
			return sqlite.Value{Kind: sqlite.Text, Text: c.b}, false, false
		}
	case convDatetime:
		if (c.k == kText || c.k == kString) && (isDatetime(c.b) || isDate(c.b)) {
			return sqlite.Value{Kind: sqlite.Text, Text: c.b}, false, false
		}
	default:
		v, latin1 = text(c.b)
		return v, false, latin1
	}
	v, latin1 = text(c.b)
	return v, true, latin1
}

// text is b as text; bytes that are not UTF-8 are read as Latin-1
// (every byte is a character there), and latin1 says so.
func text(b []byte) (v sqlite.Value, latin1 bool) {
	if !utf8.Valid(b) {
		return sqlite.Value{Kind: sqlite.Text, Text: latin1ToUTF8(b)}, true
	}
	return sqlite.Value{Kind: sqlite.Text, Text: b}, false
}

func latin1ToUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)*2)
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}
