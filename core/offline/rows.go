package offline

import (
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

// labelRows reads the plural of a table's label column ("titles" for a
// table whose rows are named by their title) as the rows of that table
// when the question counts or ranks by count ("which genre has the most
// titles", "how many titles in each genre"): each row has one title, so
// the titles are the rows. The column reading is kept second.
func (a *analysis) labelRows() {
	counts := false
	for i := range a.toks {
		if c := a.cues[i]; c == cueSuper || c == cueGroup {
			counts = true
		}
	}
	if !counts {
		return
	}
	for _, m := range a.ments {
		if m.value || len(m.cands) == 0 || m.end-m.start != 1 {
			continue
		}
		top := m.cands[0]
		if top.c == nil || top.c.fk != nil || top.c.kind != kindText || len(top.c.tab.label) != 1 || top.c.tab.label[0] != top.c {
			continue
		}
		w := a.toks[m.start].low
		if !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || w == top.c.name {
			continue
		}
		rows := &cand{t: top.c.tab, score: top.score + 0.01}
		m.cands = append([]*cand{rows}, m.cands...)
	}
}

// linkCodePlurals reads a word that nothing linked and that is the plural
// of a short upper-case code of a list of codes ("DVDs", "CDs" for a type
// column holding DVD and CD) as that value: the stemmer keeps the "s" of a
// word without vowels, so the value index does not find it.
func (ix *index) linkCodePlurals(a *analysis) {
	for i, t := range a.toks {
		w := t.low
		if a.at[i] >= 0 || t.isNum || t.sym || t.quote > 0 || len(w) < 3 || len(w) > 6 || !isLetters(w) ||
			!strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || functionWords[w] {
			continue
		}
		code := w[:len(w)-1]
		var refs []*valueRef
		for _, r := range ix.values.byKey[stem(code)] {
			if r.col.distinct > 0 && r.col.distinct <= 60 && strings.ToLower(r.text) == code && strings.ToUpper(r.text) == r.text {
				refs = append(refs, r)
			}
		}
		if len(refs) > 0 {
			a.addMention(&mention{start: i, end: i + 1, value: true, strong: true, cands: valueCands(refs, 1)})
		}
	}
}

// linkNamePrefix links a word that nothing else linked to the one column
// whose run-together name starts with it and ends with a common word
// ("remaster" → remasterdate, "mixdown" → mixdowntime): the
// vocabulary that splits names does not hold every word, but the question
// and the name together show where the name divides.
func (ix *index) linkNamePrefix(a *analysis) {
	for i, t := range a.toks {
		w := t.low
		if a.at[i] >= 0 || a.cues[i] != cueNone || t.isNum || t.sym || t.quote > 0 || len(w) < 5 || !isLetters(w) ||
			functionWords[w] || lexicon().fillers[w] || lexicon().fillerStems[t.stem] {
			continue
		}
		var found []*colInfo
		end := i + 1
		for _, tab := range ix.s.tables {
			for _, c := range tab.cols {
				name := strings.ToLower(c.name)
				if !strings.HasPrefix(name, w) || !isLetters(name) {
					continue
				}
				if rest := name[len(w):]; len(rest) >= 4 && text.Known(rest) {
					found = append(found, c)
					// "remaster date": the next word is the rest of the name.
					if i+1 < len(a.toks) && a.at[i+1] < 0 && stem(a.toks[i+1].low) == stem(rest) {
						end = i + 2
					}
				}
			}
		}
		if len(found) == 1 {
			// The whole name, in two words, is named as exactly as a
			// split name would be.
			score := 0.9
			if end == i+2 {
				score = 1.2
			}
			a.addMention(&mention{start: i, end: end, cands: []*cand{{t: found[0].tab, c: found[0], score: score}}})
		}
	}
}

// yearSuperlatives reads "the oldest copyright year", "the latest release
// year" as the smallest or largest of a column of integer years — a value
// over all rows, not the row that holds it — when the superlative of time
// or age stands right before the column and nothing before it names a
// table or asks for a row ("which …").
func (a *analysis) yearSuperlatives() {
	for i := range a.toks {
		if a.cues[i] != cueSuper || a.topN > 0 || i+1 >= len(a.toks) || a.at[i+1] < 0 {
			continue
		}
		s := a.supAt[i]
		if s.c != conceptAge && s.c != conceptTime {
			continue
		}
		m := a.ments[a.at[i+1]]
		if !isYearMention(m) {
			continue
		}
		before := false
		for k := 0; k < i; k++ {
			if a.cues[k] == cueList || a.at[k] >= 0 && a.ments[a.at[k]].cands[0].c == nil {
				before = true
			}
		}
		if before {
			continue
		}
		// Old and early are the small years; new and late the large ones.
		fn := aggMin
		if s.desc {
			fn = aggMax
		}
		a.supAt[i] = superlative{c: conceptAny, desc: fn == aggMax}
		a.aggAt[i] = fn
	}
}

// isYearMention: the mention's first reading is a column of integer years.
func isYearMention(m *mention) bool {
	return !m.value && len(m.cands) > 0 && m.cands[0].c != nil && m.cands[0].c.intYear
}

// valueCands groups value references by column: one reading per column,
// of the given score, holding its values once each.
func valueCands(refs []*valueRef, score float64) []*cand {
	var out []*cand
	byCol := map[*colInfo]*cand{}
	for _, r := range refs {
		c := byCol[r.col]
		if c == nil {
			c = &cand{t: r.col.tab, c: r.col, score: score}
			byCol[r.col] = c
			out = append(out, c)
		}
		if !slices.Contains(c.vals, r) {
			c.vals = append(c.vals, r)
		}
	}
	return out
}
