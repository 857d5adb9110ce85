package tools

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/db"
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
func SchemaCard(t *db.Table) string {
	var b strings.Builder
	b.WriteString(ident(t.Name))
	b.WriteByte('(')
	fks := fkTargets(t)
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
	if t.Kind == "view" {
		b.WriteString("view, ")
	}
	b.WriteString(rowCountText(t.RowCount, t.RowCountEstimated))
	tc := tableComment(t.SQL)
	if tc != "" {
		b.WriteString(" — ")
		b.WriteString(clip(tc, 160))
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
			notes = append(notes, ident(c.Name)+": "+clip(c.Comment, 140))
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
func SchemaText(cat *db.Catalog) string {
	var b strings.Builder
	for _, kind := range []string{"table", "view"} {
		for _, t := range cat.Tables {
			if t.Kind == kind {
				b.WriteString(SchemaCard(t))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// fkTargets maps a lowercased column name to the column it references:
// customers.customer_id.
func fkTargets(t *db.Table) map[string]string {
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

// example is what a card says about one column's values: every allowed
// value (all, from a CHECK … IN constraint) or a few sampled ones.
type example struct {
	column string
	values []string
	all    bool
}

// maxExampleColumns bounds the sampled examples on one card.
const maxExampleColumns = 3

var categoricalName = regexp.MustCompile(`(?i)(status|type|kind|channel|category|state|level|lang|currency|country|gender|role|method|mode|tier|segment|genre|unit)`)

var dateLike = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

// examples picks what a card shows of a table's values: every CHECK … IN
// list, then sampled values of up to three columns, categorical-looking
// names first, then dates (their format matters to SQL), then other short
// text. Keys, unique columns and long text are left out.
func examples(t *db.Table) []example {
	var out []example
	checked := map[string]bool{}
	for _, ch := range checkValues(t.SQL) {
		if col := columnNamed(t, ch.column); col != nil {
			out = append(out, example{column: col.Name, values: ch.values, all: true})
			checked[strings.ToLower(col.Name)] = true
		}
	}
	skip := map[string]bool{}
	for k := range fkTargets(t) {
		skip[k] = true
	}
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
			if dateLike.MatchString(s) {
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
		case categoricalName.MatchString(c.Name):
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

func columnNamed(t *db.Table, name string) *db.Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

type checkList struct {
	column string
	values []string
}

var checkIn = regexp.MustCompile(`(?is)\bCHECK\s*\(\s*("(?:[^"]|"")+"|\[[^\]]+\]|` + "`[^`]+`" + `|[\p{L}_][\p{L}\p{N}_$]*)\s+IN\s*\(([^()]*)\)\s*\)`)

// checkValues reads "CHECK (col IN ('a', 'b'))" constraints from a CREATE
// TABLE text: the column and every value it allows.
func checkValues(create string) []checkList {
	var out []checkList
	for _, m := range checkIn.FindAllStringSubmatch(create, -1) {
		vals := literals(m[2])
		if len(vals) == 0 {
			continue
		}
		out = append(out, checkList{column: unquote(m[1]), values: vals})
	}
	return out
}

// literals splits a list of SQL literals such as 'a', 3 or NULL (a quote
// inside a string is doubled). It returns nil if the list holds anything
// else.
func literals(list string) []string {
	var out []string
	s := strings.TrimSpace(list)
	for s != "" {
		var v string
		if s[0] == '\'' {
			var b strings.Builder
			i := 1
			for ; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						b.WriteByte('\'')
						i++
						continue
					}
					break
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil
			}
			v, s = b.String(), s[i+1:]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			v, s = strings.TrimSpace(s[:end]), s[end:]
			if v == "" || strings.ContainsAny(v, " ()") {
				return nil
			}
		}
		out = append(out, v)
		s = strings.TrimSpace(s)
		if s == "" {
			break
		}
		if s[0] != ',' {
			return nil
		}
		s = strings.TrimSpace(s[1:])
	}
	return out
}

var viewAS = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?VIEW\b.*?\bAS\b`)

// tableComment is a table's leading comment: a "-- …" or "/* … */" comment
// before the first column definition, on the line of the opening
// parenthesis or before it.
func tableComment(create string) string {
	var head, line string
	if m := viewAS.FindStringIndex(create); m != nil {
		head = create[:m[1]-2] // CREATE VIEW v /* comment */ (AS)
	} else {
		open := strings.IndexByte(create, '(')
		if open < 0 {
			return ""
		}
		head, line = create[:open], create[open+1:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
	}
	for i, part := range []string{head, line} {
		for _, mark := range []string{"/*", "--"} {
			at := strings.Index(part, mark)
			// On the line of the parenthesis, a comment after a column
			// definition belongs to that column.
			if at < 0 || i == 1 && strings.TrimSpace(part[:at]) != "" {
				continue
			}
			c := part[at+2:]
			if mark == "/*" {
				end := strings.Index(c, "*/")
				if end < 0 {
					continue
				}
				c = c[:end]
			} else if nl := strings.IndexByte(c, '\n'); nl >= 0 {
				c = c[:nl]
			}
			if c = strings.Join(strings.Fields(c), " "); c != "" {
				return c
			}
		}
	}
	return ""
}

// AllowedValues maps each column a CHECK (col IN (…)) constraint restricts
// to the values it allows.
func AllowedValues(t *db.Table) map[string][]string {
	out := map[string][]string{}
	for _, ch := range checkValues(t.SQL) {
		if c := columnNamed(t, ch.column); c != nil {
			out[c.Name] = ch.values
		}
	}
	return out
}

// CategoryColumns lists the columns of t that look categorical, best
// first: those a CHECK … IN constraint restricts, then text columns with a
// categorical name (status, type, kind, channel…), keys excluded.
func CategoryColumns(t *db.Table) []string {
	var out []string
	allowed := AllowedValues(t)
	for _, c := range t.Columns {
		if _, ok := allowed[c.Name]; ok {
			out = append(out, c.Name)
		}
	}
	fks := fkTargets(t)
	for i, c := range t.Columns {
		if _, ok := allowed[c.Name]; ok || c.PK > 0 || !categoricalName.MatchString(c.Name) {
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
