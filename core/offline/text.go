package offline

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/text"
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
func normQuestion(q string) string { return quoteMarks.Replace(q) }

// quoteMarks is built once: tokenize runs for every indexed value, and a
// Replacer's tables cost more than most texts it replaces in.
var quoteMarks = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "`", "'")

func tokenize(q string) []token {
	q = normQuestion(q)
	var out []token
	quote, quoteID := rune(0), 0
	quoteStart, quoteToks := 0, 0 // where the open quote's text starts; tokens before it
	i := 0
	first := true
	for i < len(q) {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case r == '"' || (r == '\'' && (quote == '\'' || opensQuote(q, i))):
			if quote == r {
				// A quoted value of symbols only ("%", "#") is kept whole
				// as one token: dropped, the question would lose its
				// filter and be answered for everything.
				if text := strings.TrimSpace(q[quoteStart:i]); len(out) == quoteToks && text != "" {
					tk := mkToken(text, first, quoteID, quote)
					tk.pos, tk.end = quoteStart, i
					out = append(out, tk)
					first = false
				}
				quote = 0
			} else if quote == 0 && strings.ContainsRune(q[i+size:], r) {
				quote = r
				quoteID++
				quoteStart, quoteToks = i+size, len(out)
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

// symbolKey is the key of a value with no words ("%", "#"): the key of the
// one token tokenize makes of it when a question quotes it.
func symbolKey(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return mkToken(s, false, 0, 0).stem
}

// textKey is the lookup key of a value or phrase: the stems of its words,
// with "and"/"&" dropped so "Food & Drink" and "food and drink" agree.
func textKey(s string) string { return tokensKey(tokenize(s)) }

// tokensKey is textKey of a text's tokens.
func tokensKey(toks []token) string {
	parts := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.stem == "and" || t.sym {
			continue
		}
		parts = append(parts, t.stem)
	}
	return strings.Join(parts, " ")
}

// stem, stems, splitName and fold are core/text's: one tokenizer and
// stemmer for the planner and the schema search.
func stem(w string) string { return stemMemo.get(w, text.Stem) }

// stems is text.Stems, through stem's memo.
func stems(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = stem(w)
	}
	return out
}

func splitName(name string) []string { return text.Words(name) }

func fold(s string) string { return text.Fold(s) }
