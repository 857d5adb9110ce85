package format

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Count formats n with thousands separators: 11,887 and -1,234.
func Count(n int64) string {
	return string(appendGrouped(nil, strconv.FormatInt(n, 10)))
}

// Plural is "1 row" or "12,345 rows": n with thousands separators and word,
// with an "s" unless n is 1.
func Plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Count(n) + " " + word + "s"
}

// RowCount says how many rows a table holds: "11,887 rows", "~2,000 rows"
// (estimated), "? rows" (n < 0: unknown).
func RowCount(n int64, estimated bool) string {
	switch {
	case n < 0:
		return "? rows"
	case estimated:
		return "~" + Count(n) + " rows"
	}
	return Plural(n, "row")
}

// Bytes formats a size for people, in units of 1,024 with at most one
// decimal: 512 B, 1.5 KB, 100 KB, 12 MB, 2.1 GB.
func Bytes(n int64) string {
	unit := func(div float64, name string) string {
		return TrimZeros(strconv.FormatFloat(float64(n)/div, 'f', 1, 64)) + " " + name
	}
	switch {
	case n >= 1<<30:
		return unit(1<<30, "GB")
	case n >= 1<<20:
		return unit(1<<20, "MB")
	case n >= 1<<10:
		return unit(1<<10, "KB")
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Seconds formats a duration as seconds with one decimal: "0.4 s", "12.0 s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

// Number formats v with the given number of decimals (0 to 10) and
// thousands separators: Number(1234567.891, 2) == "1,234,567.89". A value
// that rounds to zero has no minus sign; magnitudes of 1e15 and beyond
// switch to exponent notation.
func Number(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	decimals = max(0, min(decimals, 10))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s == "-0" || strings.HasPrefix(s, "-0.") && strings.Trim(s[3:], "0") == "" {
		s = s[1:]
	}
	return string(appendGrouped(nil, s))
}

// Measure formats a measured value for a label: integers without decimals,
// other values with enough decimals to show about three significant digits
// (at most four), always with thousands separators.
func Measure(v float64) string {
	if v == math.Trunc(v) {
		return Number(v, 0)
	}
	a := math.Abs(v)
	switch {
	case a >= 100:
		return Number(v, 0)
	case a >= 10:
		return Number(v, 1)
	case a >= 1:
		return Number(v, 2)
	case a >= 0.01:
		return TrimZeros(Number(v, 3))
	}
	return TrimZeros(Number(v, 4))
}

// TrimZeros drops the trailing zeros of a decimal fraction, and the point
// when nothing follows it: "2.50" is "2.5", "3.00" is "3".
func TrimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// appendGrouped appends the decimal number s (an optional minus sign,
// digits, an optional fraction) with its integer digits grouped in threes.
func appendGrouped(b []byte, s string) []byte {
	if strings.HasPrefix(s, "-") {
		b = append(b, '-')
		s = s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	for i := 0; i < len(intPart); i++ {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, intPart[i])
	}
	return append(b, frac...)
}

// AppendFloat formats f as SQLite shows a REAL: the shortest text that reads
// back as the same float, with ".0" on whole numbers so a REAL never looks
// like an INTEGER.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e15) {
		return strconv.AppendFloat(b, f, 'e', -1, 64) // it has an exponent
	}
	if abs >= 1 && f == math.Trunc(f) {
		// A whole number below 1e15 is an exact int64, and the shortest
		// text that reads back as it is its digits: strconv.AppendInt
		// writes them faster than the float formatter finds them.
		return append(strconv.AppendInt(b, int64(f), 10), ".0"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// Float is AppendFloat as a string.
func Float(f float64) string { return string(AppendFloat(nil, f)) }
