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
	// words: every distinct word, sorted; at[i] where words[i] occurs:
	// places, ascending, each a table's index in ix.s.tables times 2^32
	// plus 0 for the table's own name or 1 + a column's index.
	words []string
	at    [][]int64

	mu sync.Mutex
	// byStem: the tables a question stem may name, and their columns.
	byStem map[string][]nameHit
}

// nameHit is a table a stem may name: all of it (a word of its name
// matches, so every column may score qualified by it), or only some of
// its columns.
type nameHit struct {
	t    int32
	all  bool
	cols []int32
}

// maxStems bounds what a lookup remembers of the stems asked about.
const maxStems = 1 << 14

// newNameLookup indexes the words of s's tables and columns.
func newNameLookup(s *schema) *nameLookup {
	at := map[string][]int64{}
	for i, t := range s.tables {
		add := func(w string, place int64) {
			if l := at[w]; len(l) == 0 || l[len(l)-1] != place {
				at[w] = append(l, place)
			}
		}
		addAll := func(ws []string, place int64) {
			for k, w := range ws {
				add(w, place)
				if k+1 < len(ws) {
					add(w+ws[k+1], place)
				}
			}
		}
		base := int64(i) << 32
		addAll(t.words, base)
		for ci, c := range t.cols {
			place := base + 1 + int64(ci)
			addAll(c.words, place)
			addAll(c.comment, place)
			if len(t.words) > 0 && len(c.words) > 0 {
				// A table word run together with a column's first
				// ("invoicetotal"), as qualifiedScore reads them.
				add(t.words[len(t.words)-1]+c.words[0], place)
			}
		}
	}
	l := &nameLookup{words: make([]string, 0, len(at)), byStem: map[string][]nameHit{}}
	for w := range at {
		l.words = append(l.words, w)
	}
	sort.Strings(l.words)
	l.at = make([][]int64, len(l.words))
	for i, w := range l.words {
		l.at[i] = at[w]
	}
	return l
}

// hitsFor returns the tables, ascending, holding a word that stem
// matches, with the columns that hold one.
func (l *nameLookup) hitsFor(stem string) []nameHit {
	l.mu.Lock()
	out, ok := l.byStem[stem]
	l.mu.Unlock()
	if ok {
		return out
	}
	var places []int64
	for i, w := range l.words {
		if wordMatch(stem, w) > 0 {
			places = append(places, l.at[i]...)
		}
	}
	sort.Slice(places, func(i, j int) bool { return places[i] < places[j] })
	for k, p := range places {
		if k > 0 && p == places[k-1] {
			continue
		}
		t, place := int32(p>>32), int32(p&(1<<32-1))
		if len(out) == 0 || out[len(out)-1].t != t {
			out = append(out, nameHit{t: t})
		}
		h := &out[len(out)-1]
		if place == 0 {
			h.all = true
		} else {
			h.cols = append(h.cols, place-1)
		}
	}
	l.mu.Lock()
	if len(l.byStem) < maxStems {
		l.byStem[stem] = out
	}
	l.mu.Unlock()
	return out
}

// lookupHits returns the tables whose names, columns or comments share a
// word with stem, in schema order, with the columns that do.
func (ix *index) lookupHits(stem string) []nameHit {
	ix.lookupOnce.Do(func() { ix.lookup = newNameLookup(ix.s) })
	return ix.lookup.hitsFor(stem)
}
