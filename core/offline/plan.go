package offline

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/text"
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
	// ties: the question asks for the top without a number; every row
	// tied with the first is returned (limit is then 1).
	ties bool
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
	// note is said after the answer: a reading the planner chose that the
	// question did not name ("measured as amount, …").
	note string
	// current: tables whose rows are restricted to their current period,
	// so that they may be joined from their parent without multiplying
	// rows ("average current wage per job grade").
	current map[*tableInfo]bool
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
	// plain: desc reads right after the rows it keeps ("shipped in
	// 2023", "with order date in 2023"), before any other filter.
	plain bool
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
		return c.tab.ident(c.name)
	}
	return c.tab.ident(c.tab.name) + "." + c.tab.ident(c.name)
}

func quoteTable(t *tableInfo) string { return t.ident(t.name) }

func literal(dl engine.Dialect, v any) string {
	switch x := v.(type) {
	case string:
		return dl.QuoteString(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "NULL"
	}
	return dl.QuoteString(fmt.Sprint(v))
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
	// current: histories that may be joined one-to-many because only
	// their current rows are kept (see uniqueWhenCurrent).
	current map[*tableInfo]bool
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
	if ok && !allForward(steps) && j.current != nil && uniqueWhenCurrent(steps, j.current) {
		// Through histories whose current rows are kept: one row per
		// parent, so the join does not multiply rows.
		j.addSteps(steps)
		return nil
	}
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
		on := onClause(st.e, st.forward)
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
	var b strings.Builder
	b.WriteString(sq.outer)
	b.WriteString(" IN (SELECT ")
	b.WriteString(sq.innerKey)
	sq.inner.writeFrom(&b, sq.where)
	b.WriteString(")")
	return b.String()
}

// writeFrom writes the FROM clause of the join set, its base and its
// joins, and the WHERE clause of conds when there are any.
func (j *joinSet) writeFrom(b *strings.Builder, conds []string) {
	b.WriteString(" FROM ")
	b.WriteString(quoteTable(j.base))
	for _, jn := range j.joins {
		b.WriteString(" ")
		b.WriteString(jn)
	}
	if len(conds) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(conds, " AND "))
	}
}

// render turns the plan into one SELECT statement.
func (p *plan) render(s *schema) (string, error) {
	if p.ties && p.limit == 1 && p.outer == aggNone {
		key := p.tieKey()
		if key != "" {
			inner := *p
			inner.ties, inner.limit = false, 0
			inner.filters = p.knownGroups()
			sql, err := inner.render(s)
			if err != nil {
				return "", err
			}
			fn := "MAX"
			if !p.order.desc {
				fn = "MIN"
			}
			// Every row whose key equals the best one, in the inner
			// query's order; the ranking is computed once.
			name := "ranked"
			for s.byName[name] != nil {
				name += "_rows" // never a table's own name
			}
			return "WITH " + name + " AS (" + sql + ") SELECT * FROM " + name + " WHERE " + key + " = (SELECT " + fn + "(" + key + ") FROM " + name + ")", nil
		}
	}
	if p.outer != aggNone {
		inner := *p
		inner.outer = aggNone
		inner.order = orderKey{}
		sql, err := inner.render(s)
		if err != nil {
			return "", err
		}
		alias := p.base.ident(p.measureAlias())
		return "SELECT " + p.outer.sql() + "(" + alias + ") AS " + p.base.ident(strings.ToLower(p.outer.sql())+"_"+p.measureAlias()) +
			" FROM (" + sql + ") AS per_group", nil // PostgreSQL before 16 and MySQL require the alias
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
	js.current = p.current
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
					groupBy = append(groupBy, groupKeys(lc, col(lc))...)
				}
			} else {
				groupBy = append(groupBy, col(key))
			}
		case g.unit != unitNone:
			expr := g.col.tab.dl.DateBucket(dateExpr(g.col, col(g.col)), engine.TimeUnit(unitAlias(g.unit)))
			if g.col.intYear {
				expr = col(g.col)
			}
			if g.col.yearMonth {
				switch g.unit {
				case unitYear:
					expr = "substr(" + col(g.col) + ", 1, 4)"
				case unitMonth:
					expr = col(g.col)
				}
			}
			alias := unitAlias(g.unit)
			sel = append(sel, expr+" AS "+alias)
			groupBy = append(groupBy, alias)
			if !p.order.set || p.order.bucket {
				orderBy = alias
			}
		default:
			sel = append(sel, col(g.col))
			groupBy = append(groupBy, groupKeys(g.col, col(g.col))...)
		}
	}
	for _, c := range p.show {
		sel = append(sel, col(c))
	}
	if p.agg != aggNone {
		sel = append(sel, measure+" AS "+p.base.ident(p.measureAlias()))
	}
	switch {
	case p.order.measure:
		orderBy = p.base.ident(p.measureAlias()) + dir(p.order.desc)
	case p.order.col != nil:
		orderBy = col(p.order.col) + dir(p.order.desc)
		if p.agg == aggNone && !p.order.sort {
			conds = append(conds, col(p.order.col)+" IS NOT NULL")
		}
	}
	distinct := p.agg == aggNone && len(p.groups) == 0 && p.distinct
	if distinct {
		// DISTINCT merges what the collation takes for equal; grouping
		// by exact keys, where they differ, keeps every spelling apart.
		var keys []string
		exact := false
		for _, c := range p.show {
			k := groupKeys(c, col(c))
			exact = exact || len(k) > 1
			keys = append(keys, k...)
		}
		if exact {
			distinct, groupBy = false, keys
		}
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	if distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(sel, ", "))
	js.writeFrom(&b, conds)
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

// tieKey is the result column a ranking orders by, quoted, or "".
// knownGroups returns the plan's filters plus one IS NOT NULL per nullable
// column it groups by: "the most frequent resolution" ranks the values
// recorded, never the rows that have none.
func (p *plan) knownGroups() []filter {
	fs := p.filters
	for _, g := range p.groups {
		if g.col == nil || g.entity != nil || g.unit != unitNone || g.col.notNull || g.col.isPK {
			continue
		}
		fs = append(fs[:len(fs):len(fs)], filter{col: g.col, op: "IS NOT NULL"})
	}
	return fs
}

func (p *plan) tieKey() string {
	switch {
	case p.order.measure:
		return p.base.ident(p.measureAlias())
	case p.order.col != nil && p.agg == aggNone:
		return p.order.col.tab.ident(p.order.col.name)
	}
	return ""
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
	if k := g.pk; k != nil && k.kind == kindText && !slices.Contains(g.label, k) {
		// A key that is a code people use (a tier code): shown
		// before the label, as the rows of base record it.
		sel = append(sel, col(k))
	}
	sel = append(sel, labelSelect(g, col)...)
	if g.pk != nil {
		groupBy = append(groupBy, col(g.pk))
	} else {
		for _, lc := range g.label {
			groupBy = append(groupBy, groupKeys(lc, col(lc))...)
		}
	}
	// Count a column of base that is never NULL on a joined row.
	counted := steps[0].e.fromCol
	if p.base.pk != nil {
		counted = p.base.pk
	}
	sel = append(sel, "COUNT("+col(counted)+") AS "+p.base.ident(p.measureAlias()))
	b.WriteString("SELECT ")
	b.WriteString(strings.Join(sel, ", "))
	b.WriteString(" FROM ")
	b.WriteString(quoteTable(g))
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		b.WriteString(" LEFT JOIN ")
		b.WriteString(quoteTable(st.e.from))
		b.WriteString(" ON ")
		b.WriteString(onClause(st.e, false))
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
		b.WriteString(p.base.ident(p.measureAlias()) + dir(p.order.desc))
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
			alias := strings.Join(splitName(text.Singular(strings.Join(t.raw, " "))), "_")
			if alias != "" && !strings.EqualFold(alias, lc.name) {
				expr += " AS " + t.ident(alias)
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
			return countDistinct(p.base.pk, col(p.base.pk))
		}
		return "COUNT(*)"
	}
	if p.distinct {
		if p.agg == aggCount {
			return countDistinct(p.aggCol, col(p.aggCol))
		}
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

// groupKeys is what GROUP BY lists for c, written expr: expr, and its
// exact form too where the collation would take different text for one
// value, so that each group holds one spelling, the one shown.
func groupKeys(c *colInfo, expr string) []string {
	if c.textual {
		if x := c.tab.dl.ExactText(expr); x != expr {
			return []string{expr, x}
		}
	}
	return []string{expr}
}

// countDistinct counts the distinct values of c, written expr, as SQLite
// does: text by its characters, whatever the column's collation.
func countDistinct(c *colInfo, expr string) string {
	if c.textual {
		expr = c.tab.dl.ExactText(expr)
	}
	return "COUNT(DISTINCT " + expr + ")"
}

// measureAlias names the measure column: number_of_loans, total_fine,
// avg_page_count…
func (p *plan) measureAlias() string {
	if p.aggCol == nil {
		if s := strings.Join(splitName(text.Plural(p.subject)), "_"); s != "" {
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

// dateExpr is a date column as a date the bucket functions read: Unix
// seconds become a date time.
func dateExpr(c *colInfo, expr string) string {
	if c.unixTime {
		return c.tab.dl.FromUnixSeconds(expr)
	}
	return expr
}

// unixBound is a range bound ("2024-03-01", "2024-03-01 10:00:00") as
// Unix seconds (UTC).
func unixBound(dl engine.Dialect, s string) string {
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return strconv.FormatInt(t.Unix(), 10)
		}
	}
	return dl.QuoteString(s)
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
		from, to := f.from, f.to
		if f.col.yearMonth {
			// Year-month text ("2024-03"): compare with the month part
			// of the bounds, which are whole months or years.
			from, to = trimTo(from, 7), trimTo(to, 7)
		}
		if f.col.unixTime {
			// Unix seconds: the bounds as seconds.
			var parts []string
			if from != "" {
				parts = append(parts, c+" >= "+unixBound(f.col.tab.dl, from))
			}
			if to != "" {
				parts = append(parts, c+" < "+unixBound(f.col.tab.dl, to))
			}
			return strings.Join(parts, " AND ")
		}
		if f.col.intYear {
			// Integer years: the years the bounds start (a bound inside
			// a year counts that year).
			var parts []string
			if from != "" {
				parts = append(parts, c+" >= "+trimTo(from, 4))
			}
			if to != "" {
				y, _ := strconv.Atoi(trimTo(to, 4))
				if len(to) > 4 && to[4:] != "-01-01" {
					y++
				}
				parts = append(parts, c+" < "+strconv.Itoa(y))
			}
			return strings.Join(parts, " AND ")
		}
		if from != "" {
			parts = append(parts, c+" >= "+f.col.tab.dl.QuoteString(from))
		}
		if to != "" {
			parts = append(parts, c+" < "+f.col.tab.dl.QuoteString(to))
		}
		return strings.Join(parts, " AND ")
	case "IN":
		lits := make([]string, len(f.vals))
		for i, v := range f.vals {
			lits[i] = literal(f.col.tab.dl, v)
		}
		return c + " IN (" + strings.Join(lits, ", ") + ")"
	}
	if n, ok := f.vals[0].(int64); ok && (n == 0 || n == 1) && f.op == "=" && strings.Contains(f.col.declType, "BOOL") {
		// A declared boolean: TRUE and FALSE compare with it in every
		// engine (PostgreSQL has no boolean = integer; SQLite's TRUE is 1).
		return c + " = " + map[int64]string{0: "FALSE", 1: "TRUE"}[n]
	}
	return c + " " + f.op + " " + literal(f.col.tab.dl, f.vals[0])
}

// onClause joins the two tables of e on every pair of its columns,
// the newly joined table first.
func onClause(e *fkEdge, forward bool) string {
	pairs := append([][2]*colInfo{{e.fromCol, e.toCol}}, e.more...)
	var parts []string
	for _, pc := range pairs {
		if forward {
			parts = append(parts, quoteCol(pc[1], true)+" = "+quoteCol(pc[0], true))
		} else {
			parts = append(parts, quoteCol(pc[0], true)+" = "+quoteCol(pc[1], true))
		}
	}
	return strings.Join(parts, " AND ")
}

// uniqueWhenCurrent: every step of the path that goes from a parent to
// its children lands on a table in current — a history whose current row
// is the only one kept per parent.
func uniqueWhenCurrent(steps []joinStep, current map[*tableInfo]bool) bool {
	for _, st := range steps {
		if !st.forward && !st.e.oneToOne() && !current[st.dst()] {
			return false
		}
	}
	return true
}

// inSubquery is the condition "outer is (not) one of key's values on the
// rows of key's table that meet conds": outer IN (SELECT key FROM … WHERE
// …). Every name is qualified.
func inSubquery(outer *colInfo, not bool, key *colInfo, conds []string) string {
	in := " IN ("
	if not {
		in = " NOT IN ("
	}
	sql := quoteCol(outer, true) + in + "SELECT " + quoteCol(key, true) + " FROM " + quoteTable(key.tab)
	if len(conds) > 0 {
		sql += " WHERE " + strings.Join(conds, " AND ")
	}
	return sql + ")"
}

// antiSubquery is the condition "no row of e's table, joined as inner
// says and meeting conds, points at this row": key NOT IN (SELECT fk FROM
// … WHERE fk IS NOT NULL AND …). NULL keys are left out of the list, or
// NOT IN would match nothing.
func antiSubquery(e *fkEdge, inner *joinSet, conds []string) string {
	var b strings.Builder
	b.WriteString(quoteCol(e.toCol, true) + " NOT IN (SELECT " + quoteCol(e.fromCol, true) + " FROM " + quoteTable(e.from))
	for _, jn := range inner.joins {
		b.WriteString(" " + jn)
	}
	b.WriteString(" WHERE " + strings.Join(append([]string{quoteCol(e.fromCol, true) + " IS NOT NULL"}, conds...), " AND ") + ")")
	return b.String()
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

func trimTo(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
