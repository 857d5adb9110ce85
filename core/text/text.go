// Package text is tablewise's one tokenizer and stemmer, shared by the
// schema search (core/tools) and the offline planner (core/offline):
// splitting identifiers and text into words (at underscores, spaces,
// punctuation, case changes and letter/digit boundaries), folding
// accents, stemming with the Porter2 (Snowball English) algorithm, and an
// edit distance for typo tolerance.
package text

import (
	"strings"
	"unicode"
)

// Words splits s into lower-case, accent-folded words: at every rune that
// is not a letter or digit, at lower-to-upper case changes ("orderDate"),
// before the last capital of an acronym ("HTTPStatus" → http status) and
// between letters and digits ("address2" → address 2).
func Words(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, Fold(strings.ToLower(string(cur))))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r):
			flush()
		case unicode.Is(unicode.Mn, r):
			if len(cur) > 0 {
				cur = append(cur, r)
			}
		case unicode.IsUpper(r):
			if len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			if len(cur) > 0 && !unicode.IsDigit(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			if len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// Stem is the stem of a lower-case word: an irregular form is first
// replaced by its regular one ("people" → person, "born" → birth,
// "paid" → pay), then Porter2 applies.
func Stem(w string) string {
	if s, ok := irregular[w]; ok {
		w = s
	}
	return Porter2(w)
}

// Stems returns the stem of each word.
func Stems(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Stem(w)
	}
	return out
}

// irregular maps irregular English forms to the regular word whose stem
// they share.
var irregular = map[string]string{
	"people": "person", "persons": "person", "men": "man", "women": "woman", "children": "child",
	"feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose", "indices": "index", "analyses": "analysis",
	"criteria": "criterion", "phenomena": "phenomenon", "data": "data", "media": "media", "series": "series",
	"statuses": "status", "status": "status", "bus": "bus", "gas": "gas", "wives": "wife",
	"knives": "knife", "leaves": "leave", "halves": "half", "shelves": "shelf",
	"born": "birth", "sold": "sell", "bought": "buy", "spent": "spend", "made": "make", "written": "write",
	"wrote": "write", "paid": "pay", "sent": "send", "gave": "give", "given": "give", "took": "take",
	"taken": "take", "got": "get", "gotten": "get", "came": "come", "done": "do", "did": "do", "does": "do",
	"has": "have", "had": "have", "was": "be", "were": "be", "is": "be", "are": "be", "been": "be", "am": "be",
	"went": "go", "gone": "go", "flew": "fly", "flown": "fly", "won": "win", "lost": "lose",
	"held": "hold", "kept": "keep", "met": "meet", "ran": "run", "began": "begin", "begun": "begin",
	"chose": "choose", "chosen": "choose", "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat",
	"grew": "grow", "grown": "grow", "knew": "know", "known": "know", "saw": "see", "seen": "see",
	"taught": "teach", "thought": "think", "brought": "bring", "caught": "catch", "fought": "fight",
	"built": "build", "lent": "lend", "dealt": "deal", "meant": "mean", "rode": "ride", "ridden": "ride",
	"spoke": "speak", "spoken": "speak", "stole": "steal", "stolen": "steal", "told": "tell", "wore": "wear",
	"worn": "wear", "hid": "hide", "hidden": "hide", "fell": "fall", "fallen": "fall", "found": "find",
	"sat": "sit", "stood": "stand", "understood": "understand", "hung": "hang", "shot": "shoot", "shut": "shut",
	"died": "die", "dies": "die", "dying": "die", "dead": "die", "death": "die", "deaths": "die",
	"drew": "draw", "drawn": "draw", "withdrew": "withdraw", "withdrawn": "withdraw",
}

// Inflected reports whether lower-case words a and b are one word up to
// its inflection: "rejected" and "reject", "withdrawn" and "withdraw",
// but not "departed" and "department", which share only a stem.
func Inflected(a, b string) bool {
	if s, ok := irregular[a]; ok {
		a = s
	}
	if s, ok := irregular[b]; ok {
		b = s
	}
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if !strings.HasPrefix(b, a) || Stem(a) != Stem(b) {
		return false
	}
	switch b[len(a):] {
	case "s", "es", "d", "ed", "ing":
		return true
	}
	return false
}

// Fold removes the accents of accented Latin letters ("café" → cafe,
// "Zürich" → Zurich) and leaves everything else as it is.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if f, ok := foldMap[r]; ok {
			b.WriteString(f)
		} else if unicode.Is(unicode.Mn, r) {
			continue
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var foldMap = func() map[rune]string {
	m := map[rune]string{}
	groups := map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ďđ", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ",
		"i": "ìíîïĩīĭįı", "j": "ĵ", "k": "ķ", "l": "ĺļľŀł", "n": "ñńņňŉ", "o": "òóôõöøōŏő",
		"r": "ŕŗř", "s": "śŝşšș", "t": "ţťŧț", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
		"ae": "æ", "oe": "œ", "ss": "ß", "th": "þ",
	}
	for to, from := range groups {
		for _, r := range from {
			m[r] = to
			m[unicode.ToUpper(r)] = to
		}
	}
	return m
}()

// Distance is the optimal-string-alignment edit distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// letters each cost 1), computed on bytes. It stops early and returns
// max+1 once the distance is known to exceed max.
func Distance(a, b string, max int) int {
	if a == b {
		return 0
	}
	la, lb := len(a), len(b)
	if d := la - lb; d > max || -d > max {
		return max + 1
	}
	prev2 := make([]int, lb+1)
	prev := make([]int, lb+1)
	cur := make([]int, lb+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[lb] > max {
		return max + 1
	}
	return prev[lb]
}

// derivational are the endings (as Porter2 leaves them) that turn a word
// into a related noun or adjective: rent → rental, depart → departur(e),
// employ → employe(e), prescribe → prescript(ion).
var derivational = []string{"al", "er", "or", "ion", "ation", "ment", "anc", "enc", "ur", "e", "ee", "ist", "iti", "iv", "ant",
	"ent", "age", "ship", "ism", "i", "ic", "ing", "abl", "ibl", "eri", "ori"}

// Derived reports whether stems a and b are the same word with a
// derivational ending added to one of them (rent/rental, depart/departur),
// the shorter being at least four letters.
func Derived(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) < 4 || a == b || !strings.HasPrefix(b, a) {
		return false
	}
	rest := b[len(a):]
	if len(rest) == 1 && len(a) < 5 {
		// One letter more on a short word is another word (grad,
		// grade), not a derivation (employ, employe).
		return false
	}
	for _, d := range derivational {
		if rest == d {
			return true
		}
	}
	return false
}

// Irregular reports whether w is an irregular English form the stemmer
// knows ("died", "flown", "people"): a real word, never a typing error.
func Irregular(w string) bool {
	_, ok := irregular[w]
	return ok
}
