package charts

import (
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// Thresholds of Suggest.
const (
	longLabel        = 12 // labels longer than this (in runes) read better as horizontal bars
	manyBars         = 12 // more categories than this read better as horizontal bars
	minHistogramRows = 10
)

// Suggest proposes a chart for a result from its shape, or reports false
// when no chart would help:
//
//   - a date-like column (YYYY-MM, YYYY-MM-DD…) and a number: a line;
//   - a text column and a number: bars, horizontal (hbar) when labels are
//     longer than 12 characters or there are more than 12 categories; never
//     a pie, which Validate allows but a bar chart reads better;
//   - two numbers: a scatter, or a line when the first looks like a year
//     (whole numbers from 1900 to 2100) or an ascending id or sequence;
//   - a single numeric column of at least 10 rows: a histogram;
//   - a single row, no numeric column, or nothing else: no chart.
//
// y is the first numeric column that is not x. When x repeats and another
// text column has at most 8 distinct values, it becomes the series
// (grouped bars, one line per group). The title is derived from the columns.
func Suggest(cols []query.Column, rows []query.Row) (answer.ChartSpec, bool) {
	if len(cols) == 0 || len(rows) < 2 {
		return answer.ChartSpec{}, false
	}
	type colKind int
	const (
		other colKind = iota
		number
		date
		category
	)
	kinds := make([]colKind, len(cols))
	scans := make([]colScan, len(cols))
	for i := range cols {
		sc := scanColumn(rows, i)
		scans[i] = sc
		_, text := sc.first.(string)
		switch {
		case sc.nonNull == 0:
		case sc.dates:
			kinds[i] = date
		case sc.numeric && sc.stored == sc.nonNull:
			kinds[i] = number
		case text:
			kinds[i] = category
		}
	}
	first := func(k colKind, skip ...int) int {
	next:
		for i, ck := range kinds {
			for _, s := range skip {
				if i == s {
					continue next
				}
			}
			if ck == k {
				return i
			}
		}
		return -1
	}
	count := func(k colKind) int {
		n := 0
		for _, ck := range kinds {
			if ck == k {
				n++
			}
		}
		return n
	}
	spec := func(kind string, x, y, s int) (answer.ChartSpec, bool) {
		sp := answer.ChartSpec{Kind: kind, X: cols[x].Name}
		ys, ss := "", ""
		if y >= 0 {
			sp.Y = cols[y].Name
			ys = humanize(cols[y].Name)
		}
		if s >= 0 {
			sp.Series = cols[s].Name
			ss = humanize(cols[s].Name)
		}
		sp.Title = deriveTitle(kind, humanize(cols[x].Name), ys, ss)
		return sp, true
	}
	// series picks a text column to group by when x repeats.
	series := func(x int) int {
		if !repeats(rows, x) {
			return -1
		}
		for i, ck := range kinds {
			if i != x && ck == category && distinct(rows, i, maxSeries+1) <= maxSeries {
				return i
			}
		}
		return -1
	}

	if x := first(date); x >= 0 {
		if y := first(number, x); y >= 0 {
			return spec(answer.KindLine, x, y, series(x))
		}
	}
	if x := first(category); x >= 0 {
		if y := first(number, x); y >= 0 {
			kind := answer.KindBar
			if n := distinct(rows, x, manyBars+1); n > manyBars || longestLabel(rows, x) > longLabel {
				kind = answer.KindHBar
			}
			return spec(kind, x, y, series(x))
		}
	}
	switch nums := count(number); {
	case nums >= 2:
		x := first(number)
		y := first(number, x)
		if yearLike(scans[x]) || ascending(rows, x) {
			return spec(answer.KindLine, x, y, -1)
		}
		if len(rows) > MaxScatterPoints {
			return answer.ChartSpec{}, false
		}
		return spec(answer.KindScatter, x, y, -1)
	case nums == 1 && count(category) == 0 && count(date) == 0 && len(rows) >= minHistogramRows:
		return spec(answer.KindHistogram, first(number), -1, -1)
	}
	return answer.ChartSpec{}, false
}

// yearLike reports whole numbers between 1900 and 2100.
func yearLike(sc colScan) bool {
	return sc.numeric && sc.ints && sc.minV >= 1900 && sc.maxV <= 2100
}

// ascending reports whole numbers that strictly increase down the rows, as
// ids and sequence numbers do.
func ascending(rows []query.Row, i int) bool {
	prev, seen := 0.0, false
	for _, row := range rows {
		v := cell(row, i)
		if v == nil {
			continue
		}
		f, ok := toFloat(v)
		if !ok || f != float64(int64(f)) || seen && f <= prev {
			return false
		}
		prev, seen = f, true
	}
	return seen
}

// repeats reports whether column i has a value twice.
func repeats(rows []query.Row, i int) bool {
	seen := make(map[string]struct{}, len(rows))
	for _, row := range rows {
		l := labelOf(cell(row, i))
		if _, ok := seen[l]; ok {
			return true
		}
		seen[l] = struct{}{}
	}
	return false
}

// distinct counts the distinct values of column i, stopping at limit.
func distinct(rows []query.Row, i, limit int) int {
	seen := map[string]struct{}{}
	for _, row := range rows {
		seen[labelOf(cell(row, i))] = struct{}{}
		if len(seen) >= limit {
			break
		}
	}
	return len(seen)
}

// longestLabel is the length in runes of column i's longest label.
func longestLabel(rows []query.Row, i int) int {
	n := 0
	for _, row := range rows {
		n = max(n, utf8.RuneCountInString(labelOf(cell(row, i))))
	}
	return n
}
