package charts

import (
	"math"
	"slices"
	"testing"
)

func TestLTTB(t *testing.T) {
	ramp := func(n int) ([]float64, []float64) {
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
			ys[i] = math.Sin(float64(i) / 50)
		}
		return xs, ys
	}
	tests := []struct {
		name      string
		n         int
		threshold int
		want      int
	}{
		{"downsamples to exactly threshold", 10_000, 1000, 1000},
		{"odd sizes", 1001, 7, 7},
		{"smallest real threshold", 50, 3, 3},
		{"threshold 2 keeps the ends", 50, 2, 2},
		{"threshold 1 keeps the first", 50, 1, 1},
		{"passes through when shorter", 500, 1000, 500},
		{"passes through when equal", 1000, 1000, 1000},
		{"passes through a zero threshold", 20, 0, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs, ys := ramp(tt.n)
			ox, oy := LTTB(xs, ys, tt.threshold)
			if len(ox) != tt.want || len(oy) != tt.want {
				t.Fatalf("LTTB returned %d/%d points, want %d", len(ox), len(oy), tt.want)
			}
			if ox[0] != xs[0] || oy[0] != ys[0] {
				t.Errorf("first point = (%v,%v), want (%v,%v)", ox[0], oy[0], xs[0], ys[0])
			}
			if tt.want >= 2 && (ox[len(ox)-1] != xs[tt.n-1] || oy[len(oy)-1] != ys[tt.n-1]) {
				t.Errorf("last point = (%v,%v), want (%v,%v)", ox[len(ox)-1], oy[len(oy)-1], xs[tt.n-1], ys[tt.n-1])
			}
			if !slices.IsSorted(ox) {
				t.Error("output xs are not in order")
			}
			for i := range ox {
				j := int(ox[i])
				if ys[j] != oy[i] {
					t.Fatalf("output point %d (%v,%v) is not an input point", i, ox[i], oy[i])
				}
			}
			if tt.n <= tt.threshold || tt.threshold <= 0 {
				if !slices.Equal(ox, xs) || !slices.Equal(oy, ys) {
					t.Error("pass-through changed the points")
				}
			}
		})
	}
}

func TestLTTBKeepsSpikes(t *testing.T) {
	n := 100_000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
		ys[i] = float64(i%10) * 0.1 // low-amplitude noise
	}
	ys[31_337] = 500 // a spike
	ys[77_001] = -250
	_, oy := LTTB(xs, ys, 1000)
	if slices.Max(oy) != 500 {
		t.Errorf("max after LTTB = %v, want the spike 500", slices.Max(oy))
	}
	if slices.Min(oy) != -250 {
		t.Errorf("min after LTTB = %v, want the dip -250", slices.Min(oy))
	}
}

func TestLTTBMismatchedLengths(t *testing.T) {
	ox, oy := LTTB([]float64{1, 2, 3, 4}, []float64{5, 6}, 10)
	if len(ox) != 2 || len(oy) != 2 {
		t.Errorf("LTTB kept %d/%d points, want both cut to 2", len(ox), len(oy))
	}
}
