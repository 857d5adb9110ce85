package offline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

// countTotal: "how many units do we have in stock in total" — a count cue
// whose thing is a measure summed by "in total".
func (b *builder) countTotal(countPos, aggPos int) bool {
	m := b.mentionAfter(countPos+1, 3, false)
	if m == nil {
		return true
	}
	for _, c := range m.cands {
		if c.c != nil && c.c.kind == kindNumber {
			return false
		}
	}
	return true
}

// groupMentions finds "per X", "each X", "by X", "for every X".
func (b *builder) groupMentions(superPos int) []*mention {
	var out []*mention
	for i, t := range b.a.toks {
		// "age distribution", "a breakdown of loans by branch": the
		// thing before "distribution" (or after "distribution of") is
		// counted per value.
		if t.low != "distribution" && t.low != "breakdown" {
			continue
		}
		m := b.mentionAt(i - 1)
		if m == nil && b.a.low(i+1) == "of" {
			if n := b.mentionAfter(i+1, 2, false); n != nil && !hasTable(n) {
				m = n
			}
		}
		if m == nil || m.value || b.role[m] != "" || hasTable(m) && m.cands[0].c == nil {
			continue
		}
		b.role[m] = "group"
		b.explained[i] = true
		out = append(out, m)
	}
	for i, c := range b.a.cues {
		if c != cueGroup {
			continue
		}
		// "list every shipper": every one of them, not a grouping.
		if i > 0 && b.a.cues[i-1] == cueList || i > 1 && b.a.cues[i-2] == cueList && b.a.cues[i-1] == cueFiller {
			b.explained[i] = true
			continue
		}
		m := b.mentionAfter(i, 3, true)
		if m == nil || m.value {
			continue
		}
		// "top 3 customers by number of orders": ranking, not grouping.
		if b.a.toks[i].low == "by" && (superPos >= 0 || b.a.topN > 0) && i > superPos {
			continue
		}
		b.role[m] = "group"
		b.explained[i] = true
		out = append(out, m)
	}
	return out
}

// count: how many X [filters] [per G].
func (b *builder) count(countPos int, distinct bool, groupMs []*mention) string {
	a := b.a
	var target *mention
	if countPos >= 0 {
		for i := countPos; i < len(a.toks) && a.cues[i] == cueCount; i++ {
			b.explained[i] = true
			countPos = i
		}
		target = b.mentionAfter(countPos, 4, false)
		// "how many overdue loans": the flag describes the thing
		// counted, which is the next table named.
		if target != nil && isFlag(target) {
			if next := b.mentionAfter(target.end-1, 3, false); next != nil && hasTable(next) {
				target = next
			}
		}
	} else {
		// "Orders per year": the first thing named.
		for _, m := range a.ments {
			if !m.value && b.role[m] == "" {
				target = m
				break
			}
		}
		if target == nil && len(groupMs) == 1 && !hasTable(groupMs[0]) {
			// "Grade distribution": the rows of the grouped column's
			// table.
			if c := b.chooseBase(groupMs[0], func(c *cand) bool { return c.c != nil && !c.c.tab.view }); c != nil {
				p := b.p
				p.agg, p.shape, p.base = aggCount, "count", c.c.tab
				p.subject = strings.Join(c.c.tab.raw, " ")
				return b.groups(groupMs)
			}
		}
	}
	if target == nil && countPos >= 0 {
		// "How many women…", "how many professors": the rows that hold
		// the value named right after the count words (filtered by it
		// below).
		if v := b.mentionAfter(countPos, 2, true); v != nil && v.value && v.strong && !v.absorbed && len(v.cands) > 0 {
			if c := b.chooseBase(v, nil); c != nil && !holderOf(c.c, false).view {
				h := holderOf(c.c, false)
				p := b.p
				p.agg, p.shape, p.base = aggCount, "count", h
				p.subject = strings.Join(h.raw, " ")
				return b.groups(groupMs)
			}
		}
	}
	if target == nil {
		return "I could not tell what to count."
	}
	p := b.p
	p.agg = aggCount
	p.shape = "count"
	// "how many different cities do members come from": count the
	// distinct values of the thing in the table of another mention.
	if distinct {
		b.explained[b.first(cueDistinct)] = true
		var other *mention
		for _, m := range a.ments {
			if m != target && !m.value && b.role[m] == "" && m.start > target.start && hasTable(m) {
				other = m
				break
			}
		}
		if other != nil {
			oc := b.chooseBase(other, func(c *cand) bool { return c.c == nil })
			if oc != nil {
				base := oc.t
				// The target as a column of base.
				tc := b.pickFor(base, target, func(c *cand) bool { return c.c != nil && c.c.tab == base || c.c == nil && fkTo(base, c.t) != nil })
				if tc != nil {
					col := tc.c
					if col == nil {
						col = fkTo(base, tc.t)
					}
					p.base, p.aggCol, p.distinct = base, col, true
					p.subject = colNoun(col)
					p.shape = "distinct"
					b.use(target, "measure")
					b.use(other, "base")
					b.useCol(col)
					return b.groups(groupMs)
				}
			}
		}
	}
	c := b.chooseBase(target, nil)
	if c == nil {
		return "I could not tell what to count."
	}
	if dc := c.c; !distinct && dc != nil && dc.kind == kindDate && !dc.notNull && dc.nulls > 0 && pastParticiple(a.toks[target.end-1]) {
		// "How many were escalated": the rows whose date of that
		// event is set (filtered below), not the different dates.
		p.base = dc.tab
		p.subject = strings.Join(dc.tab.raw, " ")
		return b.groups(groupMs)
	}
	b.use(target, "measure")
	if c.c == nil && !distinct {
		if ev := b.passiveEvent(target, c.t); ev != nil {
			// "How many bikes were hired in May": the hires.
			c = ev
		}
	}
	switch {
	case c.c == nil && distinct && c.t.valueColumn() != nil:
		// "How many different job titles": the values a history of
		// titles holds, not its rows.
		vc := c.t.valueColumn()
		p.base, p.aggCol, p.distinct = c.t, vc, true
		p.subject = colNoun(vc)
		p.shape = "distinct"
		b.useCol(vc)
	case c.c == nil:
		p.base = c.t
		p.subject = strings.Join(c.t.raw, " ")
	case c.c.kind == kindNumber && !distinct:
		// "How many units are in stock": a sum.
		p.base, p.agg, p.aggCol = c.c.tab, aggSum, c.c
		p.subject = words(c.c)
		p.shape = "aggregate"
		b.useCol(c.c)
	case c.c.fk != nil && !distinct:
		p.base = c.c.fk.to
		p.subject = strings.Join(c.c.fk.to.raw, " ")
	case !distinct && len(c.c.tab.words) > 1 && sameWords(trimID(c.c.words), c.c.tab.words[:1]):
		// "How many awards": the rows of a table named after them (awards
		// of pupils), not the different award names.
		p.base = c.c.tab
		p.subject = strings.Join(c.c.raw[:len(trimID(c.c.words))], " ")
	default:
		p.base, p.aggCol, p.distinct = c.c.tab, c.c, true
		p.subject = colNoun(c.c)
		p.shape = "distinct"
		b.useCol(c.c)
	}
	if distinct && p.aggCol == nil {
		p.shape = "distinct"
	}
	return b.groups(groupMs)
}

// passiveEvent: a verb in the passive after the things counted names the
// event table whose rows record what happened to them ("how many
// bikes were hired in May": each hiring of a bike is one of
// its rentals), and the event table points at them. The event reading is
// returned, else nil. People are counted as people ("how many pupils
// were enrolled"), never as their events.
func (b *builder) passiveEvent(target *mention, t *tableInfo) *cand {
	a := b.a
	if isPersonTable(t) {
		return nil
	}
	for _, m := range a.ments {
		if m.start <= target.end || m.value || b.role[m] != "" || len(m.cands) == 0 || !m.cands[0].event {
			continue
		}
		k := m.start - 1
		if a.low(k) == "not" || a.low(k) == "never" {
			return nil
		}
		switch a.low(k) {
		case "were", "was", "been", "be", "being", "get", "got":
		default:
			return nil
		}
		for _, c := range m.cands {
			if c.c != nil && c.c.tab == t && c.c.kind == kindDate && c.score >= m.cands[0].score-0.05 {
				// "How many vouchers were created": the verb names
				// a date of the things counted, which are their own
				// event.
				return nil
			}
		}
		ev := m.cands[0]
		if steps, ok := b.ix.s.path(ev.t, t); !ok || len(steps) == 0 || !strictlyForward(steps) {
			return nil
		}
		b.use(m, "measure")
		return ev
	}
	return nil
}

// isFlag: the mention's best reading is a yes/no column.
func isFlag(m *mention) bool {
	return !m.value && len(m.cands) > 0 && m.cands[0].c != nil && m.cands[0].c.kind == kindBool
}

func hasTable(m *mention) bool {
	for _, c := range m.cands {
		if c.c == nil {
			return true
		}
	}
	return false
}

// fkTo returns base's foreign key column pointing at t, if exactly one.
func fkTo(base, t *tableInfo) *colInfo {
	var found *colInfo
	for _, e := range base.out {
		if e.to == t && !e.composite() {
			if found != nil {
				return nil
			}
			found = e.fromCol
		}
	}
	return found
}

func words(c *colInfo) string { return strings.Join(c.raw, " ") }

// colNoun names what a column's values are: the table a key points at
// ("team" for team_id), else the column's words.
func colNoun(c *colInfo) string {
	if c.fk != nil {
		return strings.Join(c.fk.to.raw, " ")
	}
	return words(c)
}

// colPhrase names a column in an answer: the label of another table is
// that table ("team is Ajax", not "name is Ajax").
func colPhrase(c *colInfo, base *tableInfo) string {
	if c.tab != base && len(c.tab.label) == 1 && c.tab.label[0] == c {
		return text.Singular(strings.Join(c.tab.raw, " "))
	}
	return words(c)
}

// aggregate: average/total/max/min of a column [filters] [per G].
func (b *builder) aggregate(aggPos int, groupMs []*mention) string {
	a := b.a
	fn := a.aggAt[aggPos]
	b.explained[aggPos] = true
	if aggPos > 0 && a.cues[aggPos-1] == cueCount && a.low(aggPos) == "much" {
		b.explained[aggPos-1] = true // "how much"
		// "how much … in total": the same sum said twice.
		for k := aggPos + 1; k < len(a.cues); k++ {
			if a.cues[k] == cueAgg && a.aggAt[k] == fn && a.low(k) == "total" && a.low(k-1) == "in" {
				b.explained[k] = true
			}
		}
	}
	// The measured column: the mention after the cue; else the nearest
	// other number named ("how many units … in total"); else the cue itself
	// when it names a column ("the total of all invoices").
	var target *mention
	if m := b.mentionAfter(aggPos, 3, false); m != nil && (isNumericMention(m) || (fn == aggMin || fn == aggMax) && isYearMention(m)) {
		// The earliest or latest of a column of years is a value too.
		target = m
	}
	if target == nil {
		own := b.mentionAt(aggPos)
		bestDist := 1 << 30
		for _, m := range a.ments {
			if m == own || b.role[m] != "" || !isNumericMention(m) {
				continue
			}
			d := m.start - aggPos
			if d < 0 {
				d = aggPos - m.end + 1
			}
			if d < bestDist {
				target, bestDist = m, d
			}
		}
		if target == nil && own != nil && isNumericMention(own) {
			target = own
		}
	}
	if target != nil {
		// "how many units … in total", "average number of units": the
		// count words name the number right after them.
		if cp := b.first(cueCount); cp >= 0 {
			last := cp
			for last+1 < len(a.cues) && a.cues[last+1] == cueCount {
				last++
			}
			if m := b.mentionAfter(last, 1, false); m == target {
				for k := cp; k <= last; k++ {
					b.explained[k] = true
				}
			}
		}
	}
	if target == nil {
		if col, w := b.defaultMoney(); col != nil {
			// "the average economy fare": the one money column of the
			// tables the question names.
			b.explained[w] = true
			for _, m := range a.ments {
				if !m.value && hasTable(m) && b.role[m] == "" {
					if steps, ok := b.ix.s.path(col.tab, tableOf(m.cands[0])); ok && allForward(steps) {
						b.use(m, "context") // "ticket price": whose price
					}
				}
			}
			p := b.p
			p.base, p.agg, p.aggCol = col.tab, fn, col
			p.subject = words(col)
			p.shape = "aggregate"
			p.note = "(\"" + a.toks[w].raw + "\" read as " + col.String() + ", the only money column of the tables named.)"
			b.useCol(col)
			return b.groups(groupMs)
		}
	}
	if target == nil && len(groupMs) > 0 && (fn == aggAvg || fn == aggMax || fn == aggMin) {
		// "Average number of books per author": count per group, then
		// average the counts.
		if m := b.mentionAfter(aggPos, 4, false); m != nil && hasTable(m) {
			c := b.chooseBase(m, func(c *cand) bool { return c.c == nil })
			if c != nil {
				for i, cu := range a.cues {
					if cu == cueCount {
						b.explained[i] = true
					}
				}
				b.use(m, "measure")
				p := b.p
				p.base, p.agg, p.outer = c.t, aggCount, fn
				p.subject = strings.Join(c.t.raw, " ")
				p.shape = "aggregate"
				if why := b.groups(groupMs); why != "" {
					return why
				}
				if len(p.groups) != 1 {
					return "I could not tell what to average over."
				}
				return ""
			}
		}
	}
	if target == nil {
		return "I could not tell which number to compute the " + fn.word() + " of."
	}
	c := b.chooseBase(target, func(c *cand) bool {
		return c.c != nil && (c.c.kind == kindNumber || c.c.intYear && (fn == aggMin || fn == aggMax))
	})
	if c == nil {
		return "I could not tell which number to compute the " + fn.word() + " of."
	}
	// "the average cost of a visit" when a visit has a base cost and a
	// total claim cost, named alike: ask which.
	for _, o := range target.cands {
		if o != c && o.c != nil && o.c.tab == c.c.tab && o.c.kind == kindNumber && o.score >= c.score-0.02 {
			w := b.span(target)
			b.options = []string{b.rephrase(target, words(c.c)), b.rephrase(target, words(o.c))}
			return fmt.Sprintf("%q could be %s or %s of %s; say which.", w, words(c.c), words(o.c), strings.Join(c.c.tab.raw, " "))
		}
	}
	b.use(target, "measure")
	b.measure = b.span(target)
	// "the average total claim cost": an aggregate word that is part of
	// the column's name.
	if k := target.start - 1; k > aggPos && a.cues[k] == cueAgg && slices.Contains(c.c.words, a.toks[k].stem) {
		b.explained[k] = true
	}
	p := b.p
	p.base, p.agg, p.aggCol = c.c.tab, fn, c.c
	p.subject = words(c.c)
	p.shape = "aggregate"
	b.useCol(c.c)
	// A second aggregate word naming the same thing ("total" in "average
	// invoice total") is part of the name.
	return b.groups(groupMs)
}

// defaultMoney: when the question names a price or an amount in words
// no column has ("fare", "price") and the tables its other words name
// hold exactly one money column (an amount, a price, a cost), that
// column and the word's position; else nil.
func (b *builder) defaultMoney() (*colInfo, int) {
	a := b.a
	word := -1
	for i, t := range a.toks {
		if a.at[i] >= 0 || a.cues[i] != cueNone && a.cues[i] != cueFiller {
			continue
		}
		if lexicon().conceptStems[conceptPrice][t.stem] || synonymous(t.stem, stem("price")) || synonymous(t.stem, stem("amount")) {
			word = i
			break
		}
	}
	if word < 0 {
		return nil, -1
	}
	tables := map[*tableInfo]bool{}
	for _, m := range a.ments {
		for _, c := range m.cands {
			tables[tableOf(c)] = true
			if e := c.entity(); e != nil {
				tables[e] = true
			}
		}
	}
	var found *colInfo
	for _, t := range b.ix.s.tables {
		if !tables[t] || t.view {
			continue
		}
		for _, c := range t.cols {
			if c.kind != kindNumber || c.fk != nil || c.isPK {
				continue
			}
			money := false
			for _, w := range c.words {
				if lexicon().conceptStems[conceptPrice][w] {
					money = true
				}
			}
			if !money {
				continue
			}
			if found != nil {
				return nil, -1
			}
			found = c
		}
	}
	return found, word
}

// groups resolves the group mentions and time buckets against the base.
func (b *builder) groups(groupMs []*mention) string {
	p := b.p
	for _, m := range groupMs {
		// Group by things and labels; a raw date or number only when
		// named exactly ("per rating"), never by a near miss.
		c := b.pickFor(p.base, m, func(c *cand) bool {
			t := tableOf(c)
			if e := c.entity(); e != nil {
				t = e
			}
			if c.c != nil && c.c.fk == nil && (c.c.kind == kindDate || c.c.kind == kindNumber) && c.score < 1.15 {
				return false
			}
			_, ok := b.reachesCurrent(p.base, t)
			return ok
		})
		if c == nil && p.agg == aggCount && p.aggCol == nil {
			// "How many members are in each group": count the rows of
			// the link table between them.
			for _, gc := range m.cands {
				if e := gc.entity(); e != nil {
					if j := b.ix.s.junctionBetween(p.base, e); j != nil {
						p.base = j
						c = gc
						break
					}
				}
			}
		}
		if c == nil {
			what := b.measure
			if what == "" {
				what = strings.Join(p.base.raw, " ")
			}
			return fmt.Sprintf("I could not connect %q to %q (in %s): no chain of foreign keys joins them.", b.span(m), what, p.base.name)
		}
		b.use(m, "group")
		e := c.entity()
		switch {
		case e == p.base:
			// "average shipping cost per order": per row of the base is
			// no grouping at all.
		case e != nil:
			p.groups = append(p.groups, group{entity: e})
			b.tabs = append(b.tabs, e)
			if c.c != nil {
				b.useCol(c.c)
			}
		default:
			p.groups = append(p.groups, group{col: c.c})
			b.useCol(c.c)
		}
	}
	for _, bc := range b.a.buckets {
		dc := b.dateColumn(bc.pos)
		if dc == nil {
			return "I could not find a date to group " + strings.Join(p.base.raw, " ") + " by " + unitAlias(bc.unit) + "."
		}
		p.groups = append(p.groups, group{col: dc, unit: bc.unit})
		b.useCol(dc)
	}
	if len(p.groups) > 0 {
		if p.shape != "distinct" {
			p.shape = "group"
		}
		hasBucket := false
		for _, g := range p.groups {
			if g.unit != unitNone {
				hasBucket = true
			}
		}
		if hasBucket {
			p.shape = "time"
			p.order = orderKey{set: true, bucket: true}
		} else if !p.order.set {
			p.order = orderKey{set: true, measure: true, desc: true}
		}
		if p.agg == aggNone {
			p.agg = aggCount
		}
	}
	return ""
}

// dateColumn chooses the date a time word refers to: a date column named
// before pos, else the main date of the nearest table named before it,
// else the base's main date.
func (b *builder) dateColumn(pos int) *colInfo {
	p := b.p
	reach := func(t *tableInfo) bool {
		// A date of rows that only share a parent with the base (a
		// teacher's hire year for a pupil) does not place the base's
		// rows in time.
		steps, ok := b.ix.s.path(p.base, t)
		return ok && !sideways(steps)
	}
	var best *colInfo
	bestDist := 1 << 30
	named := false // best is a date column the question names
	for _, m := range b.a.ments {
		if m.value {
			continue
		}
		d := pos - m.end
		if d < 0 {
			d = -d + 3 // after the year: weaker
		}
		for _, c := range m.cands {
			if c.score < m.cands[0].score-0.05 {
				// A weaker reading of a word that names something else
				// ("admissions" the table, not an admission year).
				break
			}
			var dc *colInfo
			dd := d
			switch {
			case c.c != nil && c.c.kind == kindDate:
				// A date column named ("hired in 2020"): nearer than any
				// table's main date, and the mention's best reading
				// first.
				dc = c.c
				dd -= 2
			case c.c == nil && c.t.mainDate != nil:
				dc = c.t.mainDate
			}
			// At equal distance, the base's own date ("vouchers were
			// created": voucher.created, not a payment's).
			if dc != nil && reach(dc.tab) && (dd < bestDist || dd == bestDist && dc.tab == p.base && best.tab != p.base) {
				best, bestDist, named = dc, dd, c.c != nil
				if b.role[m] == "" {
					b.role[m] = "date"
					m.used = true
				}
			}
		}
	}
	if !named && (best == nil || best.tab == p.base) {
		// "closed in 2024": a verb of the question that names one of
		// the base's dates (closed_on) places its rows in time, even
		// when the word was read as a value or as part of another
		// column's name.
		if vc := b.verbDate(p.base); vc != nil {
			return vc
		}
	}
	if best != nil {
		return best
	}
	if p.aggCol != nil && p.aggCol.tab == p.base && isDuration(p.aggCol) {
		// "leave days per year": a length of the rows' periods falls
		// where the periods start, not where they were recorded.
		if st := p.base.periodStart(); st != nil {
			return st
		}
	}
	if p.base.mainDate != nil {
		return p.base.mainDate
	}
	// A table the base reaches many-to-one ("customers" → their orders?
	// no: only parents, whose dates describe the base's rows).
	return nil
}

// verbDate returns the one date column of t whose name, without its
// generic date word, is a word of the question (closed_on for
// "closed"), or nil when none or several are.
func (b *builder) verbDate(t *tableInfo) *colInfo {
	var found *colInfo
	for _, c := range t.cols {
		if c.kind != kindDate {
			continue
		}
		var dw []string
		for _, r := range c.raw {
			switch r {
			case "date", "at", "on", "time", "timestamp", "dt", "day", "ts":
				continue
			}
			dw = append(dw, stem(r))
		}
		if len(dw) == 0 || sameWords(dw, t.words) {
			continue
		}
		all := true
		for _, w := range dw {
			hit := false
			for _, tk := range b.a.toks {
				if tk.stem == w {
					hit = true
					break
				}
			}
			all = all && hit
		}
		if all {
			if found != nil {
				return nil
			}
			found = c
		}
	}
	return found
}

// pluralColumnOf returns the reading of the plural column mention ent
// whose values a listing "which <column> … <table>" asks for, given the
// table named after it: a text column of that table among the best
// readings, or the column's own table when the table word is a weak,
// related reading (below an exact name) that ent's column does not
// belong to. Nil when neither holds.
func pluralColumnOf(ent *mention, tab *cand) *cand {
	top := ent.cands[0].score
	listable := func(c *cand) bool {
		return c.c != nil && !c.c.unique && !isLabelCol(c.c) && c.c.kind == kindText
	}
	for _, c := range ent.cands {
		if c.score < top-0.001 {
			break
		}
		if listable(c) && c.c.tab == tab.t {
			return c
		}
	}
	if c := ent.cands[0]; listable(c) && tab.score < 1 && (len(ent.cands) == 1 || ent.cands[1].score < top-0.001) {
		return c
	}
	return nil
}

func (b *builder) list(listPos int, distinct bool) string {
	a := b.a
	p := b.p
	var entity *mention
	if listPos >= 0 {
		b.explained[listPos] = true
		entity = b.mentionAfter(listPos, 5, false)
	} else if len(a.ments) > 0 && !a.ments[0].value && a.ments[0].start <= 3 {
		// "What room classes are there?": the first thing named.
		entity = b.mentionAfter(-1, 3, false)
	}
	// Prefer a table mention: "show the names of all westerns books"; a
	// column named with its table ("product names") lists that table.
	var cols []*mention
	var colTable *tableInfo
	// "List the hometowns our members come from", "the time zones our
	// offices are in": a plural column named before its table, not the
	// table's label, asks for the column's distinct values.
	if entity != nil && !hasTable(entity) && isPlural(a.toks[entity.end-1]) && len(entity.cands) > 0 {
		for _, m := range a.ments {
			if m.start < entity.end || m.value || !hasTable(m) || m.cands[0].c != nil {
				continue
			}
			if c := pluralColumnOf(entity, m.cands[0]); c != nil {
				// Every name of that table ("our hospitals and
				// clinics"); a column several tables have is the named
				// table's ("which currencies are our shops in"), and a
				// table read only through a related word ("books" for
				// reservations) does not take the column from its own.
				b.use(m, "entity")
				distinct = true
				entity.cands = []*cand{c}
			}
		}
	}
	if entity != nil && !hasTable(entity) {
		cols = append(cols, entity)
		if q := qualifiedTable(a, entity); q != nil {
			colTable = q
		}
		entity = nil
	}
	// "List the technique leaders in the research department": a value
	// named in the plural right after the listing word is what is
	// listed — the rows that hold it — whatever table is named later.
	var holder *tableInfo
	who := listPos >= 0 && (a.low(listPos) == "who" || a.low(listPos) == "whom")
	if entity == nil && colTable == nil && len(cols) == 0 && listPos >= 0 {
		if v := b.valueAfter(listPos); v != nil {
			// The reading whose table reaches the rest of the question
			// best ("who withdrew from a course in the spring": a
			// course's grade, not a student's status).
			if c := b.chooseBase(v, nil); c != nil {
				holder = holderOf(c.c, who)
			}
		}
	}
	if entity == nil && colTable == nil && holder == nil {
		for _, m := range a.ments {
			if !m.value && !m.absorbed && b.role[m] == "" && hasTable(m) {
				entity = m
				break
			}
		}
	}
	if entity == nil && colTable == nil && len(cols) == 0 {
		// "Who are the sales support agents": the rows that hold the
		// value named.
		for _, m := range a.ments {
			if m.value && !m.absorbed && len(m.cands) > 0 {
				if c := b.chooseBase(m, nil); c != nil {
					holder = holderOf(c.c, who)
				}
				break
			}
		}
	}
	if holder != nil && holder != colTable {
		show := holder.label
		if who && !isPersonTable(holder) {
			// "Who withdrew from the course in the fall": the row that
			// holds the value is the base (every condition is on one
			// row), shown as the person it is about.
			show = holder.shownAs()
		}
		if holder.view || len(show) == 0 {
			return "I could not tell what to list."
		}
		p.base = holder
		p.subject = strings.Join(holder.raw, " ")
		p.shape = "list"
		p.show = append([]*colInfo(nil), show...)
		return b.sortBy()
	}
	if colTable != nil {
		p.base = colTable
		p.subject = strings.Join(colTable.raw, " ")
		p.shape = "list"
		for _, cm := range cols {
			c := b.pickFor(colTable, cm, func(c *cand) bool { return c.c != nil && c.c.tab == colTable })
			if c == nil {
				return "I could not tell what to list."
			}
			b.use(cm, "show")
			p.show = append(p.show, c.c)
			b.useCol(c.c)
		}
		if len(p.show) == 0 {
			p.show = append(p.show, colTable.label...)
		}
		p.distinct = distinct
		return ""
	}
	if entity == nil && len(cols) > 0 {
		// "What cities do we ship to": distinct values of a column.
		c := b.chooseBase(cols[0], nil)
		if c == nil || c.c == nil {
			return "I could not tell what to list."
		}
		b.use(cols[0], "show")
		p.base = c.c.tab
		p.show = []*colInfo{c.c}
		p.distinct = true
		p.subject = words(c.c)
		p.shape = "list"
		b.useCol(c.c)
		return ""
	}
	if entity == nil {
		return "I could not tell what to count or list."
	}
	ec := b.chooseBase(entity, func(c *cand) bool { return c.c == nil || c.c.fk != nil })
	if ec == nil {
		return "I could not tell what to list."
	}
	b.use(entity, "entity")
	t := ec.t
	if e := ec.entity(); e != nil {
		t = e
	}
	p.base = t
	p.subject = strings.Join(t.raw, " ")
	p.shape = "list"
	for _, cm := range cols {
		c := b.pickFor(t, cm, b.forwardColumn(t))
		if c == nil {
			return couldNotConnect(b.span(cm), p.subjectName(), "")
		}
		b.use(cm, "show")
		if strings.EqualFold(c.c.name, "name") && c.c.tab == t {
			continue // the label covers it
		}
		p.show = append(p.show, c.c)
		b.useCol(c.c)
	}
	label := t.label
	if listPos >= 0 && (a.low(listPos) == "who" || a.low(listPos) == "whom") {
		// "Who is the current manager": the person a row is about.
		label = t.shownAs()
	}
	p.show = append(append([]*colInfo(nil), label...), p.show...)
	if distinct || len(cols) == 0 && t.valueColumn() != nil {
		p.distinct = true
	}
	if len(p.show) == 0 {
		// A table named after one of its text columns (titles.title):
		// listing the table lists that column's values.
		for _, c := range t.cols {
			if c.kind == kindText && sameWords(c.words, t.words) {
				p.show, p.distinct = []*colInfo{c}, true
				b.useCol(c)
				break
			}
		}
		if len(p.show) == 0 {
			return "I could not tell which column of " + p.subjectName() + " to list."
		}
	}
	return b.sortBy()
}

// valueAfter returns the value mention that starts right after token pos
// (only fillers between) when its last word is in the plural: "list the
// technique leaders".
func (b *builder) valueAfter(pos int) *mention {
	a := b.a
	for _, m := range a.ments {
		if m.start <= pos {
			continue
		}
		for k := pos + 1; k < m.start; k++ {
			if a.cues[k] != cueFiller {
				return nil
			}
		}
		if !m.value || !m.strong || m.absorbed || len(m.cands) == 0 || !isPlural(a.toks[m.end-1]) {
			return nil
		}
		for _, v := range m.cands[0].vals {
			if strings.EqualFold(v.text, b.span(m)) {
				return nil // the value itself is plural: a name, not a kind
			}
		}
		return m
	}
	return nil
}

// holderOf is the table whose rows hold a value of column c: c's own
// table, or, when that table only records values of its parent's rows
// (a title history), the parent named by its one foreign key.
func holderOf(c *colInfo, who bool) *tableInfo {
	t := c.tab
	if who && !isPersonTable(t) && len(t.shownAs()) > 0 {
		// "Who withdrew": the rows of the value's table, shown as the
		// person each is about.
		return t
	}
	if t.valueColumn() != c {
		return t
	}
	var parent *tableInfo
	for _, e := range t.out {
		if len(e.to.label) == 0 {
			continue
		}
		if parent != nil && parent != e.to {
			return t
		}
		parent = e.to
	}
	if parent == nil {
		return t
	}
	return parent
}

// sortBy applies "sorted by X" to a listing.
func (b *builder) sortBy() string {
	a, p := b.a, b.p
	if a.sortPos == 0 {
		return ""
	}
	m := b.mentionAfter(a.sortPos, 2, false)
	if m == nil {
		return "I could not tell what to sort by."
	}
	c := b.pickFor(p.base, m, b.forwardColumn(p.base))
	if c == nil {
		return couldNotConnect(b.span(m), p.subjectName(), " to sort by it")
	}
	b.use(m, "sort")
	b.useCol(c.c)
	desc := false
	for i, t := range a.toks {
		if t.low == "descending" || t.low == "desc" || t.low == "reverse" {
			desc = true
			b.explained[i] = true
		}
	}
	for i, cu := range a.cues {
		if cu == cueSort {
			b.explained[i] = true
		}
	}
	if !slices.Contains(p.show, c.c) {
		p.show = append(p.show, c.c)
	}
	p.order = orderKey{set: true, col: c.c, desc: desc, sort: true}
	return ""
}

// qualifiedTable: the table a column mention names along with the column
// ("product names" → products), when one reading stands out.
func qualifiedTable(a *analysis, m *mention) *tableInfo {
	if len(m.cands) == 0 || m.cands[0].c == nil {
		return nil
	}
	top := m.cands[0]
	if len(m.cands) > 1 && m.cands[1].score >= top.score-0.05 && m.cands[1].c != nil && m.cands[1].c.tab != top.c.tab {
		return nil
	}
	for k := m.start; k < m.end; k++ {
		for _, w := range top.c.tab.words {
			if wordMatch(a.toks[k].stem, w) >= 0.85 && !slices.Contains(top.c.words, a.toks[k].stem) {
				return top.c.tab
			}
		}
	}
	return nil
}
