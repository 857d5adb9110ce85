package offline

import (
	"slices"

	"github.com/tablewise/tablewise/core/text"

	"fmt"
	"math"
	"sort"
	"strings"
)

// filters turns value mentions, dates, comparisons, flags and existence
// words into WHERE terms on the chosen base.
func (b *builder) filters() string {
	a := b.a
	p := b.p
	if p.base == nil {
		return "I could not tell what the question is about."
	}
	if why := b.antiJoins(); why != "" {
		return why
	}
	// Value mentions: pick the column reading closest to the base.
	byCol := map[*colInfo]*filter{}
	prevMent := map[*colInfo]*mention{}
	for _, m := range a.ments {
		if !m.value || m.used {
			continue
		}
		neg := m.start > 0 && a.cues[m.start-1] == cueNeg || m.start > 1 && a.cues[m.start-2] == cueNeg && a.cues[m.start-1] == cueFiller
		c, why := b.pickValue(m)
		if why != "" {
			return why
		}
		if c == nil {
			return couldNotConnect(b.span(m), p.subjectName(), "")
		}
		if f := b.flagNamed(m, c); f != nil {
			// "shops that are no longer open" with a yes/no column of
			// shops named so and a status 'open' elsewhere: two
			// readings, neither clearly better.
			v := c.vals[0].text
			return fmt.Sprintf("%q could be the yes/no column %s or the value %q of %s: say which (for example \"with %s %s\").",
				b.span(m), f, v, c.c, words(c.c), v)
		}
		if d := a.directionOf(m); d != dirNone && !neg {
			f, handled, why := b.directedFilter(m, c, d)
			if why != "" {
				return why
			}
			if handled {
				b.use(m, "filter")
				b.useCol(f.col)
				p.filters = append(p.filters, *f)
				continue
			}
		}
		b.use(m, "filter")
		b.useCol(c.c)
		var vals []any
		for _, v := range c.vals {
			vals = append(vals, v.value)
		}
		if f := byCol[c.c]; f != nil && !neg {
			// Two values of one column are alternatives only when a
			// conjunction joins them ("Zembla or Lilliput"): "from Zembla to
			// Lilliput" relates them.
			if !joinedByConjunction(a, prevMent[c.c], m) {
				return "I could not tell how " + b.span(prevMent[c.c]) + " and " + b.span(m) + " relate: both are values of " + words(c.c) + "."
			}
			f.vals = append(f.vals, vals...)
			f.op = "IN"
			f.desc += " or " + valueText(vals)
			continue
		}
		prevMent[c.c] = m
		f := &filter{col: c.c, op: "=", vals: vals, desc: colPhrase(c.c, p.base) + " is " + valueText(vals)}
		if len(vals) > 1 {
			f.op = "IN"
		}
		if neg && !m.strong || neg && len(m.cands) > 0 && m.end-m.start == 1 && !a.toks[m.start].upper && a.toks[m.start].quote == 0 {
			return "I can't read \"not " + b.span(m) + "\" reliably: " + b.span(m) + " may be a state or an action."
		}
		if neg {
			f.op = "<>"
			f.desc = colPhrase(c.c, p.base) + " is not " + valueText(vals)
			for k := m.start - 2; k < m.start; k++ {
				if k >= 0 && a.cues[k] == cueNeg {
					b.explained[k] = true
				}
			}
		}
		byCol[c.c] = f
		p.filters = append(p.filters, *f)
	}
	// Re-read the IN merges into p.filters.
	for i := range p.filters {
		if f := byCol[p.filters[i].col]; f != nil {
			p.filters[i] = *f
		}
	}
	// Dates.
	for _, df := range a.dates {
		dc := b.dateColumn(df.pos)
		if dc == nil {
			return "I could not find a date in " + p.subject + " to filter by " + df.desc + "."
		}
		df, ok := resolveYear(df, dc)
		if !ok {
			return "I could not tell which year " + df.desc + " means: say the year (for example \"" + df.desc + " 2024\")."
		}
		b.useCol(dc)
		for k := df.pos - 2; k <= df.pos+2; k++ {
			if k >= 0 && k < len(a.toks) && (a.cues[k] == cueDate) {
				b.explained[k] = true
			}
		}
		p.filters = append(p.filters, dateRangeFilter(dc, df))
	}
	// Comparisons with numbers.
	for _, nf := range a.nums {
		if f, ok := b.countFilter(nf); ok {
			if f == nil {
				what := "the things counted"
				for k := nf.unitPos; k <= nf.unitPos+1; k++ {
					if m := b.mentionAt(k); m != nil {
						what = b.span(m)
						break
					}
				}
				return couldNotConnect(what, p.subjectName(), " to count them")
			}
			p.filters = append(p.filters, *f)
			continue
		}
		col := b.numberColumn(nf)
		if col == nil {
			return "I could not tell which number " + a.toks[nf.pos].low + " " + fmtNum(nf.value) + " compares."
		}
		factor, why := unitFactor(a, nf.unitPos, col)
		if why != "" {
			return why
		}
		if factor != 1 {
			b.explained[nf.unitPos] = true
			if m := b.mentionAt(nf.unitPos); m != nil {
				b.use(m, "unit")
			}
		}
		b.useCol(col)
		b.explained[nf.pos] = true
		desc := words(col) + " " + string(nf.op) + " " + fmtNum(nf.value)
		if factor != 1 {
			desc = words(col) + " " + string(nf.op) + " " + fmtNum(nf.value) + " " + a.toks[nf.unitPos].low
		}
		p.filters = append(p.filters, filter{col: col, op: string(nf.op), vals: []any{numLiteral(nf.value * factor)}, desc: desc})
	}
	for i, c := range a.cues {
		if c == cueNumber || (c == cueCmp) {
			b.explained[i] = true
		}
	}
	// "ratings that gave 5 stars", "a score of 4": a number next to a
	// numeric column is an equality.
	for i, t := range a.toks {
		if !t.isNum || a.cues[i] != cueNone || b.explained[i] {
			continue
		}
		var m *mention
		if nm := b.mentionAt(i + 1); nm != nil && isNumericMention(nm) && !nm.used {
			m = nm
		} else if i >= 2 && (a.low(i-1) == "of" || a.low(i-1) == "is" || a.low(i-1) == "equal" || a.low(i-1) == "=") {
			if pm := b.mentionAt(i - 2); pm != nil && isNumericMention(pm) && !pm.used {
				m = pm
			}
		} else if pm := b.mentionAt(i - 1); pm != nil && isNumericMention(pm) && !pm.used {
			// "tracks cost 1.99"
			m = pm
		}
		if m == nil {
			continue
		}
		c := b.pickFor(p.base, m, b.forwardNumber(p.base))
		if c == nil {
			continue
		}
		if _, why := unitFactor(a, i+1, c.c); why != "" && m.start == i+1 && !slices.Contains(c.c.words, a.toks[i+1].stem) {
			return why
		}
		b.use(m, "filter")
		b.useCol(c.c)
		b.explained[i] = true
		p.filters = append(p.filters, filter{col: c.c, op: "=", vals: []any{numLiteral(t.num)}, desc: words(c.c) + " is " + fmtNum(t.num)})
	}
	// Leftover schema mentions: flags ("overdue"), "out of stock",
	// existence ("with a coupon"), or tables the filters pass through.
	for _, m := range a.ments {
		if m.used || m.value || m.absorbed {
			continue
		}
		if why := b.leftover(m); why != "" {
			return why
		}
	}
	return b.antiAlone()
}

// joinedByConjunction: nothing but "and", "or", "nor", "either" and
// symbols stands between mentions m1 and m2 ("Zembla, Lilliput or Narnia").
// flagNamed returns a yes/no column of the base, outside the value's own
// table, that the unquoted one-word value mention m names exactly, or
// nil.
func (b *builder) flagNamed(m *mention, c *cand) *colInfo {
	t := b.a.toks[m.start]
	if m.end-m.start != 1 || t.quote > 0 || c.c.tab == b.p.base {
		return nil
	}
	for _, fc := range b.p.base.cols {
		if fc.kind == kindBool && len(fc.words) == 1 && fc.words[0] == t.stem {
			return fc
		}
	}
	return nil
}

func joinedByConjunction(a *analysis, m1, m2 *mention) bool {
	if m1 == nil || m2 == nil {
		return true
	}
	lo, hi := m1.end, m2.start
	if m2.end <= m1.start {
		lo, hi = m2.end, m1.start
	}
	for k := lo; k < hi; k++ {
		switch t := a.toks[k]; {
		case t.sym, t.low == "and", t.low == "or", t.low == "nor", t.low == "either", t.low == "neither":
		default:
			return false
		}
	}
	return true
}

// pastParticiple: the word reads as a verb that happened ("died",
// "returned", "cancelled"), not a modifier ("shipping cost").
func pastParticiple(t token) bool {
	return strings.HasSuffix(t.low, "ed") || t.low != t.stem && text.Irregular(t.low)
}

// pickValue chooses the column a value filters: the cheapest to reach from
// the base. A value of the base's own label is an unlikely filter on the
// rows being counted or listed ("books by Dune" means the author,
// even if a book has that title).
func (b *builder) pickValue(m *mention) (*cand, string) {
	p := b.p
	type scored struct {
		c    *cand
		cost float64
	}
	var all []scored
	for _, c := range m.cands {
		steps, ok := b.ix.s.path(p.base, c.c.tab)
		if !ok {
			continue
		}
		cost := pathCost(steps) - 2*c.score
		if c.c.tab == p.base && slices.Contains(p.base.label, c.c) && len(p.base.label) > 0 && len(m.cands) > 1 {
			cost += 1.5
		}
		all = append(all, scored{c, cost})
	}
	if len(all) == 0 {
		return nil, ""
	}
	// "orders did customers in Zembla place": a table named just before
	// the value owns it; readings reached through that table win.
	if owner := b.valueOwner(m); owner != nil && owner != p.base {
		for _, sc := range all {
			if steps, ok := b.ix.s.path(owner, sc.c.c.tab); ok && strictlyForward(steps) {
				sc.c.boosted = true
				b.tabs = append(b.tabs, owner)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		// A reading the question names ("the Westerns shelf") wins.
		if all[i].c.boosted != all[j].c.boosted {
			return all[i].c.boosted
		}
		return all[i].cost < all[j].cost
	})
	best := all[0].c
	// "Ada Lovelace" may be a pupil's name or a teacher's: the
	// names of people in two tables, with no word to decide, are asked
	// about, not guessed.
	if !best.boosted && isPersonName(best.c) {
		for _, o := range all[1:] {
			if o.c.boosted || o.c.c.tab == best.c.tab || !isPersonName(o.c.c) {
				continue
			}
			// The whole name: a first name and the last name after it.
			whole := &mention{start: m.start, end: m.end}
			for _, n := range b.a.ments {
				if n.value && n.start == whole.end {
					whole.end = n.end
				}
			}
			val := b.span(whole)
			one, other := text.Singular(strings.Join(best.c.tab.raw, " ")), text.Singular(strings.Join(o.c.c.tab.raw, " "))
			b.options = []string{b.rephrase(whole, one+" "+val), b.rephrase(whole, other+" "+val)}
			return nil, fmt.Sprintf("%q could be %s %s or %s %s; say which.", val, article(one), one, article(other), other)
		}
	}
	// "songs by Prince": the writer column of songs says Prince, and so
	// does the name of a band. When the nearer reading is a plain
	// attribute, another is the name of a thing the rows belong to, and no
	// word of the question decides, ask instead of guessing.
	if !best.boosted && !isLabelCol(best.c) {
		for _, o := range all[1:] {
			if o.c.c == best.c || !isLabelCol(o.c.c) || len(o.c.c.tab.in) == 0 || o.c.score < best.score+0.2 {
				continue
			}
			steps, _ := b.ix.s.path(p.base, o.c.c.tab)
			if !strictlyForward(steps) {
				continue
			}
			val := b.span(m)
			b.options = []string{
				b.rephrase(m, text.Singular(strings.Join(o.c.c.tab.raw, " "))+" "+val),
				b.rephrase(m, words(best.c)+" "+val),
			}
			return nil, fmt.Sprintf("%q could be the %s of a %s or a %s of %s; say which.", val,
				words(o.c.c), text.Singular(strings.Join(o.c.c.tab.raw, " ")), words(best.c), strings.Join(best.c.tab.raw, " "))
		}
	}
	return best, ""
}

// valueOwner: the table named right before a value ("customers in X"),
// with only function words between, or nil.
func (b *builder) valueOwner(m *mention) *tableInfo {
	a := b.a
	for j := len(a.ments) - 1; j >= 0; j-- {
		o := a.ments[j]
		if o.end > m.start || o.value {
			continue
		}
		for k := o.end; k < m.start; k++ {
			if !functionWords[a.toks[k].low] {
				return nil
			}
		}
		if m.start-o.end > 2 || len(o.cands) == 0 {
			return nil
		}
		if e := o.cands[0].entity(); e != nil {
			return e
		}
		return nil
	}
	return nil
}

// article is "a" or "an" for a noun.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}

// isPersonName: c names the people of a table of people (their name,
// or their first or last name).
func isPersonName(c *colInfo) bool {
	if c.kind != kindText || !slices.Contains(c.tab.label, c) {
		return false
	}
	return isPersonTable(c.tab)
}

func isLabelCol(c *colInfo) bool {
	return len(c.tab.label) == 1 && c.tab.label[0] == c
}

// rephrase rewrites the question with the words of mention m replaced.
func (b *builder) rephrase(m *mention, with string) string {
	t := b.a.toks
	from, to := t[m.start].pos, t[m.end-1].end
	text := b.a.text
	// Keep quotes around a quoted value out of the replacement.
	for from > 0 && (text[from-1] == '\'' || text[from-1] == '"') {
		from--
	}
	for to < len(text) && (text[to] == '\'' || text[to] == '"') {
		to++
	}
	return text[:from] + with + text[to:]
}

func valueText(vals []any) string {
	var parts []string
	for _, v := range vals {
		parts = append(parts, fmt.Sprint(v))
	}
	sort.Strings(parts)
	parts = dedupe(parts)
	return strings.Join(parts, " or ")
}

func dedupe(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// dateRangeFilter places rows in the range df of the date column dc, said
// after the rows: "orders shipped in 2023" of a column shipped_on or
// shipped_at, "orders with order date in 2023" of any other.
func dateRangeFilter(dc *colInfo, df dateFilter) filter {
	f := filter{col: dc, op: "RANGE", from: df.from, to: df.to, plain: true}
	w := words(dc)
	for _, prep := range []string{" on", " at"} {
		if verb, ok := strings.CutSuffix(w, prep); ok && verb != "" {
			f.desc = verb + " " + rangeWords(df)
			return f
		}
	}
	f.desc = "with " + w + " " + rangeWords(df)
	return f
}

func rangeWords(df dateFilter) string {
	if strings.HasPrefix(df.desc, "since") || strings.HasPrefix(df.desc, "after") || strings.HasPrefix(df.desc, "before") || strings.HasPrefix(df.desc, "between") ||
		strings.HasPrefix(df.desc, "on ") || strings.HasPrefix(df.desc, "in ") || strings.HasPrefix(df.desc, "the ") {
		return df.desc
	}
	return "in " + df.desc
}

// countFilter reads "customers with more than 5 orders": a comparison whose
// number counts rows of another table that points at the base. It
// reports ok when the number is followed by a table name; the filter is
// nil when that table cannot be counted per base row.
func (b *builder) countFilter(nf numFilter) (*filter, bool) {
	p := b.p
	at := nf.unitPos
	distinct := false
	if at < len(b.a.cues) && b.a.cues[at] == cueDistinct {
		// "more than 3 different providers"
		distinct = true
		at++
	}
	m := b.mentionAt(at)
	if m == nil || m.value || !hasTable(m) || isNumericMention(m) {
		return nil, false
	}
	if p.base.pk == nil {
		return nil, true
	}
	var best []joinStep
	var bestT *tableInfo
	counted := "COUNT(*)"
	for _, c := range m.cands {
		if c.c != nil || c.t == p.base || c.t.view {
			continue
		}
		steps, ok := b.ix.s.path(c.t, p.base)
		if ok && strictlyForward(steps) && (best == nil || len(steps) < len(best)) {
			best, bestT = steps, c.t
			counted = "COUNT(*)"
		}
	}
	if best == nil {
		// "employees who worked in more than one department", "clients
		// who saw more than 3 different providers": the rows of the one
		// table that points at both, per base row (the different ones
		// when asked).
		for _, c := range m.cands {
			if c.c != nil || c.t == p.base || c.t.view {
				continue
			}
			link := b.ix.s.junctionBetween(c.t, p.base)
			if link == nil {
				link = b.ix.s.linkBetween(c.t, p.base)
			}
			if link == nil {
				continue
			}
			toBase, toT := fkTo(link, p.base), fkTo(link, c.t)
			if toBase == nil || toT == nil {
				continue
			}
			best = []joinStep{{e: toBase.fk, forward: true}}
			bestT = c.t
			counted = "COUNT(*)"
			if distinct {
				counted = countDistinct(toT, quoteCol(toT, true))
			}
			break
		}
	}
	if best == nil {
		return nil, true
	}
	if distinct {
		b.explained[nf.unitPos] = true
	}
	b.use(m, "filter")
	b.explained[nf.pos] = true
	last := best[len(best)-1]
	from := bestT
	if len(best) == 1 && best[0].e.from != bestT {
		from = best[0].e.from // through the link table
	}
	var sb strings.Builder
	sb.WriteString("SELECT " + quoteCol(last.e.fromCol, true) + " FROM " + quoteTable(from))
	for _, st := range best[:len(best)-1] {
		sb.WriteString(" JOIN " + quoteTable(st.e.to) + " ON " + onClause(st.e, true))
	}
	// NULL keys must not reach NOT IN, which would then match nothing.
	key := quoteCol(last.e.fromCol, true)
	sb.WriteString(" WHERE " + key + " IS NOT NULL GROUP BY " + strings.Join(groupKeys(last.e.fromCol, key), ", "))
	op, in := string(nf.op), "IN"
	switch op {
	case "<":
		op, in = ">=", "NOT IN"
	case "<=":
		op, in = ">", "NOT IN"
	}
	sb.WriteString(" HAVING " + counted + " " + op + " " + fmtNum(nf.value))
	desc := "more than"
	switch nf.op {
	case ">=":
		desc = "at least"
	case "<":
		desc = "fewer than"
	case "<=":
		desc = "at most"
	}
	f := &filter{col: p.base.pk, op: "SQL", raw: quoteCol(p.base.pk, true) + " " + in + " (" + sb.String() + ")",
		desc: desc + " " + fmtNum(nf.value) + " " + text.Plural(strings.Join(bestT.raw, " ")), with: true}
	b.tabs = append(b.tabs, bestT)
	return f, true
}

// forwardColumn accepts a candidate that is a column reached from base by
// forward links only.
func (b *builder) forwardColumn(base *tableInfo) func(*cand) bool {
	return func(c *cand) bool {
		if c.c == nil {
			return false
		}
		steps, ok := b.ix.s.path(base, c.c.tab)
		return ok && allForward(steps)
	}
}

// forwardNumber accepts a candidate that is a number column reached from
// base by forward links only.
func (b *builder) forwardNumber(base *tableInfo) func(*cand) bool {
	forward := b.forwardColumn(base)
	return func(c *cand) bool { return c.c != nil && c.c.kind == kindNumber && forward(c) }
}

// numberColumn: the numeric column a comparison is about: a mention just
// before the comparison word ("priced over 100"), or a column named by the
// comparative itself ("cheaper than 10").
func (b *builder) numberColumn(nf numFilter) *colInfo {
	p := b.p
	var best *colInfo
	bestDist := 1 << 30
	for _, m := range b.a.ments {
		if m.value || !isNumericMention(m) {
			continue
		}
		d := nf.pos - m.end
		if d < 0 {
			d = m.start - nf.unitPos + 1
			if d < 0 {
				continue
			}
		}
		c := b.pickFor(p.base, m, b.forwardNumber(p.base))
		if c != nil && d < bestDist {
			best, bestDist = c.c, d
			b.use(m, "filter")
		}
	}
	if best != nil {
		return best
	}
	word := b.a.toks[nf.pos].low
	concepts := map[string]concept{"cheaper": conceptPrice, "pricier": conceptPrice, "older": conceptAge, "younger": conceptAge,
		"longer": conceptDuration, "shorter": conceptDuration, "bigger": conceptSize, "larger": conceptSize, "smaller": conceptSize,
		"heavier": conceptWeight, "lighter": conceptWeight}
	if c, ok := concepts[word]; ok {
		col := conceptColumn(p.base, superlative{c: c}, b)
		if col != nil && col.kind == kindNumber {
			return col
		}
	}
	return nil
}

func numLiteral(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return int64(v)
	}
	return v
}

// unitWords are units a number may come with.
var unitWords = map[string]bool{
	"second": true, "seconds": true, "sec": true, "secs": true, "minute": true, "minutes": true, "min": true, "mins": true,
	"hour": true, "hours": true, "hr": true, "hrs": true, "day": true, "days": true, "week": true, "weeks": true,
	"month": true, "months": true, "year": true, "years": true, "ms": true, "millisecond": true, "milliseconds": true,
	"byte": true, "bytes": true, "kb": true, "mb": true, "gb": true, "kilobytes": true, "megabytes": true, "gigabytes": true,
	"kg": true, "g": true, "grams": true, "gram": true, "pounds": true, "lbs": true, "lb": true, "km": true, "miles": true,
	"meters": true, "metres": true, "m": true, "cm": true, "percent": true, "%": true, "cents": true,
}

// durationUnits: seconds per unit, keyed by stem.
var durationUnits = func() map[string]float64 {
	m := map[string]float64{}
	for w, f := range map[string]float64{"millisecond": 0.001, "ms": 0.001, "second": 1, "sec": 1, "minute": 60, "min": 60,
		"hour": 3600, "hr": 3600, "day": 86400} {
		m[stem(w)] = f
	}
	return m
}()

// durationOf: the time unit a column is kept in, from its name or comment
// ("Milliseconds", "duration_sec", "length in minutes").
func durationOf(c *colInfo) (float64, bool) {
	for _, ws := range [][]string{c.words, c.comment} {
		for _, w := range ws {
			if f, ok := durationUnits[w]; ok {
				return f, true
			}
		}
	}
	return 0, false
}

// unitFactor: what a number written in the unit at pos must be multiplied
// by to compare with col ("5 minutes" against milliseconds: 60,000). A unit
// the planner cannot convert is refused: comparing the wrong quantity
// would be a wrong answer.
func unitFactor(a *analysis, pos int, col *colInfo) (float64, string) {
	if pos < 0 || pos >= len(a.toks) || !unitWords[a.toks[pos].low] {
		return 1, ""
	}
	u := a.toks[pos].stem
	if namesUnit(col, u) {
		return 1, ""
	}
	if want, ok := durationUnits[u]; ok {
		if have, ok := durationOf(col); ok {
			return want / have, ""
		}
	}
	return 0, "the number is in " + a.toks[pos].low + " but " + words(col) + " is not, and the planner only converts units of time."
}

// namesUnit: col's name or comment says it is in unit u (a stem), also
// as an abbreviation ("hrs" for hours).
func namesUnit(col *colInfo, u string) bool {
	for _, ws := range [][]string{col.words, col.comment} {
		for _, w := range ws {
			if w == u || abbreviates(w, u) {
				return true
			}
		}
	}
	return false
}

// measureUnit handles "in seconds" after a measured column: a time unit
// is converted, any other unit the column is not in is refused.
func (b *builder) measureUnit() string {
	p := b.p
	if p.aggCol == nil || p.agg == aggCount {
		return ""
	}
	a := b.a
	for i, t := range a.toks {
		if !unitWords[t.low] || b.explained[i] || a.cues[i] == cueBucket || a.cues[i] == cueNumber {
			continue
		}
		if i > 0 && a.toks[i-1].isNum {
			continue // a comparison's number, handled with the filter
		}
		if namesUnit(p.aggCol, t.stem) {
			continue
		}
		want, ok1 := durationUnits[t.stem]
		have, ok2 := durationOf(p.aggCol)
		if !ok1 || !ok2 {
			return "the question asks for " + t.low + " but " + words(p.aggCol) + " is not in " + t.low + ", and the planner only converts units of time."
		}
		p.scale = have / want
		p.unit = t.low
		b.explained[i] = true
		if m := b.mentionAt(i); m != nil {
			b.use(m, "unit")
		}
	}
	return ""
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return itoa(int(v))
	}
	return fmt.Sprintf("%g", v)
}

// leftover gives a meaning to a schema mention no shape used, or refuses.
func (b *builder) leftover(m *mention) string {
	a := b.a
	p := b.p
	// Words already read as cues ("total" the sum, not the column).
	allCue := true
	for k := m.start; k < m.end; k++ {
		if !b.explained[k] {
			allCue = false
		}
	}
	if allCue {
		b.use(m, "cue")
		return ""
	}
	// A flag column used as an adjective: "overdue loans".
	for _, c := range m.cands {
		if c.c == nil || c.c.kind != kindBool {
			continue
		}
		if _, ok := b.ix.s.path(p.base, c.c.tab); !ok {
			continue
		}
		val := c.c.trueVal
		neg := m.start > 0 && a.cues[m.start-1] == cueNeg
		if neg {
			val = c.c.falseVal
			b.explained[m.start-1] = true
		}
		b.use(m, "filter")
		b.useCol(c.c)
		desc := words(c.c)
		if neg {
			desc = "not " + desc
		}
		p.filters = append(p.filters, filter{col: c.c, op: "=", vals: []any{val}, desc: desc})
		return ""
	}
	// A nullable date used as a verb: "members who have died" (the
	// date is set), "rentals not returned yet" (it is NULL).
	for _, c := range m.cands {
		if c.c == nil || c.c.kind != kindDate || c.c.nulls == 0 || c.c.notNull || len(a.dates) > 0 || !pastParticiple(a.toks[m.end-1]) {
			continue
		}
		if _, ok := b.ix.s.path(p.base, c.c.tab); !ok {
			continue
		}
		neg := -1
		for k := m.start - 1; k >= 0 && k >= m.start-3; k-- {
			if a.cues[k] == cueNeg {
				neg = k
				break
			}
			if a.cues[k] != cueFiller {
				break
			}
		}
		op, desc := "IS NOT NULL", "with a "+words(c.c)
		if neg >= 0 {
			op, desc = "IS NULL", "without a "+words(c.c)
			b.explained[neg] = true
		}
		b.use(m, "filter")
		b.useCol(c.c)
		p.filters = append(p.filters, filter{col: c.c, op: op, desc: desc, with: true})
		return ""
	}
	// "out of stock": the number is zero.
	if m.start >= 2 && a.low(m.start-2) == "out" && a.low(m.start-1) == "of" {
		c := b.pickFor(p.base, m, func(c *cand) bool { return c.c != nil && c.c.kind == kindNumber })
		if c != nil {
			b.use(m, "filter")
			b.useCol(c.c)
			p.filters = append(p.filters, filter{col: c.c, op: "=", vals: []any{int64(0)}, desc: "no " + words(c.c), with: true})
			return ""
		}
	}
	// Existence: "loans with a fine", "members without a phone".
	if k := m.start - 1; k >= 0 && (a.cues[k] == cueFiller && k >= 1 && a.cues[k-1] == cueExists || a.cues[k] == cueExists) {
		ek := k
		if a.cues[k] != cueExists {
			ek = k - 1
		}
		without := a.low(ek) == "without" || a.low(ek+1) == "no"
		c := b.pickFor(p.base, m, func(c *cand) bool {
			if c.c != nil {
				return c.c.tab == p.base && (!c.c.notNull || c.c.kind == kindNumber)
			}
			return fkTo(p.base, c.t) != nil
		})
		if c != nil {
			col := c.c
			if col == nil {
				col = fkTo(p.base, c.t)
			}
			op, desc := "IS NOT NULL", "with a "+words(col)
			if without {
				op, desc = "IS NULL", "without a "+words(col)
			}
			for k := ek; k < m.start; k++ {
				b.explained[k] = true
			}
			b.use(m, "filter")
			b.useCol(col)
			if col.notNull && col.kind == kindNumber {
				// "order lines with a discount": a number that is set is
				// one that is not zero.
				op, desc = ">", "with a "+words(col)
				if without {
					op, desc = "=", "without a "+words(col)
				}
				p.filters = append(p.filters, filter{col: col, op: op, vals: []any{int64(0)}, desc: desc, with: true})
				return ""
			}
			p.filters = append(p.filters, filter{col: col, op: op, desc: desc, with: true})
			return ""
		}
	}
	// "list the employees and their roles": a column of the rows listed
	// is shown.
	if p.agg == aggNone && len(p.groups) == 0 && p.shape == "list" {
		for _, c := range m.cands {
			if c.c != nil && c.c.tab == p.base && c.c.kind != kindBlob {
				b.use(m, "show")
				b.useCol(c.c)
				if !slices.Contains(p.show, c.c) {
					p.show = append(p.show, c.c)
				}
				return ""
			}
		}
	}
	// "the name of the most expensive product": a column the answer shows.
	for _, c := range m.cands {
		if c.c != nil && (slices.Contains(p.show, c.c) || slices.Contains(p.base.label, c.c) && p.agg == aggNone) {
			b.use(m, "context")
			return ""
		}
	}
	// A table the plan already joins or passes through, or that a filter
	// reaches through it ("books whose publisher is in Zembla").
	for _, c := range m.cands {
		t := c.t
		if c.c != nil {
			continue
		}
		if t == p.base || b.planTouches(t) {
			b.use(m, "context")
			return ""
		}
	}
	// A word that only names part of a column or table the plan uses
	// ("loaned" of loan date).
	if b.supports(m.start, m.end) {
		b.use(m, "context")
		return ""
	}
	return unmapped([]string{b.span(m)})
}

// planTouches: the plan joins t, or a filter's path from the base passes
// through t.
func (b *builder) planTouches(t *tableInfo) bool {
	p := b.p
	targets := []*tableInfo{}
	for _, f := range p.filters {
		targets = append(targets, f.col.tab)
	}
	for _, g := range p.groups {
		if g.entity != nil {
			targets = append(targets, g.entity)
		} else {
			targets = append(targets, g.col.tab)
		}
	}
	for _, c := range p.show {
		targets = append(targets, c.tab)
	}
	if p.aggCol != nil {
		targets = append(targets, p.aggCol.tab)
	}
	targets = append(targets, b.tabs...)
	for _, tt := range targets {
		if tt == t {
			return true
		}
		steps, ok := b.ix.s.path(p.base, tt)
		if !ok {
			continue
		}
		for _, st := range steps {
			if st.dst() == t {
				return true
			}
		}
	}
	return false
}
