package offline

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/text"
)

// sentence states the answer in one plain sentence with the numbers from
// the rows.
func (p *plan) sentence(r *query.Result) string {
	where := p.whereWords()
	if r.RowCount == 0 {
		return "There are no " + text.Plural(p.subject) + where + "."
	}
	last := len(r.Columns) - 1
	switch {
	case p.outer != aggNone:
		per := "group"
		if g := p.groups[0]; g.entity != nil {
			per = text.Singular(strings.Join(g.entity.raw, " "))
		} else if g.col != nil {
			per = words(g.col)
		}
		return "The " + p.outer.word() + " " + p.measureWords() + " per " + per + where + " is " + fmtValue(r.Rows[0][last]) + "."
	case p.agg != aggNone && len(p.groups) == 0:
		v := r.Rows[0][last]
		switch {
		case p.agg == aggCount && p.aggCol == nil:
			n := engine.Float64(v)
			if n == 1 {
				return "There is 1 " + text.Singular(p.subject) + where + "."
			}
			return "There are " + fmtValue(v) + " " + text.Plural(p.subject) + where + "."
		case p.distinct:
			return "There are " + fmtValue(v) + " different " + text.Plural(p.subject) + where + "."
		case v == nil:
			return "There is no " + measureOf(p.agg.word(), p.subject) + where + " (no values)."
		}
		unit := ""
		if p.unit != "" {
			unit = ", in " + p.unit + ","
		}
		word, val := p.agg.word(), fmtValue(v)
		if c := p.aggCol; c != nil && c.intYear && (p.agg == aggMin || p.agg == aggMax) {
			// A year is said as one: the latest is 2009, not the
			// highest 2,009.
			word, val = "earliest", fmt.Sprint(v)
			if p.agg == aggMax {
				word = "latest"
			}
		}
		return "The " + measureOf(word, p.subject) + of(p.base, p.subject) + where + unit + " is " + val + "."
	case len(p.groups) > 0:
		return p.groupSentence(r, where)
	default:
		return p.listSentence(r, where)
	}
}

// extreme names the top (or, ranked ascending, the bottom) of a ranking of
// one row: "the most orders", "the fewest orders" for a count of rows, else
// "the highest <what>", "the lowest <what>".
func (p *plan) extreme(what string) string {
	count := p.agg == aggCount && p.aggCol == nil
	switch {
	case p.order.desc && count:
		return "the most " + text.Plural(p.subject)
	case p.order.desc:
		return "the highest " + what
	case count:
		return "the fewest " + text.Plural(p.subject)
	}
	return "the lowest " + what
}

func of(t *tableInfo, subject string) string {
	name := strings.Join(t.raw, " ")
	if strings.Contains(subject, name) || strings.Contains(subject, text.Singular(name)) {
		return ""
	}
	return " of " + text.Plural(name)
}

func (p *plan) whereWords() string {
	var plain, with, where []string
	for _, f := range p.filters {
		if f.plain {
			plain = append(plain, f.desc)
		} else if f.with {
			with = append(with, f.desc)
		} else {
			where = append(where, f.desc)
		}
	}
	out := ""
	for _, d := range plain {
		out += " " + d
	}
	if len(with) > 0 {
		out += " " + strings.Join(with, " and ")
		if !strings.HasPrefix(with[0], "with") {
			out = " with" + out
		}
	}
	if len(where) > 0 {
		out += " where " + strings.Join(where, " and ")
	}
	return out
}

// label joins the label columns of a row (all but the last column).
func rowLabel(row query.Row, n int) string {
	var parts []string
	for i := 0; i < n && i < len(row); i++ {
		parts = append(parts, fmtValue(row[i]))
	}
	return strings.Join(parts, " ")
}

func (p *plan) groupSentence(r *query.Result, where string) string {
	last := len(r.Columns) - 1
	what := p.measureWords()
	if p.shape == "time" {
		unit := unitAlias(p.groups[len(p.groups)-1].unit)
		var parts []string
		peak := 0
		for i, row := range r.Rows {
			if engine.Float64(row[last]) > engine.Float64(r.Rows[peak][last]) {
				peak = i
			}
			if i < 12 {
				parts = append(parts, rowLabel(row, last)+": "+fmtValue(row[last]))
			}
		}
		more := ""
		if r.RowCount > 12 {
			more = fmt.Sprintf(" … (%d %ss)", r.RowCount, unit)
		}
		var top []string
		for _, row := range r.Rows {
			if engine.Float64(row[last]) == engine.Float64(r.Rows[peak][last]) {
				top = append(top, rowLabel(row, last))
			}
		}
		highest := "; the highest is " + top[0]
		switch {
		case len(top) > 4:
			highest = fmt.Sprintf("; %d %ss tie for the highest", len(top), unit)
		case len(top) > 1:
			highest = "; " + strings.Join(top[:len(top)-1], ", ") + " and " + top[len(top)-1] + " tie for the highest"
		}
		return capitalize(what) + " per " + unit + where + ": " + strings.Join(parts, ", ") + more +
			highest + " (" + fmtValue(r.Rows[peak][last]) + ")."
	}
	if p.limit == 1 && p.ties && r.RowCount > 1 {
		most := p.extreme(what)
		var names []string
		for _, row := range r.Rows {
			names = append(names, rowLabel(row, last))
		}
		return fmt.Sprintf("%d are tied for %s%s (%s each): %s.", r.RowCount, most, where, fmtValue(r.Rows[0][last]), strings.Join(names, ", "))
	}
	if p.limit == 1 {
		return rowLabel(r.Rows[0], last) + " has " + p.extreme(what) + where + " (" + fmtValue(r.Rows[0][last]) + ")."
	}
	var parts []string
	for i, row := range r.Rows {
		if i == 5 {
			break
		}
		parts = append(parts, rowLabel(row, last)+" ("+fmtValue(row[last])+")")
	}
	group := p.groupNoun()
	if p.limit > 1 {
		dir := "Top"
		if !p.order.desc {
			dir = "Bottom"
		}
		return fmt.Sprintf("%s %d %s by %s%s: %s.", dir, r.RowCount, text.Plural(group), what, where, strings.Join(parts, ", "))
	}
	n := fmt.Sprintf("%d %s", r.RowCount, text.Plural(group))
	if r.Truncated {
		n = "the first " + n
	}
	return fmt.Sprintf("%s per %s%s (%s); highest: %s.", capitalize(what), group, where, n, strings.Join(parts, ", "))
}

// groupNoun names the first grouping: "category", "ship country".
func (p *plan) groupNoun() string {
	if len(p.groups) == 0 {
		return "group"
	}
	g := p.groups[0]
	switch {
	case g.entity != nil:
		return text.Singular(strings.Join(g.entity.raw, " "))
	case g.unit != unitNone:
		return unitAlias(g.unit)
	}
	return text.Singular(words(g.col))
}

// measureWords: "number of orders", "average unit price".
func (p *plan) measureWords() string {
	switch {
	case p.aggCol == nil:
		return "number of " + text.Plural(p.subject)
	case p.agg == aggCount && p.distinct:
		return "number of different " + text.Plural(p.subject)
	case p.unit != "":
		return measureOf(p.agg.word(), p.subject) + " (in " + p.unit + ")"
	}
	return measureOf(p.agg.word(), p.subject)
}

// measureOf is an aggregate's word before what it measures, said once when
// the measure's name begins with it: the total of a column named total is
// "total", not "total total".
func measureOf(word, subject string) string {
	if subject == word || strings.HasPrefix(subject, word+" ") {
		return subject
	}
	return word + " " + subject
}

func (p *plan) listSentence(r *query.Result, where string) string {
	n := len(p.show)
	if p.order.col != nil && n > 1 {
		n-- // the ranked column is shown in parentheses
	}
	var parts []string
	for i, row := range r.Rows {
		if i == 5 {
			break
		}
		s := rowLabel(row, n)
		if p.order.col != nil && len(row) > n {
			s += " (" + fmtValue(row[len(row)-1]) + ")"
		}
		parts = append(parts, s)
	}
	more := ""
	if r.RowCount > 5 {
		more = fmt.Sprintf(" and %d more", r.RowCount-5)
		if r.Truncated {
			more = " and more"
		}
	}
	if p.ties && p.order.col != nil && r.RowCount > 1 {
		w := "highest"
		if !p.order.desc {
			w = "lowest"
		}
		return fmt.Sprintf("%d %s%s are tied for the %s %s (%s): %s%s.", r.RowCount, text.Plural(p.subject), where, w, words(p.order.col),
			fmtValue(r.Rows[0][len(r.Rows[0])-1]), strings.Join(parts, ", "), more)
	}
	if p.order.sort {
		count := strconv.Itoa(r.RowCount)
		if r.Truncated {
			count = "more than " + count
		}
		return fmt.Sprintf("Found %s %s%s, sorted by %s: %s%s.", count, text.Plural(p.subject), where, words(p.order.col), strings.Join(parts, ", "), more)
	}
	if p.order.set && p.order.col != nil && p.rankWord != "" && !strings.HasPrefix(p.rankWord, "top") && !strings.HasPrefix(p.rankWord, "most") && !strings.HasPrefix(p.rankWord, "least") || p.rankWord == "most expensive" || p.rankWord == "most recent" || p.rankWord == "least expensive" {
		if r.RowCount == 1 {
			return "The " + p.rankWord + " " + text.Singular(p.subject) + where + ": " + parts[0] + "."
		}
		return fmt.Sprintf("The %d %s %s%s: %s%s.", r.RowCount, p.rankWord, text.Plural(p.subject), where, strings.Join(parts, ", "), more)
	}
	if p.order.set && p.order.col != nil {
		w := "highest"
		if !p.order.desc {
			w = "lowest"
		}
		if p.order.col.kind == kindDate {
			w = "latest"
			if !p.order.desc {
				w = "earliest"
			}
		}
		if r.RowCount == 1 {
			return capitalize(text.Singular(p.subject)) + " with the " + w + " " + words(p.order.col) + where + ": " + parts[0] + "."
		}
		return fmt.Sprintf("The %d %s with the %s %s%s: %s%s.", r.RowCount, text.Plural(p.subject), w, words(p.order.col), where, strings.Join(parts, ", "), more)
	}
	count := strconv.Itoa(r.RowCount)
	if r.Truncated {
		count = "more than " + count
	}
	return fmt.Sprintf("Found %s %s%s: %s%s.", count, text.Plural(p.subject), where, strings.Join(parts, ", "), more)
}

// chart suggests a chart for grouped and time results.
func (p *plan) chart(r *query.Result) *answer.ChartSpec {
	if len(p.groups) == 0 || r.RowCount < 2 || len(r.Columns) < 2 {
		return nil
	}
	x := r.Columns[0].Name
	y := r.Columns[len(r.Columns)-1].Name
	if p.shape == "time" {
		return &answer.ChartSpec{Kind: answer.KindLine, X: x, Y: y, Title: capitalize(p.measureWords()) + " per " + unitAlias(p.groups[0].unit)}
	}
	return &answer.ChartSpec{Kind: answer.KindBar, X: x, Y: y, Title: capitalize(p.measureWords()) + " by " + x}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fmtValue formats a value for a sentence: 2,400; 79.67; 0.028; text as is.
func fmtValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return format.Count(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return format.Number(x, 0)
		}
		if math.Abs(x) >= 1 {
			return format.Number(x, 2)
		}
		return strconv.FormatFloat(x, 'g', 3, 64)
	case []byte:
		return fmt.Sprintf("(%d bytes)", len(x))
	}
	return fmt.Sprint(v)
}

// followUps proposes questions the planner can answer next, checked by
// planning them; one that plans to the SQL just run (the same question in
// other words) is skipped.
func (ix *index) followUps(p *plan, asked, askedSQL string) []string {
	var cands []string
	tables := []*tableInfo{}
	if p != nil {
		tables = append(tables, p.base)
	} else {
		// A refusal: start from the tables the question named.
		for _, m := range ix.analyze(asked).ments {
			if len(m.cands) == 0 {
				continue
			}
			t := tableOf(m.cands[0])
			if e := m.cands[0].entity(); e != nil {
				t = e
			}
			if !t.view && !t.junction && len(tables) < 2 && !slices.Contains(tables, t) {
				tables = append(tables, t)
			}
		}
	}
	// The largest tables, for refusals and variety.
	all := append([]*tableInfo(nil), ix.s.tables...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].rows > all[j].rows })
	for _, t := range all {
		if !t.view && !t.junction && len(tables) < 3 && !slices.Contains(tables, t) {
			tables = append(tables, t)
		}
	}
	for _, t := range tables {
		name := strings.Join(t.raw, " ")
		for _, e := range t.out {
			if len(e.to.label) > 0 && e.to.label[0] != e.to.pk {
				cands = append(cands, "How many "+text.Plural(name)+" are there per "+text.Singular(strings.Join(e.to.raw, " "))+"?")
				break
			}
		}
		if t.mainDate != nil {
			cands = append(cands, "How many "+text.Plural(name)+" were there per year?")
		}
		for _, c := range t.measures() {
			cands = append(cands, "What is the average "+words(c)+" of "+text.Plural(name)+"?")
			break
		}
		cands = append(cands, "How many "+text.Plural(name)+" are there?")
	}
	var out []string
	seen := map[string]bool{strings.ToLower(strings.TrimSpace(asked)): true}
	for _, q := range cands {
		if seen[strings.ToLower(q)] || len(out) == 3 {
			continue
		}
		seen[strings.ToLower(q)] = true
		if r := ix.plan(q); r.refusal == "" && (p == nil || r.sql != "") && (askedSQL == "" || r.sql != askedSQL) {
			out = append(out, q)
		}
	}
	return out
}
