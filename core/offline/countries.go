package offline

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// Country names, for columns that store them as ISO 3166 codes ("sent
// to Peru" where the column holds PE). The names are the
// English ones of the Unicode CLDR (golang.org/x/text), never a list of
// this package's own.

// countryNames maps the lower-case words of a country's English name
// ("sri lanka") to its ISO 3166-1 alpha-2 and alpha-3 codes.
var countryNames = sync.OnceValue(func() map[string][2]string {
	out := map[string][2]string{}
	names := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			r, err := language.ParseRegion(string([]rune{a, b}))
			// Retired codes (DD, YU) canonicalise to others.
			if err != nil || !r.IsCountry() || r.String() != string([]rune{a, b}) || r.Canonicalize() != r {
				continue
			}
			// The first code of a name is the assigned one, not a
			// reserved one (FX beside FR).
			if n := nameKey(names.Name(r)); n != "" && out[n][0] == "" && r.ISO3() != "ZZZ" {
				out[n] = [2]string{r.String(), r.ISO3()}
			}
		}
	}
	return out
})

// nameKey: the lower-case words of a name, letters only, "and"/"&"
// dropped.
func nameKey(s string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if w != "and" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// countryColumns: the text columns whose values are nearly all ISO
// country codes of one length (at least three different ones), each
// with its values by code.
type countryColumns map[*colInfo]map[string]*valueRef

func buildCountryColumns(values *valueIndex) countryColumns {
	codes := map[string]bool{}
	for _, c := range countryNames() {
		codes[c[0]], codes[c[1]] = true, true
	}
	// ok counts a column's distinct two-letter codes and its
	// three-letter ones.
	type tally struct {
		refs map[string]*valueRef
		ok   [2]int
	}
	cols := map[*colInfo]*tally{}
	for _, refs := range values.byKey {
		for _, r := range refs {
			if r.col.kind != kindText || r.col.fk != nil {
				continue
			}
			tl := cols[r.col]
			if tl == nil {
				tl = &tally{refs: map[string]*valueRef{}}
				cols[r.col] = tl
			}
			if _, seen := tl.refs[r.text]; seen {
				continue
			}
			tl.refs[r.text] = r
			if codes[r.text] {
				tl.ok[len(r.text)-2]++
			}
		}
	}
	out := countryColumns{}
	for c, tl := range cols {
		if ok := max(tl.ok[0], tl.ok[1]); ok >= 3 && ok*10 >= len(tl.refs)*9 {
			out[c] = tl.refs
		}
	}
	return out
}

// linkCountryNames links a country named in words ("Peru", "Sri Lanka")
// that is no value of the database to its code in the columns
// that store them as codes. Every word of the name must start with
// a capital (or be quoted): "turkey" and "chad" are other words.
func (ix *index) linkCountryNames(a *analysis) {
	cc := ix.countryCodeCols()
	if len(cc) == 0 {
		return
	}
	t := a.toks
	// nameWord: the token can be a word of a country's name.
	nameWord := make([]bool, len(t))
	for k, tk := range t {
		r, _ := utf8.DecodeRuneInString(tk.raw)
		nameWord[k] = a.at[k] < 0 && !tk.sym && !tk.isNum && tk.raw != "" &&
			(unicode.IsUpper(r) || tk.quote != 0 || tk.low == "of" || tk.low == "and")
	}
	for i := 0; i < len(t); i++ {
		for l := min(4, len(t)-i); l >= 1; l-- {
			if slices.Contains(nameWord[i:i+l], false) {
				continue
			}
			words := make([]string, l)
			for k := range words {
				words[k] = t[i+k].low
			}
			code, found := countryNames()[nameKey(strings.Join(words, " "))]
			if !found {
				continue
			}
			var refs []*valueRef
			for _, tb := range ix.s.tables {
				for _, c := range tb.cols {
					if r := cc[c][code[0]]; r != nil {
						refs = append(refs, r)
					} else if r := cc[c][code[1]]; r != nil {
						refs = append(refs, r)
					}
				}
			}
			if len(refs) == 0 {
				continue
			}
			a.addMention(&mention{start: i, end: i + l, value: true, strong: true, cands: valueCands(refs, 1)})
			i += l - 1
			break
		}
	}
}
