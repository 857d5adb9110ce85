package offline

import "strings"

// Two columns of one table that point at the same table play two parts
// (a trip's origin and destination stop, a transfer's source and target
// account). "from X to Y" says which value fills which part; a value
// named with "from" or "to" alone fills one.

// direction is the part a preposition gives the value after it.
type direction int

const (
	dirNone direction = iota
	dirFrom
	dirTo
)

// Words of column names that mark the two parts.
var (
	fromRoleWords = []string{"departur", "depart", "origin", "source", "src", "from", "sender", "outbound", "start", "pickup", "home"}
	toRoleWords   = []string{"arriv", "destin", "dest", "to", "target", "recipient", "receiver", "inbound", "end", "dropoff", "away"}
)

// directionOf reads the preposition before a value mention: "from Zembla",
// "out of Gondor" (from); "to Lilliput", "into Narnia" (to).
func (a *analysis) directionOf(m *mention) direction {
	k := m.start - 1
	if a.low(k) == "the" {
		k--
	}
	switch a.low(k) {
	case "from":
		return dirFrom
	case "to", "into":
		return dirTo
	case "of":
		if a.low(k-1) == "out" {
			return dirFrom
		}
	}
	return dirNone
}

// roleOf says which part a column's name gives it, from its words.
func roleOf(c *colInfo) direction {
	from, to := false, false
	for _, w := range c.raw {
		if w == "to" || w == "from" {
			// Bare prepositions name parts only as whole words.
			if w == "to" {
				to = true
			} else {
				from = true
			}
			continue
		}
		if hasPrefixAny(w, fromRoleWords...) {
			from = true
		}
		if hasPrefixAny(w, toRoleWords...) {
			to = true
		}
	}
	switch {
	case from && !to:
		return dirFrom
	case to && !from:
		return dirTo
	}
	return dirNone
}

// rolePair finds, in the base or a table the base reaches through keys to
// parents, two foreign keys to table t, and returns the one whose name
// fills part d. ok is false when no table holds such a pair; e is nil
// when a pair exists but its names do not say which column is which.
func (b *builder) rolePair(t *tableInfo, d direction) (e *fkEdge, ok bool) {
	s := b.ix.s
	for _, f := range s.tables {
		if f.view {
			continue
		}
		var pair []*fkEdge
		for _, oe := range f.out {
			if oe.to == t && !oe.composite() {
				pair = append(pair, oe)
			}
		}
		if len(pair) != 2 {
			continue
		}
		steps, reach := s.path(b.p.base, f)
		if !reach || !strictlyForward(steps) {
			continue
		}
		var hit *fkEdge
		for _, pe := range pair {
			if r := roleOf(pe.fromCol); r == d {
				if hit != nil {
					return nil, true
				}
				hit = pe
			}
		}
		return hit, true
	}
	return nil, false
}

// directedFilter turns a value named with "from" or "to" into a filter on
// the matching column of a pair: "trips from ZMB" are those whose
// origin stop is ZMB. handled is false when no pair applies; a reason is
// returned when one does but its columns do not say which part is which.
func (b *builder) directedFilter(m *mention, c *cand, d direction) (f *filter, handled bool, why string) {
	// The table whose rows the value names: the column's own table, or
	// the table a foreign key column points at.
	for _, oc := range append([]*cand{c}, m.cands...) {
		t := oc.c.tab
		if oc.c.fk != nil {
			t = oc.c.fk.to
		}
		e, ok := b.rolePair(t, d)
		if !ok {
			continue
		}
		word := "from"
		if d == dirTo {
			word = "to"
		}
		if e == nil {
			return nil, true, "\"" + word + " " + b.span(m) + "\": two columns of the same table point at " + strings.Join(t.raw, " ") +
				" and their names do not say which one \"" + word + "\" means."
		}
		var vals []any
		for _, v := range oc.vals {
			vals = append(vals, v.value)
		}
		desc := words(e.fromCol) + " is " + valueText(vals)
		switch {
		case oc.c.fk != nil && oc.c.fk.to == t:
			// The value as the referenced key itself (a code in a column
			// of codes): compare the column of the pair with it.
			f = &filter{col: e.fromCol, op: "=", vals: vals, desc: desc}
		case oc.c == e.toCol:
			f = &filter{col: e.fromCol, op: "=", vals: vals, desc: desc}
		default:
			// Another column of the referenced table (a town's name):
			// the column of the pair holds one of its keys.
			f = &filter{col: e.fromCol, op: "SQL", raw: inSubquery(e.fromCol, false, e.toCol, []string{(&filter{col: oc.c, op: "=", vals: vals}).sql(true)}),
				desc: words(e.fromCol) + " is in " + words(oc.c) + " " + valueText(vals)}
		}
		if len(vals) > 1 && f.op == "=" {
			f.op = "IN"
		}
		return f, true, ""
	}
	return nil, false, ""
}

// routeWords name the pairs of a from/to column pair: a route is an
// origin and a destination.
var routeWords = map[string]bool{"route": true, "routes": true, "connection": true, "connections": true}

// routeWord returns the token naming routes, when the schema does not
// name them itself, or -1.
func (b *builder) routeWord() int {
	for i, t := range b.a.toks {
		if routeWords[t.low] && b.a.at[i] < 0 && !b.ix.schemaWord(t.stem) {
			return i
		}
	}
	return -1
}

// routePair: the one table with two foreign keys to the same table whose
// names say which is the origin and which the destination.
func (b *builder) routePair() (from, to *colInfo) {
	found := 0
	for _, f := range b.ix.s.tables {
		if f.view {
			continue
		}
		byTarget := map[*tableInfo][]*fkEdge{}
		for _, e := range f.out {
			if !e.composite() {
				byTarget[e.to] = append(byTarget[e.to], e)
			}
		}
		for _, es := range byTarget {
			if len(es) != 2 {
				continue
			}
			r0, r1 := roleOf(es[0].fromCol), roleOf(es[1].fromCol)
			switch {
			case r0 == dirFrom && r1 == dirTo:
				from, to = es[0].fromCol, es[1].fromCol
				found++
			case r0 == dirTo && r1 == dirFrom:
				from, to = es[1].fromCol, es[0].fromCol
				found++
			}
		}
	}
	if found != 1 {
		return nil, nil
	}
	return from, to
}

// rankRoutes: "which routes had the most cancellations", "top 3 routes by
// number of parcels": rows counted per (origin, destination), the rows
// being those of the pair's table or of a table pointing at it.
func (b *builder) rankRoutes(rt, superPos int, desc bool, n int, groupMs []*mention) string {
	a, p := b.a, b.p
	from, to := b.routePair()
	if from == nil {
		return "I could not tell which two columns make a route here."
	}
	b.explained[rt] = true
	base := from.tab
	// "by number of parcels": count the rows of a table that reaches the
	// route's table through keys to parents.
	for i := rt + 1; i < len(a.toks); i++ {
		if a.low(i) != "by" && a.cues[i] != cueSuper {
			continue
		}
		m := b.mentionAfter(i, 4, false)
		if m == nil || !hasTable(m) {
			continue
		}
		for _, c := range m.cands {
			if c.c != nil || c.t.view {
				continue
			}
			t := c.t
			if j := b.ix.s.junctionBetween(c.t, from.tab); j != nil {
				// Fares per route: the rows linking them to trips.
				t = j
			}
			if steps, ok := b.ix.s.path(t, from.tab); ok && strictlyForward(steps) {
				base = t
				b.use(m, "key")
				b.aggBetween(i, m.start)
				b.explained[i] = true
				break
			}
		}
		break
	}
	p.base, p.agg = base, aggCount
	p.subject = strings.Join(base.raw, " ")
	p.groups = []group{{col: from}, {col: to}}
	b.useCol(from)
	b.useCol(to)
	p.order = orderKey{set: true, measure: true, desc: desc}
	if n <= 0 {
		// "which routes had the most": every route tied at the top.
		n, p.ties = 1, true
	}
	p.limit = n
	p.shape = "argmax"
	if why := b.groups(groupMs); why != "" {
		return why
	}
	p.shape = "argmax"
	return ""
}
