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
