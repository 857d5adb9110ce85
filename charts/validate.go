package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// Validate checks that spec can be drawn from a result with these columns
// and rows, and returns a *SpecError saying what to change when it cannot:
//
//   - kind is one of answer.Kinds (case does not matter);
//   - x names a result column (the error lists the columns); a histogram's x
//     must be numeric, a scatter's x numeric or date-like;
//   - y (every kind but histogram, which ignores it) names a numeric column:
//     every non-NULL value an INTEGER or REAL, or text that looks like a
//     number; NULLs are skipped; pie values must not be negative;
//   - series, when set, names a third column (bars, lines and scatters only);
//   - a scatter has at most MaxScatterPoints rows and any other kind at most
//     MaxRows; beyond that the *SpecError wraps ErrTooManyPoints.
func Validate(spec answer.ChartSpec, cols []query.Column, rows []query.Row) error {
	_, err := resolve(spec, cols, rows)
	return err
}

// resolved is a validated spec: the kind in canonical form and column
// indexes (-1 when unused).
type resolved struct {
	kind    string
	x, y, s int
	xScan   colScan
}

func resolve(spec answer.ChartSpec, cols []query.Column, rows []query.Row) (resolved, error) {
	r := resolved{x: -1, y: -1, s: -1}
	kind := strings.ToLower(strings.TrimSpace(spec.Kind))
	kinds := strings.Join(answer.Kinds, ", ")
	if kind == "" {
		return r, &SpecError{Field: "kind", Msg: "chart kind is required", Hint: "use one of " + kinds}
	}
	known := false
	for _, k := range answer.Kinds {
		known = known || k == kind
	}
	if !known {
		return r, &SpecError{Field: "kind", Msg: fmt.Sprintf("unknown chart kind %q", sanitize(spec.Kind)), Hint: "use one of " + kinds}
	}
	r.kind = kind
	if len(cols) == 0 {
		return r, &SpecError{Field: "rows", Msg: "the result has no columns to chart", Hint: "run a query that returns columns"}
	}

	var err error
	if r.x, err = needColumn("x", spec.X, kind, cols); err != nil {
		return r, err
	}
	if len(rows) == 0 {
		return r, &SpecError{Field: "rows", Msg: "the result has no rows to chart", Hint: "run a query that returns rows"}
	}
	if kind == answer.KindScatter && len(rows) > MaxScatterPoints {
		return r, &SpecError{
			Field: "rows",
			Msg:   fmt.Sprintf("a scatter plot of %s points is too many (at most %s)", formatNumber(float64(len(rows)), 0), formatNumber(MaxScatterPoints, 0)),
			Hint:  "sample or aggregate in SQL, or draw a histogram or line instead",
			err:   ErrTooManyPoints,
		}
	}
	if len(rows) > MaxRows {
		return r, &SpecError{
			Field: "rows",
			Msg:   fmt.Sprintf("%s rows are too many to chart (at most %s)", formatNumber(float64(len(rows)), 0), formatNumber(MaxRows, 0)),
			Hint:  "aggregate in SQL first, e.g. GROUP BY",
			err:   ErrTooManyPoints,
		}
	}

	r.xScan = scanColumn(rows, r.x)
	switch kind {
	case answer.KindHistogram:
		if err := needNumeric("x", r.x, r.xScan, cols, rows, "a histogram bins numbers — "); err != nil {
			return r, err
		}
	case answer.KindScatter:
		if !r.xScan.dates {
			if err := needNumeric("x", r.x, r.xScan, cols, rows, "a scatter plot needs numbers or dates on x — try a bar chart, or "); err != nil {
				return r, err
			}
		}
	}

	if kind != answer.KindHistogram {
		if strings.TrimSpace(spec.Y) == "" {
			return r, &SpecError{Field: "y", Msg: fmt.Sprintf("y column is required for a %s chart", kind), Hint: suggestNumeric(cols, rows, r.x)}
		}
		if r.y, err = needColumn("y", spec.Y, kind, cols); err != nil {
			return r, err
		}
		yScan := scanColumn(rows, r.y)
		if err := needNumeric("y", r.y, yScan, cols, rows, "", r.x); err != nil {
			return r, err
		}
		if kind == answer.KindPie {
			if err := checkPie(cols[r.y].Name, rows, r.y); err != nil {
				return r, err
			}
		}
	}

	if strings.TrimSpace(spec.Series) != "" {
		if kind == answer.KindPie || kind == answer.KindHistogram {
			return r, &SpecError{Field: "series", Msg: fmt.Sprintf("a %s chart has no series", kind), Hint: "remove series, or use grouped bars (bar) or lines (line)"}
		}
		if r.s, err = needColumn("series", spec.Series, kind, cols); err != nil {
			return r, err
		}
		if r.s == r.x || r.s == r.y {
			return r, &SpecError{Field: "series", Msg: fmt.Sprintf("series column %q is already used as x or y", cols[r.s].Name), Hint: "pick a third column whose values name the groups"}
		}
	}
	return r, nil
}

// needColumn resolves a spec field to a column index.
func needColumn(field, name, kind string, cols []query.Column) (int, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return -1, &SpecError{Field: field, Msg: fmt.Sprintf("%s column is required for a %s chart", field, kind), Hint: "available columns: " + columnList(cols)}
	}
	i := columnIndex(cols, name)
	if i < 0 {
		return -1, &SpecError{Field: field, Msg: fmt.Sprintf("%s column %q is not in the result", field, sanitize(name)), Hint: "available columns: " + columnList(cols)}
	}
	return i, nil
}

// needNumeric refuses a column that is not numeric, naming its type.
func needNumeric(field string, i int, sc colScan, cols []query.Column, rows []query.Row, hintPrefix string, skip ...int) error {
	skip = append(skip, i)
	name := cols[i].Name
	switch {
	case sc.nonNull == 0:
		return &SpecError{Field: field, Msg: fmt.Sprintf("%s column %q has only NULL values", field, name), Hint: hintPrefix + suggestNumeric(cols, rows, skip...)}
	case sc.numeric:
		return nil
	case sc.numbers == 0 || 2*sc.numbers < sc.nonNull:
		// Mostly text: a few number-like values do not make it a measure.
		return &SpecError{Field: field, Msg: fmt.Sprintf("%s column %q is %s, not numeric", field, name, typeName(cols[i], sc)), Hint: hintPrefix + suggestNumeric(cols, rows, skip...)}
	}
	return &SpecError{
		Field: field,
		Msg:   fmt.Sprintf("%s column %q holds a non-numeric value %q in row %d", field, name, truncateRunes(labelOf(sc.bad), 24), sc.badRow+1),
		Hint:  hintPrefix + "filter or CAST it in SQL, or " + suggestNumeric(cols, rows, skip...),
	}
}

// checkPie refuses negative slices and an all-zero pie.
func checkPie(name string, rows []query.Row, y int) error {
	total := 0.0
	for n, row := range rows {
		v, ok := toFloat(cell(row, y))
		if !ok {
			continue
		}
		if v < 0 {
			return &SpecError{Field: "y", Msg: fmt.Sprintf("pie slices cannot be negative: %q is %s in row %d", name, formatValue(v), n+1), Hint: "use a bar chart for values below zero"}
		}
		total += v
	}
	if total == 0 {
		return &SpecError{Field: "y", Msg: fmt.Sprintf("pie values in %q add up to zero", name), Hint: "use a bar chart, or pick another column"}
	}
	return nil
}

// suggestNumeric names a numeric column other than skip for a hint.
func suggestNumeric(cols []query.Column, rows []query.Row, skip ...int) string {
	for i, c := range cols {
		if slices.Contains(skip, i) {
			continue
		}
		if sc := scanColumn(rows, i); sc.numeric && sc.nonNull > 0 {
			return fmt.Sprintf("pick a numeric column such as %q", c.Name)
		}
	}
	return "the result has no other numeric column; aggregate in SQL, e.g. COUNT(*) AS n"
}

// columnList lists column names for an error hint, at most 20 of them.
func columnList(cols []query.Column) string {
	const most = 20
	names := make([]string, 0, min(len(cols), most))
	for i, c := range cols {
		if i == most {
			names = append(names, fmt.Sprintf("… (%d more)", len(cols)-most))
			break
		}
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// colScan summarises the values of one column.
type colScan struct {
	nonNull int
	numbers int  // values that are numbers or numeric text
	stored  int  // values stored as INTEGER or REAL
	numeric bool // every non-NULL value is a number or numeric text
	ints    bool // every numeric value is integral
	dates   bool // every non-NULL value is date-like text
	first   any  // first non-NULL value
	bad     any  // first non-numeric value
	badRow  int
	minV    float64
	maxV    float64
}

func scanColumn(rows []query.Row, i int) colScan {
	sc := colScan{ints: true, dates: true, badRow: -1}
	for n, row := range rows {
		v := cell(row, i)
		if v == nil {
			continue
		}
		if sc.nonNull == 0 {
			sc.first = v
		}
		sc.nonNull++
		if f, ok := toFloat(v); ok {
			if sc.numbers == 0 || f < sc.minV {
				sc.minV = f
			}
			if sc.numbers == 0 || f > sc.maxV {
				sc.maxV = f
			}
			sc.numbers++
			if isStoredNumber(v) {
				sc.stored++
			}
			if f != float64(int64(f)) {
				sc.ints = false
			}
		} else if sc.bad == nil {
			sc.bad, sc.badRow = v, n
		}
		if sc.dates {
			if _, ok := toTime(v); !ok {
				sc.dates = false
			}
		}
	}
	sc.numeric = sc.nonNull > 0 && sc.numbers == sc.nonNull
	sc.dates = sc.dates && sc.nonNull > 0
	if sc.numbers == 0 {
		sc.ints = false
	}
	return sc
}

// typeName is the type a message shows for a column: its declared type, or
// the storage class of its first value.
func typeName(c query.Column, sc colScan) string {
	t := strings.ToUpper(strings.TrimSpace(c.Type))
	if t == "" || numericAffinity(t) && sc.numbers == 0 {
		// A column declared numeric that holds text says more by what it
		// holds.
		return storageClass(sc.first)
	}
	return t
}

// numericAffinity reports whether SQLite gives a declared type INTEGER, REAL
// or NUMERIC affinity.
func numericAffinity(t string) bool {
	switch {
	case strings.Contains(t, "INT"):
		return true
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"), strings.Contains(t, "BLOB"):
		return false
	}
	return true
}
