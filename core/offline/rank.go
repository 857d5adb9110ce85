package offline

import (
	"slices"
	"sort"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

// superIsAgg: "the highest fine" (an aggregate of a column) rather than
// "the loans with the highest fine" (a ranking of rows). A superlative
// directly before a numeric column, with no entity named before it and no
// N, is an aggregate.
func (b *builder) superIsAgg(i int) bool {
	a := b.a
	if a.topN > 0 {
		return false
	}
	if a.supAt[i].c != conceptAny && a.supAt[i].c != conceptSize {
		return false
	}
	m := b.mentionAfter(i, 2, false)
	if m == nil || !isNumericMention(m) && !(a.supAt[i].c == conceptAny && isYearMention(m)) {
		return false
	}
	// "the highest rated product": the number describes a thing named
	// right after it, which is ranked.
	if next := b.mentionAfter(m.end-1, 2, false); next != nil && entityLike(next) {
		// "the highest unit price of any track": a value over all of them.
		anyAll := false
		for k := m.end; k < next.start; k++ {
			if w := a.toks[k].low; w == "any" || w == "all" || w == "every" {
				anyAll = true
			}
		}
		if !anyAll {
			return false
		}
	}
	// A table named before the superlative is the thing ranked.
	for _, mm := range a.ments {
		if mm.start < i && !mm.value && mm.cands[0].c == nil {
			return false
		}
	}
	// "which …" asks for a row.
	if lp := b.first(cueList); lp >= 0 && lp < i {
		return false
	}
	return true
}

func isNumericMention(m *mention) bool {
	if m.value {
		return false
	}
	for _, c := range m.cands {
		if c.c != nil && c.c.kind == kindNumber {
			return true
		}
	}
	return false
}

// entityLike: the mention's best reading is a table, a key to one, or a
// text column (things people rank or group), not a number or a date.
func entityLike(m *mention) bool {
	if m.value || len(m.cands) == 0 {
		return false
	}
	top := m.cands[0].score
	for _, c := range m.cands {
		if c.score < top-0.2 {
			break
		}
		if c.c == nil || c.c.fk != nil || c.c.kind == kindText {
			return true
		}
	}
	return false
}

// findEntity: the thing ranked — the first table-like mention after "top
// N", "which/who/list" or the superlative.
func (b *builder) findEntity(starts []int) *mention {
	for _, pos := range starts {
		if pos < 0 {
			continue
		}
		for _, m := range b.a.ments {
			if m.start <= pos || b.role[m] != "" || m.value || m.absorbed {
				continue
			}
			if m.start-pos > 6 {
				break
			}
			if entityLike(m) {
				return m
			}
		}
	}
	for _, m := range b.a.ments {
		if b.role[m] == "" && !m.value && !m.absorbed && hasTable(m) {
			return m
		}
	}
	// "What leave type is requested most often?": the kind named before
	// the superlative.
	for _, m := range b.a.ments {
		if b.role[m] == "" && !m.absorbed && entityLike(m) {
			return m
		}
	}
	return nil
}

// rankChoice is one reading of "entity ranked by key".
type rankChoice struct {
	et   *tableInfo // entity table (nil when ecol)
	ecol *colInfo   // entity as a text column
	kt   *tableInfo // key: count rows of kt per entity
	kcol *colInfo   // key: a column
	cost float64
}

// rank: top/bottom N rows by a column, or the groups with the most/least.
func (b *builder) rank(superPos, listPos, aggPos int, groupMs []*mention) string {
	a := b.a
	p := b.p
	sup := superlative{c: conceptAny, desc: true}
	freq := false
	if superPos >= 0 {
		sup = a.supAt[superPos]
		b.explained[superPos] = true
		if superPos+1 < len(a.toks) && a.cues[superPos+1] == cueAdj {
			b.explained[superPos+1] = true
			switch a.toks[superPos+1].low {
			case "often", "frequently", "common", "frequent":
				freq = true
			}
		}
		if a.freqVerb == superPos+1 && b.freqVerbReading() {
			freq = true
		}
	}
	// "top 5 most common": a later superlative with its adjective says
	// what ranks.
	for i := superPos + 1; superPos >= 0 && i+1 < len(a.toks); i++ {
		if a.cues[i] == cueSuper && a.cues[i+1] == cueAdj {
			b.explained[i], b.explained[i+1] = true, true
			switch a.toks[i+1].low {
			case "often", "frequently", "common", "frequent":
				freq = true
			}
			if s := a.supAt[i]; s.c != conceptAny || !freq {
				sup = s
			}
		}
		if a.cues[i] == cueSuper && a.freqVerb == i+1 && b.freqVerbReading() {
			b.explained[i] = true
			freq = true
		}
	}
	n := a.topN
	nPos := -1
	for i, c := range a.cues {
		if c == cueN {
			b.explained[i] = true
			nPos = i
		}
	}
	if listPos >= 0 {
		b.explained[listPos] = true
	}
	if rt := b.routeWord(); rt >= 0 {
		return b.rankRoutes(rt, superPos, sup.desc, n, groupMs)
	}
	entity := b.findEntity([]int{nPos, listPos, superPos})
	if entity == nil {
		// "Who was hired first": the table of the column named.
		for _, m := range a.ments {
			if !m.value && b.role[m] == "" && len(m.cands) > 0 && m.cands[0].c != nil {
				t := m.cands[0].c.tab
				if listPos >= 0 && (a.low(listPos) == "who" || a.low(listPos) == "whom") && !isPersonTable(t) {
					// "Who had the most leave days": the person the rows
					// are about, ranked by the rows' total.
					if o := t.personOwner(); o != nil {
						t = o
					}
				}
				entity = &mention{start: m.start, end: m.start, cands: []*cand{{t: t, score: 1}}}
				break
			}
		}
	}
	if entity == nil {
		return "I could not tell what to rank."
	}
	b.use(entity, "entity")
	// The key: "by X" after the entity, or what follows the superlative
	// ("most customers", "highest average price", "most units in stock").
	var key *mention
	keyAgg := aggNone
	for i := entity.end; i < len(a.toks); i++ {
		if a.toks[i].low == "by" {
			if m := b.mentionAfter(i, 4, false); m != nil {
				key = m
				b.explained[i] = true
				keyAgg = b.aggBetween(i, m.start)
				break
			}
		}
	}
	if key == nil && superPos >= 0 {
		if m := b.mentionAfter(superPos, 4, false); m != nil && m != entity {
			key = m
			keyAgg = b.aggBetween(superPos, m.start)
			// "the most paid overtime hours": a flag before the number
			// is a condition on it.
			if isFlag(m) {
				if next := b.mentionAfter(m.end-1, 1, false); next != nil && isNumericMention(next) {
					key = next
				}
			}
		}
	}
	if key == nil && superPos > entity.end {
		// "Which customer has spent the most": the number named between
		// the thing and the superlative.
		for _, m := range a.ments {
			if m.start >= entity.end && m.end <= superPos && b.role[m] == "" && isNumericMention(m) {
				key = m
				break
			}
		}
	}
	if key != nil {
		b.use(key, "key")
	}
	if n <= 0 {
		// "Which region has the most stores?", "which items are the
		// most expensive?": every row tied at the top, however many.
		n = 1
		p.ties = true
	}
	p.limit = n
	desc := sup.desc
	if superPos >= 0 {
		p.rankWord = strings.TrimPrefix(superWord(a, superPos), "the ")
	}

	// All readings, cheapest first.
	var choices []rankChoice
	s := b.ix.s
	fwd := func(from, to *tableInfo) (float64, bool) {
		steps, ok := s.path(from, to)
		if !ok {
			return 0, false
		}
		if !allForward(steps) {
			// "teams by average current wage": through the
			// current rows of histories.
			if _, ok := b.reachesCurrent(from, to); !ok {
				return 0, false
			}
			return pathCost(steps) + 1, true
		}
		return pathCost(steps), true
	}
	for _, ec := range entity.cands {
		var et *tableInfo
		var ecol *colInfo
		switch {
		case ec.entity() != nil:
			et = ec.entity()
		case ec.c != nil && ec.c.kind == kindText:
			ecol = ec.c
		default:
			continue
		}
		home := et
		if ecol != nil {
			home = ecol.tab
		}
		if home.view {
			continue
		}
		if key == nil {
			choices = append(choices, rankChoice{et: et, ecol: ecol, cost: -2 * ec.score})
			continue
		}
		for _, kc := range key.cands {
			base := -2 * (ec.score + kc.score)
			switch {
			case kc.c == nil && !kc.t.view:
				// count rows of kc.t per entity
				if kc.t == home && ecol == nil || keyAgg != aggNone && keyAgg != aggCount {
					// "by average wage": a number, not a count.
					continue
				}
				if c, ok := fwd(kc.t, home); ok {
					choices = append(choices, rankChoice{et: et, ecol: ecol, kt: kc.t, cost: base + c})
				} else if j := s.junctionBetween(kc.t, home); j != nil && ecol == nil {
					// Members per group: count the rows of the link table.
					choices = append(choices, rankChoice{et: et, kt: j, cost: base + 2})
				}
			case kc.c != nil && (kc.c.kind == kindNumber || kc.c.kind == kindDate) && !kc.c.tab.view:
				if c, ok := fwd(home, kc.c.tab); ok && ecol == nil {
					choices = append(choices, rankChoice{et: et, kcol: kc.c, cost: base + c})
				} else if c, ok := fwd(kc.c.tab, home); ok && kc.c.kind == kindNumber {
					// Only numbers add up per entity; a date of the many
					// side ("most rented") is no measure.
					choices = append(choices, rankChoice{et: et, ecol: ecol, kcol: kc.c, cost: base + c + 0.1})
				}
			}
		}
	}
	if len(choices) == 0 {
		if key != nil {
			return couldNotConnect(b.span(key), b.span(entity), "")
		}
		return "I could not tell what to rank."
	}
	sort.SliceStable(choices, func(i, j int) bool { return choices[i].cost < choices[j].cost })
	ch := choices[0]
	home := ch.et
	if ch.ecol != nil {
		home = ch.ecol.tab
	}
	if key == nil && sup.c == conceptAny {
		// "Which coupon was used the most": how often it occurs. "Best"
		// and "worst" need a measure: best by what?
		if superPos >= 0 && (a.toks[superPos].low == "best" || a.toks[superPos].low == "worst") {
			return "I could not tell what makes one " + superWord(a, superPos) + "; name the number to rank by."
		}
		freq = true
	}
	if key == nil {
		switch {
		case freq || sup.c == conceptSales && ch.ecol != nil:
			// "used least often": count rows per entity.
			if ch.ecol != nil {
				ch.kt = ch.ecol.tab
			} else if sup.c == conceptSales {
				if q := salesColumn(ch.et); q != nil {
					ch.kcol, keyAgg = q, aggSum
				}
			}
			if ch.kt == nil && ch.kcol == nil && ch.et.pk == nil && len(ch.et.label) > 0 {
				// "the most common diagnoses": rows of a table of events,
				// counted per what each is.
				ch.kt = ch.et
			}
			if ch.kt == nil && ch.kcol == nil {
				ch.kt = b.eventChild(ch.et)
			}
		case ch.ecol != nil:
			return "I could not tell what to rank " + b.span(entity) + " by."
		default:
			ch.kcol = conceptColumn(ch.et, sup, b)
			if ch.kcol == nil && sup.c == conceptSales {
				if q := salesColumn(ch.et); q != nil {
					ch.kcol, keyAgg = q, aggSum
				}
			}
			if ch.kcol == nil {
				return "I could not tell which column of " + strings.Join(ch.et.raw, " ") + " makes one " + superWord(a, superPos) + "."
			}
			if sup.c == conceptAge && isBirth(ch.kcol) {
				desc = sup.young
			} else if sup.c == conceptAge {
				desc = !sup.young
			}
		}
		if ch.kt == nil && ch.kcol == nil {
			return "I could not tell what to rank " + b.span(entity) + " by."
		}
	}
	setGroup := func() {
		if ch.ecol != nil {
			p.groups = []group{{col: ch.ecol}}
			b.useCol(ch.ecol)
		} else {
			p.groups = []group{{entity: ch.et}}
			b.tabs = append(b.tabs, ch.et)
		}
	}
	switch {
	case ch.kt != nil:
		if keyAgg != aggNone && keyAgg != aggCount {
			return "I could not tell which number of " + strings.Join(ch.kt.raw, " ") + " to rank by."
		}
		p.base, p.agg = ch.kt, aggCount
		p.subject = strings.Join(ch.kt.raw, " ")
		setGroup()
		p.order = orderKey{set: true, measure: true, desc: desc}
		p.shape = "argmax"
	case ch.ecol == nil && keyAgg == aggNone && func() bool { _, ok := fwd(home, ch.kcol.tab); return ok }():
		// Rows of the entity ordered by one of its columns.
		kcol := ch.kcol
		b.useCol(kcol)
		p.base = ch.et
		p.show = append(p.show, ch.et.shownAs()...)
		if !slices.Contains(p.show, kcol) {
			p.show = append(p.show, kcol)
		}
		p.order = orderKey{set: true, col: kcol, desc: desc}
		p.subject = strings.Join(ch.et.raw, " ")
		p.shape = "topn"
	default:
		// The key lives on the many side: aggregate it per entity.
		kcol := ch.kcol
		if _, ok := fwd(kcol.tab, home); !ok {
			return couldNotConnect(words(kcol), b.span(entity), "")
		}
		if keyAgg == aggNone && aggPos >= 0 {
			keyAgg = a.aggAt[aggPos]
			b.explained[aggPos] = true
		}
		if keyAgg == aggNone || keyAgg == aggCount {
			keyAgg = defaultAgg(kcol)
		}
		b.useCol(kcol)
		p.base, p.agg, p.aggCol = kcol.tab, keyAgg, kcol
		setGroup()
		p.order = orderKey{set: true, measure: true, desc: desc}
		p.subject = words(kcol)
		p.shape = "argmax"
	}
	return b.groups(groupMs)
}

// freqVerbReading: the participle after "most" ("the most prescribed
// drugs") asks how often, unless it is a yes/no column of its own ("the
// most paid overtime hours": the paid ones) or a number follows it.
// The participle is then explained.
func (b *builder) freqVerbReading() bool {
	a := b.a
	k := a.freqVerb
	if m := b.mentionAt(k); m != nil {
		if isFlag(m) || m.value {
			return false
		}
		if next := b.mentionAfter(m.end-1, 2, false); next != nil && isNumericMention(next) {
			return false
		}
	}
	b.explained[k] = true
	if m := b.mentionAt(k); m != nil {
		b.use(m, "freq")
	}
	return true
}

// eventChild: for "the most rented books", the event table the verb
// names (a table pointing at t whose date the verb is); else the busiest
// child.
func (b *builder) eventChild(t *tableInfo) *tableInfo {
	a := b.a
	if a.freqVerb > 0 {
		if m := b.mentionAt(a.freqVerb); m != nil {
			for _, c := range m.cands {
				if c.c != nil && c.c.kind == kindDate && c.c.tab != t {
					if steps, ok := b.ix.s.path(c.c.tab, t); ok && strictlyForward(steps) {
						b.use(m, "key")
						return c.c.tab
					}
				}
			}
		}
	}
	return busiestChild(t)
}

// busiestChild: the table with the most rows that points at t ("the
// product ordered most often" counts order lines).
func busiestChild(t *tableInfo) *tableInfo {
	var best *tableInfo
	for _, e := range t.in {
		if best == nil || e.from.rows > best.rows {
			best = e.from
		}
	}
	return best
}

// pluralEntity: the entity is named in the plural ("products", not
// "employee supports").
func (b *builder) pluralEntity(m *mention) bool {
	if len(m.cands) == 0 {
		return false
	}
	var ws []string
	switch c := m.cands[0]; {
	case c.entity() != nil:
		ws = c.entity().words
	case c.c != nil:
		ws = c.c.words
	}
	for k := m.start; k < m.end; k++ {
		t := b.a.toks[k]
		for _, w := range ws {
			if wordMatch(t.stem, w) >= 0.85 && isPlural(t) && text.Singular(t.low) != t.low {
				return true
			}
		}
	}
	return false
}

func isPlural(t token) bool {
	return strings.HasSuffix(t.low, "s") && !strings.HasSuffix(t.low, "ss")
}

func superWord(a *analysis, pos int) string {
	if pos < 0 {
		return "the top"
	}
	w := a.toks[pos].low
	if pos+1 < len(a.toks) && a.cues[pos+1] == cueAdj {
		w += " " + a.toks[pos+1].low
	}
	return "the " + w
}

// aggBetween reads an aggregate word between two positions ("by total
// invoice amount", "highest average price", "by number of orders").
func (b *builder) aggBetween(from, to int) aggFunc {
	found := aggNone
	for i := from + 1; i < to; i++ {
		switch b.a.cues[i] {
		case cueAgg:
			b.explained[i] = true
			if found == aggNone {
				found = b.a.aggAt[i]
			}
		case cueCount:
			b.explained[i] = true
			if found == aggNone {
				found = aggCount
			}
		}
	}
	if found != aggNone {
		return found
	}
	// "by total invoice amount": "total" may have been linked into the
	// mention.
	if m := b.mentionAt(to); m != nil && b.a.cues[m.start] == cueAgg {
		b.explained[m.start] = true
		return b.a.aggAt[m.start]
	}
	return aggNone
}

// defaultAgg: amounts and quantities add up; prices, ratings, ages and
// rates average.
func defaultAgg(c *colInfo) aggFunc {
	for _, w := range c.raw {
		switch {
		case hasPrefixAny(w, "price", "rating", "rate", "score", "age", "percent", "pct", "discount", "avg", "average", "mean", "ratio", "level", "lat", "lon", "temperature", "grade"):
			return aggAvg
		}
	}
	return aggSum
}

// conceptColumn finds the column of t an adjective ranks by: the price of
// "most expensive", the birth date of "youngest", the main date of
// "latest".
func conceptColumn(t *tableInfo, sup superlative, b *builder) *colInfo {
	switch sup.c {
	case conceptTime:
		// A date column named in the question ("hired", "signed up").
		for _, m := range b.a.ments {
			if m.value || b.role[m] != "" {
				continue
			}
			for _, c := range m.cands {
				if c.c != nil && c.c.kind == kindDate && c.c.tab == t {
					b.use(m, "key")
					return c.c
				}
			}
		}
		return t.mainDate
	case conceptAny:
		return nil
	}
	stemsOf := lexicon().conceptStems[sup.c]
	var best *colInfo
	bestScore := 0
	for _, c := range t.cols {
		if c.kind != kindNumber && !(sup.c == conceptAge && c.kind == kindDate) {
			continue
		}
		score := 0
		for i, w := range c.words {
			if stemsOf[w] {
				score += 2
				if i == len(c.words)-1 {
					score++
				}
			}
		}
		for _, w := range c.comment {
			if stemsOf[w] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	if best == nil && sup.c == conceptAge {
		// Oldest order: the earliest; youngest: the latest.
		return t.mainDate
	}
	return best
}

func isBirth(c *colInfo) bool {
	if c.kind != kindDate {
		return false
	}
	for _, w := range c.words {
		if lexicon().conceptStems[conceptAge][w] {
			return true
		}
	}
	return false
}

// salesColumn: for "best-selling", a quantity column of a table that
// points at t.
func salesColumn(t *tableInfo) *colInfo {
	for _, e := range t.in {
		for _, c := range e.from.cols {
			if c.kind != kindNumber {
				continue
			}
			for _, w := range c.words {
				if lexicon().conceptStems[conceptSales][w] {
					return c
				}
			}
		}
	}
	return nil
}

// whichPeriod: "In which year did we hire the most people?", "which day
// had the most cancelled trains": the rows counted (or a number summed)
// per period, the top period (every one tied with it) returned.
func (b *builder) whichPeriod(superPos, aggPos int, groupMs []*mention) string {
	a, p := b.a, b.p
	sup := a.supAt[superPos]
	b.explained[superPos] = true
	if superPos+1 < len(a.toks) && a.cues[superPos+1] == cueAdj {
		b.explained[superPos+1] = true
	}
	var why string
	if m := b.mentionAfter(superPos, 3, false); m != nil && isNumericMention(m) && aggPos >= 0 {
		why = b.aggregate(aggPos, groupMs)
	} else {
		why = b.count(-1, false, groupMs)
	}
	if why != "" {
		return why
	}
	if p.shape != "time" {
		return "I could not tell which period to rank."
	}
	p.order = orderKey{set: true, measure: true, desc: sup.desc}
	p.limit, p.ties = 1, true
	p.shape = "argmax"
	return ""
}
