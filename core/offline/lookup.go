package offline

import (
	"sort"
	"sync"
)

// nameLookup narrows the tables a question word can name. Every way
// schemaCands and nameOnlyScore give a table or column a score needs the
// first content word of the span to match (wordMatch > 0) a word of the
// table's name, of one of its columns' names or comments, or two adjacent
// words of those run together ("wishlist" for wish_list); a table none
// of whose words the first word matches cannot score, and is not scored.
// So a question costs the tables that share a word with it, not the whole
// schema (40,000 columns on a 2,000-table schema), and its candidates are
// the same as a full scan's.
type nameLookup struct {
	// words: every distinct word, sorted; tables[i] the indexes (in
	// ix.s.tables, ascending) of the tables that hold words[i].
	words  []string
	tables [][]int32

	mu sync.Mutex
	// byStem: the tables a question stem may name, in ascending order.
	byStem map[string][]int32
}

// maxStems bounds what a lookup remembers of the stems asked about.
const maxStems = 1 << 14

// newNameLookup indexes the words of s's tables and columns.
func newNameLookup(s *schema) *nameLookup {
	at := map[string][]int32{}
	for i, t := range s.tables {
		ti := int32(i)
		add := func(w string) {
			if l := at[w]; len(l) == 0 || l[len(l)-1] != ti {
				at[w] = append(l, ti)
			}
		}
		addAll := func(ws []string) {
			for k, w := range ws {
				add(w)
				if k+1 < len(ws) {
					add(w + ws[k+1])
				}
			}
		}
		addAll(t.words)
		for _, c := range t.cols {
			addAll(c.words)
			addAll(c.comment)
			if len(t.words) > 0 && len(c.words) > 0 {
				// A table word run together with a column's first
				// ("invoicetotal"), as qualifiedScore reads them.
				add(t.words[len(t.words)-1] + c.words[0])
			}
		}
	}
	l := &nameLookup{words: make([]string, 0, len(at)), byStem: map[string][]int32{}}
	for w := range at {
		l.words = append(l.words, w)
	}
	sort.Strings(l.words)
	l.tables = make([][]int32, len(l.words))
	for i, w := range l.words {
		l.tables[i] = at[w]
	}
	return l
}

// tablesFor returns the indexes, ascending, of the tables holding a word
// that stem matches.
func (l *nameLookup) tablesFor(stem string) []int32 {
	l.mu.Lock()
	out, ok := l.byStem[stem]
	l.mu.Unlock()
	if ok {
		return out
	}
	seen := map[int32]bool{}
	for i, w := range l.words {
		if wordMatch(stem, w) <= 0 {
			continue
		}
		for _, t := range l.tables[i] {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	l.mu.Lock()
	if len(l.byStem) < maxStems {
		l.byStem[stem] = out
	}
	l.mu.Unlock()
	return out
}

// lookupTables returns the tables whose names, columns or comments share
// a word with stem, in schema order.
func (ix *index) lookupTables(stem string) []*tableInfo {
	ix.lookupOnce.Do(func() { ix.lookup = newNameLookup(ix.s) })
	idx := ix.lookup.tablesFor(stem)
	out := make([]*tableInfo, len(idx))
	for i, t := range idx {
		out[i] = ix.s.tables[t]
	}
	return out
}
