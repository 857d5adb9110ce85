package text

import "strings"

// Porter2 returns the stem of a lower-case English word by the Porter2
// ("English") stemmer of the Snowball project, as published at
// snowballstem.org/algorithms/english/stemmer.html. Words that are not
// plain ASCII letters (and apostrophes) are returned unchanged.
func Porter2(word string) string {
	if len(word) <= 2 {
		return word
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if (c < 'a' || c > 'z') && c != '\'' {
			return word
		}
	}
	if s, ok := porterExceptions[word]; ok {
		return s
	}
	w := []byte(word)
	if w[0] == '\'' {
		w = w[1:]
	}
	if len(w) <= 2 {
		return string(w)
	}
	// y at the start or after a vowel is a consonant: Y.
	for i := range w {
		if w[i] == 'y' && (i == 0 || isVowel(w[i-1])) {
			w[i] = 'Y'
		}
	}
	r1, r2 := regions(w)
	w = step0(w)
	w = step1a(w)
	if s := string(w); porterInvariant1a[s] {
		return s
	}
	w = step1b(w, r1)
	w = step1c(w)
	w = step2(w, r1)
	w = step3(w, r1, r2)
	w = step4(w, r2)
	w = step5(w, r1, r2)
	for i := range w {
		if w[i] == 'Y' {
			w[i] = 'y'
		}
	}
	return string(w)
}

// porterExceptions are the special words of the algorithm.
var porterExceptions = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// porterInvariant1a are left alone after step 1a.
var porterInvariant1a = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions returns the starts of R1 and R2.
func regions(w []byte) (int, int) {
	r1 := len(w)
	s := string(w)
	switch {
	case strings.HasPrefix(s, "gener"), strings.HasPrefix(s, "arsen"):
		r1 = 5
	case strings.HasPrefix(s, "commun"):
		r1 = 6
	default:
		r1 = afterVC(w, 0)
	}
	return r1, afterVC(w, r1)
}

// afterVC is the position after the first non-vowel that follows a vowel,
// searching from start.
func afterVC(w []byte, start int) int {
	for i := start + 1; i < len(w); i++ {
		if !isVowel(w[i]) && isVowel(w[i-1]) {
			return i + 1
		}
	}
	return len(w)
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func hasVowelIn(w []byte) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// shortSyllableAt: w ends in a short syllable (a vowel followed by a
// non-vowel other than w, x and Y, preceded by a non-vowel; or a vowel at
// the start followed by a non-vowel).
func endsShortSyllable(w []byte) bool {
	n := len(w)
	if n == 2 {
		return isVowel(w[0]) && !isVowel(w[1])
	}
	if n < 3 {
		return false
	}
	c := w[n-1]
	return !isVowel(w[n-3]) && isVowel(w[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
}

func isShort(w []byte, r1 int) bool {
	return r1 >= len(w) && endsShortSyllable(w)
}

func step0(w []byte) []byte {
	for _, s := range []string{"'s'", "'s", "'"} {
		if hasSuffix(w, s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

func step1a(w []byte) []byte {
	switch {
	case hasSuffix(w, "sses"):
		return w[:len(w)-2]
	case hasSuffix(w, "ied"), hasSuffix(w, "ies"):
		if len(w) > 4 {
			return append(w[:len(w)-3], 'i')
		}
		return w[:len(w)-1]
	case hasSuffix(w, "us"), hasSuffix(w, "ss"):
		return w
	case hasSuffix(w, "s"):
		if len(w) >= 3 && hasVowelIn(w[:len(w)-2]) {
			return w[:len(w)-1]
		}
	}
	return w
}

func step1b(w []byte, r1 int) []byte {
	for _, s := range []string{"eedly", "eed"} {
		if hasSuffix(w, s) {
			if len(w)-len(s) >= r1 {
				return append(w[:len(w)-len(s)], 'e', 'e')
			}
			return w
		}
	}
	for _, s := range []string{"ingly", "edly", "ing", "ed"} {
		if !hasSuffix(w, s) {
			continue
		}
		stem := w[:len(w)-len(s)]
		if !hasVowelIn(stem) {
			return w
		}
		w = stem
		switch {
		case hasSuffix(w, "at"), hasSuffix(w, "bl"), hasSuffix(w, "iz"):
			return append(w, 'e')
		case len(w) >= 2 && w[len(w)-1] == w[len(w)-2] && strings.IndexByte("bdfgmnprt", w[len(w)-1]) >= 0:
			return w[:len(w)-1]
		case isShort(w, r1):
			return append(w, 'e')
		}
		return w
	}
	return w
}

func step1c(w []byte) []byte {
	n := len(w)
	if n > 2 && (w[n-1] == 'y' || w[n-1] == 'Y') && !isVowel(w[n-2]) {
		w[n-1] = 'i'
	}
	return w
}

type rule struct{ suffix, repl string }

var step2Rules = []rule{
	{"ization", "ize"}, {"ational", "ate"}, {"fulness", "ful"}, {"ousness", "ous"}, {"iveness", "ive"},
	{"tional", "tion"}, {"biliti", "ble"}, {"lessli", "less"},
	{"entli", "ent"}, {"ation", "ate"}, {"alism", "al"}, {"aliti", "al"}, {"ousli", "ous"}, {"iviti", "ive"}, {"fulli", "ful"},
	{"enci", "ence"}, {"anci", "ance"}, {"abli", "able"}, {"izer", "ize"}, {"ator", "ate"}, {"alli", "al"},
	{"bli", "ble"}, {"ogi", "og"}, {"li", ""},
}

func step2(w []byte, r1 int) []byte {
	for _, r := range step2Rules {
		if !hasSuffix(w, r.suffix) {
			continue
		}
		at := len(w) - len(r.suffix)
		if at < r1 {
			return w
		}
		switch r.suffix {
		case "ogi":
			if at == 0 || w[at-1] != 'l' {
				return w
			}
		case "li":
			if at == 0 || strings.IndexByte("cdeghkmnrt", w[at-1]) < 0 {
				return w
			}
		}
		return append(w[:at], r.repl...)
	}
	return w
}

var step3Rules = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"alize", "al"}, {"icate", "ic"}, {"iciti", "ic"}, {"ative", ""},
	{"ical", "ic"}, {"ness", ""}, {"ful", ""},
}

func step3(w []byte, r1, r2 int) []byte {
	for _, r := range step3Rules {
		if !hasSuffix(w, r.suffix) {
			continue
		}
		at := len(w) - len(r.suffix)
		if at < r1 || r.suffix == "ative" && at < r2 {
			return w
		}
		return append(w[:at], r.repl...)
	}
	return w
}

var step4Suffixes = []string{"ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion",
	"al", "er", "ic"}

func step4(w []byte, r2 int) []byte {
	for _, s := range step4Suffixes {
		if !hasSuffix(w, s) {
			continue
		}
		at := len(w) - len(s)
		if at < r2 {
			return w
		}
		if s == "ion" && (at == 0 || w[at-1] != 's' && w[at-1] != 't') {
			return w
		}
		return w[:at]
	}
	return w
}

func step5(w []byte, r1, r2 int) []byte {
	n := len(w)
	switch {
	case n > 0 && w[n-1] == 'e':
		if n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(w[:n-1]) {
			return w[:n-1]
		}
	case n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && n-1 >= r2:
		return w[:n-1]
	}
	return w
}
