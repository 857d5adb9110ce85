package offline

import (
	"slices"
	"sort"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

// People name a long value by its telling words: "type 1 narcolepsy" for
// 'Narcolepsy type 1 (disorder)', "warfarin" for 'warfarin 5 MG Oral
// Tablet', "dermatologists" for 'DERMATOLOGY'. A run of words that
// nothing else links, containing a word the schema does not name, links
// to the few values of one column that contain every one of those words
// (or a word derived from it, or a synonym).

// maxPartialValues: more values than this sharing the words is a
// description of many things, not a name of one.
const maxPartialValues = 4

// wordIndex maps a word's stem to the values containing it.
type wordIndex map[string][]*valueRef

// lowWords lists the lower-case words of a value's tokens.
func lowWords(toks []token) []string {
	var out []string
	for _, t := range toks {
		if !t.sym {
			out = append(out, t.low)
		}
	}
	return out
}

func buildWordIndex(vi *valueIndex) wordIndex {
	wi := wordIndex{}
	for key, refs := range vi.byKey {
		seen := map[string]bool{}
		for _, w := range strings.Fields(key) {
			if seen[w] || functionWords[w] {
				continue
			}
			seen[w] = true
			wi[w] = append(wi[w], refs...)
		}
	}
	// Columns are ranked by name once: a schema of thousands of tables
	// sorts hundreds of thousands of pairs.
	var cols []*colInfo
	rank := map[*colInfo]int{}
	for _, refs := range vi.byKey {
		for _, r := range refs {
			if _, ok := rank[r.col]; !ok {
				rank[r.col] = 0
				cols = append(cols, r.col)
			}
		}
	}
	names := make(map[*colInfo]string, len(cols))
	for _, c := range cols {
		names[c] = c.String()
	}
	sort.Slice(cols, func(i, j int) bool { return names[cols[i]] < names[cols[j]] })
	for i, c := range cols {
		// Columns of the same name share a rank, as they compared equal.
		if i > 0 && names[c] == names[cols[i-1]] {
			rank[c] = rank[cols[i-1]]
		} else {
			rank[c] = i
		}
	}
	for w, refs := range wi {
		sort.SliceStable(refs, func(i, j int) bool {
			if refs[i].col != refs[j].col {
				return rank[refs[i].col] < rank[refs[j].col]
			}
			return refs[i].text < refs[j].text
		})
		wi[w] = refs
	}
	return wi
}

// containing lists the values holding word q (a question's token): as
// one of their words up to inflection, as a word derived from it (with an
// ending of two letters or more: dermatologist → dermatology, not german →
// germany; or as WordNet derives it: pediatrician → pediatrics) or, in a column of at most 60 values that is not the name of
// the rows of a table, as a synonym (flu → influenza). A word of the
// language that is not a name matches only in such short columns.
func (ix *index) containing(q token) []*valueRef {
	st := q.stem
	short := func(c *colInfo) bool { return c.distinct > 0 && c.distinct <= 60 }
	known := text.Known(q.low)
	var out []*valueRef
	for _, r := range ix.wordsOf().words2[st] {
		if known && !short(r.col) {
			continue
		}
		for _, w := range r.words {
			if stem(w) == st && (text.Inflected(q.low, w) || q.isNum) {
				out = append(out, r)
				break
			}
		}
	}
	if len(st) < 3 || q.isNum {
		return out
	}
	for _, w := range ix.wordsOf().valueWords {
		if w == st {
			continue
		}
		rel := text.Related(st, w)
		derived := len(w) >= len(st)+2 && text.Derived(st, w) || len(st) >= len(w)+2 && text.Derived(w, st) || rel == text.DerivedForm
		synonym := !derived && rel == text.Synonym
		if !derived && !synonym {
			continue
		}
		for _, r := range ix.wordsOf().words2[w] {
			if known && !short(r.col) || synonym && (!short(r.col) || isLabelCol(r.col) && r.col.tab.pk != nil) {
				continue
			}
			out = append(out, r)
		}
	}
	return out
}

// derivedOnly: the values holding a word derived from q, not q itself.
func (ix *index) derivedOnly(q token) []*valueRef {
	var out []*valueRef
	for _, r := range ix.containing(q) {
		if !slices.Contains(ix.wordsOf().words2[q.stem], r) {
			out = append(out, r)
		}
	}
	return out
}

// linkPartialValues links runs of words to values that contain them.
func (ix *index) linkPartialValues(a *analysis) {
	t := a.toks
	free := func(i int) bool {
		return i >= 0 && i < len(t) && a.at[i] < 0 && a.linkable(i) && !t[i].sym && t[i].quote == 0 && !functionWords[t[i].low]
	}
	for i := range t {
		// A telling word: one no table, column or filler names.
		if !free(i) || t[i].isNum || len(t[i].low) < 3 || ix.schemaWord(t[i].stem) || lexicon().fillers[t[i].low] || lexicon().fillerStems[t[i].stem] ||
			personWords[t[i].low] || genderWords[t[i].low] != nil || a.cues[i] != cueNone {
			continue
		}
		if ix.values.byKey[t[i].stem] != nil || lexicon().synGroup[t[i].stem] != nil || lexicon().lexiconStems[t[i].stem] != "" {
			// A whole value (linkValues has read it, or not, for a
			// reason) or a word of the planner's own vocabulary.
			continue
		}
		refs := ix.containing(t[i])
		if isPlural(t[i]) && text.Singular(t[i].low) != t[i].low {
			// "clinics": the class the named values belong to, not one
			// of them; a value that has the word as it is ("rabies"),
			// or a word derived from it ("dermatologists" for
			// dermatology), still names it.
			var keep []*valueRef
			derived := ix.derivedOnly(t[i])
			for _, r := range refs {
				if slices.Contains(derived, r) || slices.Contains(r.words, t[i].low) {
					keep = append(keep, r)
				}
			}
			refs = keep
		}
		if len(refs) == 0 {
			continue
		}
		lo, hi := i, i+1
		// Widen the run while the words still name some of the values
		// ("type 1 narcolepsy").
		for changed := true; changed; {
			changed = false
			for _, k := range []int{lo - 1, hi} {
				if !free(k) {
					continue
				}
				next := intersect(refs, ix.containing(t[k]))
				if len(next) == 0 {
					continue
				}
				refs = next
				if k < lo {
					lo = k
				} else {
					hi = k + 1
				}
				changed = true
			}
		}
		var keep []*cand
		for _, c := range valueCands(refs, 0.85) {
			if len(c.vals) <= maxPartialValues {
				keep = append(keep, c)
			}
		}
		if len(keep) == 0 {
			continue
		}
		a.addMention(&mention{start: lo, end: hi, cands: keep, value: true, strong: true})
	}
}

// intersect keeps the refs of a that b holds too.
func intersect(a, b []*valueRef) []*valueRef {
	in := map[*valueRef]bool{}
	for _, r := range b {
		in[r] = true
	}
	var out []*valueRef
	for _, r := range a {
		if in[r] {
			out = append(out, r)
		}
	}
	return out
}
