package chartspec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
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
	_, err := Resolve(spec, cols, rows)
	return err
}

// Resolved is a validated spec: the kind in canonical form, the indexes of
// its columns (-1 when unused) and what the x column holds.
type Resolved struct {
	Kind         string
	X, Y, Series int
	XScan        Scan
}

// Spec is the resolved spec with the kind in canonical form and the column
// names as the result spells them.
func (r Resolved) Spec(spec answer.ChartSpec, cols []query.Column) answer.ChartSpec {
	spec.Kind = r.Kind
	name := func(i int) string {
		if i < 0 {
			return ""
		}
		return cols[i].Name
	}
	spec.X, spec.Y, spec.Series = name(r.X), name(r.Y), name(r.Series)
	return spec
}

// Resolve is Validate that also returns what it resolved.
func Resolve(spec answer.ChartSpec, cols []query.Column, rows []query.Row) (Resolved, error) {
	r := Resolved{X: -1, Y: -1, Series: -1}
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
		return r, &SpecError{Field: "kind", Msg: fmt.Sprintf("unknown chart kind %q", Sanitize(spec.Kind)), Hint: "use one of " + kinds}
	}
	r.Kind = kind
	if len(cols) == 0 {
		return r, &SpecError{Field: "rows", Msg: "the result has no columns to chart", Hint: "run a query that returns columns"}
	}

	var err error
	if r.X, err = needColumn("x", spec.X, kind, cols); err != nil {
		return r, err
	}
	if len(rows) == 0 {
		return r, &SpecError{Field: "rows", Msg: "the result has no rows to chart", Hint: "run a query that returns rows"}
	}
	if kind == answer.KindScatter && len(rows) > MaxScatterPoints {
		return r, &SpecError{
			Field: "rows",
			Msg:   fmt.Sprintf("a scatter plot of %s points is too many (at most %s)", format.Number(float64(len(rows)), 0), format.Number(MaxScatterPoints, 0)),
			Hint:  "sample or aggregate in SQL, or draw a histogram or line instead",
			err:   ErrTooManyPoints,
		}
	}
	if len(rows) > MaxRows {
		return r, &SpecError{
			Field: "rows",
			Msg:   fmt.Sprintf("%s rows are too many to chart (at most %s)", format.Number(float64(len(rows)), 0), format.Number(MaxRows, 0)),
			Hint:  "aggregate in SQL first, e.g. GROUP BY",
			err:   ErrTooManyPoints,
		}
	}

	r.XScan = ScanColumn(rows, r.X)
	switch kind {
	case answer.KindHistogram:
		if err := needNumeric("x", r.X, r.XScan, cols, rows, "a histogram bins numbers — "); err != nil {
			return r, err
		}
	case answer.KindScatter:
		if !r.XScan.Dates {
			if err := needNumeric("x", r.X, r.XScan, cols, rows, "a scatter plot needs numbers or dates on x — try a bar chart, or "); err != nil {
				return r, err
			}
		}
	}

	if kind != answer.KindHistogram {
		if strings.TrimSpace(spec.Y) == "" {
			return r, &SpecError{Field: "y", Msg: fmt.Sprintf("y column is required for a %s chart", kind), Hint: suggestNumeric(cols, rows, r.X)}
		}
		if r.Y, err = needColumn("y", spec.Y, kind, cols); err != nil {
			return r, err
		}
		yScan := ScanColumn(rows, r.Y)
		if err := needNumeric("y", r.Y, yScan, cols, rows, "", r.X); err != nil {
			return r, err
		}
		if kind == answer.KindPie {
			if err := checkPie(cols[r.Y].Name, rows, r.Y); err != nil {
				return r, err
			}
		}
	}

	if strings.TrimSpace(spec.Series) != "" {
		if kind == answer.KindPie || kind == answer.KindHistogram {
			return r, &SpecError{Field: "series", Msg: fmt.Sprintf("a %s chart has no series", kind), Hint: "remove series, or use grouped bars (bar) or lines (line)"}
		}
		if r.Series, err = needColumn("series", spec.Series, kind, cols); err != nil {
			return r, err
		}
		if r.Series == r.X || r.Series == r.Y {
			return r, &SpecError{Field: "series", Msg: fmt.Sprintf("series column %q is already used as x or y", cols[r.Series].Name), Hint: "pick a third column whose values name the groups"}
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
	i := ColumnIndex(cols, name)
	if i < 0 {
		return -1, &SpecError{Field: field, Msg: fmt.Sprintf("%s column %q is not in the result", field, Sanitize(name)), Hint: "available columns: " + columnList(cols)}
	}
	return i, nil
}

// needNumeric refuses a column that is not numeric, naming its type.
func needNumeric(field string, i int, sc Scan, cols []query.Column, rows []query.Row, hintPrefix string, skip ...int) error {
	skip = append(skip, i)
	name := cols[i].Name
	switch {
	case sc.NonNull == 0:
		return &SpecError{Field: field, Msg: fmt.Sprintf("%s column %q has only NULL values", field, name), Hint: hintPrefix + suggestNumeric(cols, rows, skip...)}
	case sc.Numeric:
		return nil
	case sc.Numbers == 0 || 2*sc.Numbers < sc.NonNull:
		// Mostly text: a few number-like values do not make it a measure.
		return &SpecError{Field: field, Msg: fmt.Sprintf("%s column %q is %s, not numeric", field, name, typeName(cols[i], sc)), Hint: hintPrefix + suggestNumeric(cols, rows, skip...)}
	}
	return &SpecError{
		Field: field,
		Msg:   fmt.Sprintf("%s column %q holds a non-numeric value %q in row %d", field, name, format.ClipRunes(Label(sc.Bad), 24), sc.BadRow+1),
		Hint:  hintPrefix + "filter or CAST it in SQL, or " + suggestNumeric(cols, rows, skip...),
	}
}

// checkPie refuses negative slices and an all-zero pie.
func checkPie(name string, rows []query.Row, y int) error {
	total := 0.0
	for n, row := range rows {
		v, ok := ToFloat(Cell(row, y))
		if !ok {
			continue
		}
		if v < 0 {
			return &SpecError{Field: "y", Msg: fmt.Sprintf("pie slices cannot be negative: %q is %s in row %d", name, format.Measure(v), n+1), Hint: "use a bar chart for values below zero"}
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
		if sc := ScanColumn(rows, i); sc.Numeric && sc.NonNull > 0 {
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

// Scan summarises the values of one column.
type Scan struct {
	NonNull int
	Numbers int  // values that are numbers or numeric text
	Stored  int  // values stored as INTEGER or REAL
	Numeric bool // every non-NULL value is a number or numeric text
	Ints    bool // every numeric value is integral
	Dates   bool // every non-NULL value is date-like text
	First   any  // first non-NULL value
	Bad     any  // first non-numeric value
	BadRow  int
	Min     float64
	Max     float64
}

// ScanColumn summarises column i of rows.
func ScanColumn(rows []query.Row, i int) Scan {
	sc := Scan{Ints: true, Dates: true, BadRow: -1}
	for n, row := range rows {
		v := Cell(row, i)
		if v == nil {
			continue
		}
		if sc.NonNull == 0 {
			sc.First = v
		}
		sc.NonNull++
		if f, ok := ToFloat(v); ok {
			if sc.Numbers == 0 || f < sc.Min {
				sc.Min = f
			}
			if sc.Numbers == 0 || f > sc.Max {
				sc.Max = f
			}
			sc.Numbers++
			if isStoredNumber(v) {
				sc.Stored++
			}
			if f != float64(int64(f)) {
				sc.Ints = false
			}
		} else if sc.Bad == nil {
			sc.Bad, sc.BadRow = v, n
		}
		if sc.Dates {
			if _, ok := ToTime(v); !ok {
				sc.Dates = false
			}
		}
	}
	sc.Numeric = sc.NonNull > 0 && sc.Numbers == sc.NonNull
	sc.Dates = sc.Dates && sc.NonNull > 0
	if sc.Numbers == 0 {
		sc.Ints = false
	}
	return sc
}

// typeName is the type a message shows for a column: its declared type, or
// the storage class of its first value.
func typeName(c query.Column, sc Scan) string {
	t := strings.ToUpper(strings.TrimSpace(c.Type))
	if t == "" || format.IsNumericType(t) && sc.Numbers == 0 {
		// A column declared numeric that holds text says more by what it
		// holds.
		return storageClass(sc.First)
	}
	return t
}
