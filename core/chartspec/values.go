package chartspec

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/query"
)

// ToFloat returns v as a finite number: int64 and float64 values, and text
// that looks like a number ("12", "-3.5", "1e6", "1,234.50"). NULL, blobs,
// other text and non-finite numbers report false.
func ToFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case int:
		return float64(v), true
	case int32:
		return float64(v), true
	case float32:
		f := float64(v)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case string:
		return parseNumber(v)
	}
	return 0, false
}

// isStoredNumber reports whether v is stored as a number rather than text.
func isStoredNumber(v any) bool {
	switch v.(type) {
	case int64, float64, int, int32, float32:
		return true
	}
	return false
}

// parseNumber parses numeric-looking text. It accepts an optional sign,
// digits with an optional fraction and exponent, and thousands separators in
// groups of three; it refuses what strconv.ParseFloat would also take but
// people do not write as numbers (hex, "inf", "nan", underscores).
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return 0, false
	}
	if strings.IndexByte(s, ',') >= 0 {
		if !validThousands(s) {
			return 0, false
		}
		s = strings.ReplaceAll(s, ",", "")
	}
	digits, dot, exp := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '+' || c == '-':
			if i != 0 && s[i-1] != 'e' && s[i-1] != 'E' {
				return 0, false
			}
		case c == '.':
			if dot || exp {
				return 0, false
			}
			dot = true
		case c == 'e' || c == 'E':
			if exp || digits == 0 {
				return 0, false
			}
			exp = true
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// validThousands reports whether the integer part of s is grouped in threes
// ("1,234", "-12,345,678.9").
func validThousands(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexAny(s, ".eE"); i >= 0 {
		if strings.IndexByte(s[i:], ',') >= 0 {
			return false
		}
		s = s[:i]
	}
	groups := strings.Split(s, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// ToTime parses date-looking text: YYYY-MM, YYYY-MM-DD, and YYYY-MM-DD
// HH:MM[:SS[.fff]] with a space or "T" and an optional "Z" or UTC offset.
// Times without a zone are taken as UTC.
func ToTime(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v, true
	case string:
		return parseDate(v)
	}
	return time.Time{}, false
}

func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 7 || len(s) > 35 || !isDigits(s[:4]) || s[4] != '-' {
		return time.Time{}, false
	}
	switch {
	case len(s) == 7:
		t, err := time.Parse("2006-01", s)
		return t, err == nil
	case len(s) == 10:
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	}
	if len(s) < 16 || (s[10] != ' ' && s[10] != 'T') {
		return time.Time{}, false
	}
	b := []byte(s)
	b[10] = 'T'
	s = string(b)
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var dateTimeLayouts = []string{
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02T15:04:05.999999999",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04Z07:00",
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Label is the category label of a value: text as it is (control
// characters replaced), numbers formatted plainly, NULL as "(null)".
func Label(v any) string {
	switch v := v.(type) {
	case nil:
		return "(null)"
	case string:
		return Sanitize(v)
	case []byte:
		return "(blob " + strconv.Itoa(len(v)) + " bytes)"
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case time.Time:
		return v.Format(time.DateOnly)
	}
	f, ok := ToFloat(v)
	if ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "?"
}

// Sanitize makes text from the database safe to draw and to print to a
// terminal: control characters (newlines, escapes, C1 controls) and invalid
// UTF-8 become spaces, and runs of spaces are collapsed.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// ColumnIndex finds a result column by name: an exact match first, then a
// case-insensitive one (SQLite identifiers are case-insensitive).
func ColumnIndex(cols []query.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// storageClass names the SQLite storage class of a value.
func storageClass(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case int64, int, int32:
		return "INTEGER"
	case float64, float32:
		return "REAL"
	case string:
		return "TEXT"
	case []byte:
		return "BLOB"
	}
	return "value"
}

// Cell returns row[i], or nil when the row is short.
func Cell(r query.Row, i int) any {
	if i < 0 || i >= len(r) {
		return nil
	}
	return r[i]
}
