package charts

import (
	"math"
	"testing"
	"time"
)

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		v    float64
		dec  int
		want string
	}{
		{0, 0, "0"},
		{999, 0, "999"},
		{1000, 0, "1,000"},
		{1234567.891, 2, "1,234,567.89"},
		{-1234567, 0, "-1,234,567"},
		{-0.0001, 2, "0.00"},
		{250000, 0, "250,000"},
		{0.25, 2, "0.25"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.v, tt.dec); got != tt.want {
			t.Errorf("formatNumber(%v, %d) = %q, want %q", tt.v, tt.dec, got, tt.want)
		}
	}
}

func TestFormatCompact(t *testing.T) {
	tests := map[float64]string{0: "0", 950: "950", 12345: "12.3k", 4_500_000: "4.5M", -2500: "-2.5k", 0.5: "0.5", 150_000: "150k"}
	for v, want := range tests {
		if got := formatCompact(v); got != want {
			t.Errorf("formatCompact(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestDecimalsFor(t *testing.T) {
	tests := map[float64]int{1000: 0, 1: 0, 0.5: 1, 0.25: 2, 0.1: 1, 0.02: 2, 2.5: 1}
	for step, want := range tests {
		if got := decimalsFor(step); got != want {
			t.Errorf("decimalsFor(%v) = %d, want %d", step, got, want)
		}
	}
}

func TestPercentagesSumTo100(t *testing.T) {
	tests := [][]float64{
		{3034, 237, 214, 7, 11, 120},
		{1, 1, 1},
		{1, 2, 3, 4, 5, 6, 7, 8},
		{0, 5},
		{1e-9, 1, 1e9},
	}
	for _, vals := range tests {
		pcts := percentages(vals, 1)
		sum := 0.0
		for _, p := range pcts {
			sum += p
		}
		if math.Abs(sum-100) > 1e-9 {
			t.Errorf("percentages(%v) = %v, sum %v, want 100", vals, pcts, sum)
		}
	}
	if got := percentages([]float64{1, 1, 1}, 1); got[0] != 33.4 || got[1] != 33.3 || got[2] != 33.3 {
		t.Errorf("percentages(1,1,1) = %v, want [33.4 33.3 33.3]", got)
	}
}

func TestParseNumber(t *testing.T) {
	ok := map[string]float64{"12": 12, " -3.5 ": -3.5, "1e6": 1e6, "1,234.50": 1234.5, ".5": 0.5, "+7": 7}
	for s, want := range ok {
		if got, isNum := parseNumber(s); !isNum || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", s, got, isNum, want)
		}
	}
	for _, s := range []string{"", "abc", "0x10", "inf", "NaN", "1_000", "12,34", "1.2.3", "1e", "-", "2024-01-02", "1,2345"} {
		if v, isNum := parseNumber(s); isNum {
			t.Errorf("parseNumber(%q) = %v, want not a number", s, v)
		}
	}
}

func TestParseDate(t *testing.T) {
	ok := map[string]time.Time{
		"2024-03":                   time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
		"2024-03-15":                time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC),
		"2024-03-15 13:45:10":       time.Date(2024, 3, 15, 13, 45, 10, 0, time.UTC),
		"2024-03-15T13:45:10Z":      time.Date(2024, 3, 15, 13, 45, 10, 0, time.UTC),
		"2024-03-15 13:45":          time.Date(2024, 3, 15, 13, 45, 0, 0, time.UTC),
		"2009-01-01 00:00:00.000":   time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC),
		"2024-03-15T13:45:10+02:00": time.Date(2024, 3, 15, 11, 45, 10, 0, time.UTC),
	}
	for s, want := range ok {
		got, isDate := parseDate(s)
		if !isDate || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", s, got, isDate, want)
		}
	}
	for _, s := range []string{"2024", "2024-13", "March 2024", "2024/03/15", "12345-01-01", "2024-03-15 25:00:00"} {
		if _, isDate := parseDate(s); isDate {
			t.Errorf("parseDate(%q) is a date, want not", s)
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := map[string]string{
		"plain":                  "plain",
		"two\nlines":             "two lines",
		"esc\x1b[31mred\x1b[0m":  "esc [31mred [0m",
		"  tabs\t\tand  spaces ": "tabs and spaces",
		"bad\xffutf8":            "bad utf8",
	}
	for in, want := range tests {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHistBins(t *testing.T) {
	vals := normalValues(2000)
	var xs []float64
	for _, r := range vals.Rows {
		xs = append(xs, r[0].(float64))
	}
	bins := histBins(xs, maxHistBins)
	if len(bins) < 5 || len(bins) > maxHistBins {
		t.Fatalf("%d bins, want between 5 and %d", len(bins), maxHistBins)
	}
	total := 0
	for i, b := range bins {
		total += b.n
		if i > 0 && b.lo != bins[i-1].hi {
			t.Errorf("bin %d starts at %v, previous ends at %v", i, b.lo, bins[i-1].hi)
		}
	}
	if total != len(xs) {
		t.Errorf("bins hold %d values, want %d", total, len(xs))
	}
	if got := histBins(xs, 4); len(got) > 4 {
		t.Errorf("histBins with at most 4 bins made %d", len(got))
	}
	if got := histBins([]float64{3, 3, 3}, 10); len(got) != 1 || got[0].n != 3 {
		t.Errorf("histBins of equal values = %+v, want one bin of 3", got)
	}
	if got := histBins([]float64{1, 2, 2, 3, 3, 3, 4, 5}, 50); got[1].hi-got[1].lo < 1 {
		t.Errorf("integer data binned narrower than 1: %+v", got)
	}
}
