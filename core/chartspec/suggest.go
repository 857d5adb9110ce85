package chartspec

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/text"
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
// y is a numeric column other than x: one named like an amount or a count
// (total, revenue, price, n, count, units…) before any other, and never one
// whose name reads as an identifier (id, customer_id, AlbumId) or whose
// values count up by one from row to row (a row number). A result whose
// only numbers are such gets no chart, and so does a listing of rows: more
// than 100 rows with an identifier column whose values are all different
// (SELECT * FROM orders), where any chart would be of one row's columns
// against another's.
// When x repeats and another text column has at most 8 distinct values, it
// becomes the series (grouped bars, one line per group). The title is
// derived from the columns.
func Suggest(cols []query.Column, rows []query.Row) (answer.ChartSpec, bool) {
	if len(cols) == 0 || len(rows) < 2 {
		return answer.ChartSpec{}, false
	}
	sh := shapeOf(cols, rows)
	if sh.listing() {
		return answer.ChartSpec{}, false
	}
	if x := sh.first(date); x >= 0 {
		if y := sh.measure(x); y >= 0 {
			return sh.spec(answer.KindLine, x, y, sh.series(x)), true
		}
	}
	if x := sh.first(category); x >= 0 {
		if y := sh.measure(x); y >= 0 {
			return sh.spec(sh.barKind(x), x, y, sh.series(x)), true
		}
	}
	switch nums := sh.count(number); {
	case nums >= 2:
		x := sh.first(number)
		y := sh.measure(x)
		if y < 0 {
			return answer.ChartSpec{}, false
		}
		kind := sh.numberKind(x)
		if kind == answer.KindScatter && len(rows) > MaxScatterPoints {
			return answer.ChartSpec{}, false
		}
		return sh.spec(kind, x, y, -1), true
	case nums == 1 && sh.count(category) == 0 && sh.count(date) == 0 && len(rows) >= minHistogramRows:
		if x := sh.measure(-1); x >= 0 {
			return sh.spec(answer.KindHistogram, x, -1, -1), true
		}
	}
	return answer.ChartSpec{}, false
}

// Complete fills in what spec leaves out, choosing as Suggest would: a spec
// with no kind, x or y is Suggest's (keeping the given series and title); a
// spec with some of them gets x from the columns that suit its kind, y as
// the first measure that is not x, the kind from what x holds, a series
// when x was chosen for it, and a title. A spec that names its kind, x and
// y (a histogram needs no y) comes back as it is. It reports whether it
// filled anything; a *SpecError says that nothing suits the result. The
// filled spec still goes through Validate, which names a column that is
// not in the result.
func Complete(spec answer.ChartSpec, cols []query.Column, rows []query.Row) (answer.ChartSpec, bool, error) {
	spec.Kind = strings.ToLower(strings.TrimSpace(spec.Kind))
	kind := spec.Kind
	if kind != "" && spec.X != "" && (spec.Y != "" || kind == answer.KindHistogram) {
		return spec, false, nil
	}
	if kind == "" && spec.X == "" && spec.Y == "" {
		sug, ok := Suggest(cols, rows)
		if !ok {
			return spec, false, noChart(cols, rows)
		}
		return withGiven(sug, spec), true, nil
	}
	if len(cols) == 0 || len(rows) == 0 {
		return spec, false, noChart(cols, rows)
	}
	if kind != "" && spec.X == "" && spec.Y == "" && kind != answer.KindHistogram {
		// A kind alone: the columns the suggestion picks, when they suit it.
		if sug, ok := Suggest(cols, rows); ok {
			sh := shapeOf(cols, rows)
			x := ColumnIndex(cols, sug.X)
			if kind != answer.KindScatter || sh.kinds[x] == number || sh.kinds[x] == date {
				filled := sh.spec(kind, x, ColumnIndex(cols, sug.Y), -1)
				if sug.Series != "" && kind != answer.KindPie {
					filled = sh.spec(kind, x, ColumnIndex(cols, sug.Y), ColumnIndex(cols, sug.Series))
				}
				given := spec
				if kind == answer.KindPie {
					given.Series = "" // a pie has no series
				}
				return withGiven(filled, given), true, nil
			}
		}
	}
	sh := shapeOf(cols, rows)
	x, y := -1, -1
	if spec.X != "" {
		if x = ColumnIndex(cols, spec.X); x < 0 {
			return spec, false, nil // Validate names the columns
		}
	}
	if spec.Y != "" {
		if y = ColumnIndex(cols, spec.Y); y < 0 {
			return spec, false, nil
		}
	}
	if x < 0 {
		x = sh.xFor(kind, y)
	}
	if x < 0 {
		return spec, false, noChart(cols, rows)
	}
	if kind == "" {
		kind = sh.kindFor(x, y)
	}
	if y < 0 && kind != answer.KindHistogram {
		if y = sh.measure(x); y < 0 {
			return spec, false, &SpecError{Field: "y", Msg: fmt.Sprintf("a %s chart needs a numeric column for y, and the result has none besides %q", kind, cols[x].Name), Hint: "aggregate in SQL, e.g. COUNT(*) AS n"}
		}
	}
	s := -1
	if spec.Series != "" {
		s = ColumnIndex(cols, spec.Series)
	} else if spec.X == "" && (kind == answer.KindBar || kind == answer.KindHBar || kind == answer.KindLine) {
		s = sh.series(x)
	}
	return withGiven(sh.spec(kind, x, y, s), spec), true, nil
}

// withGiven is filled with the series and title spec gives, which win
// over the ones chosen for it.
func withGiven(filled, spec answer.ChartSpec) answer.ChartSpec {
	if spec.Series != "" {
		filled.Series = spec.Series
	}
	if spec.Title != "" {
		filled.Title = spec.Title
	}
	return filled
}

// noChart is Complete's error when no chart suits a result.
func noChart(cols []query.Column, rows []query.Row) error {
	if len(cols) > 0 && len(rows) == 0 {
		return &SpecError{Field: "rows", Msg: "the result has no rows to chart", Hint: "run a query that returns rows"}
	}
	if sh := shapeOf(cols, rows); sh.listing() {
		return &SpecError{Field: "rows",
			Msg:  fmt.Sprintf("no chart suits a listing of %s (every row has its own %s)", format.Plural(int64(len(rows)), "row"), sh.cols[sh.idColumn()].Name),
			Hint: "aggregate in SQL, e.g. SELECT status, count(*) AS n … GROUP BY status, or give the kind, x and y"}
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + typeName(c, ScanColumn(rows, i))
	}
	return &SpecError{Field: "kind",
		Msg:  fmt.Sprintf("no chart suits this result on its own (%s; columns %s)", format.Plural(int64(len(rows)), "row"), strings.Join(parts, ", ")),
		Hint: "give the kind, x and y"}
}

// colKind is what a column holds, as Suggest sees it.
type colKind int

const (
	other colKind = iota
	number
	date
	category
)

// shape is what Suggest and Complete know of a result.
type shape struct {
	cols  []query.Column
	rows  []query.Row
	kinds []colKind
	scans []Scan
}

func shapeOf(cols []query.Column, rows []query.Row) *shape {
	sh := &shape{cols: cols, rows: rows, kinds: make([]colKind, len(cols)), scans: make([]Scan, len(cols))}
	for i := range cols {
		sc := ScanColumn(rows, i)
		sh.scans[i] = sc
		_, text := sc.First.(string)
		switch {
		case sc.NonNull == 0:
		case sc.Dates:
			sh.kinds[i] = date
		case sc.Numeric && sc.Stored == sc.NonNull:
			sh.kinds[i] = number
		case text:
			sh.kinds[i] = category
		}
	}
	return sh
}

// first is the first column of kind k that is not in skip, or -1.
func (sh *shape) first(k colKind, skip ...int) int {
next:
	for i, ck := range sh.kinds {
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

func (sh *shape) count(k colKind) int {
	n := 0
	for _, ck := range sh.kinds {
		if ck == k {
			n++
		}
	}
	return n
}

// measure is the numeric column other than skip that best reads as a
// measure, or -1: the first one named like an amount or a count, else the
// first other one. Identifiers and row numbers are never measures.
func (sh *shape) measure(skip int) int {
	best, bestScore := -1, 0
	for i, ck := range sh.kinds {
		if i == skip || ck != number || IDLike(sh.cols[i].Name) || sh.rowNumber(i) {
			continue
		}
		score := 1
		if measureName(sh.cols[i].Name) {
			score = 2
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// measureWords are the words of column names that declare a measure.
var measureWords = map[string]bool{
	"n": true, "count": true, "cnt": true, "num": true, "number": true, "total": true, "sum": true,
	"amount": true, "amt": true, "revenue": true, "sales": true, "sold": true, "price": true,
	"cost": true, "spend": true, "spent": true, "profit": true, "income": true, "value": true,
	"qty": true, "quantity": true, "units": true, "avg": true, "average": true, "mean": true,
	"median": true, "min": true, "max": true, "orders": true, "balance": true, "share": true,
	"pct": true, "percent": true, "rate": true, "freight": true, "score": true, "rating": true,
}

// measureName reports whether a column name declares a measure: one of
// its words is a measure word (units_sold, TotalRevenue, "count(*)").
func measureName(name string) bool {
	for _, w := range text.NameWords(name) {
		if measureWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// rowNumber reports whether column i counts up by one from row to row, as
// row numbers and generated keys do (stored as integers), over more rows than a chart shows bars
// (a few small counts may step by one by chance).
func (sh *shape) rowNumber(i int) bool {
	if _, ints := sh.scans[i].First.(int64); len(sh.rows) <= rowNumberRows || !ints {
		return false
	}
	prev := 0.0
	for n, row := range sh.rows {
		f, ok := ToFloat(Cell(row, i))
		if !ok || n > 0 && f != prev+1 {
			return false
		}
		prev = f
	}
	return true
}

// rowNumberRows is how many rows a column must count up by one over to be
// taken for a row number.
const rowNumberRows = 25

// listingRows is how many rows a result needs before an all-distinct
// identifier column makes it a listing rather than an aggregate.
const listingRows = 100

// listing reports whether the result lists rows of a table: more than
// listingRows rows and a numeric identifier column whose values all
// differ.
func (sh *shape) listing() bool {
	return sh.idColumn() >= 0
}

// idColumn is the first numeric identifier column whose values all differ
// in a result of more than listingRows rows, or -1.
func (sh *shape) idColumn() int {
	if len(sh.rows) <= listingRows {
		return -1
	}
	for i, ck := range sh.kinds {
		if ck == number && IDLike(sh.cols[i].Name) && distinct(sh.rows, i, len(sh.rows)) == len(sh.rows) {
			return i
		}
	}
	return -1
}

// series picks a text column to group by when x repeats.
func (sh *shape) series(x int) int {
	if !repeats(sh.rows, x) {
		return -1
	}
	for i, ck := range sh.kinds {
		if i != x && ck == category && distinct(sh.rows, i, MaxSeries+1) <= MaxSeries {
			return i
		}
	}
	return -1
}

// barKind is bar, or hbar when x has many categories or long labels.
func (sh *shape) barKind(x int) string {
	if n := distinct(sh.rows, x, manyBars+1); n > manyBars || longestLabel(sh.rows, x) > longLabel {
		return answer.KindHBar
	}
	return answer.KindBar
}

// numberKind is the kind for a numeric x: a line when it looks like years
// or an ascending sequence, else a scatter.
func (sh *shape) numberKind(x int) string {
	if yearLike(sh.scans[x]) || ascending(sh.rows, x) {
		return answer.KindLine
	}
	return answer.KindScatter
}

// kindFor is the kind Suggest gives x (and y, when chosen): a line for
// dates, bars for text, a line or scatter for numbers with a measure
// beside them, a histogram for a lone number.
func (sh *shape) kindFor(x, y int) string {
	switch sh.kinds[x] {
	case date:
		return answer.KindLine
	case number:
		if y < 0 && sh.measure(x) < 0 {
			return answer.KindHistogram
		}
		return sh.numberKind(x)
	}
	return sh.barKind(x)
}

// xFor picks the x column for kind (any kind when ""), avoiding y.
func (sh *shape) xFor(kind string, y int) int {
	var order []colKind
	switch kind {
	case answer.KindHistogram, answer.KindScatter:
		order = []colKind{number, date}
	case answer.KindLine:
		order = []colKind{date, number}
	default: // bar, hbar, pie, or not given
		order = []colKind{date, category, number}
		if kind != "" {
			order = []colKind{category, date, number}
		}
	}
	for _, k := range order {
		if x := sh.first(k, y); x >= 0 {
			return x
		}
	}
	return -1
}

// spec is a spec of the columns x, y and s (-1 when unused), titled.
func (sh *shape) spec(kind string, x, y, s int) answer.ChartSpec {
	sp := answer.ChartSpec{Kind: kind, X: sh.cols[x].Name}
	if y >= 0 {
		sp.Y = sh.cols[y].Name
	}
	if s >= 0 {
		sp.Series = sh.cols[s].Name
	}
	sp.Title = Title(kind, sp.X, sp.Y, sp.Series)
	return sp
}

// IDLike reports whether a column name reads as an identifier: id,
// customer_id, AlbumId, ISBN_ID.
func IDLike(name string) bool {
	n := strings.ToLower(name)
	return n == "id" || strings.HasSuffix(n, "_id") || (strings.HasSuffix(name, "Id") && len(name) > 2) || strings.HasSuffix(name, "ID")
}

// yearLike reports whole numbers between 1900 and 2100.
func yearLike(sc Scan) bool {
	return sc.Numeric && sc.Ints && sc.Min >= 1900 && sc.Max <= 2100
}

// ascending reports whole numbers that strictly increase down the rows, as
// ids and sequence numbers do.
func ascending(rows []query.Row, i int) bool {
	prev, seen := 0.0, false
	for _, row := range rows {
		v := Cell(row, i)
		if v == nil {
			continue
		}
		f, ok := ToFloat(v)
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
		l := Label(Cell(row, i))
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
		seen[Label(Cell(row, i))] = struct{}{}
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
		n = max(n, utf8.RuneCountInString(Label(Cell(row, i))))
	}
	return n
}
