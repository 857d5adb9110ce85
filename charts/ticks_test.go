package charts

import (
	"slices"
	"testing"

	"github.com/tablewise/tablewise/core/chartspec"
	"gonum.org/v1/plot"
)

func labels(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestNumberTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []string
	}{
		{0, 8756, []string{"0", "2,000", "4,000", "6,000", "8,000", "10,000"}},
		{88_000, 290_000, []string{"50,000", "100,000", "150,000", "200,000", "250,000", "300,000"}},
		{-10_800, 14_800, []string{"-15,000", "-10,000", "-5,000", "0", "5,000", "10,000", "15,000"}},
		{0, 1.2, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2"}},
		{0.1, 0.35, []string{"0.10", "0.15", "0.20", "0.25", "0.30", "0.35"}},
	}
	for _, tt := range tests {
		got := labels(numberTicks{}.Ticks(tt.lo, tt.hi))
		if !slices.Equal(got, tt.want) {
			t.Errorf("numberTicks(%v, %v) = %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestIntegerTicksForYears(t *testing.T) {
	got := labels(integerTicks{}.Ticks(1995, 2024))
	want := []string{"1995", "2000", "2005", "2010", "2015", "2020", "2025"}
	if !slices.Equal(got, want) {
		t.Errorf("year ticks = %q, want %q (no separators, whole years)", got, want)
	}
	for _, l := range labels(integerTicks{separators: true}.Ticks(0, 3)) {
		if l != "0" && l != "1" && l != "2" && l != "3" {
			t.Errorf("count tick %q on 0..3, want whole numbers", l)
		}
	}
}

func TestTimeTicks(t *testing.T) {
	sec := func(s string) float64 {
		tm, ok := chartspec.ToTime(s)
		if !ok {
			t.Fatalf("bad date %q", s)
		}
		return unixSeconds(tm)
	}
	tests := []struct {
		lo, hi string
		most   int
		want   []string
	}{
		{"2022-01", "2024-12", 8, []string{"Jan 2022", "Jul 2022", "Jan 2023", "Jul 2023", "Jan 2024", "Jul 2024"}},
		{"2022-01", "2022-12", 12, []string{"Jan 2022", "Feb 2022", "Mar 2022", "Apr 2022", "May 2022", "Jun 2022", "Jul 2022", "Aug 2022", "Sep 2022", "Oct 2022", "Nov 2022", "Dec 2022"}},
		{"1990-06", "2024-01", 8, []string{"1995", "2000", "2005", "2010", "2015", "2020"}},
		{"2024-05-01 00:00:00", "2024-05-03 23:00:00", 6, []string{"May 1 00:00", "May 1 12:00", "May 2 00:00", "May 2 12:00", "May 3 00:00", "May 3 12:00"}},
		{"2024-05-01", "2024-05-06", 8, []string{"2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05", "2024-05-06"}},
	}
	for _, tt := range tests {
		got := labels(timeTicks{most: tt.most}.Ticks(sec(tt.lo), sec(tt.hi)))
		if !slices.Equal(got, tt.want) {
			t.Errorf("timeTicks(%s..%s) = %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
	}
}
