package charts

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/answer"
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
	series []seriesData
	bins   []histBin
	values []float64 // a histogram's values, for rebinning
	notes  []string  // said under the title: what was folded, dropped, downsampled
}

// limits caps what prepare keeps.
type limits struct {
	cats   int // bars or pie slices, "other" included
	series int
	points int // per line series; 0 keeps every point
	bins   int
}

// pngLimits are the caps for a PNG chart.
func pngLimits(kind string) limits {
	l := limits{cats: maxBars, series: maxSeries, points: maxLinePoints, bins: maxHistBins}
	if kind == answer.KindPie {
		l.cats = maxPieSlices
	}
	return l
}

// prepare validates spec against res and reduces the result to chartData.
func prepare(spec answer.ChartSpec, res *query.Result, lim limits) (*chartData, error) {
	if res == nil {
		return nil, &SpecError{Field: "rows", Msg: "there is no result to chart", Hint: "run a query first"}
	}
	r, err := resolve(spec, res.Columns, res.Rows)
	if err != nil {
		return nil, err
	}
	d := &chartData{kind: r.kind, xLabel: sanitize(res.Columns[r.x].Name)}
	if r.y >= 0 {
		d.yLabel = sanitize(res.Columns[r.y].Name)
	}
	seriesName := ""
	if r.s >= 0 {
		seriesName = sanitize(res.Columns[r.s].Name)
	}
	d.title = sanitize(spec.Title)
	if d.title == "" {
		d.title = deriveTitle(r.kind, d.xLabel, d.yLabel, seriesName)
	}
	if res.Truncated {
		d.notes = append(d.notes, fmt.Sprintf("first %s rows only (result truncated)", formatNumber(float64(len(res.Rows)), 0)))
	}

	switch r.kind {
	case answer.KindBar, answer.KindHBar, answer.KindPie:
		prepareCategories(d, res.Rows, r, lim)
	case answer.KindLine, answer.KindScatter:
		prepareXY(d, res.Rows, r, lim)
	case answer.KindHistogram:
		d.yLabel = "count"
		vals := make([]float64, 0, len(res.Rows))
		for _, row := range res.Rows {
			if v, ok := toFloat(cell(row, r.x)); ok {
				vals = append(vals, v)
			}
		}
		d.values = vals
		d.bins = histBins(vals, lim.bins)
	}
	return d, nil
}

// deriveTitle names a chart after its columns: "Total by month".
func deriveTitle(kind, x, y, series string) string {
	var t string
	switch kind {
	case answer.KindHistogram:
		t = "distribution of " + humanize(x)
	default:
		t = humanize(y) + " by " + humanize(x)
		if series != "" {
			t += " and " + humanize(series)
		}
	}
	r, n := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(r)) + t[n:]
}

// humanize turns a column name like "unit_price" into "unit price".
func humanize(name string) string {
	return strings.TrimSpace(strings.ReplaceAll(name, "_", " "))
}

// prepareCategories sums y per x label (and per series), then folds the
// smallest categories and series into "other" buckets.
func prepareCategories(d *chartData, rows []query.Row, r resolved, lim limits) {
	catIdx := map[string]int{}
	serIdx := map[string]int{}
	var names []string
	var vals [][]float64 // vals[series][category]
	repeated := false
	seen := map[[2]int]bool{}
	for _, row := range rows {
		y, ok := toFloat(cell(row, r.y))
		if !ok {
			continue
		}
		label := labelOf(cell(row, r.x))
		c, ok := catIdx[label]
		if !ok {
			c = len(d.cats)
			catIdx[label] = c
			d.cats = append(d.cats, label)
		}
		sname := d.yLabel
		if r.s >= 0 {
			sname = labelOf(cell(row, r.s))
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
		keep := topIndexes(len(d.series), lim.series-1, func(i int) float64 { return sumAbs(d.series[i].ys) })
		folded := len(d.series) - (lim.series - 1)
		other := seriesData{name: fmt.Sprintf("other (%d)", folded), other: true, ys: make([]float64, len(d.cats))}
		var kept []seriesData
		for i, s := range d.series {
			if keep[i] {
				kept = append(kept, s)
				continue
			}
			for c, v := range s.ys {
				other.ys[c] += v
			}
		}
		d.notes = append(d.notes, fmt.Sprintf("%d smaller series grouped as “other”", folded))
		d.series = append(kept, other)
	}

	foldCategories(d, lim.cats)
	if r.kind == answer.KindPie && len(d.series) == 1 {
		sortSlices(d)
	}
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
	cats, vals := make([]string, 0, len(d.cats)), make([]float64, 0, len(ys))
	for _, i := range idx {
		cats, vals = append(cats, d.cats[i]), append(vals, ys[i])
	}
	d.cats = append(cats, d.cats[n:]...)
	d.series[0].ys = append(vals, ys[n:]...)
}

// foldCategories keeps the most-1 categories with the largest values (in
// their order) and sums the rest into a last "other (n)" category.
func foldCategories(d *chartData, most int) {
	if most <= 0 || len(d.cats) <= most {
		return
	}
	keep := topIndexes(len(d.cats), most-1, func(c int) float64 {
		t := 0.0
		for _, s := range d.series {
			t += math.Abs(s.ys[c])
		}
		return t
	})
	folded := len(d.cats) - (most - 1)
	var cats []string
	for c, name := range d.cats {
		if keep[c] {
			cats = append(cats, name)
		}
	}
	cats = append(cats, fmt.Sprintf("other (%d)", folded))
	for si := range d.series {
		ys := make([]float64, 0, len(cats))
		rest := 0.0
		for c, v := range d.series[si].ys {
			if keep[c] {
				ys = append(ys, v)
			} else {
				rest += v
			}
		}
		d.series[si].ys = append(ys, rest)
	}
	d.cats = cats
	d.other = true
	d.notes = append(d.notes, fmt.Sprintf("%d smaller categories grouped as “other”", folded))
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

func sumAbs(vs []float64) float64 {
	t := 0.0
	for _, v := range vs {
		t += math.Abs(v)
	}
	return t
}

// prepareXY collects the points of a line or scatter chart per series.
func prepareXY(d *chartData, rows []query.Row, r resolved, lim limits) {
	sc := r.xScan
	switch {
	case sc.dates:
		d.xAxis = axisTime
	case sc.numeric && sc.ints && sc.minV >= 1900 && sc.maxV <= 2100:
		d.xAxis = axisYear
	case sc.numeric:
		d.xAxis = axisNumber
	default:
		d.xAxis = axisCategory
	}

	catIdx := map[string]int{}
	serIdx := map[string]int{}
	for _, row := range rows {
		y, ok := toFloat(cell(row, r.y))
		if !ok {
			continue
		}
		xv := cell(row, r.x)
		var x float64
		switch d.xAxis {
		case axisTime:
			t, ok := toTime(xv)
			if !ok {
				continue
			}
			x = unixSeconds(t)
		case axisCategory:
			if xv == nil {
				continue
			}
			label := labelOf(xv)
			c, ok := catIdx[label]
			if !ok {
				c = len(d.cats)
				catIdx[label] = c
				d.cats = append(d.cats, label)
			}
			x = float64(c)
		default:
			if x, ok = toFloat(xv); !ok {
				continue
			}
		}
		sname := d.yLabel
		if r.s >= 0 {
			sname = labelOf(cell(row, r.s))
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
		weight := func(i int) float64 { return sumAbs(d.series[i].ys) }
		if d.kind == answer.KindLine {
			keep := topIndexes(len(d.series), lim.series, weight)
			var kept []seriesData
			for i, s := range d.series {
				if keep[i] {
					kept = append(kept, s)
				}
			}
			d.notes = append(d.notes, fmt.Sprintf("%d more series not shown", len(d.series)-len(kept)))
			d.series = kept
		} else {
			keep := topIndexes(len(d.series), lim.series-1, weight)
			var kept []seriesData
			other := seriesData{other: true}
			folded := 0
			for i, s := range d.series {
				if keep[i] {
					kept = append(kept, s)
					continue
				}
				folded++
				other.xs = append(other.xs, s.xs...)
				other.ys = append(other.ys, s.ys...)
			}
			other.name = fmt.Sprintf("other (%d)", folded)
			d.notes = append(d.notes, fmt.Sprintf("%d smaller series grouped as “other”", folded))
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
		d.notes = append(d.notes, fmt.Sprintf("downsampled from %s to %s points (LTTB)", formatNumber(float64(before), 0), formatNumber(float64(after), 0)))
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
