package engine

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/tablewise/tablewise/core/query"
)

// Int64 reads a count or an id from a row of any engine: an int64 as it
// is, a float64 truncated, anything else (NULL included) as 0.
func Int64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

// Float64 reads a number from a row of any engine: an int64 or a float64
// as a float64, text that parses as a number (a NUMERIC's digits) parsed,
// anything else (NULL included) as 0.
func Float64(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

// String reads a name or a text from a row of any engine: a string as it
// is, a blob's bytes as text, NULL as "", anything else as fmt.Sprint
// writes it.
func String(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}

// TrimPrefixes is s without every leading match of re, as a statement
// without the EXPLAIN prefixes it repeats.
func TrimPrefixes(re *regexp.Regexp, s string) string {
	for {
		loc := re.FindStringIndex(s)
		if loc == nil {
			return s
		}
		s = s[loc[1]:]
	}
}

// RowOf is a cursor's current row: the Value of each of its n columns.
func RowOf[C interface{ Value(i int) any }](c C, n int) query.Row {
	r := make(query.Row, n)
	for i := range r {
		r[i] = c.Value(i)
	}
	return r
}
