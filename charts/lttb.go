package charts

import "math"

// LTTB downsamples a series to threshold points with the
// largest-triangle-three-buckets algorithm (Steinarsson, 2013): the first and
// last points are kept, the points between are split into threshold-2
// buckets, and from each bucket the point that forms the largest triangle
// with the point kept before it and the average of the next bucket is kept.
// Peaks and troughs survive; flat stretches thin out.
//
// xs should be sorted ascending. When the series has no more than threshold
// points, or threshold is below 1, the input is returned unchanged; a
// threshold of 1 or 2 keeps the first (and last) point. Mismatched slices
// are cut to the shorter length.
func LTTB(xs, ys []float64, threshold int) (outX, outY []float64) {
	n := min(len(xs), len(ys))
	xs, ys = xs[:n], ys[:n]
	if threshold <= 0 || n <= threshold {
		return xs, ys
	}
	switch threshold {
	case 1:
		return []float64{xs[0]}, []float64{ys[0]}
	case 2:
		return []float64{xs[0], xs[n-1]}, []float64{ys[0], ys[n-1]}
	}

	outX = make([]float64, 0, threshold)
	outY = make([]float64, 0, threshold)
	outX, outY = append(outX, xs[0]), append(outY, ys[0])

	every := float64(n-2) / float64(threshold-2)
	a := 0 // index of the point kept last
	for i := 0; i < threshold-2; i++ {
		// Average of the next bucket (the last point when this is the
		// last bucket).
		avgStart := int(math.Floor(float64(i+1)*every)) + 1
		avgEnd := min(int(math.Floor(float64(i+2)*every))+1, n)
		if i == threshold-3 {
			avgStart, avgEnd = n-1, n
		}
		var avgX, avgY float64
		for j := avgStart; j < avgEnd; j++ {
			avgX += xs[j]
			avgY += ys[j]
		}
		cnt := float64(avgEnd - avgStart)
		avgX /= cnt
		avgY /= cnt

		// The point of this bucket with the largest triangle.
		start := int(math.Floor(float64(i)*every)) + 1
		end := int(math.Floor(float64(i+1)*every)) + 1
		ax, ay := xs[a], ys[a]
		best, bestArea := start, -1.0
		for j := start; j < end; j++ {
			area := math.Abs((ax-avgX)*(ys[j]-ay) - (ax-xs[j])*(avgY-ay))
			if area > bestArea {
				best, bestArea = j, area
			}
		}
		outX, outY = append(outX, xs[best]), append(outY, ys[best])
		a = best
	}
	outX, outY = append(outX, xs[n-1]), append(outY, ys[n-1])
	return outX, outY
}
