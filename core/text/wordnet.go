package text

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"
)

// Relation says how two words are related in WordNet.
type Relation int

const (
	// Unrelated: no relation recorded.
	Unrelated Relation = iota
	// Synonym: the words share one of their common senses (job/occupation).
	Synonym
	// DerivedForm: one is derived from the other (die/death, teach/teacher).
	DerivedForm
	// Broader: the second word names the class the first belongs to,
	// one level up (woman → adult, vaccine → immunogen).
	Broader
)

// related.txt.gz is extracted from WordNet 3.0 by ./internal/wngen: for
// each common single-word lemma (as its stem), the stems of the words of its first senses, the words
// derived from it and its hypernyms one and two levels up. WordNet 3.0 is
// Copyright 2006 by Princeton University, redistributed under its licence
// (wordnet/LICENSE).
//
//go:generate go run ./internal/wngen -dict /usr/share/wordnet -out wordnet/related.txt.gz
//go:embed wordnet/related.txt.gz
var wordnetGz []byte

var (
	wordnetOnce sync.Once
	wordnetRel  map[string]map[string]Relation // stem → stem → relation
)

func loadWordnet() {
	wordnetRel = map[string]map[string]Relation{}
	zr, err := gzip.NewReader(bytes.NewReader(wordnetGz))
	if err != nil {
		return // an empty relation set: nothing is related
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	set := func(a, b string, r Relation) {
		if a == b {
			return
		}
		m := wordnetRel[a]
		if m == nil {
			m = map[string]Relation{}
			wordnetRel[a] = m
		}
		if old, ok := m[b]; !ok || r < old {
			m[b] = r
		}
	}
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		from := fields[0]
		for _, f := range fields[1:] {
			if len(f) < 3 || f[1] != ':' {
				continue
			}
			var r Relation
			switch f[0] {
			case 's':
				r = Synonym
			case 'd':
				r = DerivedForm
			case '1':
				r = Broader
			default:
				continue // two levels up: too general to link by
			}
			for _, w := range strings.Split(f[2:], ",") {
				to := w
				set(from, to, r)
				if r != Broader {
					set(to, from, r)
				}
			}
		}
	}
}

// Related reports how the word stem b relates to the word stem a (both
// as Stem returns them): Synonym and DerivedForm are symmetric; Broader
// means b names a class a belongs to. The relations come from WordNet,
// embedded, and are loaded on first use.
func Related(a, b string) Relation {
	wordnetOnce.Do(loadWordnet)
	return wordnetRel[a][b]
}

var (
	dictOnce sync.Once
	dict     map[string]bool // stems of the embedded vocabulary
)

func loadDict() {
	wordnetOnce.Do(loadWordnet)
	dict = make(map[string]bool, len(wordnetRel)*2)
	for a, m := range wordnetRel {
		dict[a] = true
		for b := range m {
			dict[b] = true
		}
	}
}

// known: w is an English word of the embedded vocabulary (as itself or
// through its stem).
func known(w string) bool {
	dictOnce.Do(loadDict)
	return dict[w] || dict[Stem(w)]
}

// joiners may stand between the words of a run-together name
// ("dateofbirth").
var joiners = map[string]bool{"of": true, "on": true, "at": true, "by": true, "to": true, "in": true}

// Compound splits a run-together lower-case name into the English words
// it is made of ("borrowernumber" → borrower number, "deathdate" → death
// date, "dateofbirth" → date of birth): two or three words of four
// letters or more (a short joiner such as "of" may stand between them),
// each known to the embedded vocabulary. A word that is itself known, is
// shorter than seven letters, or has no such split is returned alone.
func Compound(w string) []string {
	if len(w) < 7 || !isLower(w) || known(w) {
		return []string{w}
	}
	part := func(s string) bool { return len(s) >= 4 && known(s) }
	// Two words; the longest first word wins ("homebranch" → home branch).
	for i := len(w) - 4; i >= 4; i-- {
		if part(w[:i]) && part(w[i:]) {
			return []string{w[:i], w[i:]}
		}
	}
	// Three words, or two around a joiner.
	for i := len(w) - 4; i >= 4; i-- {
		if !part(w[:i]) {
			continue
		}
		rest := w[i:]
		for j := len(rest) - 4; j >= 2; j-- {
			mid := rest[:j]
			if (part(mid) || joiners[mid]) && part(rest[j:]) {
				return []string{w[:i], mid, rest[j:]}
			}
		}
	}
	return []string{w}
}

func isLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// NameWords splits a schema name into words (Words) and each run-together
// word into the words it is made of (Compound).
func NameWords(name string) []string {
	var out []string
	for _, w := range Words(name) {
		out = append(out, Compound(w)...)
	}
	return out
}

// Known reports whether w (lower case) is an English word of the
// embedded vocabulary, as itself or through its stem.
func Known(w string) bool { return known(w) }

// Abbreviates reports whether short is an abbreviation of the word long
// (both lower case, as stems or words): three or four letters that are
// not an English word themselves, starting with long's first letter and
// found in order within long, which is clearly longer ("qty" →
// quantity, "dept" → department, "lvl" → level). A plural ending on the
// short form is allowed ("pts" → point, "hrs" → hour). "die" is no
// abbreviation of "driver", nor "cost" of "cardiologist": they are words.
func Abbreviates(short, long string) bool {
	if len(short) < 3 || len(short) > 4 || short[0] != long[0] || !isLower(short) || known(short) {
		return false
	}
	in := func(s string) bool {
		if len(long) < len(s)+2 {
			return false
		}
		j := 1
		for i := 1; i < len(long) && j < len(s); i++ {
			if long[i] == s[j] {
				j++
			}
		}
		return j == len(s)
	}
	if in(short) {
		return true
	}
	return short[len(short)-1] == 's' && !strings.HasSuffix(long, "s") && len(short) >= 3 && in(short[:len(short)-1])
}
