package charts

import (
	"math"
	"slices"
)

// histBins bins values into at most maxBins bins of a round width, chosen
// with the Freedman–Diaconis rule (Sturges' when the interquartile range is
// zero).
func histBins(vals []float64, maxBins int) []histBin {
	if len(vals) == 0 {
		return nil
	}
	maxBins = max(1, maxBins)
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	n := len(sorted)
	lo, hi := sorted[0], sorted[n-1]
	if lo == hi {
		return []histBin{{lo: lo - 0.5, hi: hi + 0.5, n: n}}
	}
	iqr := quantile(sorted, 0.75) - quantile(sorted, 0.25)
	var width float64
	if iqr > 0 {
		width = 2 * iqr / math.Cbrt(float64(n))
	} else {
		width = (hi - lo) / (math.Ceil(math.Log2(float64(n))) + 1)
	}
	width = niceCeil(width)
	if width < 1 && allIntegral(sorted) {
		width = 1 // integer data: no bins between two integers
	}
	var start float64
	var nb int
	for range 64 {
		start = math.Floor(lo/width) * width
		nb = int(math.Floor((hi-start)/width)) + 1
		if nb <= maxBins {
			break
		}
		width = niceCeil(width * 1.01)
	}
	bins := make([]histBin, nb)
	for i := range bins {
		bins[i].lo = start + float64(i)*width
		bins[i].hi = start + float64(i+1)*width
	}
	for _, v := range sorted {
		i := int(math.Floor((v - start) / width))
		bins[max(0, min(i, nb-1))].n++
	}
	return bins
}

func allIntegral(vs []float64) bool {
	for _, v := range vs {
		if v != math.Trunc(v) {
			return false
		}
	}
	return true
}

// quantile is the q-quantile of sorted values, interpolated linearly.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}

// niceCeil rounds x up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	e := math.Pow10(int(math.Floor(math.Log10(x))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*e >= x*(1-1e-12) {
			return m * e
		}
	}
	return 10 * e
}
