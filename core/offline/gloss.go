package offline

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/text"
)

// A column comment often says what a column's codes mean: "X =
// expired", "1 paid, 0 unpaid", "Y = yes". The planner reads those
// glosses so that a question's word ("expired", "unpaid", and their
// synonyms) links to the code it stands for.

var (
	glossEq   = regexp.MustCompile(`^([A-Za-z0-9_]{1,12})\s*[=:]\s*([A-Za-z][A-Za-z ]*)$`)
	glossPair = regexp.MustCompile(`^(-?[0-9]+)\s+([A-Za-z][A-Za-z ]*)$`)
)

// glossEntry is one code and the words a comment gives it.
type glossEntry struct {
	code  string
	words []string // stems, function words left out
}

// parseGloss reads the code glosses of a comment: its parts, split at
// commas and semicolons, of the form "code = words" or "number words".
func parseGloss(comment string) []glossEntry {
	var out []glossEntry
	for _, part := range strings.FieldsFunc(comment, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		m := glossEq.FindStringSubmatch(part)
		if m == nil {
			m = glossPair.FindStringSubmatch(part)
		}
		if m == nil {
			continue
		}
		var ws []string
		for _, w := range strings.Fields(strings.ToLower(m[2])) {
			if !functionWords[w] && len(ws) < 3 {
				ws = append(ws, stem(w))
			}
		}
		if len(ws) > 0 {
			out = append(out, glossEntry{code: m[1], words: ws})
		}
	}
	return out
}

// glossRef is a code of a column with the words its comment gives it.
type glossRef struct {
	ref   *valueRef
	words []string
}

// buildGlosses keeps the glosses whose code the column really holds.
func buildGlosses(s *schema, vi *valueIndex) []glossRef {
	var out []glossRef
	for _, t := range s.tables {
		for i, c := range t.cols {
			if i >= len(t.t.Columns) || t.t.Columns[i].Comment == "" {
				continue
			}
			for _, g := range parseGloss(t.t.Columns[i].Comment) {
				if ref := codeRef(c, g.code, vi); ref != nil {
					out = append(out, glossRef{ref: ref, words: g.words})
				}
			}
		}
	}
	return out
}

// codeRef finds code among c's values: a text value of the value index,
// or 0/1 of a flag.
func codeRef(c *colInfo, code string, vi *valueIndex) *valueRef {
	if c.kind == kindBool && c.trueVal != nil {
		n, err := strconv.ParseInt(code, 10, 64)
		if err != nil {
			return nil
		}
		for _, v := range []any{c.trueVal, c.falseVal} {
			if iv, ok := v.(int64); ok && iv == n {
				return &valueRef{col: c, value: v, text: code}
			}
		}
		return nil
	}
	for _, r := range vi.byKey[textKey(code)] {
		if r.col == c && r.text == code {
			return r
		}
	}
	return nil
}

// linkWordValues links a word to codes it stands for, beyond the value
// spelled like it: a code a column's comment gives that word ("which
// expired" → status X), a value that is a synonym of the word ("turned
// down" → rejected), and, right before a year, a short upper-case code
// that abbreviates it ("fall 2023" → FA). A word already read as a single
// value gets these readings too, and the join decides between them.
func (ix *index) linkWordValues(a *analysis) {
	for i, t := range a.toks {
		if t.isNum || t.sym || t.quote > 0 || functionWords[t.low] || len(t.low) < 3 || !a.linkable(i) && a.at[i] < 0 {
			continue
		}
		// A word that names a table or column is that name ("staff",
		// "size"), not a code its synonyms or letters happen to spell.
		if ix.schemaWord(t.stem) || lexicon().fillers[t.low] {
			continue
		}
		var m *mention
		if a.at[i] >= 0 {
			m = a.ments[a.at[i]]
			if !m.value || m.end-m.start != 1 || t.upper {
				continue
			}
		}
		have := map[*colInfo]bool{}
		if m != nil {
			for _, c := range m.cands {
				have[c.c] = true
			}
		}
		var cands []*cand
		add := func(r *valueRef, score float64) {
			if have[r.col] {
				return
			}
			have[r.col] = true
			cands = append(cands, &cand{t: r.col.tab, c: r.col, vals: []*valueRef{r}, score: score})
		}
		for _, g := range ix.wordsOf().glosses {
			if len(g.words) == 1 && wordMatch(t.stem, g.words[0]) >= 0.85 {
				add(g.ref, 1)
			}
		}
		for _, gi := range lexicon().synGroup[t.stem] {
			for _, w := range synonymGroups[gi] {
				for _, r := range ix.values.byKey[stem(w)] {
					// The synonym itself, not a word sharing its stem
					// ("department" is not "departed").
					if r.col.distinct > 0 && r.col.distinct <= 60 && stem(w) != t.stem && text.Inflected(strings.ToLower(r.text), w) {
						add(r, 0.9)
					}
				}
			}
		}
		if i+1 < len(a.toks) && isYear(a.toks[i+1]) && months[t.low] == 0 {
			// "fall 2023", "spring 2024": a word before a year that a
			// short code abbreviates is that code (a term).
			for _, r := range ix.codeAbbreviations(t.low) {
				add(r, 0.8)
			}
		}
		if len(cands) == 0 {
			continue
		}
		if m != nil {
			m.cands = append(m.cands, cands...)
			sortCands(m.cands)
			continue
		}
		sortCands(cands)
		a.addMention(&mention{start: i, end: i + 1, cands: cands, value: true, strong: true})
	}
}

// codeAbbreviations: the values of short lists of upper-case codes (two
// to five letters: SP, FA, LAB) that abbreviate word — its first letters
// or its letters in order — one per column.
func (ix *index) codeAbbreviations(word string) []*valueRef {
	if len(word) < 4 || !isLetters(word) {
		return nil
	}
	var out []*valueRef
	for _, c := range ix.wordsOf().codeColumns {
		var hit *valueRef
		n := 0
		for _, r := range c.codes {
			code := strings.ToLower(r.text)
			if strings.HasPrefix(word, code) || abbreviates(code, word) {
				hit = r
				n++
			}
		}
		if n == 1 {
			out = append(out, hit)
		}
	}
	return out
}

// codeColumn is a column whose values are all short upper-case codes.
type codeColumn struct {
	col   *colInfo
	codes []*valueRef
}

// findCodeColumns lists the columns of at most 20 values that are all
// two to five upper-case letters.
func findCodeColumns(vi *valueIndex) []codeColumn {
	byCol := map[*colInfo][]*valueRef{}
	var order []*colInfo
	for _, refs := range vi.byKey {
		for _, r := range refs {
			if byCol[r.col] == nil {
				order = append(order, r.col)
			}
			byCol[r.col] = append(byCol[r.col], r)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].String() < order[j].String() })
	var out []codeColumn
	for _, c := range order {
		refs := byCol[c]
		if c.distinct <= 0 || c.distinct > 20 || len(refs) != c.distinct {
			continue
		}
		ok := true
		for _, r := range refs {
			if len(r.text) < 2 || len(r.text) > 5 || strings.ToUpper(r.text) != r.text || !isLetters(strings.ToLower(r.text)) {
				ok = false
				break
			}
		}
		if ok {
			sort.Slice(refs, func(i, j int) bool { return refs[i].text < refs[j].text })
			out = append(out, codeColumn{col: c, codes: refs})
		}
	}
	return out
}
