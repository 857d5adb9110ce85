package tools

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
)

// SchemaCard renders one table as a compact card for a model: its columns
// with types, primary key and foreign keys, its row count, the values a
// CHECK constraint allows, a few example values and the column comments.
//
//	orders(order_id INTEGER PK, customer_id → customers.customer_id, …) 11,887 rows; status one of: pending, shipped; e.g. order_date: 2022-01-01 09:12:44
//	  -- order_date: 'YYYY-MM-DD HH:MM:SS', store time
//
// Names are quoted where SQL needs it ("promo codes"), so a model can copy
// them into SQL as they are.
func SchemaCard(dl engine.Dialect, t *catalog.Table) string {
	ident := dl.QuoteIdentIfNeeded
	var b strings.Builder
	b.WriteString(ident(t.Name))
	b.WriteByte('(')
	fks := fkTargets(dl, t)
	composite := len(t.PrimaryKey) > 1
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ident(c.Name))
		if ref, ok := fks[strings.ToLower(c.Name)]; ok {
			b.WriteString(" → ")
			b.WriteString(ref)
			continue
		}
		if c.Type != "" {
			b.WriteByte(' ')
			b.WriteString(c.Type)
		}
		if c.PK > 0 && !composite {
			b.WriteString(" PK")
		}
	}
	if composite {
		b.WriteString("; PK(")
		for i, k := range t.PrimaryKey {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ident(k))
		}
		b.WriteByte(')')
	}
	b.WriteString(") ")
	if t.Kind != "" && t.Kind != "table" {
		b.WriteString(t.Kind)
		b.WriteString(", ")
	}
	b.WriteString(format.RowCount(t.RowCount, t.RowCountEstimated))
	tc := t.Comment
	if tc != "" {
		b.WriteString(" — ")
		b.WriteString(format.ClipRunes(tc, 160))
	}
	var eg []string
	for _, ex := range examples(t) {
		if ex.all {
			b.WriteString("; ")
			b.WriteString(ident(ex.column))
			b.WriteString(" one of: ")
			b.WriteString(strings.Join(ex.values, ", "))
			continue
		}
		eg = append(eg, ident(ex.column)+": "+strings.Join(ex.values, ", "))
	}
	if len(eg) > 0 {
		b.WriteString("; e.g. ")
		b.WriteString(strings.Join(eg, "; "))
	}
	var notes []string
	for _, c := range t.Columns {
		if c.Comment != "" && c.Comment != tc {
			notes = append(notes, ident(c.Name)+": "+format.ClipRunes(c.Comment, 140))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n  -- ")
		b.WriteString(strings.Join(notes, "; "))
	}
	return b.String()
}

// SchemaText renders every table and view of cat as cards, tables first,
// one card per line (comments on the line below a card).
func SchemaText(dl engine.Dialect, cat *catalog.Catalog) string {
	var b strings.Builder
	for _, tables := range []bool{true, false} {
		for _, t := range cat.Tables {
			if (t.Kind == "table") == tables {
				b.WriteString(SchemaCard(dl, t))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// fkTargets maps a lowercased column name to the column it references:
// customers.customer_id.
func fkTargets(dl engine.Dialect, t *catalog.Table) map[string]string {
	ident := dl.QuoteIdentIfNeeded
	out := map[string]string{}
	for _, fk := range t.ForeignKeys {
		for i, c := range fk.Columns {
			ref := ident(fk.RefTable)
			if i < len(fk.RefColumns) && fk.RefColumns[i] != "" {
				ref += "." + ident(fk.RefColumns[i])
			}
			out[strings.ToLower(c)] = ref
		}
	}
	return out
}

// fkColumns is the set of t's lowercased foreign-key column names.
func fkColumns(t *catalog.Table) map[string]bool {
	out := map[string]bool{}
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			out[strings.ToLower(c)] = true
		}
	}
	return out
}

// example is what a card says about one column's values: every allowed
// value (all, from a CHECK … IN constraint) or a few sampled ones.
type example struct {
	column string
	values []string
	all    bool
}

// maxExampleColumns bounds the sampled examples on one card.
const maxExampleColumns = 3

var categoricalName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(status|type|kind|channel|category|state|level|lang|currency|country|gender|role|method|mode|tier|segment|genre|unit)`)
})

var dateLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)
})

// examples picks what a card shows of a table's values: every CHECK … IN
// list, then sampled values of up to three columns, categorical-looking
// names first, then dates (their format matters to SQL), then other short
// text. Keys, unique columns and long text are left out.
func examples(t *catalog.Table) []example {
	var out []example
	checked := map[string]bool{}
	for _, ch := range t.Checks {
		if col := columnNamed(t, ch.Column); col != nil {
			out = append(out, example{column: col.Name, values: ch.Values, all: true})
			checked[strings.ToLower(col.Name)] = true
		}
	}
	skip := fkColumns(t)
	for _, ix := range t.Indexes {
		if ix.Unique && len(ix.Columns) == 1 {
			skip[strings.ToLower(ix.Columns[0])] = true
		}
	}
	type cand struct {
		ex   example
		rank int
		pos  int
	}
	var cands []cand
	for i, c := range t.Columns {
		lc := strings.ToLower(c.Name)
		if c.PK > 0 || skip[lc] || checked[lc] {
			continue
		}
		var vals []string
		date, long := false, false
		for _, r := range t.Sample {
			if i >= len(r) {
				continue
			}
			s, ok := r[i].(string)
			if !ok || s == "" {
				continue
			}
			if utf8.RuneCountInString(s) > 32 || strings.ContainsAny(s, "\n\r") {
				long = true
				break
			}
			if dateLike().MatchString(s) {
				date = true
			}
			if !slices.Contains(vals, s) {
				vals = append(vals, s)
			}
		}
		if long || len(vals) == 0 {
			continue
		}
		rank := 2
		switch {
		case categoricalName().MatchString(c.Name):
			rank = 0
		case date:
			rank, vals = 1, vals[:1]
		}
		if rank == 2 {
			short := true
			for _, v := range vals {
				short = short && utf8.RuneCountInString(v) <= 20
			}
			if !short {
				continue
			}
		}
		cands = append(cands, cand{example{column: c.Name, values: vals}, rank, i})
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.rank - b.rank })
	if len(cands) > maxExampleColumns {
		cands = cands[:maxExampleColumns]
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.pos - b.pos })
	for _, c := range cands {
		out = append(out, c.ex)
	}
	return out
}

func columnNamed(t *catalog.Table, name string) *catalog.Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// AllowedValues maps each column a CHECK (col IN (…)) constraint restricts
// to the values it allows.
func AllowedValues(t *catalog.Table) map[string][]string {
	out := map[string][]string{}
	for _, ch := range t.Checks {
		if c := columnNamed(t, ch.Column); c != nil {
			out[c.Name] = ch.Values
		}
	}
	return out
}

// CategoryColumns lists the columns of t that look categorical, best
// first: those a CHECK … IN constraint restricts, then text columns with a
// categorical name (status, type, kind, channel…), keys excluded.
func CategoryColumns(t *catalog.Table) []string {
	var out []string
	allowed := AllowedValues(t)
	for _, c := range t.Columns {
		if _, ok := allowed[c.Name]; ok {
			out = append(out, c.Name)
		}
	}
	fks := fkColumns(t)
	for i, c := range t.Columns {
		if _, ok := allowed[c.Name]; ok || c.PK > 0 || !categoricalName().MatchString(c.Name) {
			continue
		}
		if _, ok := fks[strings.ToLower(c.Name)]; ok {
			continue
		}
		text := len(t.Sample) > 0
		for _, r := range t.Sample {
			if i < len(r) {
				if _, ok := r[i].(string); !ok && r[i] != nil {
					text = false
				}
			}
		}
		if text {
			out = append(out, c.Name)
		}
	}
	return out
}
