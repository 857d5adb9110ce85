package offline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/db"
)

// plan is a small typed query: one measure (or a listing) over a base
// table, with groups, filters, an order and a limit. SQL is rendered from
// it, never assembled from the question's text.
type plan struct {
	base *tableInfo
	// Measure: agg over aggCol (nil: rows). aggNone: a listing of show.
	agg      aggFunc
	aggCol   *colInfo
	distinct bool
	groups   []group
	filters  []filter
	show     []*colInfo
	order    orderKey
	limit    int
	// leftFrom: count per entity including entities with no rows: FROM
	// leftFrom LEFT JOIN … base.
	leftFrom *tableInfo
	// outer aggregates the per-group measure once more: the average
	// number of books per author is AVG over COUNT per author.
	outer aggFunc
	// subject names what is counted or listed, for the answer ("orders").
	subject string
	// rankWord is the question's superlative ("most expensive", "youngest").
	rankWord string
	// scale converts the measure to the unit asked for (milliseconds →
	// seconds: 0.001); 0 means none.
	scale float64
	unit  string
	// shape is the question shape, for tests and follow-ups.
	shape string
}

// group is one GROUP BY term: a column, an entity (its key, shown by its
// label) or a time bucket of a date column.
type group struct {
	col    *colInfo
	entity *tableInfo
	unit   timeUnit
}

// filter is one WHERE term.
type filter struct {
	col  *colInfo
	op   string // =, IN, <>, >, >=, <, <=, IS NULL, IS NOT NULL, RANGE
	vals []any
	// from/to for RANGE (either may be empty).
	from, to string
	// raw is the condition itself for op SQL (a count subquery), with
	// every name qualified.
	raw  string
	desc string
	// with: desc reads after "with" ("with more than 5 orders"), not
	// after "where".
	with bool
}

type orderKey struct {
	set     bool
	measure bool     // by the aggregate
	col     *colInfo // else by this column
	bucket  bool     // by the time bucket, ascending
	desc    bool
	sort    bool // asked as "sorted by", not as a ranking
}

func quoteCol(c *colInfo, qualify bool) string {
	if !qualify {
		return db.QuoteIdentIfNeeded(c.name)
	}
	return db.QuoteIdentIfNeeded(c.tab.name) + "." + db.QuoteIdentIfNeeded(c.name)
}

func quoteTable(t *tableInfo) string { return db.QuoteIdentIfNeeded(t.name) }

func literal(v any) string {
	switch x := v.(type) {
	case string:
		return db.QuoteString(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "NULL"
	}
	return db.QuoteString(fmt.Sprint(v))
}

// errNoPath: a needed table cannot be joined to the base.
var errNoPath = errors.New("no join path")

// joinSet collects the joins of the main query and the IN-subqueries of
// filters that live across one-to-many links.
type joinSet struct {
	s      *schema
	base   *tableInfo
	via    map[*tableInfo]bool
	joined map[*tableInfo]bool
	joins  []string
	// subqueries keyed by the first backward step.
	subs     map[string]*subquery
	subOrder []string
}

type subquery struct {
	outer    string // the key column of the main query
	innerKey string // the foreign key column of the subquery's table
	inner    *joinSet
	where    []string
}

func newJoinSet(s *schema, base *tableInfo, via map[*tableInfo]bool) *joinSet {
	return &joinSet{s: s, base: base, via: via, joined: map[*tableInfo]bool{base: true}, subs: map[string]*subquery{}}
}

// need makes table t available to the main query through many-to-one joins.
func (j *joinSet) need(t *tableInfo) error {
	if j.joined[t] {
		return nil
	}
	steps, ok := j.s.pathVia(j.base, t, j.via)
	if !ok || !allForward(steps) {
		// Try from any table already joined.
		var best []joinStep
		for jt := range j.joined {
			if st, ok := j.s.pathVia(jt, t, j.via); ok && allForward(st) && (best == nil || len(st) < len(best)) {
				best = st
			}
		}
		if best == nil {
			return fmt.Errorf("%w from %s to %s", errNoPath, j.base.name, t.name)
		}
		steps = best
	}
	j.addSteps(steps)
	return nil
}

func (j *joinSet) addSteps(steps []joinStep) {
	for _, st := range steps {
		d := st.dst()
		if j.joined[d] {
			continue
		}
		j.joined[d] = true
		var on string
		if st.forward {
			on = quoteCol(st.e.toCol, true) + " = " + quoteCol(st.e.fromCol, true)
		} else {
			on = quoteCol(st.e.fromCol, true) + " = " + quoteCol(st.e.toCol, true)
		}
		j.joins = append(j.joins, "JOIN "+quoteTable(d)+" ON "+on)
	}
}

// route makes a filter on table t possible: by many-to-one joins (it
// returns "") or, across a one-to-many link, inside an IN-subquery so rows
// are not multiplied (it returns the subquery's key).
func (j *joinSet) route(t *tableInfo) (string, error) {
	if j.joined[t] {
		return "", nil
	}
	steps, ok := j.s.pathVia(j.base, t, j.via)
	if !ok {
		return "", fmt.Errorf("%w from %s to %s", errNoPath, j.base.name, t.name)
	}
	if allForward(steps) {
		j.addSteps(steps)
		return "", nil
	}
	k := 0
	for k < len(steps) && steps[k].forward {
		k++
	}
	j.addSteps(steps[:k])
	back := steps[k]
	key := back.e.from.name + "." + back.e.fromCol.name
	sq := j.subs[key]
	if sq == nil {
		inner := newJoinSet(j.s, back.e.from, j.via)
		sq = &subquery{outer: quoteCol(back.e.toCol, true), innerKey: quoteCol(back.e.fromCol, true), inner: inner}
		j.subs[key] = sq
		j.subOrder = append(j.subOrder, key)
	}
	sq.inner.addSteps(steps[k+1:])
	return key, nil
}

func (sq *subquery) render() string {
	in := sq.inner
	var b strings.Builder
	b.WriteString(sq.outer)
	b.WriteString(" IN (SELECT ")
	b.WriteString(sq.innerKey)
	b.WriteString(" FROM ")
	b.WriteString(quoteTable(in.base))
	for _, jn := range in.joins {
		b.WriteString(" ")
		b.WriteString(jn)
	}
	if len(sq.where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(sq.where, " AND "))
	}
	b.WriteString(")")
	return b.String()
}

// render turns the plan into one SELECT statement.
func (p *plan) render(s *schema) (string, error) {
	if p.outer != aggNone {
		inner := *p
		inner.outer = aggNone
		inner.order = orderKey{}
		sql, err := inner.render(s)
		if err != nil {
			return "", err
		}
		alias := db.QuoteIdentIfNeeded(p.measureAlias())
		return "SELECT " + p.outer.sql() + "(" + alias + ") AS " + db.QuoteIdentIfNeeded(strings.ToLower(p.outer.sql())+"_"+p.measureAlias()) +
			" FROM (" + sql + ")", nil
	}
	via := map[*tableInfo]bool{}
	for _, f := range p.filters {
		via[f.col.tab] = true
	}
	for _, g := range p.groups {
		if g.entity != nil {
			via[g.entity] = true
		} else {
			via[g.col.tab] = true
		}
	}
	if p.leftFrom != nil {
		return p.renderLeft(s)
	}
	js := newJoinSet(s, p.base, via)
	qualify := false
	var sel, groupBy, conds []string
	var orderBy string
	needCol := func(c *colInfo) error { return js.need(c.tab) }
	// Groups first: they lead the select list.
	for _, g := range p.groups {
		switch {
		case g.entity != nil:
			if err := js.need(g.entity); err != nil {
				return "", err
			}
		case g.col != nil:
			if err := needCol(g.col); err != nil {
				return "", err
			}
		}
	}
	for _, c := range p.show {
		if err := needCol(c); err != nil {
			return "", err
		}
	}
	if p.aggCol != nil {
		if err := needCol(p.aggCol); err != nil {
			return "", err
		}
	}
	if p.order.col != nil {
		if err := needCol(p.order.col); err != nil {
			return "", err
		}
	}
	routes := make([]string, len(p.filters))
	for i, f := range p.filters {
		r, err := js.route(f.col.tab)
		if err != nil {
			return "", err
		}
		routes[i] = r
	}
	qualify = len(js.joined) > 1 || len(js.subs) > 0
	col := func(c *colInfo) string { return quoteCol(c, qualify) }
	for i, f := range p.filters {
		if routes[i] == "" {
			conds = append(conds, f.sql(qualify))
		} else {
			sq := js.subs[routes[i]]
			sq.where = append(sq.where, f.sql(true))
		}
	}
	for _, key := range js.subOrder {
		conds = append(conds, js.subs[key].render())
	}
	var measure string
	if p.agg != aggNone {
		measure = p.measureSQL(col)
	}
	for _, g := range p.groups {
		switch {
		case g.entity != nil:
			sel = append(sel, labelSelect(g.entity, col)...)
			key := g.entity.pk
			if key == nil {
				for _, lc := range g.entity.label {
					groupBy = append(groupBy, col(lc))
				}
			} else {
				groupBy = append(groupBy, col(key))
			}
		case g.unit != unitNone:
			expr := bucketSQL(g.unit, col(g.col))
			alias := unitAlias(g.unit)
			sel = append(sel, expr+" AS "+alias)
			groupBy = append(groupBy, alias)
			if !p.order.set || p.order.bucket {
				orderBy = alias
			}
		default:
			sel = append(sel, col(g.col))
			groupBy = append(groupBy, col(g.col))
		}
	}
	for _, c := range p.show {
		sel = append(sel, col(c))
	}
	if p.agg != aggNone {
		sel = append(sel, measure+" AS "+db.QuoteIdentIfNeeded(p.measureAlias()))
	}
	switch {
	case p.order.measure:
		orderBy = db.QuoteIdentIfNeeded(p.measureAlias()) + dir(p.order.desc)
	case p.order.col != nil:
		orderBy = col(p.order.col) + dir(p.order.desc)
		if p.agg == aggNone && !p.order.sort {
			conds = append(conds, col(p.order.col)+" IS NOT NULL")
		}
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	if p.agg == aggNone && len(p.groups) == 0 && p.distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(sel, ", "))
	b.WriteString(" FROM ")
	b.WriteString(quoteTable(p.base))
	for _, jn := range js.joins {
		b.WriteString(" ")
		b.WriteString(jn)
	}
	if len(conds) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(conds, " AND "))
	}
	if len(groupBy) > 0 {
		b.WriteString(" GROUP BY ")
		b.WriteString(strings.Join(groupBy, ", "))
	}
	if orderBy != "" {
		b.WriteString(" ORDER BY ")
		b.WriteString(orderBy)
	}
	if p.limit > 0 {
		b.WriteString(" LIMIT ")
		b.WriteString(strconv.Itoa(p.limit))
	}
	return b.String(), nil
}

// renderLeft renders a count per entity that keeps entities without rows:
// FROM entity LEFT JOIN … base … GROUP BY entity.
func (p *plan) renderLeft(s *schema) (string, error) {
	g := p.leftFrom
	steps, ok := s.path(p.base, g)
	if !ok || !strictlyForward(steps) {
		return "", fmt.Errorf("%w from %s to %s", errNoPath, p.base.name, g.name)
	}
	var sel, conds, groupBy []string
	var b strings.Builder
	col := func(c *colInfo) string { return quoteCol(c, true) }
	sel = append(sel, labelSelect(g, col)...)
	if g.pk != nil {
		groupBy = append(groupBy, col(g.pk))
	} else {
		for _, lc := range g.label {
			groupBy = append(groupBy, col(lc))
		}
	}
	// Count a column of base that is never NULL on a joined row.
	counted := steps[0].e.fromCol
	if p.base.pk != nil {
		counted = p.base.pk
	}
	sel = append(sel, "COUNT("+col(counted)+") AS "+db.QuoteIdentIfNeeded(p.measureAlias()))
	b.WriteString("SELECT ")
	b.WriteString(strings.Join(sel, ", "))
	b.WriteString(" FROM ")
	b.WriteString(quoteTable(g))
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		b.WriteString(" LEFT JOIN ")
		b.WriteString(quoteTable(st.e.from))
		b.WriteString(" ON ")
		b.WriteString(col(st.e.fromCol) + " = " + col(st.e.toCol))
	}
	for _, f := range p.filters {
		if f.col.tab != g {
			return "", fmt.Errorf("left join with a filter on %s", f.col.tab.name)
		}
		conds = append(conds, f.sql(true))
	}
	if len(conds) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(conds, " AND "))
	}
	b.WriteString(" GROUP BY ")
	b.WriteString(strings.Join(groupBy, ", "))
	if p.order.set {
		b.WriteString(" ORDER BY ")
		b.WriteString(db.QuoteIdentIfNeeded(p.measureAlias()) + dir(p.order.desc))
	}
	if p.limit > 0 {
		b.WriteString(" LIMIT ")
		b.WriteString(strconv.Itoa(p.limit))
	}
	return b.String(), nil
}

// labelSelect selects an entity's label columns; a lone generic label
// ("name", "title") is named after the entity: authors.name AS author.
func labelSelect(t *tableInfo, col func(*colInfo) string) []string {
	var out []string
	for _, lc := range t.label {
		expr := col(lc)
		if len(t.label) == 1 && lc != t.pk && len(lc.raw) == 1 {
			alias := strings.Join(splitName(singularOf(strings.Join(t.raw, " "))), "_")
			if alias != "" && !strings.EqualFold(alias, lc.name) {
				expr += " AS " + db.QuoteIdentIfNeeded(alias)
			}
		}
		out = append(out, expr)
	}
	return out
}

func dir(desc bool) string {
	if desc {
		return " DESC"
	}
	return " ASC"
}

func (p *plan) measureSQL(col func(*colInfo) string) string {
	if p.aggCol == nil {
		if p.distinct && p.base.pk != nil {
			return "COUNT(DISTINCT " + col(p.base.pk) + ")"
		}
		return "COUNT(*)"
	}
	if p.distinct {
		return p.agg.sql() + "(DISTINCT " + col(p.aggCol) + ")"
	}
	m := p.agg.sql() + "(" + col(p.aggCol) + ")"
	switch {
	case p.scale == 0 || p.scale == 1:
	case p.scale < 1:
		m += " / " + strconv.FormatFloat(1/p.scale, 'f', -1, 64) + ".0"
	default:
		m += " * " + strconv.FormatFloat(p.scale, 'f', -1, 64)
	}
	return m
}

// measureAlias names the measure column: number_of_loans, total_fine,
// avg_page_count…
func (p *plan) measureAlias() string {
	if p.aggCol == nil {
		if s := strings.Join(splitName(pluralOf(p.subject)), "_"); s != "" {
			return "number_of_" + s
		}
		return "count"
	}
	name := strings.Join(splitName(p.aggCol.name), "_")
	if p.unit != "" {
		name += "_in_" + p.unit
	}
	switch p.agg {
	case aggCount:
		if p.distinct {
			return "distinct_" + name
		}
		return "count_" + name
	case aggSum:
		if strings.HasPrefix(name, "total") {
			return "sum_" + name
		}
		return "total_" + name
	case aggAvg:
		return "avg_" + name
	case aggMin:
		return "min_" + name
	case aggMax:
		return "max_" + name
	}
	return name
}

func bucketSQL(u timeUnit, c string) string {
	switch u {
	case unitYear:
		return "strftime('%Y', " + c + ")"
	case unitMonth:
		return "strftime('%Y-%m', " + c + ")"
	case unitQuarter:
		return "strftime('%Y', " + c + ") || '-Q' || ((CAST(strftime('%m', " + c + ") AS INTEGER) + 2) / 3)"
	case unitWeek:
		return "strftime('%Y-W%W', " + c + ")"
	default:
		return "date(" + c + ")"
	}
}

func unitAlias(u timeUnit) string {
	return [...]string{"", "year", "quarter", "month", "week", "day"}[u]
}

// sql renders the filter's condition.
func (f filter) sql(qualify bool) string {
	if f.op == "SQL" {
		return f.raw
	}
	c := quoteCol(f.col, qualify)
	switch f.op {
	case "IS NULL", "IS NOT NULL":
		return c + " " + f.op
	case "RANGE":
		var parts []string
		if f.from != "" {
			parts = append(parts, c+" >= "+db.QuoteString(f.from))
		}
		if f.to != "" {
			parts = append(parts, c+" < "+db.QuoteString(f.to))
		}
		return strings.Join(parts, " AND ")
	case "IN":
		lits := make([]string, len(f.vals))
		for i, v := range f.vals {
			lits[i] = literal(v)
		}
		return c + " IN (" + strings.Join(lits, ", ") + ")"
	}
	return c + " " + f.op + " " + literal(f.vals[0])
}

// subjectName is the subject for messages ("" when unknown).
func (p *plan) subjectName() string { return strings.TrimSpace(p.subject) }

// couldNotConnect says which words found no join path to what, and why
// the question stops there; an empty side is named in words.
func couldNotConnect(words, to, tail string) string {
	if strings.TrimSpace(words) == "" {
		words = "part of the question"
	}
	if strings.TrimSpace(to) == "" {
		to = "anything the question counts or lists"
	}
	return "I could not connect " + words + " to " + to + tail + "."
}
