package offline

import (
	"slices"
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
	// joined: the places of two adjacent words of a name run together,
	// which only the same word names (nameScore); lastWord: the tables
	// by the last word of their name, firstWord: the columns by their
	// first, for a table's last word run together with a column's first.
	joined    map[string][]int64
	lastWord  map[string][]int32
	firstWord map[string][]int64

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
	l := &nameLookup{joined: map[string][]int64{}, lastWord: map[string][]int32{}, firstWord: map[string][]int64{},
		byStem: map[string][]nameHit{}}
	at := map[string][]int64{}
	add := func(m map[string][]int64, w string, place int64) {
		if p := m[w]; len(p) == 0 || p[len(p)-1] != place {
			m[w] = append(p, place)
		}
	}
	for i, t := range s.tables {
		base := int64(i) << 32
		for _, w := range t.words {
			add(at, w, base)
		}
		for _, j := range joinedWords(t.words) {
			add(l.joined, j, base)
		}
		if len(t.words) > 0 {
			last := t.words[len(t.words)-1]
			l.lastWord[last] = append(l.lastWord[last], int32(i))
		}
		for ci, c := range t.cols {
			place := base + 1 + int64(ci)
			for _, w := range c.words {
				add(at, w, place)
			}
			for _, w := range c.comment {
				add(at, w, place)
			}
			for _, j := range columnName(c.name).joined {
				add(l.joined, j, place)
			}
			if len(c.words) > 0 {
				add(l.firstWord, c.words[0], place)
			}
		}
	}
	l.words = make([]string, 0, len(at))
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

// joinedWords lists each two adjacent words run together.
func joinedWords(words []string) []string {
	var out []string
	for k := 0; k+1 < len(words); k++ {
		out = append(out, words[k]+words[k+1])
	}
	return out
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
	places = append(places, l.joined[stem]...)
	for k := 1; k < len(stem); k++ {
		// A table's last word and a column's first, run together.
		tables := l.lastWord[stem[:k]]
		if len(tables) == 0 {
			continue
		}
		for _, p := range l.firstWord[stem[k:]] {
			if _, ok := slices.BinarySearch(tables, int32(p>>32)); ok {
				places = append(places, p)
			}
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
