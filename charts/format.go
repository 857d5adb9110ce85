package charts

import (
	"github.com/tablewise/tablewise/core/format"
	"math"
	"strconv"
)

// formatCompact formats v in at most about six characters for narrow
// terminal axes: 950, 12.3k, 4.5M, 1.2B.
func formatCompact(v float64) string {
	a := math.Abs(v)
	suffixes := []struct {
		div float64
		sfx string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}}
	for _, s := range suffixes {
		if a >= s.div {
			x := v / s.div
			if math.Abs(x) >= 100 {
				return strconv.FormatFloat(x, 'f', 0, 64) + s.sfx
			}
			return format.TrimZeros(strconv.FormatFloat(x, 'f', 1, 64)) + s.sfx
		}
	}
	switch {
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return format.TrimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	case a >= 0.01:
		return format.TrimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// decimalsFor returns how many decimals tick labels spaced step apart need.
func decimalsFor(step float64) int {
	if step <= 0 || math.IsNaN(step) || math.IsInf(step, 0) {
		return 0
	}
	d := int(math.Ceil(-math.Log10(step) - 1e-9))
	// A step like 0.25 needs two decimals, not one.
	for d < 10 && math.Abs(step*math.Pow10(max(d, 0))-math.Round(step*math.Pow10(max(d, 0)))) > 1e-6 {
		d++
	}
	return max(d, 0)
}

// percentages returns each value's share of the total in percent, rounded
// to the given decimals with the largest-remainder method so that the
// shares add up to exactly 100.
func percentages(values []float64, decimals int) []float64 {
	out := make([]float64, len(values))
	total := 0.0
	for _, v := range values {
		total += math.Max(v, 0)
	}
	if total <= 0 {
		return out
	}
	scale := math.Pow10(decimals)
	units := int(math.Round(100 * scale))
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, len(values))
	sum := 0
	floors := make([]int, len(values))
	for i, v := range values {
		exact := math.Max(v, 0) / total * float64(units)
		floors[i] = int(math.Floor(exact))
		sum += floors[i]
		rems[i] = rem{i, exact - math.Floor(exact)}
	}
	// Hand the units lost to rounding down to the largest remainders.
	for left := units - sum; left > 0; left-- {
		best := -1
		for j, r := range rems {
			if r.r >= 0 && (best < 0 || r.r > rems[best].r) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		floors[rems[best].i]++
		rems[best].r = -1
	}
	for i, f := range floors {
		out[i] = float64(f) / scale
	}
	return out
}

// formatPercent formats a share in percent with one decimal.
func formatPercent(p float64) string {
	return strconv.FormatFloat(p, 'f', 1, 64) + "%"
}
