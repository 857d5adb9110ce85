package advise

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// EstimateLabel marks a suggestion the planner did not try.
const EstimateLabel = "estimate: not tried by the planner"

// Bounds of an estimate.
const (
	// estimateSample bounds the rows read to count a column's distinct
	// values.
	estimateSample = 100_000
	// minEstimateRows: a table smaller than this reads fast in full.
	minEstimateRows = 1_000
	// maxKept is the largest share of a table's rows an equality filter
	// may keep for an index on it to be suggested.
	maxKept = 0.2
	// maxKeyColumns bounds an estimated index's columns.
	maxKeyColumns = 3
)

// estimateMethod says how an estimate is made on d, and how to get
// advice the planner proves; why is the engine's reason it could not try
// indexes (nil: the engine cannot at all).
func estimateMethod(d *db.DB, why error) string {
	from := "each suggestion comes from the statement's filters, joins and order, its plan, the existing indexes and the columns' distinct values in a sample of up to " + format.Count(estimateSample) + " rows"
	if errors.Is(why, engine.ErrNoIndexTrial) {
		return why.Error() + "; " + from
	}
	return d.Dialect().Name() + " cannot plan with an index that does not exist: " + from
}

// use is how a statement uses a column of a scanned table.
type use struct {
	col   string
	eq    bool // col = value, col IN (…), a join's col = other.col
	rng   bool // col < value, BETWEEN, LIKE
	order bool // ORDER BY or GROUP BY col
}

// estimate fills adv with indexes suggested without the planner: for each
// table the plan reads in full (order, with the aliases it is read under),
// the columns the statement compares for equality, most selective first
// in a bounded sample, then one compared by range or that orders the
// rows. A table that is small, whose filter keeps too much of it, or that
// already has an index leading with the best column gets none, with a
// note saying why. Every read is a bounded query through the guard.
func estimate(ctx context.Context, d *db.DB, cat *catalog.Catalog, plan *engine.Plan, adv *Advice, order []string, scanned map[string][]string) (*Advice, error) {
	toks := tokens(plan.SQL)
	limited := slices.ContainsFunc(toks, func(t string) bool { return t == "limit" || t == "fetch" })
	for _, name := range order {
		t := cat.Table(name)
		uses := usesOf(toks, t, scanned[name])
		if len(uses) == 0 {
			adv.Notes = append(adv.Notes, fmt.Sprintf("%s is read in full, but the statement filters, joins or sorts on none of its columns: an index cannot help", name))
			continue
		}
		if t.RowCount >= 0 && t.RowCount < minEstimateRows {
			adv.Notes = append(adv.Notes, fmt.Sprintf("%s has %s: reading it in full is cheap, no index suggested", name, format.RowCount(t.RowCount, t.RowCountEstimated)))
			continue
		}
		type eqCol struct {
			col      string
			distinct int64
		}
		var eqs []eqCol
		var rng, ord string
		sampled := int64(0)
		for _, u := range uses {
			switch {
			case u.eq:
				n, distinct, err := distinctIn(ctx, d, t, u.col)
				if err != nil {
					adv.Notes = append(adv.Notes, fmt.Sprintf("%s.%s: distinct values not counted: %v", name, u.col, err))
					continue
				}
				sampled = n
				eqs = append(eqs, eqCol{u.col, distinct})
			case u.rng && rng == "":
				rng = u.col
			case u.order && ord == "":
				ord = u.col
			}
		}
		slices.SortStableFunc(eqs, func(a, b eqCol) int { return int(b.distinct - a.distinct) })
		var cols, why []string
		kept := 1.0
		for _, e := range eqs {
			if len(cols) == maxKeyColumns || e.distinct <= 1 {
				break
			}
			cols = append(cols, e.col)
			kept /= float64(e.distinct)
			why = append(why, fmt.Sprintf("%s has %s in a sample of %s", e.col, format.Plural(e.distinct, "distinct value"), format.Plural(sampled, "row")))
		}
		switch {
		case len(cols) > 0 && kept > maxKept:
			adv.Notes = append(adv.Notes, fmt.Sprintf("on %s the filter on %s keeps %s of the rows: an index would not beat the full read", name, strings.Join(cols, ", "), percent(kept)))
			continue
		case len(cols) > 0:
			why = append([]string{fmt.Sprintf("the plan reads all of %s; the filter on %s keeps %s of its rows", name, strings.Join(cols, ", "), percent(kept))}, why...)
			if len(cols) < maxKeyColumns && rng != "" {
				cols = append(cols, rng)
				why = append(why, "then "+rng+" narrows the range")
			} else if len(cols) < maxKeyColumns && ord != "" && tempSorts(plan)+sortNotes(plan) > 0 {
				cols = append(cols, ord)
				why = append(why, "then "+ord+" gives the rows in order, without a sort")
			}
		case rng != "":
			cols = []string{rng}
			why = []string{fmt.Sprintf("the plan reads all of %s; the range on %s could be read through an index (how many rows it keeps was not estimated)", name, rng)}
		case ord != "" && limited:
			cols = []string{ord}
			why = []string{fmt.Sprintf("the plan reads and sorts all of %s for a LIMIT; an index on %s gives the first rows in order", name, ord)}
		default:
			adv.Notes = append(adv.Notes, fmt.Sprintf("on %s no filter keeps few enough rows for an index to beat the full read", name))
			continue
		}
		if ix := leading(t, cols[0]); ix != "" {
			adv.Notes = append(adv.Notes, fmt.Sprintf("%s already has an index leading with %s (%s), and the planner reads the table in full anyway", name, cols[0], ix))
			continue
		}
		idx := catalog.IndexName(t.Name, cols)
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = d.Dialect().QuoteIdentIfNeeded(c)
		}
		adv.Suggestions = append(adv.Suggestions, Suggestion{
			Table: t.Name, Columns: cols,
			Create: fmt.Sprintf("CREATE INDEX %s ON %s (%s);", d.Dialect().QuoteIdentIfNeeded(idx), d.Dialect().QuoteIdentIfNeeded(t.Name), strings.Join(quoted, ", ")),
			Why:    strings.Join(why, "; "),
			Before: plan.Text(),
			Proof:  ProofEstimate,
		})
	}
	return adv, nil
}

// sortNotes counts the steps the engine marks as sorting or grouping in a
// temporary table (MySQL's "Using filesort", "Using temporary").
func sortNotes(p *engine.Plan) int {
	n := 0
	for _, s := range p.Steps {
		if s.Note != "" && strings.Contains(s.Note, "sort") {
			n++
		}
	}
	return n
}

// percent is a share of rows in words: "about 0.76%".
func percent(f float64) string {
	switch p := f * 100; {
	case p < 0.01:
		return "less than 0.01%"
	case p < 1:
		return fmt.Sprintf("about %.2f%%", p)
	default:
		return fmt.Sprintf("about %.0f%%", p)
	}
}

// leading names an index of t (or its primary key) whose first column is
// col, "" for none.
func leading(t *catalog.Table, col string) string {
	if len(t.PrimaryKey) > 0 && strings.EqualFold(t.PrimaryKey[0], col) {
		return "the primary key"
	}
	for _, ix := range t.Indexes {
		if len(ix.Columns) > 0 && strings.EqualFold(ix.Columns[0], col) {
			return ix.Name
		}
	}
	return ""
}

// distinctIn counts the rows of a bounded sample of t and col's distinct
// values among them, through the guard under the default deadline.
func distinctIn(ctx context.Context, d *db.DB, t *catalog.Table, col string) (rows, distinct int64, err error) {
	dl := d.Dialect()
	q := fmt.Sprintf("SELECT COUNT(*), COUNT(DISTINCT %s) FROM (SELECT %s FROM %s %s) AS s",
		dl.QuoteIdent(col), dl.QuoteIdent(col), dl.QuoteIdent(t.Name), dl.Limit(estimateSample))
	res, err := query.Collect(ctx, d, q, query.Options{MaxRows: 1, Timeout: query.DefaultTimeout})
	if err != nil {
		return 0, 0, err
	}
	if len(res.Rows) != 1 {
		return 0, 0, errors.New("no count")
	}
	return engine.Int64(res.Rows[0][0]), engine.Int64(res.Rows[0][1]), nil
}

var token = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"(?:[^"]|"")+"|` + "`[^`]+`" + `|\[[^\]]+\]|'(?:[^']|'')*'|[\p{L}_][\p{L}\p{N}_$]*|[0-9][0-9.]*|<=>|<=|>=|<>|!=|[=<>.(),]`)
})

// tokens lists the statement's tokens after its first FROM, lower-cased,
// names unquoted, every string literal as "'".
func tokens(sql string) []string {
	var out []string
	seenFrom := false
	for _, w := range token().FindAllString(sql, -1) {
		if !seenFrom {
			seenFrom = strings.EqualFold(w, "from")
			continue
		}
		if strings.HasPrefix(w, "'") {
			w = "'"
		}
		out = append(out, strings.ToLower(catalog.Unquote(w)))
	}
	return out
}

// usesOf lists how the statement uses t's columns, read under aliases
// (or unqualified), in the order they first appear.
func usesOf(toks []string, t *catalog.Table, aliases []string) []use {
	var out []use
	lower := make([]string, len(aliases))
	for i, a := range aliases {
		lower[i] = strings.ToLower(a)
	}
	aliases = lower
	at := map[string]int{}
	clause := "from"
	for i := 0; i < len(toks); i++ {
		w := toks[i]
		switch w {
		case "where", "on", "having", "select", "from", "join":
			clause = w
			continue
		case "order", "group":
			clause = "order"
			continue
		}
		col := columnOf(t, w)
		if col == "" {
			continue
		}
		// A name qualified by another table's alias is not t's column.
		if i >= 2 && toks[i-1] == "." && !slices.Contains(aliases, toks[i-2]) && toks[i-2] != strings.ToLower(t.Name) {
			continue
		}
		if i+1 < len(toks) && toks[i+1] == "." {
			continue // an alias or table named like a column
		}
		var u use
		prev, next := "", ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		start := i
		if i >= 2 && toks[i-1] == "." {
			start = i - 2
		}
		if start > 0 {
			prev = toks[start-1]
		}
		switch {
		case clause == "order":
			u.order = true
		case next == "=" || next == "<=>" || next == "in" || next == "is" || prev == "=" || prev == "<=>":
			u.eq = true
		case next == "<" || next == ">" || next == "<=" || next == ">=" || next == "between" || next == "like" ||
			prev == "<" || prev == ">" || prev == "<=" || prev == ">=":
			u.rng = true
		default:
			continue
		}
		u.col = col
		if j, ok := at[col]; ok {
			out[j].eq, out[j].rng, out[j].order = out[j].eq || u.eq, out[j].rng || u.rng, out[j].order || u.order
			continue
		}
		at[col] = len(out)
		out = append(out, u)
	}
	return out
}

// columnOf is t's column named w (lower-cased), "" for none.
func columnOf(t *catalog.Table, w string) string {
	for _, c := range t.Columns {
		if strings.ToLower(c.Name) == w {
			return c.Name
		}
	}
	return ""
}
