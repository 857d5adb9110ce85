package format

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// funcName names a function in a failure message.
func funcName(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}

func TestFormatters(t *testing.T) {
	blob20 := []byte("\x89PNG\r\n\x1a\n0123456789ab")
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"Count 0", Count(0), "0"},
		{"Count 999", Count(999), "999"},
		{"Count 1000", Count(1000), "1,000"},
		{"Count 11887", Count(11887), "11,887"},
		{"Count negative", Count(-1234567), "-1,234,567"},
		{"RowCount unknown", RowCount(-1, false), "? rows"},
		{"RowCount estimated", RowCount(1234567, true), "~1,234,567 rows"},
		{"RowCount one", RowCount(1, false), "1 row"},
		{"RowCount zero", RowCount(0, false), "0 rows"},
		{"Count max", Count(math.MaxInt64), "9,223,372,036,854,775,807"},
		{"Plural one", Plural(1, "row"), "1 row"},
		{"Plural zero", Plural(0, "row"), "0 rows"},
		{"Plural many", Plural(12345, "row"), "12,345 rows"},
		{"Bytes B", Bytes(512), "512 B"},
		{"Bytes KB", Bytes(1536), "1.5 KB"},
		{"Bytes whole KB", Bytes(100 << 10), "100 KB"},
		{"Bytes MB", Bytes(12<<20 + 1), "12 MB"},
		{"Bytes GB", Bytes(2_254_857_830), "2.1 GB"},
		{"Seconds", Seconds(1234 * time.Millisecond), "1.2 s"},
		{"Number 0", Number(0, 0), "0"},
		{"Number 999", Number(999, 0), "999"},
		{"Number 1000", Number(1000, 0), "1,000"},
		{"Number decimals", Number(1234567.891, 2), "1,234,567.89"},
		{"Number negative", Number(-1234567, 0), "-1,234,567"},
		{"Number negative zero", Number(-0.0001, 2), "0.00"},
		{"Number 250000", Number(250000, 0), "250,000"},
		{"Number quarter", Number(0.25, 2), "0.25"},
		{"Number huge", Number(2e15, 0), "2e+15"},
		{"Measure integral", Measure(1234), "1,234"},
		{"Measure hundreds", Measure(123.456), "123"},
		{"Measure tens", Measure(12.34), "12.3"},
		{"Measure units", Measure(-1.5), "-1.50"},
		{"Measure small", Measure(0.125), "0.125"},
		{"Measure tiny", Measure(0.00123), "0.0012"},
		{"Float whole", Float(3), "3.0"},
		{"Float fraction", Float(2.5), "2.5"},
		{"Float tiny", Float(1e-7), "1e-07"},
		{"Float inf", Float(math.Inf(-1)), "-Inf"},
		{"Float one", Float(1), "1.0"},
		{"Float tenth", Float(0.1), "0.1"},
		{"Float big", Float(1e20), "1e+20"},
		{"Float small", Float(1.5e-7), "1.5e-07"},
		{"Float long", Float(123456789.125), "123456789.125"},
		{"Float zero", Float(0), "0.0"},
		{"NumericType INTEGER", fmt.Sprint(IsNumericType("integer")), "true"},
		{"NumericType DECIMAL", fmt.Sprint(IsNumericType("DECIMAL(10,2)")), "true"},
		{"NumericType DOUBLE", fmt.Sprint(IsNumericType("double precision")), "true"},
		{"NumericType TEXT", fmt.Sprint(IsNumericType("VARCHAR(20)")), "false"},
		{"NumericType DATE", fmt.Sprint(IsNumericType("DATE")), "false"},
		{"NumericType none", fmt.Sprint(IsNumericType("")), "false"},
		{"Value NULL", Value(nil), "NULL"},
		{"Value int", Value(int64(-42)), "-42"},
		{"Value real", Value(2.0), "2.0"},
		{"Value text", Value("a\nb"), "a\nb"},
		{"Value blob", Value([]byte{0, 0xff, 0x10}), "x'00ff10'"},
		{"Blob long", Blob(blob20), "x'89504e470d0a1a0a3031323334353637…' (20 bytes)"},
		{"ClipRunes short", ClipRunes("abc", 3), "abc"},
		{"ClipRunes cut", ClipRunes("abcdef", 4), "abc…"},
		{"ClipRunes runes", ClipRunes("東京都庁舎", 3), "東京…"},
		{"ClipRunes trailing space", ClipRunes("ab cdef", 4), "ab…"},
		{"ClipRunes zero", ClipRunes("abc", 0), ""},
		{"ClipBytes short", ClipBytes("abc", 3), "abc"},
		{"ClipBytes boundary", ClipBytes("aé東", 3), "aé…"},
		{"ClipBytes mid rune", ClipBytes("a東", 2), "a…"},
		{"ClipWidth ascii", ClipWidth("abcdef", 4), "abc…"},
		{"ClipWidth wide", ClipWidth("東京都庁", 5), "東京…"},
		{"ClipWidth fits", ClipWidth("東京", 4), "東京"},
		{"Width wide", strings.Repeat("x", Width("東京")), "xxxx"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

// A whole-number REAL is written as strconv's shortest text for it and
// ".0", however it is found: at the edges of the range where AppendFloat
// writes no exponent, around powers of two and ten, and at random.
func TestAppendFloatWholeNumbers(t *testing.T) {
	var whole []float64
	for p := 1.0; p < 1e15; p *= 10 {
		whole = append(whole, p, p-1, p+1, 3*p, 7*p/10)
	}
	for e := 0; e < 50; e++ {
		p := math.Ldexp(1, e)
		whole = append(whole, p, p-1, p+1)
	}
	whole = append(whole, 1e15-1, 1e15-2, 999999999999990, 562949953421311, 562949953421313)
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		whole = append(whole, math.Trunc(math.Ldexp(r.Float64(), 1+r.IntN(50))))
	}
	for _, f := range whole {
		for _, v := range []float64{f, -f} {
			if math.Abs(v) < 1 || math.Abs(v) >= 1e15 {
				continue
			}
			want := strconv.FormatFloat(v, 'f', -1, 64) + ".0"
			if got := Float(v); got != want {
				t.Fatalf("Float(%v) = %q, want %q", v, got, want)
			}
		}
	}
}
