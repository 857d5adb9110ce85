package offline

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word or number of a question.
type token struct {
	raw  string  // as typed (accents kept)
	low  string  // lower case, accents folded
	stem string  // see stem
	num  float64 // value when isNum
	// isNum: a numeral ("5", "1,000", "2.5") or a number word ("ten").
	isNum bool
	// numWord: the number was written as a word ("one", "ten").
	numWord bool
	// upper: the word starts with an upper-case letter and is not the
	// first word of the question.
	upper bool
	// quote > 0 numbers the quoted phrase the token belongs to.
	quote int
	// sym is a punctuation token kept because it matters ("&", "/", "-").
	sym bool
	// pos, end: the byte span of the token in the normalised question
	// (normQuestion).
	pos, end int
}

// tokenize splits a question into tokens. Contractions are expanded
// ("what's" → what is, "don't" → do not), possessives dropped
// ("customer's" → customer), quoted phrases remembered.
// normQuestion straightens curly quotes; token offsets refer to its result.
func normQuestion(q string) string {
	return strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "`", "'").Replace(q)
}

func tokenize(q string) []token {
	q = normQuestion(q)
	var out []token
	quote, quoteID := rune(0), 0
	i := 0
	first := true
	for i < len(q) {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case r == '"' || (r == '\'' && (quote == '\'' || opensQuote(q, i))):
			if quote == r {
				quote = 0
			} else if quote == 0 && strings.ContainsRune(q[i+size:], r) {
				quote = r
				quoteID++
			}
			i += size
			continue
		case r == '$' || r == '€' || r == '£':
			i += size
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(q) {
				r2, s2 := utf8.DecodeRuneInString(q[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) || unicode.Is(unicode.Mn, r2) {
					j += s2
					continue
				}
				// 1,000 and 2.5 stay one token.
				if (r2 == ',' || r2 == '.') && j > i && isDigitByte(q[j-1]) && j+1 < len(q) && isDigitByte(q[j+1]) {
					j += s2
					continue
				}
				break
			}
			word := q[i:j]
			wstart := i
			i = j
			// Contractions and possessives.
			if strings.HasPrefix(q[i:], "'") {
				rest := q[i+1:]
				k := 0
				for k < len(rest) && (rest[k] >= 'a' && rest[k] <= 'z' || rest[k] >= 'A' && rest[k] <= 'Z') {
					k++
				}
				suffix := strings.ToLower(rest[:k])
				switch suffix {
				case "s":
					i += 1 + k
					if isVerbContraction(word) {
						tk := mkToken(word, first, quoteID, quote)
						tk.pos, tk.end = wstart, wstart+len(word)
						out = append(out, tk)
						first = false
						word = "is"
					}
				case "t":
					if strings.HasSuffix(strings.ToLower(word), "n") {
						i += 1 + k
						base := word[:len(word)-1]
						if strings.EqualFold(word, "can") || strings.EqualFold(word, "won") {
							base = word
						}
						tk := mkToken(base, first, quoteID, quote)
						tk.pos, tk.end = wstart, wstart+len(base)
						out = append(out, tk)
						first = false
						word = "not"
					}
				case "re", "ve", "ll", "d", "m":
					i += 1 + k
				case "":
					if quote != '\'' {
						i++ // plural possessive: customers'
					}
				}
			}
			tk := mkToken(word, first, quoteID, quote)
			tk.pos, tk.end = wstart, j
			out = append(out, tk)
			first = false
			continue
		case r == '&' || r == '/' || r == '+':
			t := token{raw: string(r), low: string(r), stem: string(r), sym: true, pos: i, end: i + size}
			if quote != 0 {
				t.quote = quoteID
			}
			if r == '&' {
				t.low, t.stem = "and", "and"
			}
			out = append(out, t)
		case r == '?' || r == '.' || r == '!':
			first = true
		}
		i += size
	}
	return out
}

// opensQuote reports whether a ' at i starts a quoted phrase rather than
// being an apostrophe inside a word.
func opensQuote(q string, i int) bool {
	if i > 0 {
		prev, _ := utf8.DecodeLastRuneInString(q[:i])
		if unicode.IsLetter(prev) || unicode.IsDigit(prev) {
			return false
		}
	}
	return true
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

func isVerbContraction(w string) bool {
	switch strings.ToLower(w) {
	case "what", "who", "where", "which", "how", "that", "there", "it", "here", "when":
		return true
	}
	return false
}

func mkToken(word string, first bool, quoteID int, quote rune) token {
	t := token{raw: word, low: fold(strings.ToLower(word))}
	r, _ := utf8.DecodeRuneInString(word)
	t.upper = !first && unicode.IsUpper(r)
	if quote != 0 {
		t.quote = quoteID
	}
	if v, ok := parseNumber(t.low); ok {
		t.num, t.isNum = v, true
	} else if v, ok := numberWords[t.low]; ok {
		t.num, t.isNum, t.numWord = v, true, true
	}
	t.stem = stem(t.low)
	return t
}

func parseNumber(s string) (float64, bool) {
	if s == "" || !isDigitByte(s[0]) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		// "5k", "10x": not numbers.
		return 0, false
	}
	return v, true
}

var numberWords = map[string]float64{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"hundred": 100, "dozen": 12, "single": 1,
}

// fold lower-cases nothing but removes the accents of accented letters, so
// "café" matches "cafe" and "Zürich" matches "zurich".
func fold(s string) string {
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

// stem reduces a lower-case word to a crude stem shared by its inflections:
// plural and past forms and -ing forms collapse ("libraries" and
// "library", "shipped" and "ship", "hired" and "hire"). It is applied
// alike to questions and to schema names, so it only has to be consistent,
// not linguistically right.
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		w = s
	}
	if len(w) <= 3 || !isAlpha(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "zzes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && len(w) > 4 && !strings.HasSuffix(w, "eed"):
		w = w[:len(w)-2]
	}
	// Undouble: shipp → ship, plann → plan.
	if n := len(w); n > 3 && w[n-1] == w[n-2] && strings.IndexByte("bdgmnprt", w[n-1]) >= 0 {
		w = w[:n-1]
	}
	if n := len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	if n := len(w); n > 3 && w[n-1] == 'y' {
		w = w[:n-1] + "i"
	}
	return w
}

var irregular = map[string]string{
	"people": "person", "persons": "person", "men": "man", "women": "woman", "children": "child",
	"data": "data", "media": "media", "series": "series", "news": "news", "status": "status",
	"statuses": "status", "analyses": "analysis", "indices": "index", "bus": "bus", "gas": "gas",
	"born": "birth", "sold": "sell", "bought": "buy", "spent": "spend", "made": "make", "written": "write",
	"wrote": "write", "paid": "pay", "sent": "send", "gave": "give", "given": "give", "took": "take",
	"taken": "take", "got": "get", "came": "come", "done": "do", "did": "do", "does": "do", "has": "have",
	"had": "have", "was": "be", "were": "be", "is": "be", "are": "be", "been": "be", "am": "be",
}

func isAlpha(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// splitName splits an identifier into lower-case words: "HomeTeam"
// → home team, "page_count" → page count, "loan items" → loan
// items, "HTTPStatus" → http status, "address2" → address 2.
func splitName(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, fold(strings.ToLower(string(cur))))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// A new word starts at an upper-case letter after a lower-case
			// one, or before a lower-case one inside an acronym (HTTPStatus).
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

// stems maps words to their stems.
func stems(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = stem(w)
	}
	return out
}

// textKey is the lookup key of a value or phrase: the stems of its words,
// with "and"/"&" dropped so "Arts & Crafts" and "arts and crafts" agree.
func textKey(s string) string {
	toks := tokenize(s)
	parts := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.stem == "and" || t.sym {
			continue
		}
		parts = append(parts, t.stem)
	}
	return strings.Join(parts, " ")
}
