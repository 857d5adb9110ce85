package offline

import (
	"math"
	"strings"
)

// builder fills a plan from an analysis.
type builder struct {
	ix *index
	a  *analysis
	p  *plan
	// roles taken by mentions
	role map[*mention]string
	// explained tokens (cues used, supporting words)
	explained []bool
	// elements of the plan, for explaining leftover words
	elems []*colInfo
	tabs  []*tableInfo
	// options: rephrased questions offered when the question is ambiguous
	options []string
	// measure is the question's words for what is measured, for messages.
	measure string
	// anti: indexes in p.filters of negated existences (antiJoins).
	anti []int
}

// unmapped is the reason given for words that link to nothing.
func unmapped(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"`
	}
	if len(q) == 1 {
		return "I could not map " + q[0] + " to a table, column or value of this database."
	}
	return "I could not map " + strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] + " to tables, columns or values of this database."
}

// build turns an analysis into a plan, or says why it cannot (with
// rephrased questions to offer when it is ambiguous).
func (ix *index) build(a *analysis) (*plan, string, []string) {
	if a.refusal != "" {
		return nil, "the question asks me to " + a.refusal + ", which takes judgement or several queries, not one lookup.", nil
	}
	b := &builder{ix: ix, a: a, p: &plan{}, role: map[*mention]string{}, explained: make([]bool, len(a.toks))}
	if why := b.run(); why != "" {
		return nil, why, b.options
	}
	if why := b.checkExplained(); why != "" {
		return nil, why, nil
	}
	return b.p, "", nil
}

// first returns the index of the first token with cue c, or -1.
func (b *builder) first(c cue) int {
	for i, x := range b.a.cues {
		if x == c {
			return i
		}
	}
	return -1
}

// mentionAfter returns the first unassigned schema mention starting after
// token pos within gap tokens (skipping fillers and the given cues).
func (b *builder) mentionAfter(pos, gap int, values bool) *mention {
	for _, m := range b.a.ments {
		if m.start <= pos || b.role[m] != "" || m.absorbed {
			continue
		}
		if m.value && !values {
			continue
		}
		if m.start-pos-1 > gap {
			return nil
		}
		// Only fillers (and "number of", "different"…) in between.
		for k := pos + 1; k < m.start; k++ {
			switch b.a.cues[k] {
			case cueFiller, cueDistinct, cueCount, cueAgg, cueAdj, cueN, cueExists, cueSuper, cueCurrent, cueFormer:
			default:
				// A value may stand in between: "how many returned orders".
				if b.a.at[k] < 0 || !b.a.ments[b.a.at[k]].value {
					return nil
				}
			}
		}
		return m
	}
	return nil
}

// mentionAt returns the mention covering token i, or nil.
func (b *builder) mentionAt(i int) *mention {
	if i < 0 || i >= len(b.a.at) || b.a.at[i] < 0 {
		return nil
	}
	return b.a.ments[b.a.at[i]]
}

// run reads the question's shape from its cues (a count, an aggregate, a
// ranking, a breakdown or a listing), fills the plan, adds the filters and
// returns why it cannot, or "".
func (b *builder) run() string {
	a := b.a
	for _, m := range a.ments {
		if !m.value && len(m.cands) > 0 && m.cands[0].c != nil && m.cands[0].c.selfRef {
			return "the question is about how rows of " + strings.Join(m.cands[0].c.tab.raw, " ") + " relate to each other (" +
				words(m.cands[0].c) + "), which the built-in planner does not join."
		}
	}
	countPos := b.first(cueCount)
	aggPos := -1
	for i, c := range a.cues {
		if c == cueAgg || (c == cueSuper && a.aggAt[i] != aggNone) {
			if aggPos < 0 && (c == cueAgg || b.superIsAgg(i)) {
				aggPos = i
			}
		}
	}
	superPos := -1
	for i, c := range a.cues {
		if c == cueSuper && !(aggPos == i) {
			superPos = i
			break
		}
	}
	listPos := b.first(cueList)
	distinct := false
	for i, c := range a.cues {
		// "more than 3 different providers": the comparison's, not the
		// question's.
		if c == cueDistinct && !(i > 0 && a.cues[i-1] == cueNumber) {
			distinct = true
		}
	}

	// Value mentions and dates become filters whatever the shape; they are
	// resolved once the base is known. Group mentions are found first so
	// they are not taken for subjects.
	groupMs := b.groupMentions(superPos)
	for _, bc := range a.buckets {
		b.explained[bc.pos] = true
	}

	which := false
	for _, bc := range a.buckets {
		which = which || bc.which
	}
	switch {
	case which && superPos >= 0:
		// "Which day had the most cancelled trains": a count per day,
		// the top one.
		if why := b.whichPeriod(superPos, aggPos, groupMs); why != "" {
			return why
		}
	case superPos >= 0 || (a.topN > 0 && countPos < 0 && aggPos < 0):
		if why := b.rank(superPos, listPos, aggPos, groupMs); why != "" {
			return why
		}
	case countPos >= 0 && (aggPos < 0 || aggPos > countPos && a.toks[aggPos].low == "total" && b.countTotal(countPos, aggPos)):
		if why := b.count(countPos, distinct, groupMs); why != "" {
			return why
		}
	case aggPos >= 0:
		if why := b.aggregate(aggPos, groupMs); why != "" {
			return why
		}
	case len(groupMs) > 0 || len(a.buckets) > 0:
		// "Orders per year", "customers by country": a count.
		if why := b.count(-1, distinct, groupMs); why != "" {
			return why
		}
	default:
		if why := b.list(listPos, distinct); why != "" {
			return why
		}
	}
	if why := b.filters(); why != "" {
		return why
	}
	if why := b.measureUnit(); why != "" {
		return why
	}
	if why := b.periods(); why != "" {
		return why
	}
	b.finalize()
	return ""
}

// periods reads "current", "still", "right now", "living" (and "former",
// "left") as a condition on validity periods: every table of the plan
// whose rows have an open-ended period keeps the open ones; when none
// does, the rows of the base must have an open row in a table that points
// at it (a current employee has a current department row). Where the
// schema has no periods at all, the words are fillers.
func (b *builder) periods() string {
	a, p := b.a, b.p
	cur, former := -1, -1
	for i, c := range a.cues {
		switch c {
		case cueCurrent:
			cur = i
		case cueFormer:
			former = i
		}
	}
	if cur < 0 && former < 0 {
		if !b.measuresHistory() {
			return ""
		}
		// "the average pay of senior engineers": a value kept as a
		// history of periods is its current one unless the question
		// asks for the history.
		cur = len(a.cues)
	}
	mark := func() {
		for i, c := range a.cues {
			if c == cueCurrent || c == cueFormer {
				b.explained[i] = true
			}
		}
	}
	ended := former >= 0 && cur < 0
	// Tables the plan reads rows of.
	var tabs []*tableInfo
	seen := map[*tableInfo]bool{}
	addTab := func(t *tableInfo) {
		if t != nil && !seen[t] {
			seen[t] = true
			tabs = append(tabs, t)
		}
	}
	addTab(p.base)
	for _, f := range p.filters {
		addTab(f.col.tab)
	}
	if p.aggCol != nil {
		addTab(p.aggCol.tab)
	}
	for _, g := range p.groups {
		if g.col != nil {
			addTab(g.col.tab)
		}
	}
	// And the tables their joins pass through: "currently in the
	// research department" is a current membership row.
	for _, t := range append([]*tableInfo(nil), tabs...) {
		if steps, ok := b.ix.s.path(p.base, t); ok {
			for _, st := range steps {
				addTab(st.dst())
			}
		}
	}
	for _, g := range p.groups {
		if g.entity != nil {
			if steps, ok := b.ix.s.path(p.base, g.entity); ok {
				for _, st := range steps {
					addTab(st.dst())
				}
			}
		}
	}
	added := false
	for _, t := range tabs {
		if end := t.openEnd(); end != nil && !b.hasFilterOn(end) {
			p.filters = append(p.filters, openFilter(end, ended))
			added = true
		}
	}
	if !added && b.stateOnBase() {
		// "members who are currently suspended": the word qualifies
		// a state the base's own rows record (a date set while it
		// holds), not a membership elsewhere.
		added = true
	}
	if !added && p.base != nil && p.base.pk != nil {
		// Through a table that points at the base and whose rows have
		// periods: a membership (it also points at another table: an
		// member's teams) before an attribute's history (a
		// member's pay rates), then the largest.
		var child *fkEdge
		member := func(e *fkEdge) bool {
			for _, o := range e.from.out {
				if o.to != p.base && !o.to.view {
					return true
				}
			}
			return false
		}
		for _, e := range p.base.in {
			if e.from.view || e.composite() || e.from.openEnd() == nil {
				continue
			}
			if child == nil || member(e) && !member(child) || member(e) == member(child) && e.from.rows > child.from.rows {
				child = e
			}
		}
		if child != nil {
			end := child.from.openEnd()
			cond := openFilter(end, false)
			in := "IN"
			if ended {
				in = "NOT IN"
			}
			raw := quoteCol(p.base.pk, true) + " " + in + " (SELECT " + quoteCol(child.fromCol, true) + " FROM " + quoteTable(child.from) +
				" WHERE " + cond.sql(true) + ")"
			desc := "currently in " + strings.Join(child.from.raw, " ")
			if ended {
				desc = "no longer in " + strings.Join(child.from.raw, " ")
			}
			p.filters = append(p.filters, filter{col: p.base.pk, op: "SQL", raw: raw, desc: desc})
			added = true
		}
	}
	// Without a period to read, the words are fillers ("products
	// currently in stock").
	mark()
	return ""
}

// currentHistories: when the question asks for current rows ("current",
// "right now") or measures a number kept as a history, the tables with
// far-future-closed periods, whose current row is one per parent: they
// may be joined from the parent without multiplying rows. Else nil.
func (b *builder) currentHistories() map[*tableInfo]bool {
	a := b.a
	cur, former := false, false
	for _, c := range a.cues {
		cur = cur || c == cueCurrent
		former = former || c == cueFormer
	}
	if former || !cur && !b.measuresHistory() {
		return nil
	}
	out := map[*tableInfo]bool{}
	for _, t := range b.ix.s.tables {
		if end := t.openEnd(); end != nil && end.sentinel != "" && !t.view {
			out[t] = true
		}
	}
	return out
}

// reachesCurrent: base reaches t through keys to parents, or through
// histories kept to their current rows.
func (b *builder) reachesCurrent(base, t *tableInfo) ([]joinStep, bool) {
	steps, ok := b.ix.s.path(base, t)
	if !ok {
		return nil, false
	}
	if allForward(steps) {
		return steps, true
	}
	cur := b.currentHistories()
	if cur == nil || !uniqueWhenCurrent(steps, cur) {
		return nil, false
	}
	b.p.current = cur
	return steps, true
}

// historyWords ask for every period of a history, not the current one.
var historyWords = map[string]bool{"ever": true, "history": true, "historical": true, "historically": true, "record": true,
	"records": true, "all-time": true, "past": true, "previous": true, "previously": true, "anytime": true}

// measuresHistory: the plan measures a number kept as a history of
// periods closed by a far-future marker (a pay rate per period), and the
// question neither names a time nor asks for the history ("ever",
// "records").
func (b *builder) measuresHistory() bool {
	p, a := b.p, b.a
	if p.aggCol == nil || p.agg == aggCount || len(a.dates) > 0 || len(a.buckets) > 0 {
		return false
	}
	end := p.aggCol.tab.openEnd()
	if end == nil || end.sentinel == "" {
		return false
	}
	for _, t := range a.toks {
		if historyWords[t.low] {
			return false
		}
	}
	return true
}

// stateOnBase: the plan filters the base on whether one of its own dates
// is set ("suspended": suspended_on IS NOT NULL).
func (b *builder) stateOnBase() bool {
	for _, f := range b.p.filters {
		if f.col.tab == b.p.base && f.col.kind == kindDate && (f.op == "IS NOT NULL" || f.op == "IS NULL") {
			return true
		}
	}
	return false
}

// hasFilterOn: the plan already filters column c.
func (b *builder) hasFilterOn(c *colInfo) bool {
	for _, f := range b.p.filters {
		if f.col == c {
			return true
		}
	}
	return false
}

// finalize: a count per entity keeps the entities that have no rows
// ("authors with 0 books") by counting from the entity side.
func (b *builder) finalize() {
	p := b.p
	if p.agg != aggCount || p.aggCol != nil || p.distinct || len(p.groups) != 1 || p.groups[0].entity == nil {
		return
	}
	e := p.groups[0].entity
	if e == p.base || len(e.label) == 0 {
		return
	}
	steps, ok := b.ix.s.path(p.base, e)
	if !ok || !strictlyForward(steps) {
		return
	}
	for _, f := range p.filters {
		if f.col.tab != e {
			return
		}
	}
	p.leftFrom = e
}

// ---- choosing candidates ----

// tableOf: the table a candidate lives in.
func tableOf(c *cand) *tableInfo {
	if c.c != nil {
		return c.c.tab
	}
	return c.t
}

// cost of reaching candidate c from base: join path cost minus its score.
func (b *builder) cost(base *tableInfo, c *cand) float64 {
	t := tableOf(c)
	if e := c.entity(); e != nil {
		t = e
	}
	steps, ok := b.ix.s.path(base, t)
	if !ok {
		return math.Inf(1)
	}
	pc := pathCost(steps)
	// A mention that only names a junction table is unlikely.
	return pc - 2*c.score
}

// pickFor chooses the candidate of m that fits base best.
func (b *builder) pickFor(base *tableInfo, m *mention, ok func(*cand) bool) *cand {
	var best *cand
	bestCost := math.Inf(1)
	for _, c := range m.cands {
		if ok != nil && !ok(c) {
			continue
		}
		cc := b.cost(base, c)
		if cc < bestCost-1e-9 {
			best, bestCost = c, cc
		}
	}
	return best
}

// chooseBase picks, among the candidates of the anchor mention, the one
// whose table reaches the other mentions most cheaply.
func (b *builder) chooseBase(anchor *mention, ok func(*cand) bool) *cand {
	var best *cand
	bestCost := math.Inf(1)
	for _, c := range anchor.cands {
		if ok != nil && !ok(c) {
			continue
		}
		base := tableOf(c)
		if base.view && !c.t.view {
			continue
		}
		total := -2 * c.score
		if base.view {
			total += 1.5
		}
		for _, m := range b.a.ments {
			if m == anchor || m.absorbed {
				continue
			}
			mc := math.Inf(1)
			for _, oc := range m.cands {
				if v := b.cost(base, oc); v < mc {
					mc = v
				}
			}
			if math.IsInf(mc, 1) {
				total += 4
			} else {
				total += mc * 0.5
			}
		}
		if total < bestCost-1e-9 {
			best, bestCost = c, total
		}
	}
	return best
}

func (b *builder) use(m *mention, role string) {
	b.role[m] = role
	m.used = true
}

func (b *builder) useCol(c *colInfo) {
	if c != nil {
		b.elems = append(b.elems, c)
	}
}

// ---- shapes ----

// ---- ranking ----

// ---- listing ----

// ---- filters ----

// supports: every content word of tokens [from, to) names a word of a
// table or column the plan uses (including the key columns of its joins).
func (b *builder) supports(from, to int) bool {
	var names [][]string
	add := func(ws []string) { names = append(names, ws) }
	for _, c := range b.elems {
		add(c.words)
		add(c.comment)
		add(c.tab.words)
	}
	for _, t := range b.tabs {
		add(t.words)
	}
	if b.p.base != nil {
		add(b.p.base.words)
		for _, e := range b.p.base.out {
			add(e.fromCol.words)
		}
		for _, e := range b.p.base.in {
			add(e.fromCol.words)
		}
	}
	for _, g := range b.p.groups {
		if g.entity != nil {
			for _, e := range g.entity.in {
				add(e.fromCol.words)
			}
		}
	}
	any := false
	for k := from; k < to; k++ {
		t := b.a.toks[k]
		if lexicon().fillers[t.low] {
			continue
		}
		ok := false
		for _, ws := range names {
			for _, w := range ws {
				if w != "id" && wordMatch(t.stem, w) >= 0.85 {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
		any = true
	}
	return any
}

// checkExplained refuses when a content word of the question plays no part
// in the plan: the plan would be answering a different question.
func (b *builder) checkExplained() string {
	a := b.a
	var bad []string
	for i, t := range a.toks {
		if b.explained[i] || t.sym {
			continue
		}
		if m := b.mentionAt(i); m != nil {
			if m.used || m.absorbed {
				continue
			}
			if b.supports(m.start, m.end) {
				continue
			}
			bad = append(bad, b.span(m))
			i = m.end - 1
			continue
		}
		switch a.cues[i] {
		case cueFiller, cueList:
			continue
		case cueNone:
			if t.isNum {
				bad = append(bad, t.raw)
				continue
			}
			if lexicon().fillers[t.low] || lexicon().fillerStems[t.stem] {
				continue
			}
			if b.supports(i, i+1) {
				continue
			}
			// "by number of berths sold": a verb that links to nothing,
			// right after the things a ranking counts, says what they
			// are ("how many pupils failed" is a condition, not this).
			if prev := b.mentionAt(i - 1); prev != nil && pastParticiple(t) && hasTable(prev) && b.role[prev] == "key" {
				continue
			}
			bad = append(bad, t.raw)
		case cueNeg:
			return "I can't read the negation in this question reliably."
		case cueDistinct, cueGroup, cueExists:
			// harmless when unused ("each", "different")
		default:
			bad = append(bad, t.raw)
		}
	}
	if len(bad) > 0 {
		return unmapped(dedupe(bad))
	}
	return ""
}

// span is the question's own text for a mention.
func (b *builder) span(m *mention) string {
	if m.end <= m.start {
		return ""
	}
	t := b.a.toks
	if from, to := t[m.start].pos, t[m.end-1].end; to > from && to <= len(b.a.text) {
		return b.a.text[from:to]
	}
	var parts []string
	for k := m.start; k < m.end; k++ {
		parts = append(parts, t[k].raw)
	}
	return strings.Join(parts, " ")
}
