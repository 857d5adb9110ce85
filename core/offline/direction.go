package offline

import "slices"

// destinationWords are the stems of the words that mark a column as the
// place something goes to (destination_town, to_airport, a "dest" prefix).
var destinationWords = stems([]string{"dest", "destination", "to"})

// linkDestinations reads "how many places do we ship to", "which city do
// we deliver to most": a noun, and a verb of the rows followed by "to" at
// the end of its clause, name the destination column of the verb's table
// whose other words the noun names (destination_town for "town"), above a
// column of the same name in another table (a client's town). The
// verb and "to" are then part of that reading, not a filter of their own.
func (ix *index) linkDestinations(a *analysis) {
	t := a.toks
	for k := 1; k < len(t); k++ {
		if t[k].low != "to" || a.at[k] >= 0 {
			continue
		}
		// "to" ends its clause: nothing linked comes after it ("… to
		// most often", "… to?").
		if k+1 < len(t) && a.at[k+1] >= 0 {
			continue
		}
		vi := a.at[k-1]
		if vi < 0 || a.ments[vi].value || len(a.ments[vi].cands) == 0 {
			continue
		}
		verb := a.ments[vi]
		tab := verb.cands[0].t
		for mi, m := range a.ments {
			if mi == vi || m.value || m.used || len(m.cands) == 0 || m.start > k {
				continue
			}
			content := ix.content(t[m.start:m.end])
			c := destinationColumn(tab, content)
			if c == nil {
				continue
			}
			top := m.cands[0].score
			m.cands = slices.DeleteFunc(m.cands, func(x *cand) bool { return x.c == c })
			m.cands = append([]*cand{{t: tab, c: c, score: top + 0.01}}, m.cands...)
			for j := verb.start; j < verb.end; j++ {
				m.extra = append(m.extra, j)
			}
			m.extra = append(m.extra, verb.extra...)
			m.extra = append(m.extra, k)
			a.ments = slices.Delete(a.ments, vi, vi+1)
			a.reindex()
			return
		}
	}
}

// destinationColumn returns the one column of tab whose name holds a
// destination word and whose other words are each named by a content
// word, or nil.
func destinationColumn(tab *tableInfo, content []token) *colInfo {
	if tab == nil || len(content) == 0 {
		return nil
	}
	var found *colInfo
	for _, c := range tab.cols {
		if c.kind == kindBlob || c.kind == kindID && c.fk == nil {
			continue
		}
		// "to" is a function word, so it is only among the raw words.
		if !slices.ContainsFunc(c.raw, func(r string) bool { return slices.Contains(destinationWords, stem(r)) }) {
			continue
		}
		var rest []string
		for _, w := range c.words {
			if !slices.Contains(destinationWords, w) {
				rest = append(rest, w)
			}
		}
		if len(rest) != len(content) {
			continue
		}
		unnamed := func(ct token) bool {
			return !slices.ContainsFunc(rest, func(w string) bool { return wordMatch(ct.stem, w) >= 0.6 })
		}
		if slices.ContainsFunc(content, unnamed) {
			continue
		}
		if found != nil {
			return nil
		}
		found = c
	}
	return found
}
