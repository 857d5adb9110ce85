package offline

import (
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

// Negated existence: "customers who never ordered", "stations with no
// departing trains", "members who have not had a flu shot". The rows of
// the base are kept when no row of a table pointing at them (with the
// criteria the question puts on it) exists: base.key NOT IN (SELECT
// child.fk FROM child … WHERE …).

// negationAt reports whether token k starts a negated existence: "never",
// "not" before a verb of having or doing, "no" after with/have, "without".
func (a *analysis) negationAt(k int) bool {
	switch a.low(k) {
	case "never", "without":
		return true
	case "no":
		switch a.low(k - 1) {
		case "with", "have", "has", "had", "having":
			return true
		}
	case "not":
		switch a.low(k + 1) {
		case "have", "has", "had", "been", "ever", "yet", "used", "made", "placed", "got", "received", "taken", "bought":
			return true
		}
		switch a.low(k - 1) {
		case "have", "has", "had", "did", "do", "does":
			return true
		}
	}
	return false
}

// antiJoins turns negated existences into NOT IN filters. It returns a
// reason when a negation governs something it cannot read that way.
func (b *builder) antiJoins() string {
	a, p := b.a, b.p
	for k := range a.toks {
		if b.explained[k] || !a.negationAt(k) {
			continue
		}
		scope := b.negatedScope(k)
		if len(scope) == 0 {
			continue
		}
		f, why := b.antiFilter(k, scope)
		if why != "" {
			return why
		}
		if f == nil {
			continue
		}
		p.filters = append(p.filters, *f)
		b.anti = append(b.anti, len(p.filters)-1)
		b.explained[k] = true
		for j := k - 1; j >= 0 && j >= k-2 && (a.cues[j] == cueExists || a.cues[j] == cueFiller); j-- {
			b.explained[j] = true
		}
		for j := k + 1; j < len(a.toks) && j <= k+2 && a.cues[j] == cueFiller; j++ {
			b.explained[j] = true
		}
	}
	return ""
}

// negatedScope lists the unused mentions the negation at k governs: those
// after it, with only fillers, existence words and verbs between them.
func (b *builder) negatedScope(k int) []*mention {
	a := b.a
	var out []*mention
	last := k
	for _, m := range a.ments {
		if m.start <= k || m.used || m.absorbed {
			continue
		}
		for j := last + 1; j < m.start; j++ {
			if a.at[j] >= 0 {
				continue
			}
			switch a.cues[j] {
			case cueFiller, cueExists, cueNone:
				if a.cues[j] == cueNone && j-last > 2 {
					return out
				}
			default:
				return out
			}
		}
		out = append(out, m)
		last = m.end - 1
	}
	return out
}

// antiFilter builds the NOT IN filter for a negation and its scope: the
// first table the scope names (a table, the event a verb names, or the
// table of a value) must point at the base; the values of the scope are
// criteria on its rows.
func (b *builder) antiFilter(k int, scope []*mention) (*filter, string) {
	p := b.p
	s := b.ix.s
	if p.base.view {
		return nil, ""
	}
	// The child table: what the scope names first.
	var child *tableInfo
	for _, m := range scope {
		for _, c := range m.cands {
			t := tableOf(c)
			if c.c != nil && c.c.fk != nil && len(c.vals) == 0 {
				t = c.c.tab
			}
			if t == p.base || t.view {
				continue
			}
			if edgesTo(t, p.base) > 0 || len(c.vals) > 0 && b.childVia(t) != nil {
				if len(c.vals) > 0 && edgesTo(t, p.base) == 0 {
					t = b.childVia(t)
				}
				child = t
				break
			}
		}
		if child != nil {
			break
		}
	}
	if child == nil {
		return nil, ""
	}
	// The foreign key of child that points at the base: one, or the one a
	// word names ("departing trains").
	var edge *fkEdge
	var pair []*fkEdge
	for _, e := range child.out {
		if e.to == p.base && !e.composite() {
			pair = append(pair, e)
		}
	}
	switch len(pair) {
	case 0:
		return nil, ""
	case 1:
		edge = pair[0]
	default:
		d := b.roleWord(k, scope)
		for _, e := range pair {
			if d != dirNone && roleOf(e.fromCol) == d {
				edge = e
			}
		}
		if edge == nil {
			return nil, "\"" + strings.Join(child.raw, " ") + "\" point at " + strings.Join(p.base.raw, " ") + " in two ways; say which (for example with \"departing\" or \"arriving\")."
		}
	}
	// Criteria: the values of the scope, on child or its parents.
	inner := newJoinSet(s, child, nil)
	var conds []string
	var descs []string
	for _, m := range scope {
		b.use(m, "filter")
		if !m.value {
			continue
		}
		var pick *cand
		for _, c := range m.cands {
			steps, ok := s.path(child, c.c.tab)
			if ok && allForward(steps) {
				pick = c
				break
			}
		}
		if pick == nil {
			return nil, "I could not connect " + b.span(m) + " to " + strings.Join(child.raw, " ") + "."
		}
		if err := inner.need(pick.c.tab); err != nil {
			return nil, "I could not connect " + b.span(m) + " to " + strings.Join(child.raw, " ") + "."
		}
		var vals []any
		for _, v := range pick.vals {
			vals = append(vals, v.value)
		}
		f := filter{col: pick.c, op: "=", vals: vals}
		if len(vals) > 1 {
			f.op = "IN"
		}
		conds = append(conds, f.sql(true))
		descs = append(descs, colPhrase(pick.c, child)+" "+valueText(vals))
		b.useCol(pick.c)
	}
	b.tabs = append(b.tabs, child)
	desc := "no " + text.Plural(strings.Join(child.raw, " "))
	if len(descs) > 0 {
		desc += " with " + strings.Join(descs, " and ")
	}
	return &filter{col: edge.toCol, op: "SQL", raw: antiSubquery(edge, inner, conds), desc: desc, with: true}, ""
}

// edgesTo counts the foreign keys of t that point at base.
func edgesTo(t, base *tableInfo) int {
	n := 0
	for _, e := range t.out {
		if e.to == base && !e.composite() {
			n++
		}
	}
	return n
}

// childVia: a table that points at the base and reaches t through keys to
// parents (an immunization's vaccine in a table of vaccines), or nil.
func (b *builder) childVia(t *tableInfo) *tableInfo {
	for _, e := range b.p.base.in {
		if steps, ok := b.ix.s.path(e.from, t); ok && allForward(steps) {
			return e.from
		}
	}
	return nil
}

// roleWord reads a word near the negation that names one part of a pair
// of columns ("departing", "arriving").
func (b *builder) roleWord(k int, scope []*mention) direction {
	a := b.a
	end := len(a.toks)
	if len(scope) > 0 {
		end = scope[len(scope)-1].end
	}
	for j := k + 1; j < end; j++ {
		w := a.toks[j].low
		switch {
		case hasPrefixAny(w, fromRoleWords...) && w != "from" && w != "start":
			return dirFrom
		case hasPrefixAny(w, toRoleWords...) && w != "to" && w != "end":
			return dirTo
		}
	}
	return dirNone
}

// antiAlone refuses a negated existence next to a criterion that lives
// across another one-to-many link ("berths on late trains that never
// got a boarding pass"): the two would have to hold for the same linked
// row, which NOT IN on the base cannot say.
func (b *builder) antiAlone() string {
	if len(b.anti) == 0 {
		return ""
	}
	p := b.p
	for i, f := range p.filters {
		if slices.Contains(b.anti, i) || f.op == "SQL" {
			continue
		}
		if steps, ok := b.ix.s.path(p.base, f.col.tab); ok && !allForward(steps) {
			return "the question negates something about " + strings.Join(p.base.raw, " ") + " and also asks about " + words(f.col) +
				" of related rows; the built-in planner cannot tie both to the same row."
		}
	}
	return ""
}
