package offline

import "strings"

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
		m := &mention{start: i, end: i + 1, value: true, strong: true}
		byCol := map[*colInfo]*cand{}
		for _, r := range ix.values.byKey[stem(code)] {
			if r.col.distinct <= 0 || r.col.distinct > 60 || strings.ToLower(r.text) != code || strings.ToUpper(r.text) != r.text {
				continue
			}
			c := byCol[r.col]
			if c == nil {
				c = &cand{t: r.col.tab, c: r.col, score: 1}
				byCol[r.col] = c
				m.cands = append(m.cands, c)
			}
			c.vals = append(c.vals, r)
		}
		if len(m.cands) > 0 {
			a.addMention(m)
		}
	}
}
