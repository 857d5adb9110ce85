package charts

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// axisKind is what the x values of a line or scatter are.
type axisKind int

const (
	axisNumber   axisKind = iota
	axisYear              // integers between 1900 and 2100: no thousands separators
	axisTime              // date-like text, as Unix seconds
	axisCategory          // anything else, as positions 0, 1, 2…
)

// seriesData is one named group of values. Lines and scatters fill xs and
// ys with points; bars and pies fill ys with one value per category.
type seriesData struct {
	name   string
	other  bool // a bucket of folded series
	xs, ys []float64
}

// histBin is one histogram bin, [lo, hi).
type histBin struct {
	lo, hi float64
	n      int
}

// chartData is a result reduced to what one chart draws: categories folded
// into "other", series capped, lines downsampled, histograms binned. Both
// the PNG and the text renderers draw from it.
type chartData struct {
	kind   string
	title  string
	xLabel string
	yLabel string
	xAxis  axisKind
	cats   []string // bars and pies; category x positions of a line
	other  bool     // the last category is an "other" bucket
	xOrder bool     // bars and pies: x is dates or numbers, kept in their order
	hidden int      // bars and pies: categories left out, not in an "other" bucket
	series []seriesData
	bins   []histBin
	values []float64 // a histogram's values, for rebinning
	notes  []string  // said under the title: what was folded, dropped, downsampled
}

// limits caps what prepare keeps.
type limits struct {
	cats  int  // bars or pie slices, "other" included; categories of an ordered x are not limited
	other bool // fold the categories beyond cats into an "other" bar (pies always do)
	// ordered caps the bars of an ordered x (dates, numbers), which cats
	// does not limit: beyond it the earliest are left out.
	ordered int
	series  int
	points  int // per line series; 0 keeps every point
	bins    int
}

// pngLimits are the caps for a PNG chart.
func pngLimits(kind string) limits {
	l := limits{cats: maxBars, ordered: maxOrderedBars, series: maxSeries, points: maxLinePoints, bins: maxHistBins}
	if kind == answer.KindPie {
		// A pie is shares of a whole: what is left out is a slice.
		l.cats, l.other = maxPieSlices, true
	}
	return l
}

// prepare validates spec against res and reduces the result to chartData.
func prepare(spec answer.ChartSpec, res *query.Result, lim limits) (*chartData, error) {
	if res == nil {
		return nil, &chartspec.SpecError{Field: "rows", Msg: "there is no result to chart", Hint: "run a query first"}
	}
	r, err := chartspec.Resolve(spec, res.Columns, res.Rows)
	if err != nil {
		return nil, err
	}
	d := &chartData{kind: r.Kind, xLabel: chartspec.Sanitize(res.Columns[r.X].Name)}
	if r.Y >= 0 {
		d.yLabel = chartspec.Sanitize(res.Columns[r.Y].Name)
	}
	seriesName := ""
	if r.Series >= 0 {
		seriesName = chartspec.Sanitize(res.Columns[r.Series].Name)
	}
	d.title = chartspec.Sanitize(spec.Title)
	if d.title == "" {
		d.title = chartspec.Title(r.Kind, d.xLabel, d.yLabel, seriesName)
	}
	if res.Truncated {
		d.notes = append(d.notes, fmt.Sprintf("first %s rows only (result truncated)", format.Number(float64(len(res.Rows)), 0)))
	}

	switch r.Kind {
	case answer.KindBar, answer.KindHBar, answer.KindPie:
		prepareCategories(d, res.Rows, r, lim, guard.OrdersResult(res.SQL))
	case answer.KindLine, answer.KindScatter:
		prepareXY(d, res.Rows, r, lim)
	case answer.KindHistogram:
		d.yLabel = "count"
		vals := make([]float64, 0, len(res.Rows))
		for _, row := range res.Rows {
			if v, ok := chartspec.ToFloat(chartspec.Cell(row, r.X)); ok {
				vals = append(vals, v)
			}
		}
		d.values = vals
		d.bins = histBins(vals, lim.bins)
	}
	return d, nil
}

// prepareCategories sums y per x label (and per series), keeps the
// largest series, and orders and limits the categories (arrange).
func prepareCategories(d *chartData, rows []query.Row, r chartspec.Resolved, lim limits, queryOrdered bool) {
	catIdx := map[string]int{}
	serIdx := map[string]int{}
	var names []string
	var vals [][]float64 // vals[series][category]
	var keys []float64   // the x value of each category, when x is ordered
	d.xOrder = r.XScan.Dates || r.XScan.Numeric
	repeated := false
	seen := map[[2]int]bool{}
	for _, row := range rows {
		y, ok := chartspec.ToFloat(chartspec.Cell(row, r.Y))
		if !ok {
			continue
		}
		xv := chartspec.Cell(row, r.X)
		label := chartspec.Label(xv)
		c, added := d.category(catIdx, label)
		if added {
			keys = append(keys, orderKey(xv, r.XScan.Dates))
		}
		sname := d.yLabel
		if r.Series >= 0 {
			sname = chartspec.Label(chartspec.Cell(row, r.Series))
		}
		s, ok := serIdx[sname]
		if !ok {
			s = len(names)
			serIdx[sname] = s
			names = append(names, sname)
			vals = append(vals, nil)
		}
		for len(vals[s]) <= c {
			vals[s] = append(vals[s], 0)
		}
		vals[s][c] += y
		key := [2]int{s, c}
		repeated = repeated || seen[key]
		seen[key] = true
	}
	if repeated {
		d.notes = append(d.notes, "values of repeated categories are summed")
	}
	for s := range vals {
		for len(vals[s]) < len(d.cats) {
			vals[s] = append(vals[s], 0)
		}
		d.series = append(d.series, seriesData{name: names[s], ys: vals[s]})
	}

	if lim.series > 0 && len(d.series) > lim.series {
		kept, rest := splitSeries(d.series, lim.series)
		d.notes = append(d.notes, fmt.Sprintf("%d smaller series not shown", len(rest)))
		d.series = kept
	}

	arrange(d, keys, queryOrdered)
	limitCategories(d, lim.cats, lim.other, lim.ordered)
	if r.Kind == answer.KindPie && len(d.series) == 1 {
		sortSlices(d)
	}
}

// orderKey is the value an ordered x axis sorts by: Unix seconds for
// dates, the number otherwise.
func orderKey(v any, dates bool) float64 {
	if dates {
		if t, ok := chartspec.ToTime(v); ok {
			return unixSeconds(t)
		}
		return math.Inf(1)
	}
	if f, ok := chartspec.ToFloat(v); ok {
		return f
	}
	return math.Inf(1)
}

// arrange orders the categories: as the query ordered its rows, else by
// x when x is dates or numbers, else largest first.
func arrange(d *chartData, keys []float64, queryOrdered bool) {
	if queryOrdered {
		return
	}
	idx := make([]int, len(d.cats))
	for i := range idx {
		idx[i] = i
	}
	if d.xOrder {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	} else {
		w := categoryWeights(d)
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	}
	reorder(d, idx)
}

// categoryWeights is each category's size: the sum over series of its
// absolute values.
func categoryWeights(d *chartData) []float64 {
	w := make([]float64, len(d.cats))
	for _, s := range d.series {
		for c, v := range s.ys {
			w[c] += math.Abs(v)
		}
	}
	return w
}

// reorder keeps the categories idx, in that order.
func reorder(d *chartData, idx []int) {
	cats := make([]string, len(idx))
	for i, c := range idx {
		cats[i] = d.cats[c]
	}
	d.cats = cats
	for si := range d.series {
		ys := make([]float64, len(idx))
		for i, c := range idx {
			ys[i] = d.series[si].ys[c]
		}
		d.series[si].ys = ys
	}
}

// limitCategories keeps at most most categories (no limit when most is
// 0). The bars of an ordered x (dates, numbers) are never regrouped: at
// most ordered of them are kept, the last ones, and a note says how many
// earlier ones are not shown. Otherwise the largest categories are kept, in
// their order, and the rest are left out with a note saying how many, or,
// when other is set (always for a pie), added up into a last "other (n)"
// category that the note names.
func limitCategories(d *chartData, most int, other bool, ordered int) {
	if d.xOrder && d.kind != answer.KindPie {
		if n := len(d.cats); ordered > 0 && n > ordered {
			idx := make([]int, 0, ordered)
			for c := n - ordered; c < n; c++ {
				idx = append(idx, c)
			}
			reorder(d, idx)
			d.hidden = n - ordered
			d.notes = append(d.notes, fmt.Sprintf("the first %d of %d bars not shown (a line shows them all)", n-ordered, n))
		}
		return
	}
	if most <= 0 || len(d.cats) <= most {
		return
	}
	other = other || d.kind == answer.KindPie
	n := most
	if other {
		n--
	}
	keep := topIndexes(len(d.cats), n, func(c int) float64 {
		t := 0.0
		for _, s := range d.series {
			t += math.Abs(s.ys[c])
		}
		return t
	})
	left := len(d.cats) - n
	var idx []int
	rest := make([]float64, len(d.series))
	for c := range d.cats {
		if keep[c] {
			idx = append(idx, c)
			continue
		}
		for si, s := range d.series {
			rest[si] += s.ys[c]
		}
	}
	reorder(d, idx)
	if !other {
		d.hidden = left
		d.notes = append(d.notes, fmt.Sprintf("%d smaller categories not shown (the %d largest are)", left, n))
		return
	}
	name := fmt.Sprintf("other (%d)", left)
	d.cats = append(d.cats, name)
	for si := range d.series {
		d.series[si].ys = append(d.series[si].ys, rest[si])
	}
	d.other = true
	d.notes = append(d.notes, fmt.Sprintf("“%s” adds up the %d smallest categories", name, left))
}

// sortSlices orders a pie's slices largest first, "other" staying last, so
// the slices read clockwise from the biggest.
func sortSlices(d *chartData) {
	n := len(d.cats)
	if d.other {
		n-- // the "other" bucket stays last
	}
	ys := d.series[0].ys
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ys[b], ys[a]) })
	if d.other {
		idx = append(idx, n)
	}
	reorder(d, idx)
}

// topIndexes marks the k indexes with the largest weight (ties keep the
// earlier index).
func topIndexes(n, k int, weight func(int) float64) []bool {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(weight(b), weight(a)) })
	keep := make([]bool, n)
	for _, i := range idx[:max(0, min(k, n))] {
		keep[i] = true
	}
	return keep
}

// category returns the index of label among d's categories (index maps
// the labels seen to theirs); a new label is added at the end, and added
// says so.
func (d *chartData) category(index map[string]int, label string) (c int, added bool) {
	if c, ok := index[label]; ok {
		return c, false
	}
	c = len(d.cats)
	index[label] = c
	d.cats = append(d.cats, label)
	return c, true
}

// splitSeries parts series into the k with the largest sums of absolute
// values and the rest, each in the order they had.
func splitSeries(series []seriesData, k int) (kept, rest []seriesData) {
	keep := topIndexes(len(series), k, func(i int) float64 { return sumAbs(series[i].ys) })
	for i, s := range series {
		if keep[i] {
			kept = append(kept, s)
		} else {
			rest = append(rest, s)
		}
	}
	return kept, rest
}

func sumAbs(vs []float64) float64 {
	t := 0.0
	for _, v := range vs {
		t += math.Abs(v)
	}
	return t
}

// prepareXY collects the points of a line or scatter chart per series.
func prepareXY(d *chartData, rows []query.Row, r chartspec.Resolved, lim limits) {
	sc := r.XScan
	switch {
	case sc.Dates:
		d.xAxis = axisTime
	case sc.Numeric && sc.Ints && sc.Min >= 1900 && sc.Max <= 2100:
		d.xAxis = axisYear
	case sc.Numeric:
		d.xAxis = axisNumber
	default:
		d.xAxis = axisCategory
	}

	catIdx := map[string]int{}
	serIdx := map[string]int{}
	for _, row := range rows {
		y, ok := chartspec.ToFloat(chartspec.Cell(row, r.Y))
		if !ok {
			continue
		}
		xv := chartspec.Cell(row, r.X)
		var x float64
		switch d.xAxis {
		case axisTime:
			t, ok := chartspec.ToTime(xv)
			if !ok {
				continue
			}
			x = unixSeconds(t)
		case axisCategory:
			if xv == nil {
				continue
			}
			c, _ := d.category(catIdx, chartspec.Label(xv))
			x = float64(c)
		default:
			if x, ok = chartspec.ToFloat(xv); !ok {
				continue
			}
		}
		sname := d.yLabel
		if r.Series >= 0 {
			sname = chartspec.Label(chartspec.Cell(row, r.Series))
		}
		s, ok := serIdx[sname]
		if !ok {
			s = len(d.series)
			serIdx[sname] = s
			d.series = append(d.series, seriesData{name: sname})
		}
		d.series[s].xs = append(d.series[s].xs, x)
		d.series[s].ys = append(d.series[s].ys, y)
	}

	if lim.series > 0 && len(d.series) > lim.series {
		if d.kind == answer.KindLine {
			kept, rest := splitSeries(d.series, lim.series)
			d.notes = append(d.notes, fmt.Sprintf("%d more series not shown", len(rest)))
			d.series = kept
		} else {
			kept, rest := splitSeries(d.series, lim.series-1)
			other := seriesData{other: true}
			for _, s := range rest {
				other.xs = append(other.xs, s.xs...)
				other.ys = append(other.ys, s.ys...)
			}
			other.name = fmt.Sprintf("other (%d)", len(rest))
			d.notes = append(d.notes, fmt.Sprintf("%d smaller series grouped as “other”", len(rest)))
			d.series = append(kept, other)
		}
	}
	if d.kind != answer.KindLine {
		return
	}

	before, after, repeated := 0, 0, false
	for i := range d.series {
		s := &d.series[i]
		if d.xAxis != axisCategory {
			sortXY(s.xs, s.ys)
		}
		var merged bool
		s.xs, s.ys, merged = mergeRepeats(s.xs, s.ys)
		repeated = repeated || merged
		before += len(s.xs)
		if lim.points > 0 {
			s.xs, s.ys = LTTB(s.xs, s.ys, lim.points)
		}
		after += len(s.xs)
	}
	if repeated {
		d.notes = append(d.notes, "values at repeated x are summed")
	}
	if after < before {
		d.notes = append(d.notes, fmt.Sprintf("downsampled from %s to %s points (LTTB)", format.Number(float64(before), 0), format.Number(float64(after), 0)))
	}
}

// sortXY sorts points by x, keeping the order of equal xs.
func sortXY(xs, ys []float64) {
	if sort.Float64sAreSorted(xs) {
		return
	}
	sort.Stable(xySorter{xs, ys})
}

type xySorter struct{ xs, ys []float64 }

func (s xySorter) Len() int { return len(s.xs) }

func (s xySorter) Less(i, j int) bool { return s.xs[i] < s.xs[j] }

func (s xySorter) Swap(i, j int) {
	s.xs[i], s.xs[j] = s.xs[j], s.xs[i]
	s.ys[i], s.ys[j] = s.ys[j], s.ys[i]
}

// mergeRepeats sums the ys of consecutive points with the same x.
func mergeRepeats(xs, ys []float64) ([]float64, []float64, bool) {
	if len(xs) < 2 {
		return xs, ys, false
	}
	w := 0
	merged := false
	for i := 1; i < len(xs); i++ {
		if xs[i] == xs[w] {
			ys[w] += ys[i]
			merged = true
			continue
		}
		w++
		xs[w], ys[w] = xs[i], ys[i]
	}
	return xs[:w+1], ys[:w+1], merged
}
