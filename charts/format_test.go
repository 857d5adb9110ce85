package charts

import (
	"math"
	"testing"
)

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
