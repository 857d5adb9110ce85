package offline

import (
	"slices"

	"github.com/tablewise/tablewise/core/text"

	"sort"
	"strings"
)

// cue marks what a token does in a question.
type cue int

const (
	cueNone     cue = iota
	cueCount        // how many, number of, count
	cueAgg          // average, total, sum, max, min…
	cueSuper        // cheapest, most, top, highest…
	cueAdj          // the adjective after most/least (expensive, recent)
	cueN            // the N of "top N", "5 most expensive"
	cueGroup        // per, each, by, every
	cueDistinct     // different, distinct, unique
	cueBucket       // year(ly), month(ly)… as a grouping
	cueDate         // a year, a month name, a date
	cueCmp          // more than, over, under, at least…
	cueNumber       // the number of a comparison
	cueNeg          // not, never, except
	cueFiller       // function word or generic verb
	cueList         // list, show, which, who…
	cueExists       // with/without/has/have/used before a thing
	cueSort         // sorted by, sort by, in order of
	cueCurrent      // current, still, now, living: rows whose period is open
	cueFormer       // former, left, no longer: rows whose period has ended
)

// mention is a span of the question linked to the schema or the data.
type mention struct {
	start, end int // token span [start, end)
	// extra: tokens outside the span that complete the name ("cities …
	// billed" → billing city).
	extra []int
	cands []*cand
	// value: the span names a value found in the data.
	value bool
	// strong: a value mention that is quoted, capitalised, several words
	// long or in a short list of codes.
	strong bool
	used   bool
	// absorbed: the mention only supports another one ("shelf" in "the
	// Westerns shelf").
	absorbed bool
}

// absorbInto marks m as only supporting v, the value mention whose
// readings it boosted, and ranks v's readings again.
func (m *mention) absorbInto(v *mention) {
	m.absorbed = true
	m.used = true
	sortCands(v.cands)
}

// cand is one reading of a mention: a table, a column, or a value of a
// column.
type cand struct {
	t     *tableInfo
	c     *colInfo
	vals  []*valueRef // values (same column) for value mentions
	score float64
	// boosted: a word of the question next to the value names this
	// reading's column or table ("shipped to", "the … shelf").
	boosted bool
	// event: the table read as the event a date column of it records
	// ("rented" → the rentals), see eventDates.
	event bool
}

// sortCands orders readings best first, keeping the order of equal scores.
func sortCands(cs []*cand) {
	sort.SliceStable(cs, func(x, y int) bool { return cs[x].score > cs[y].score })
}

func (c *cand) String() string {
	switch {
	case len(c.vals) > 0:
		return c.c.String() + "=" + c.vals[0].text
	case c.c != nil:
		return c.c.String()
	default:
		return c.t.name
	}
}

// isTable: the candidate names a whole table (or, through a foreign key
// column, the table it points to).
func (c *cand) entity() *tableInfo {
	switch {
	case len(c.vals) > 0:
		return nil
	case c.c == nil:
		return c.t
	case c.c.fk != nil:
		return c.c.fk.to
	}
	return nil
}

// dateFilter is a time range asked for ("in 2023", "since 2024", "in
// December 2024").
type dateFilter struct {
	pos      int // token index of the year
	from, to string
	desc     string
	// noYear: the question named a month or day without its year; the
	// bounds carry a year offset until resolveYear places them.
	noYear bool
}

// numFilter is a comparison with a number ("over 100", "at least 5").
type numFilter struct {
	pos   int // token index of the comparison word
	op    cmpOp
	value float64
	// unitWord: the word after the number ("5 orders"), "" if none.
	unitPos int
}

// analysis is a linked question.
type analysis struct {
	question string
	text     string // normQuestion(question): token offsets point into it
	toks     []token
	cues     []cue
	aggAt    []aggFunc // per token, for cueAgg
	supAt    []superlative
	ments    []*mention
	at       []int // token → mention index, -1
	dates    []dateFilter
	nums     []numFilter
	buckets  []bucketCue
	topN     int
	sortPos  int    // the "by" of "sorted by", 0 if none
	refusal  string // why the question is out of scope, "" if not
	unknown  []int  // content tokens that link to nothing
	dayTok   []bool // tokens read by markDays
	// owner: tokens naming whoever keeps the database and its verb ("the
	// college offers"), never linked.
	owner []bool
	// freqVerb: the verb of "the most prescribed", 0 when none.
	freqVerb int
	// refusalAt: the token that gave the refusal.
	refusalAt int
}

type bucketCue struct {
	pos  int
	unit timeUnit
	// which: "which day", "in what year" — the period asked for.
	which bool
}

func (a *analysis) low(i int) string {
	if i < 0 || i >= len(a.toks) {
		return ""
	}
	return a.toks[i].low
}

// analyze links a question to the index.
func (ix *index) analyze(question string) *analysis {
	toks := categoryOf(mergePhrases(ix.correct(tokenize(question))))
	a := &analysis{question: question, text: normQuestion(question), toks: toks, cues: make([]cue, len(toks)), aggAt: make([]aggFunc, len(toks)),
		supAt: make([]superlative, len(toks)), at: make([]int, len(toks)), dayTok: make([]bool, len(toks)), owner: make([]bool, len(toks))}
	for i := range a.at {
		a.at[i] = -1
	}
	a.markCues()
	if a.refusal != "" && !strings.Contains(a.refusal, "change data") && ix.schemaWord(a.toks[a.refusalAt].stem) {
		// "the most common reason for a visit", "discount percentage":
		// the word names a column here, not a request to explain or
		// compute something.
		a.refusal = ""
	}
	ix.linkValues(a)
	ix.linkCountryNames(a)
	ix.linkWordValues(a)
	ix.linkPartialValues(a)
	ix.linkSchema(a)
	ix.mergeMentions(a)
	ix.absorbValueWords(a)
	ix.absorbValueNames(a)
	a.joinNameParts()
	ix.linkPeople(a)
	ix.linkRelated(a)
	ix.linkDestinations(a)
	a.eventDates()
	a.labelRows()
	ix.linkCodePlurals(a)
	ix.linkNamePrefix(a)
	a.yearSuperlatives()
	a.findUnknown()
	return a
}

// categoryOf reads "type of leave", "kinds of rooms" as "leave type",
// "room kinds": a category noun, "of" and a word become that word and the
// noun, as names write them.
func categoryOf(toks []token) []token {
	for i := 0; i+2 < len(toks); i++ {
		c, of, w := toks[i], toks[i+1], toks[i+2]
		if !categoryNouns[text.Singular(c.low)] || of.low != "of" || w.isNum || w.sym || w.quote > 0 || functionWords[w.low] {
			continue
		}
		out := append([]token(nil), toks[:i]...)
		out = append(out, w, c)
		toks = append(out, toks[i+3:]...)
	}
	return toks
}

// phraseStems: phraseSynonyms keyed by the stems of the phrase's words,
// so "job titles" merges like "job title".
var phraseStems = func() map[string]string {
	m := map[string]string{}
	for k, v := range phraseSynonyms {
		m[strings.Join(stems(strings.Fields(k)), " ")] = v
	}
	return m
}()

// mergePhrases applies phraseSynonyms: "file size" becomes one token
// "size", "signed up" one token "signup".
func mergePhrases(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		merged := false
		for n := 3; n >= 2 && !merged; n-- {
			if i+n > len(toks) {
				continue
			}
			parts := make([]string, n)
			for k := 0; k < n; k++ {
				parts[k] = toks[i+k].stem
			}
			to, ok := phraseStems[strings.Join(parts, " ")]
			// "went out of stock" is no sending.
			if ok && parts[n-1] == "out" && i+n < len(toks) && toks[i+n].low == "of" {
				ok = false
			}
			if ok {
				t := toks[i]
				t.raw = strings.Join(parts, " ")
				t.end = toks[i+n-1].end
				t.low, t.stem = to, stem(to)
				out = append(out, t)
				i += n - 1
				merged = true
			}
		}
		if !merged {
			out = append(out, toks[i])
		}
	}
	return out
}

func (a *analysis) markCues() {
	t := a.toks
	n := len(t)
	a.markDays()
	for i := 0; i < n; i++ {
		w := t[i].low
		if t[i].quote > 0 || a.dayTok[i] {
			continue
		}
		if why, ok := refuseWords[w]; ok && a.refusal == "" && !t[i].upper {
			a.refusal = why
			a.refusalAt = i
		}
		switch {
		case w == "how" && i+1 < n && (t[i+1].low == "many" || t[i+1].low == "much"):
			a.cues[i], a.cues[i+1] = cueCount, cueCount
			if t[i+1].low == "much" {
				a.cues[i+1] = cueAgg
				a.aggAt[i+1] = aggSum
			}
			i++
		case (w == "number" || w == "count" || w == "counts" || w == "numbers") && i+1 < n && t[i+1].low == "of":
			a.cues[i], a.cues[i+1] = cueCount, cueCount
			if i > 0 && a.low(i-1) == "total" {
				a.cues[i-1] = cueCount
			}
			i++
		case (w == "count" || w == "tally") && (i == 0 || a.cues[i-1] == cueFiller):
			a.cues[i] = cueCount
		case aggWords[w] != aggNone && !isSuperlative(w):
			a.cues[i] = cueAgg
			a.aggAt[i] = aggWords[w]
		case w == "in" && i+1 < n && t[i+1].low == "total":
			a.cues[i], a.cues[i+1] = cueFiller, cueAgg
			a.aggAt[i+1] = aggSum
			i++
		case w == "most" || w == "least":
			a.cues[i] = cueSuper
			a.supAt[i] = superlatives[w]
			if i+1 < n {
				if adj, ok := adjectives[t[i+1].low]; ok {
					s := adj
					if w == "least" {
						s.desc = !s.desc
					}
					a.supAt[i] = s
					a.cues[i+1] = cueAdj
					i++
				} else if t[i+1].low == "often" || t[i+1].low == "frequently" || t[i+1].low == "common" || t[i+1].low == "frequent" {
					a.cues[i+1] = cueAdj
					i++
				} else if pastParticiple(t[i+1]) && i+2 < n && !t[i+1].isNum {
					// "the most prescribed drugs", "the least rented
					// books": how often each was (rank decides, once it
					// knows whether the word is a flag: "the most
					// granted days").
					a.freqVerb = i + 1
				}
			}
		case w == "best" && i+1 < n && (t[i+1].low == "selling" || t[i+1].low == "sellers" || t[i+1].low == "seller"):
			a.cues[i], a.cues[i+1] = cueSuper, cueAdj
			a.supAt[i] = superlative{c: conceptSales, desc: true}
			i++
		case w == "top" && i+1 < n && (t[i+1].low == "selling" || t[i+1].low == "sellers"):
			a.cues[i], a.cues[i+1] = cueSuper, cueAdj
			a.supAt[i] = superlative{c: conceptSales, desc: true}
			i++
		case isSuperlative(w):
			a.cues[i] = cueSuper
			a.supAt[i] = superlatives[w]
			if aw := aggWords[w]; aw != aggNone {
				a.aggAt[i] = aw
			}
		case (w == "first" || w == "last" || w == "earliest" || w == "latest") && a.low(i+1) != "name" && a.low(i+1) != "names" && !(i+1 < n && t[i+1].isNum):
			a.cues[i] = cueSuper
			a.supAt[i] = superlative{c: conceptTime, desc: w == "last" || w == "latest"}
		case groupWords[w]:
			a.cues[i] = cueGroup
		case distinctWords[w]:
			a.cues[i] = cueDistinct
		case currentWords[w] && !(w == "now" && a.low(i-1) != "right" && a.low(i-1) != "until" && i+1 < n):
			a.cues[i] = cueCurrent
			if w == "now" && a.low(i-1) == "right" {
				a.cues[i-1] = cueFiller
			}
		case w == "at" && a.low(i+1) == "the" && a.low(i+2) == "moment":
			a.cues[i], a.cues[i+1], a.cues[i+2] = cueFiller, cueFiller, cueCurrent
			i += 2
		case formerWords[w] || w == "no" && a.low(i+1) == "longer":
			a.cues[i] = cueFormer
			if w == "no" {
				a.cues[i+1] = cueFiller
				i++
			}
		case negations[w]:
			a.cues[i] = cueNeg
		case timeUnits[w] != unitNone:
			a.cues[i] = cueBucket
		case months[w] != 0 && (w != "may" || (i+1 < n && isYear(t[i+1]))) && (i+1 < n && isYear(t[i+1]) || i > 0 && (a.low(i-1) == "in" || a.low(i-1) == "of" || a.low(i-1) == "during")):
			a.cues[i] = cueDate
		case isYear(t[i]) && !t[i].numWord:
			a.cues[i] = cueDate
		case comparatives[w] != "" && i+1 < n && (t[i+1].low == "than" || t[i+1].isNum):
			a.cues[i] = cueCmp
		case w == "at" && i+2 < n && (t[i+1].low == "least" || t[i+1].low == "most") && t[i+2].isNum:
			a.cues[i], a.cues[i+1] = cueCmp, cueCmp
			i++
		case (w == "sorted" || w == "sort" || w == "arranged" || w == "ranked") && i+1 < n && t[i+1].low == "by":
			a.cues[i], a.cues[i+1] = cueSort, cueSort
			a.sortPos = i + 1
			i++
		case w == "list" || w == "show" || w == "display" || w == "which" || w == "who" || w == "enumerate":
			a.cues[i] = cueList
		case (w == "with" || w == "without" || w == "having") && i+1 < n && (t[i+1].low == "a" || t[i+1].low == "an" || t[i+1].low == "no" || t[i+1].low == "any"):
			a.cues[i], a.cues[i+1] = cueExists, cueFiller
			i++
		case (w == "used" || w == "use" || w == "have" || w == "has" || w == "had" || w == "include" || w == "includes" || w == "including" || w == "contain" || w == "contains" || w == "got" || w == "get") && i+1 < n && (t[i+1].low == "a" || t[i+1].low == "an" || t[i+1].low == "no" || t[i+1].low == "any" || t[i+1].low == "some"):
			a.cues[i], a.cues[i+1] = cueExists, cueFiller
			i++
		}
	}
	// Numbers: top N, N most…, comparisons, plain numbers.
	for i := 0; i < n; i++ {
		if !t[i].isNum || a.cues[i] == cueDate || t[i].quote > 0 || a.dayTok[i] {
			continue
		}
		prev, next := a.low(i-1), a.low(i+1)
		switch {
		case prev == "top" || prev == "bottom" || prev == "first" || prev == "last":
			a.cues[i] = cueN
			a.topN = int(t[i].num)
			if prev == "top" || prev == "bottom" {
				a.cues[i-1] = cueSuper
				a.supAt[i-1] = superlatives[prev]
			} else {
				a.cues[i-1] = cueSuper
				a.supAt[i-1] = superlative{c: conceptTime, desc: prev == "last"}
			}
		case i+1 < n && (a.cues[i+1] == cueSuper || (next == "most" || next == "least")):
			a.cues[i] = cueN
			a.topN = int(t[i].num)
		case t[i].numWord && t[i].num == 1 && !(i+1 < n && a.cues[i+1] == cueSuper) && prev != "than" && !(i > 0 && a.cues[i-1] == cueCmp):
			// "one" as a pronoun
			a.cues[i] = cueFiller
		default:
			// A comparison: "over 100", "more than 5", "at least 3",
			// "between 10 and 20".
			j := i - 1
			if j >= 0 && t[j].low == "than" {
				j--
			}
			if j >= 0 && (a.cues[j] == cueCmp) {
				op := cmpOp(">")
				switch t[j].low {
				case "least":
					op = ">="
				case "most":
					op = "<="
				default:
					op = comparatives[t[j].low]
				}
				if t[j].low == "than" {
					op = comparatives[t[j-1].low]
				}
				a.cues[i] = cueNumber
				if i > 0 && t[i-1].low == "than" {
					a.cues[i-1] = cueCmp
				}
				a.nums = append(a.nums, numFilter{pos: j, op: op, value: t[i].num, unitPos: i + 1})
			} else if i >= 1 && t[i-1].low == "between" && i+2 < n && (t[i+1].low == "and" || t[i+1].low == "to") && t[i+2].isNum && !isYear(t[i]) {
				a.cues[i-1], a.cues[i], a.cues[i+1], a.cues[i+2] = cueCmp, cueNumber, cueFiller, cueNumber
				a.nums = append(a.nums, numFilter{pos: i - 1, op: ">=", value: t[i].num, unitPos: i + 3},
					numFilter{pos: i - 1, op: "<=", value: t[i+2].num, unitPos: i + 3})
				i += 2
			} else if t[i].numWord && i+1 < n {
				// "ten most recent": handled above; "three orders with the
				// highest fine": a count of rows to show.
				a.cues[i] = cueN
				a.topN = int(t[i].num)
			} else if !t[i].numWord && prev != "than" {
				// A bare number: "the 4 largest invoices" is caught above;
				// "which 3 products": the rows wanted.
				if i > 0 && (prev == "which" || prev == "the" || prev == "what" || prev == "are" || prev == "list" || prev == "show" || prev == "me") ||
					i == 0 && i+1 < n && !t[i+1].isNum && !unitWords[next] && timeUnits[next] == unitNone && hasSuperlative(a, i+1) {
					// "5 shops with the most sales": the rows
					// wanted.
					a.cues[i] = cueN
					a.topN = int(t[i].num)
				}
			}
		}
	}
	// Time ranges.
	a.markDates()
	// Buckets: "per year", "each month", "by month", "yearly", "monthly".
	for i := 0; i < n; i++ {
		if a.cues[i] != cueBucket {
			continue
		}
		u := timeUnits[t[i].low]
		adjForm := strings.HasSuffix(t[i].low, "ly") || t[i].low == "annual"
		prevGroup := i > 0 && a.cues[i-1] == cueGroup || i > 1 && a.cues[i-2] == cueGroup && (a.low(i-1) == "the" || a.low(i-1) == "a")
		prevWhich := i > 0 && (a.low(i-1) == "which" || a.low(i-1) == "what")
		if prevWhich {
			a.buckets = append(a.buckets, bucketCue{pos: i, unit: u, which: true})
			a.cues[i-1] = cueFiller
			if a.low(i-2) == "in" || a.low(i-2) == "on" || a.low(i-2) == "during" {
				a.cues[i-2] = cueFiller
			}
		} else if adjForm || prevGroup {
			a.buckets = append(a.buckets, bucketCue{pos: i, unit: u})
			if prevGroup {
				if a.cues[i-1] == cueGroup {
					a.cues[i-1] = cueFiller
				} else {
					a.cues[i-2] = cueFiller
				}
			}
		} else {
			a.cues[i] = cueNone
		}
	}
	for i := 0; i < n; i++ {
		if a.cues[i] == cueNone && t[i].quote == 0 && (lexicon().fillers[t[i].low] || t[i].sym) {
			a.cues[i] = cueFiller
		}
	}
	// "does the college offer", "our firm employs": the organisation
	// that keeps the database, with its verb, even when a column shares
	// its name.
	for i := 1; i+1 < n; i++ {
		if a.owner != nil && ownerWords[t[i].stem] && t[i].quote == 0 && (a.low(i-1) == "the" || a.low(i-1) == "our" || a.low(i-1) == "this") &&
			ownerFollow[a.low(i+1)] {
			a.cues[i], a.cues[i+1] = cueFiller, cueFiller
			a.owner[i], a.owner[i+1] = true, true
		}
	}
}

// hasSuperlative: a superlative word follows token i.
func hasSuperlative(a *analysis, i int) bool {
	for k := i; k < len(a.toks); k++ {
		if isSuperlative(a.toks[k].low) {
			return true
		}
	}
	return false
}

func isSuperlative(w string) bool {
	_, ok := superlatives[w]
	return ok
}

func isYear(t token) bool {
	return t.isNum && !t.numWord && t.num >= 1900 && t.num <= 2100 && t.num == float64(int(t.num)) && !strings.Contains(t.raw, ".") && !strings.Contains(t.raw, ",")
}

// markDates reads "in 2023", "since 2024", "after 2019", "before 2020",
// "between 2021 and 2023", "in December 2024", "in 2024-03".
func (a *analysis) markDates() {
	t := a.toks
	for i := 0; i < len(t); i++ {
		if a.cues[i] != cueDate || !isYear(t[i]) || a.dayTok[i] {
			continue
		}
		year := int(t[i].num)
		month := 0
		start := i
		if i > 0 && a.cues[i-1] == cueDate && months[t[i-1].low] != 0 {
			month = months[t[i-1].low]
			start = i - 1
		} else if i+1 < len(t) && t[i+1].isNum && !t[i+1].numWord && t[i+1].num >= 1 && t[i+1].num <= 12 && len(t[i+1].raw) == 2 {
			month = int(t[i+1].num) // 2024-03
			a.cues[i+1] = cueDate
		}
		prep := a.low(start - 1)
		if prep == "of" || prep == "the" {
			prep = a.low(start - 2)
		}
		from, to := yearRange(year, month)
		df := dateFilter{pos: i, from: from, to: to, desc: describeRange(year, month)}
		switch prep {
		case "since", "from":
			if prep == "from" && i+2 < len(t) && (t[i+1].low == "to" || t[i+1].low == "until" || t[i+1].low == "through") && isYear(t[i+2]) {
				_, to2 := yearRange(int(t[i+2].num), 0)
				df.to, df.desc = to2, describeRange(year, month)+" to "+t[i+2].raw
				a.cues[i+1], a.cues[i+2] = cueFiller, cueDate
				i += 2
				break
			}
			df.to, df.desc = "", "since "+describeRange(year, month)
		case "after":
			df.from, df.to, df.desc = to, "", "after "+describeRange(year, month)
		case "before", "until", "till", "prior":
			df.from, df.to, df.desc = "", from, "before "+describeRange(year, month)
		case "between":
			if i+2 < len(t) && (t[i+1].low == "and" || t[i+1].low == "to") && isYear(t[i+2]) {
				_, to2 := yearRange(int(t[i+2].num), 0)
				df.to, df.desc = to2, "between "+t[i].raw+" and "+t[i+2].raw
				a.cues[i+1], a.cues[i+2] = cueFiller, cueDate
				i += 2
			}
		}
		if start > 0 && (prep == "since" || prep == "after" || prep == "before" || prep == "between" || prep == "until" || prep == "till" || prep == "from") {
			a.cues[start-1] = cueFiller
		}
		a.dates = append(a.dates, df)
	}
}

func yearRange(year, month int) (string, string) {
	if month == 0 {
		return pad4(year) + "-01-01", pad4(year+1) + "-01-01"
	}
	y2, m2 := year, month+1
	if m2 == 13 {
		y2, m2 = year+1, 1
	}
	return pad4(year) + "-" + pad2(month) + "-01", pad4(y2) + "-" + pad2(m2) + "-01"
}

func describeRange(year, month int) string {
	if month == 0 {
		return pad4(year)
	}
	return monthNames[month-1] + " " + pad4(year)
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

func pad4(n int) string {
	s := itoa(n)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

func pad2(n int) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// linkable reports whether token i may be part of a schema or value
// mention.
func (a *analysis) linkable(i int) bool {
	if a.owner != nil && a.owner[i] {
		return false
	}
	switch a.cues[i] {
	case cueNone, cueFiller:
		return true
	case cueAgg:
		// "total" is also the name of many columns.
		return a.toks[i].low == "total" || a.toks[i].low == "sum"
	case cueList:
		return a.toks[i].low == "name"
	case cueBucket:
		return false
	}
	return false
}

// linkValues finds the longest phrases of the question that are values of
// indexed columns.
func (ix *index) linkValues(a *analysis) {
	t := a.toks
	n := len(t)
	ix.linkCodes(a)
	for i := 0; i < n; i++ {
		if a.at[i] >= 0 {
			continue
		}
		for l := min(ix.values.longest+2, n-i); l >= 1; l-- {
			// Spans are made of linkable tokens (a quoted phrase always is).
			ok := true
			for k := i; k < i+l; k++ {
				// "the Honour List": a listing word may end a name of
				// several words.
				inName := l > 1 && k > i && a.cues[k] == cueList
				if a.at[k] >= 0 || (!a.linkable(k) && t[k].quote == 0 && !inName) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			// A quoted phrase is matched whole or not at all.
			if t[i].quote > 0 && (i > 0 && t[i-1].quote == t[i].quote || i+l < n && t[i+l-1].quote == t[i+l].quote) {
				continue
			}
			key, words := spanKey(t[i : i+l])
			if words == 0 {
				continue
			}
			refs := ix.values.byKey[key]
			if len(refs) == 0 {
				continue
			}
			// A single common word is a value only when it can be nothing
			// else: never a function word or a number; a generic word only
			// in a short list of codes (statuses, types).
			quoted := t[i].quote > 0
			if l == 1 && !quoted {
				w := t[i]
				if w.isNum || functionWords[w.low] || len(w.low) < 2 {
					continue
				}
				enum := false
				for _, r := range refs {
					if r.col.distinct > 0 && r.col.distinct <= 60 {
						enum = true
					}
				}
				if !enum && !w.upper && (lexicon().fillers[w.low] || lexicon().fillerStems[w.stem]) {
					continue
				}
				// "shipping cost", "ship country": the word starts or ends a
				// schema name, which wins over a lone code.
				if !w.upper && ix.partOfName(a, i) {
					continue
				}
				// "retired in 2022": a verb naming a date column, with a
				// time range after it, is the event that date records, not
				// the status of the same name.
				if ix.namesDateBeforeRange(a, i) {
					continue
				}
				// "customers with a phone": after have/with/without, a word
				// that names a column is that column, not a code.
				if k := i - 1; k >= 0 && ix.schemaWord(w.stem) {
					if a.cues[k] == cueFiller && k > 0 && a.cues[k-1] == cueExists || a.cues[k] == cueExists {
						continue
					}
				}
			}
			if !quoted && l > 1 && (functionWords[t[i].low] || functionWords[t[i+l-1].low]) && !t[i].upper {
				continue
			}
			upper := false
			for k := i; k < i+l; k++ {
				if t[k].upper {
					upper = true
				}
			}
			m := &mention{start: i, end: i + l, value: true}
			// Group the refs by column.
			byCol := map[*colInfo]*cand{}
			var order []*colInfo
			for _, r := range refs {
				c := byCol[r.col]
				if c == nil {
					c = &cand{t: r.col.tab, c: r.col, score: 1}
					byCol[r.col] = c
					order = append(order, r.col)
				}
				c.vals = append(c.vals, r)
			}
			for _, col := range order {
				c := byCol[col]
				// Short code lists (statuses, types) are what people filter
				// by; long lists of names need a capital or quotes.
				switch {
				case quoted:
					c.score = 1.2
				case col.distinct > 0 && col.distinct <= 60 && !isPersonName(col):
					c.score = 1.0
				case upper || l > 1:
					c.score = 0.9
				default:
					c.score = 0.5
				}
				// The name of a thing others point at (an artist, a
				// category) is a likelier reading than the same words in a
				// free-text column (a credits list).
				isLabel := len(col.tab.label) == 1 && col.tab.label[0] == col
				if isLabel && len(col.tab.in) > 0 {
					c.score += 0.15
				} else if !isLabel && col.distinct > 300 {
					c.score -= 0.15
				}
				m.cands = append(m.cands, c)
			}
			m.strong = quoted || upper || l > 1
			for _, c := range m.cands {
				if c.score >= 1.0 {
					m.strong = true
				}
			}
			if l == 1 && !quoted && !upper {
				// A lone lower-case word that names a table ("staff",
				// "players") is that table, not a value that happens to be
				// spelled alike; and a word that only shares a stem with
				// the value ("plan" and 'Planned') is weak.
				if ix.tableWords[t[i].stem] {
					continue
				}
				same, tense := false, false
				for _, c := range m.cands {
					for _, v := range c.vals {
						if strings.EqualFold(v.text, t[i].raw) {
							same = true
						}
						// "closing" is not 'Closed'.
						if strings.HasSuffix(t[i].low, "ing") != strings.HasSuffix(strings.ToLower(v.text), "ing") {
							tense = true
						}
					}
				}
				if !same && tense {
					continue
				}
				// A proper name takes no inflection: a past tense
				// ("marked") is not a first name of the same stem.
				if !same && t[i].low != t[i].stem && slices.ContainsFunc(m.cands, func(c *cand) bool { return isPersonName(c.c) }) {
					continue
				}
				if !same {
					m.strong = false
				}
			}
			sortCands(m.cands)
			// A weak single word that is also a schema word is left to the
			// schema ("phone" the column, not "phone" the sales route), unless
			// the column is a short code list.
			if !m.strong && ix.schemaWord(t[i].stem) {
				continue
			}
			for k := i; k < i+l; k++ {
				if a.cues[k] == cueList {
					a.cues[k] = cueNone
				}
			}
			// "premium class", "deluxe type": a category noun after a
			// value of a short list is part of it.
			if e := i + l; e < n && a.at[e] < 0 && categoryNouns[text.Singular(t[e].low)] {
				for _, c := range m.cands {
					if c.c.distinct > 0 && c.c.distinct <= 60 {
						m.end = e + 1
						l++
						break
					}
				}
			}
			a.addMention(m)
			i += l - 1
			break
		}
	}
}

// namesDateBeforeRange reports whether token i names a date column (by
// its name, a derived word or a synonym: "retired" for retireYear) and a
// time range follows it within two words ("retired in 2022").
func (ix *index) namesDateBeforeRange(a *analysis, i int) bool {
	follows := false
	for k := i + 1; k <= i+3 && k < len(a.toks); k++ {
		if a.cues[k] == cueDate {
			follows = true
			break
		}
		if !functionWords[a.low(k)] {
			break
		}
	}
	if !follows {
		return false
	}
	st := a.toks[i].stem
	for _, t := range ix.s.tables {
		for _, c := range t.cols {
			for _, w := range c.dateWords() {
				if wordMatch(st, w) >= 0.6 {
					return true
				}
				if r := text.Related(st, w); r == text.Synonym || r == text.DerivedForm {
					return true
				}
			}
		}
	}
	return false
}

// linkCodes links a code written in two parts ("econ 101", "CS 101")
// to a value stored in one ("HIST204"): a word and the whole number after
// it, read together.
func (ix *index) linkCodes(a *analysis) {
	t := a.toks
	for i := 0; i+1 < len(t); i++ {
		w, num := t[i], t[i+1]
		if a.at[i] >= 0 || a.at[i+1] >= 0 || w.isNum || w.sym || !isLetters(w.low) || functionWords[w.low] ||
			!num.isNum || num.numWord || strings.ContainsAny(num.raw, ".,") || isYear(num) {
			continue
		}
		refs := ix.values.byKey[stem(w.low+num.raw)]
		if len(refs) == 0 {
			continue
		}
		a.addMention(&mention{start: i, end: i + 2, value: true, strong: true, cands: valueCands(refs, 1)})
		a.cues[i], a.cues[i+1] = cueNone, cueNone
		i++
	}
}

// partOfName reports whether token i, with its neighbour, names a table or
// column ("shipping cost", "ship country").
func (ix *index) partOfName(a *analysis, i int) bool {
	t := a.toks
	for _, span := range [][2]int{{i, i + 2}, {i - 1, i + 1}} {
		if span[0] < 0 || span[1] > len(t) {
			continue
		}
		ok := true
		for k := span[0]; k < span[1]; k++ {
			if t[k].isNum || t[k].sym || functionWords[t[k].low] || a.cues[k] != cueNone && a.cues[k] != cueFiller {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if ix.nameOnlyScore(t[span[0]:span[1]]) >= 0.6 {
			return true
		}
	}
	return false
}

// nameOnlyScore is the best score of a span against table and column
// names, comments left out.
func (ix *index) nameOnlyScore(span []token) float64 {
	best := 0.0
	if len(span) == 0 {
		return 0
	}
	for _, h := range ix.lookupHits(span[0].stem) {
		tb := ix.s.tables[h.t]
		best = max(best, nameScore(span, tb.words, nil))
		for _, c := range tb.cols {
			if c.kind == kindID && c.fk == nil {
				continue
			}
			best = max(best, nameScore(span, trimID(c.words), nil))
			if c.kind != kindBool {
				best = max(best, qualifiedScore(span, tb.words, trimID(c.words)))
			}
		}
	}
	return best
}

// spanKey is textKey for tokens.
func spanKey(ts []token) (string, int) {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		if t.stem == "and" || t.sym {
			continue
		}
		parts = append(parts, t.stem)
	}
	return strings.Join(parts, " "), len(parts)
}

func (a *analysis) addMention(m *mention) {
	idx := len(a.ments)
	a.ments = append(a.ments, m)
	for k := m.start; k < m.end; k++ {
		a.at[k] = idx
	}
	sort.SliceStable(a.ments, func(i, j int) bool { return a.ments[i].start < a.ments[j].start })
	a.reindex()
}

// reindex rebuilds the token → mention map.
func (a *analysis) reindex() {
	for k := range a.at {
		a.at[k] = -1
	}
	for mi, mm := range a.ments {
		for k := mm.start; k < mm.end; k++ {
			a.at[k] = mi
		}
		for _, k := range mm.extra {
			a.at[k] = mi
		}
	}
}

// linkSchema links the remaining words to tables and columns.
func (ix *index) linkSchema(a *analysis) {
	t := a.toks
	n := len(t)
	for i := 0; i < n; i++ {
		if a.at[i] >= 0 || !a.linkable(i) || t[i].sym || t[i].isNum {
			continue
		}
		var best *mention
		bestScore := 0.0
		for l := min(4, n-i); l >= 1; l-- {
			ok := true
			for k := i; k < i+l; k++ {
				// Spans are runs of content words: no number, no function
				// word, no filler that names nothing in the schema.
				if a.at[k] >= 0 || !a.linkable(k) || t[k].isNum || t[k].sym || functionWords[t[k].low] ||
					a.cues[k] == cueFiller && !ix.schemaWord(t[k].stem) {
					ok = false
					break
				}
				// "the most rented books": the verb stands alone.
				if a.freqVerb > 0 && k == a.freqVerb && l > 1 {
					ok = false
					break
				}
				// "total fine": an aggregate word only ends a name
				// ("invoice total"), it never starts one.
				if l > 1 && k < i+l-1 && a.cues[k] == cueAgg {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			cands := ix.schemaCands(t[i : i+l])
			if l == 1 && a.cues[i] == cueAgg {
				// "total" names a column only when one is called that.
				var exact []*cand
				for _, c := range cands {
					if c.c != nil && len(c.c.words) == 1 && c.c.words[0] == t[i].stem {
						exact = append(exact, c)
					}
				}
				cands = exact
			}
			if len(cands) == 0 {
				continue
			}
			// A span of generic words ("used", "number") names a column
			// only when it is the column's whole name.
			allFiller := true
			for k := i; k < i+l; k++ {
				if !lexicon().fillers[t[k].low] {
					allFiller = false
				}
			}
			if allFiller && (cands[0].score < 1 || !namesLiterally(t[i:i+l], cands[0])) {
				continue
			}
			// "parcels shipped out of …": a past participle after a noun
			// begins a clause about it; it ends a name only as one of the
			// name's own words ("items returned" → a returned flag).
			if last := t[i+l-1]; l > 1 && strings.HasSuffix(last.low, "ed") && last.low != last.stem &&
				!slices.ContainsFunc(cands, func(c *cand) bool { return namesLiterally(t[i+l-1:i+l], c) }) {
				continue
			}
			s := cands[0].score * (1 + 0.3*float64(l-1))
			if best == nil || s > bestScore+1e-9 {
				best = &mention{start: i, end: i + l, cands: cands}
				bestScore = s
			}
		}
		if best != nil {
			a.addMention(best)
			i = best.end - 1
		}
	}
}

// mergeMentions joins two nearby mentions that together name one column
// better than either alone: "copies … on hand" → copies_on_hand,
// "cities … born" → birth_city. Only fillers may lie between them; a value mention
// joins only when it is a single lower-case word.
func (ix *index) mergeMentions(a *analysis) {
	for changed := true; changed; {
		changed = false
		for i := 0; i+1 < len(a.ments) && !changed; i++ {
			m1, m2 := a.ments[i], a.ments[i+1]
			if m2.start-m1.end > 4 || (m1.value && m2.value) {
				continue
			}
			between := true
			for k := m1.end; k < m2.start; k++ {
				if a.cues[k] != cueFiller {
					between = false
				}
			}
			// "product price": a table name directly before a noun names
			// that table's column; "tracks composed by" does not.
			// English compounds take the modifier in the singular: "product
			// price" is a compound, "products cost" a subject and a verb.
			mod := a.toks[m1.end-1].low
			compound := m2.start == m1.end && !m1.value && !m2.value && !strings.HasSuffix(a.toks[m2.start].low, "ed") &&
				text.Singular(mod) == mod
			if !between || !compound && (!mergeable(a, m1) || !mergeable(a, m2)) {
				continue
			}
			var content []token
			for k := m1.start; k < m1.end; k++ {
				content = append(content, a.toks[k])
			}
			for k := m2.start; k < m2.end; k++ {
				content = append(content, a.toks[k])
			}
			cands := ix.schemaCands(content)
			if len(cands) == 0 {
				continue
			}
			best := 0.0
			for _, m := range []*mention{m1, m2} {
				if !m.value && len(m.cands) > 0 {
					best = max(best, m.cands[0].score)
				}
			}
			if compound && len(m2.cands) > 0 && cands[0].c != nil && cands[0].c.tab == m1.cands[0].entity() {
				// Judged against the head noun: "price" alone.
				best = m2.cands[0].score
			}
			// Only column readings merge: two tables side by side are two
			// things.
			if cands[0].c == nil || cands[0].score*1.1 <= best+0.05 {
				continue
			}
			merged := &mention{start: m1.start, end: m2.end, cands: cands}
			a.ments = append(a.ments[:i], append([]*mention{merged}, a.ments[i+2:]...)...)
			a.reindex()
			changed = true
		}
	}
	// A free word nearby may complete a column name: "cities … billed" is
	// the billing city, "cities … born in" the birth city.
	for _, m := range a.ments {
		if m.value || len(m.cands) == 0 {
			continue
		}
		best := m.cands[0].score
		for k := max(0, m.start-5); k < min(len(a.toks), m.end+5); k++ {
			if a.at[k] >= 0 || functionWords[a.toks[k].low] || a.toks[k].isNum || a.toks[k].sym || (a.cues[k] != cueNone && a.cues[k] != cueFiller) {
				continue
			}
			var content []token
			for j := m.start; j < m.end; j++ {
				content = append(content, a.toks[j])
			}
			content = append(content, a.toks[k])
			cands := ix.schemaCands(content)
			if len(cands) == 0 || cands[0].c == nil || cands[0].score*1.1 <= best+0.05 {
				continue
			}
			m.cands = cands
			m.extra = append(m.extra, k)
			best = cands[0].score
			a.reindex()
		}
	}
}

func mergeable(a *analysis, m *mention) bool {
	if !m.value {
		// A table named exactly is a thing of its own ("tracks composed
		// by …" is not the composer column).
		return len(m.cands) == 0 || m.cands[0].c != nil || m.cands[0].score < 1.15
	}
	return m.end-m.start == 1 && !a.toks[m.start].upper && a.toks[m.start].quote == 0
}

// absorbValueNames: a table or column named right next to a value says
// where the value is: "the Westerns shelf", "genre Westerns", "status
// delivered". The reading in that table wins and the name is absorbed.
func (ix *index) absorbValueNames(a *analysis) {
	for i, m := range a.ments {
		if !m.value || m.absorbed {
			continue
		}
		for _, j := range []int{i + 1, i - 1} {
			if j < 0 || j >= len(a.ments) || a.ments[j].value || a.ments[j].absorbed {
				continue
			}
			o := a.ments[j]
			lo, hi := m.end, o.start
			if j < i {
				lo, hi = o.end, m.start
			}
			if hi-lo > 1 || hi-lo == 1 && !functionWords[a.toks[lo].low] && !namingWords[a.toks[lo].low] {
				continue
			}
			// A table name must touch the value ("the Westerns shelf",
			// "course called Algebra"): "books by Tolkien" relates
			// two things. A column name may sit across a preposition
			// ("composed by", "billed to").
			tableOK := hi == lo || namingWords[a.toks[lo].low] || a.toks[lo].low == "the"
			hit := false
			for _, vc := range m.cands {
				for _, sc := range o.cands {
					if sc.score < o.cands[0].score-0.2 {
						break
					}
					// A part of a label counts: "pupil Ada" names a pupil
					// by a first name.
					isLabel := slices.Contains(vc.c.tab.label, vc.c)
					byTable := tableOK && isLabel && (sc.c == nil && sc.t == vc.c.tab || sc.c != nil && sc.c.fk != nil && sc.c.fk.to == vc.c.tab)
					if byTable || sc.c == vc.c {
						vc.score += 0.5
						vc.boosted = true
						hit = true
						break
					}
				}
			}
			if hit {
				o.absorbInto(m)
				break
			}
		}
	}
}

// joinNameParts reads a first name and the last name right after it
// ("Ada Lovelace") as one person's: the readings of each keep to the
// tables where both are names, and a table the question named for one
// ("pupil Ada Lovelace") holds the other too.
func (a *analysis) joinNameParts() {
	for i := 0; i+1 < len(a.ments); i++ {
		m1, m2 := a.ments[i], a.ments[i+1]
		if !m1.value || !m2.value || m2.start != m1.end {
			continue
		}
		names := func(m *mention) map[*tableInfo]*cand {
			out := map[*tableInfo]*cand{}
			for _, c := range m.cands {
				if slices.Contains(c.c.tab.label, c.c) && len(c.c.tab.label) > 1 {
					if out[c.c.tab] == nil {
						out[c.c.tab] = c
					}
				}
			}
			return out
		}
		n1, n2 := names(m1), names(m2)
		shared := false
		for t, c1 := range n1 {
			c2 := n2[t]
			if c2 == nil || c1.c == c2.c {
				continue
			}
			shared = true
			if c1.boosted != c2.boosted {
				c1.boosted, c2.boosted = true, true
				c1.score = max(c1.score, c2.score)
				c2.score = c1.score
			}
		}
		if !shared {
			continue
		}
		keep := func(m *mention, n, o map[*tableInfo]*cand) {
			var out []*cand
			for _, c := range m.cands {
				if n[c.c.tab] == c && o[c.c.tab] != nil {
					out = append(out, c)
				}
			}
			sortCands(out)
			m.cands = out
		}
		keep(m1, n1, n2)
		keep(m2, n2, n1)
	}
}

// namingWords introduce a name: "a course called Algebra".
var namingWords = map[string]bool{"called": true, "named": true, "titled": true, "entitled": true}

// absorbValueWords: a lone lower-case code word next to another value whose
// column it names is part of that phrase, not a filter of its own:
// "shipped to Peru" is the ship country Peru, not status "shipped".
func (ix *index) absorbValueWords(a *analysis) {
	for i, m := range a.ments {
		// "orders shipped to Peru": a verb naming a date (a shipping date)
		// right before the value is part of it too.
		verb := !m.value && m.end-m.start == 1 && len(m.extra) == 0 && len(m.cands) > 0 && m.cands[0].c != nil && m.cands[0].c.kind == kindDate
		if !verb && (!m.value || !mergeable(a, m)) {
			continue
		}
		st := a.toks[m.start].stem
		for _, j := range []int{i - 1, i + 1} {
			if verb && j < i {
				continue
			}
			if j < 0 || j >= len(a.ments) || !a.ments[j].value {
				continue
			}
			o := a.ments[j]
			gap := o.start - m.end
			if j < i {
				gap = m.start - o.end
			}
			if gap > 2 {
				continue
			}
			hit := false
			for _, c := range o.cands {
				ws := c.c.words
				if len(c.c.tab.label) == 1 && c.c.tab.label[0] == c.c {
					// "shipped by Acme Post": the shipper's name.
					ws = append(append([]string(nil), ws...), c.c.tab.words...)
				}
				for _, w := range ws {
					if wordMatch(st, w) >= 0.7 {
						c.score += 0.2
						c.boosted = true
						hit = true
						break
					}
				}
			}
			if hit {
				m.absorbInto(o)
				break
			}
		}
	}
}

// schemaWord reports whether a stem names some table or column (exactly or
// as a synonym).
func (ix *index) schemaWord(s string) bool {
	return ix.words[s]
}

// schemaCands scores the tables and columns that share a word with a
// span of tokens (nameLookup) against it. Every content token of the span
// must match a word of the name.
func (ix *index) schemaCands(span []token) []*cand {
	var out []*cand
	content := ix.content(span)
	if len(content) == 0 {
		return nil
	}
	for _, h := range ix.lookupHits(content[0].stem) {
		tb := ix.s.tables[h.t]
		if h.all {
			out = scoreTable(out, content, tb, tb.cols)
			continue
		}
		// No word of the table's name matches: neither the table nor a
		// column qualified by it can score, only the columns that hold
		// a matching word.
		cols := make([]*colInfo, len(h.cols))
		for i, c := range h.cols {
			cols[i] = tb.cols[c]
		}
		out = scoreTable(out, content, tb, cols)
	}
	return keepClose(boostHeadNoun(content, out))
}

// boostHeadNoun: "members" for team_member — the one table whose name
// ends in the word, when no table is that word alone, is named by it,
// above a reference to it in another table (activity.member_id).
func boostHeadNoun(content []token, out []*cand) []*cand {
	var head *cand
	heads := 0
	for _, cd := range out {
		if cd.c != nil {
			continue
		}
		if cd.score >= 1.2 {
			return out
		}
		if headNamed(content, cd.t.raw) {
			head = cd
			heads++
		}
	}
	if heads == 1 {
		head.score = max(head.score, 1.15)
	}
	return out
}

// scoreTable appends to out the candidates of table tb and of its
// columns cols for the content tokens of a span.
func scoreTable(out []*cand, content []token, tb *tableInfo, cols []*colInfo) []*cand {
	if sc := nameScore(content, tb.words, nil); sc > 0 {
		if tb.view {
			sc -= 0.15
		}
		out = append(out, &cand{t: tb, score: sc})
	}
	for _, c := range cols {
		if c.kind == kindBlob {
			continue
		}
		words := c.words
		if c.kind == kindID && c.fk == nil && !c.isPK && !c.selfRef {
			continue
		}
		if c.isPK && c.kind == kindID && c.fk == nil {
			// "order id", "invoice number": the key itself.
			continue
		}
		tw := trimID(words)
		sc := nameScore(content, tw, c.comment)
		if tu := trimUnit(tw); len(tu) < len(tw) {
			// "tips" for tipEUR, "weights" for weightKg.
			sc = max(sc, nameScore(content, tu, nil))
		}
		if cs := categoryScore(content, c); cs > sc {
			sc = cs
		}
		if dw := c.dateWords(); dw != nil {
			if d := nameScore(content, dw, nil); d > sc {
				sc = d
			}
		}
		// Qualified by the table name: "invoice total", "review rating"
		// (not flags: "overdue loans" are loans that are).
		if q := qualifiedScore(content, tb.words, tw); q > sc && c.kind != kindBool {
			sc = q
		}
		if c.fk != nil {
			// "authors" names the table better than author_id.
			sc *= 0.92
		}
		if sc > 0 {
			if tb.view {
				sc -= 0.15
			}
			out = append(out, &cand{t: tb, c: c, score: sc})
			// "the average mark": a letter mark kept next to its
			// points (mark, mark_points) is averaged as the points.
			if tw := numericTwin(c); tw != nil {
				out = append(out, &cand{t: tb, c: tw, score: sc - 0.05})
			}
			// "the most common reason": a code kept next to its
			// description is read as the description.
			if d := describedBy(c); d != nil {
				out = append(out, &cand{t: tb, c: d, score: sc + 0.01})
			}
		}
	}
	return out
}

// keepClose sorts candidates by score and keeps those close to the best.
func keepClose(out []*cand) []*cand {
	sortCands(out)
	// Keep the close ones.
	if len(out) > 0 {
		top := out[0].score
		k := 0
		for k < len(out) && out[k].score >= top-0.35 && out[k].score >= 0.45 {
			k++
		}
		out = out[:k]
	}
	return out
}

// headNamed: content is one noun, the last word (the head noun) of a
// table name of several words or its plural ("members" for team_member;
// not the verb "listed" for a play_list table).
func headNamed(content []token, raw []string) bool {
	if len(content) != 1 || len(raw) < 2 {
		return false
	}
	w, h := content[0].low, raw[len(raw)-1]
	h = strings.TrimSuffix(h, "s")
	return w == h || w == h+"s" || w == h+"es" || strings.HasSuffix(h, "y") && w == h[:len(h)-1]+"ies"
}

// content is the tokens of a span that may name something: all but the
// fillers that are no word of a name.
func (ix *index) content(span []token) []token {
	var out []token
	for _, t := range span {
		if !lexicon().fillers[t.low] || ix.schemaWord(t.stem) {
			out = append(out, t)
		}
	}
	return out
}

// describedBy: the column that describes code column c in words
// (reason_code → reason_description), or nil.
func describedBy(c *colInfo) *colInfo {
	if len(c.words) < 2 || c.words[len(c.words)-1] != "code" && c.words[len(c.words)-1] != "cd" || c.isPK || c.fk != nil || c.kind != kindText {
		return nil
	}
	stemWords := c.words[:len(c.words)-1]
	for _, o := range c.tab.cols {
		if o == c || o.kind != kindText || len(o.words) != len(stemWords)+1 || !sameWords(o.words[:len(stemWords)], stemWords) {
			continue
		}
		if hasPrefixAny(o.raw[len(o.raw)-1], "description", "desc", "name", "label", "text") {
			return o
		}
	}
	return nil
}

// numericTwin: the one number column of c's table whose name is c's
// name and one more word (grade → grade points, size → size_kb), when c
// holds text; else nil.
func numericTwin(c *colInfo) *colInfo {
	if c.kind != kindText || c.fk != nil {
		return nil
	}
	var twin *colInfo
	for _, o := range c.tab.cols {
		if o == c || o.kind != kindNumber || len(o.words) != len(c.words)+1 || !sameWords(o.words[:len(c.words)], c.words) {
			continue
		}
		if twin != nil {
			return nil
		}
		twin = o
	}
	return twin
}

// unitSuffixes end a column name with the unit its numbers are in.
var unitSuffixes = map[string]bool{"usd": true, "eur": true, "gbp": true, "hrs": true, "hr": true, "kg": true, "km": true,
	"mins": true, "secs": true, "cents": true, "pct": true, "lbs": true}

// trimUnit drops a trailing unit word: tipEUR names a tip.
func trimUnit(words []string) []string {
	if len(words) > 1 && unitSuffixes[words[len(words)-1]] {
		return words[:len(words)-1]
	}
	return words
}

// categoryNouns name a kind of thing: "room class", "visit type".
var categoryNouns = map[string]bool{"class": true, "type": true, "kind": true, "category": true, "tier": true, "sort": true}

// categoryScore: "room class" names a short list of text values whose
// column starts with "room" (room_grade), whatever its last word: a
// category noun after the column's leading words.
func categoryScore(content []token, c *colInfo) float64 {
	if len(content) < 2 || !categoryNouns[text.Singular(content[len(content)-1].low)] || c.kind != kindText || c.fk != nil ||
		c.distinct <= 0 || c.distinct > 60 || len(c.words) < 2 {
		return 0
	}
	front := content[:len(content)-1]
	if len(front) != len(c.words)-1 {
		return 0
	}
	for i, t := range front {
		if wordMatch(t.stem, c.words[i]) < 0.85 {
			return 0
		}
	}
	return 1.1
}

// trimID drops a trailing word that only says what kind of column it is:
// author_id names an author, shift_code a shift, retired_flag being retired.
func trimID(words []string) []string {
	if len(words) > 1 {
		switch words[len(words)-1] {
		case "id", "code", "cd", "flag", "flg", "ind", "indic":
			return words[:len(words)-1]
		}
	}
	return words
}

// nameScore: how well the content tokens name a schema name. Every token
// must match a distinct name word; the score is the matched share of the
// name, plus a bonus when the name's last word (its head noun) matched.
// A column comment can stand in for the name when every token matches it,
// for less.
func nameScore(content []token, words, comment []string) float64 {
	if len(words) == 0 {
		return 0
	}
	var ub [16]bool
	usedW := ub[:0]
	if len(words) <= len(ub) {
		usedW = ub[:len(words)]
	} else {
		usedW = make([]bool, len(words))
	}
	total := 0.0
	headHit := false
	ok := true
	for _, t := range content {
		// A run-together name split into words ("wishlist" → wish list)
		// is still named by the word as one.
		joined := false
		for wi := 0; wi+1 < len(words); wi++ {
			if !usedW[wi] && !usedW[wi+1] && len(t.stem) > len(words[wi]) && t.stem == words[wi]+words[wi+1] {
				usedW[wi], usedW[wi+1] = true, true
				total += 2
				if wi+1 == len(words)-1 {
					headHit = true
				}
				joined = true
				break
			}
		}
		if joined {
			continue
		}
		bestW, bestS := -1, 0.0
		for wi, w := range words {
			if usedW[wi] {
				continue
			}
			// Between name words it names equally ("spent": total,
			// cost), the head noun.
			if s := wordMatch(t.stem, w); s > bestS || s > 0 && s == bestS && wi == len(words)-1 {
				bestW, bestS = wi, s
			}
		}
		if bestW < 0 {
			ok = false
			break
		}
		usedW[bestW] = true
		total += bestS
		if bestW == len(words)-1 {
			headHit = true
		}
	}
	score := 0.0
	if ok {
		score = total / float64(max(len(words), len(content)))
		if headHit {
			score += 0.2
		} else {
			score *= 0.6
		}
	}
	if len(comment) > 0 {
		ct := 0.0
		for _, t := range content {
			m := commentMatch(t.stem, comment)
			if m == 0 {
				ct = 0
				break
			}
			ct += m
		}
		if cs := 0.7 * ct / float64(len(content)); cs > score {
			score = cs
		}
	}
	return score
}

func commentMatch(s string, comment []string) float64 {
	best := 0.0
	for _, w := range comment {
		if m := wordMatch(s, w); m > best {
			best = m
		}
	}
	return best
}

// qualifiedScore matches "table words + column words" ("invoice total")
// when the span names both.
func qualifiedScore(content []token, tableWords, colWords []string) float64 {
	if len(content) < 2 {
		return 0
	}
	// The column name may already start with the table's words.
	if len(colWords) >= len(tableWords) && sameWords(colWords[:len(tableWords)], tableWords) {
		return 0
	}
	var buf [16]string
	all := append(append(buf[:0], tableWords...), colWords...)
	s := nameScore(content, all, nil)
	// At least one column word must be named.
	hitCol := false
	for _, t := range content {
		for _, w := range colWords {
			if wordMatch(t.stem, w) > 0 {
				hitCol = true
			}
		}
	}
	if !hitCol {
		return 0
	}
	return s
}

var (
	personWords = map[string]bool{"people": true, "person": true, "persons": true, "individuals": true, "humans": true, "folks": true}
	// genderWords: the words for women and men, and the values a gender
	// column holds for them.
	genderWords = map[string][]string{
		"women": {"f", "female"}, "woman": {"f", "female"}, "female": {"f", "female"}, "females": {"f", "female"},
		"ladies": {"f", "female"}, "girls": {"f", "female"},
		"men": {"m", "male"}, "man": {"m", "male"}, "male": {"m", "male"}, "males": {"m", "male"}, "boys": {"m", "male"},
	}
)

// personTables lists the tables whose rows are people, known from their
// columns: a birth date, a first and a last name, or a gender column.
func (ix *index) personTables() []*tableInfo {
	var out []*tableInfo
	for _, t := range ix.s.tables {
		if !t.view && isPersonTable(t) {
			out = append(out, t)
		}
	}
	return out
}

// isPersonTable: t's columns show its rows are people.
func isPersonTable(t *tableInfo) bool {
	first, last, person := false, false, false
	for _, c := range t.cols {
		for _, w := range c.raw {
			switch w {
			case "birth", "birthdate", "dob", "gender", "sex":
				person = true
			case "first", "firstname", "given", "forename":
				first = true
			case "last", "lastname", "surname", "family":
				last = true
			}
		}
	}
	return person || first && last
}

// linkPeople links "people"/"person" to the one table whose rows are
// people, and "women"/"men" to the values of the one column that holds
// F/M (or female/male) codes. With several such tables or columns the
// word stays unlinked and the planner refuses rather than guess.
func (ix *index) linkPeople(a *analysis) {
	for i, t := range a.toks {
		if a.at[i] >= 0 || t.quote > 0 || a.cues[i] != cueNone && a.cues[i] != cueFiller {
			continue
		}
		if personWords[t.low] {
			if ts := ix.personTables(); len(ts) == 1 {
				a.addMention(&mention{start: i, end: i + 1, cands: []*cand{{t: ts[0], score: 1}}})
			}
			continue
		}
		keys, ok := genderWords[t.low]
		if !ok {
			continue
		}
		var found []*cand
		for _, k := range keys {
			for _, ref := range ix.values.byKey[k] {
				if ix.genderColumn(ref.col) {
					found = append(found, &cand{t: ref.col.tab, c: ref.col, vals: []*valueRef{ref}, score: 1})
				}
			}
		}
		if len(found) == 1 {
			a.addMention(&mention{start: i, end: i + 1, cands: found, value: true, strong: true})
		}
	}
}

// genderColumn: the column holds both a women's and a men's code.
func (ix *index) genderColumn(c *colInfo) bool {
	has := func(keys ...string) bool {
		for _, k := range keys {
			for _, ref := range ix.values.byKey[k] {
				if ref.col == c {
					return true
				}
			}
		}
		return false
	}
	return has("f", "female") && has("m", "male")
}

// eventDates reads a word that names a date column in a question that
// asks for a time range or a time bucket ("hired in 2020", "hires per
// month", "who was hired on 2013-08-27") as the event of that column's
// rows: the rows of its table are counted or listed, and the column is
// the one the range or bucket applies to (dateColumn prefers it).
func (a *analysis) eventDates() {
	if len(a.dates) == 0 && len(a.buckets) == 0 {
		return
	}
	for _, m := range a.ments {
		if m.value || len(m.cands) == 0 {
			continue
		}
		top := m.cands[0]
		if top.c == nil || top.c.kind != kindDate || top.c.fk != nil {
			continue
		}
		ev := &cand{t: top.c.tab, score: top.score + 0.01, event: true}
		m.cands = append([]*cand{ev}, m.cands...)
	}
}

// namesLiterally reports whether one of the words is, by its stem, a word
// of the candidate's name or column comment: "recorded" names a column called recorded_on,
// not a track through the synonym "recording".
func namesLiterally(words []token, c *cand) bool {
	var names, comment []string
	if c.c != nil {
		// A comment that glosses a short name (a two-letter code as
		// "games started") is its words too.
		names, comment = c.c.words, c.c.comment
	} else if c.t != nil {
		names = c.t.words
	}
	for _, w := range words {
		if slices.Contains(names, w.stem) || slices.Contains(comment, w.stem) {
			return true
		}
	}
	return false
}

// linkRelated links a content word that names nothing in the schema
// through general English (WordNet, core/text.Related): a synonym or
// derived word of a schema word ("prescribed" → prescription, "taught" →
// teacher), else the class it belongs to ("clinics" → institution). Only
// words nothing else linked get this reading, and for less than a name.
func (ix *index) linkRelated(a *analysis) {
	for i, t := range a.toks {
		if a.at[i] >= 0 || a.cues[i] != cueNone || t.sym || t.isNum || t.quote > 0 || len(t.stem) < 3 ||
			lexicon().fillers[t.low] || lexicon().fillerStems[t.stem] || functionWords[t.low] {
			continue
		}
		// A three-letter word ("owe") only through a synonym.
		short := len(t.stem) < 4
		var best []*cand
		bestScore := 0.0
		for _, w := range ix.wordList {
			if len(w) < 4 {
				continue
			}
			weight := 0.0
			switch r := text.Related(t.stem, w); {
			case short && r != text.Synonym:
				continue
			case r == text.Synonym, r == text.DerivedForm:
				weight = 0.75
			case r == text.Broader:
				weight = 0.65
			default:
				continue
			}
			tk := t
			tk.low, tk.stem = w, w
			cands := ix.schemaCands([]token{tk})
			if len(cands) == 0 || cands[0].score*weight <= bestScore {
				continue
			}
			for _, c := range cands {
				c.score *= weight
			}
			best, bestScore = cands, cands[0].score
		}
		if best != nil {
			a.addMention(&mention{start: i, end: i + 1, cands: best})
		}
	}
}

// ownerWords name the organisation that keeps a database ("the
// company", "the college"); ownerFollow are the words that may follow one.
var (
	ownerWords = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range []string{"company", "business", "firm", "organization", "organisation", "college", "university",
			"school", "hospital", "clinic", "airline", "library", "fleet", "schedule", "catalogue", "catalog", "team", "practice", "agency"} {
			m[stem(w)] = true
		}
		return m
	}()
	ownerFollow = map[string]bool{"have": true, "has": true, "had": true, "employ": true, "employs": true, "offer": true,
		"offers": true, "run": true, "runs": true, "keep": true, "keeps": true, "own": true, "owns": true}
)

// findUnknown lists content words that are neither cues, fillers nor
// linked.
func (a *analysis) findUnknown() {
	for i, t := range a.toks {
		if a.at[i] >= 0 || t.sym || t.isNum {
			continue
		}
		if a.cues[i] != cueNone {
			continue
		}
		if lexicon().fillers[t.low] || lexicon().fillerStems[t.stem] {
			continue
		}
		// "the company", "our college", "the fleet": a word the schema
		// does not name, after "the"/"our", closing the question or
		// before "have"/"employ"/"offer", names whoever keeps the
		// database, not a filter.
		if ownerWords[t.stem] && (a.low(i-1) == "the" || a.low(i-1) == "our" || a.low(i-1) == "this") &&
			(i+1 == len(a.toks) || ownerFollow[a.low(i+1)]) {
			a.cues[i] = cueFiller
			continue
		}
		a.unknown = append(a.unknown, i)
	}
}

// closestValueWord: the one word of the indexed values one typing error
// from w (same first letter), or "".
func (ix *index) closestValueWord(w string) string {
	best, ties := "", 0
	for v := range ix.wordsOf().valueVocab {
		if v[0] != w[0] || len(v) < len(w)-1 || len(v) > len(w)+1 || text.Distance(w, v, 1) > 1 {
			continue
		}
		if best != "" && stem(v) != stem(best) {
			ties++
		}
		best = v
	}
	if ties > 0 {
		return ""
	}
	return best
}

// correct replaces a word that matches nothing — no schema name, value,
// synonym or word of the planner's own vocabulary — by the one vocabulary
// word within one typing error of it (two for long words) with the same
// first letter: "custmers" → customers, "ordres" → orders, "befor" →
// before. A word with several equally close candidates is left alone.
func (ix *index) correct(toks []token) []token {
	for i, t := range toks {
		// Names (capitalised: "German") and known irregular forms
		// ("died") are words, not typing errors.
		if t.isNum || t.sym || t.quote > 0 || len(t.low) < 4 || !isLetters(t.low) || ix.schemaWord(t.stem) ||
			lexicon().fillers[t.low] || ix.values.byKey[t.stem] != nil || text.Irregular(t.low) || lexiconVocab()[t.low] || ix.wordsOf().vocab[t.low] {
			continue
		}
		if t.upper {
			// A capitalised word is a name: corrected only when it is
			// no English word and one letter from a word of a value
			// ("Zembal" → Zembla).
			if text.Known(t.low) {
				continue
			}
			// A name that another name extends ("Slovak", "Slovakia")
			// is a word of its own.
			if w := ix.closestValueWord(t.low); w != "" && !strings.HasPrefix(w, t.low) && !strings.HasPrefix(t.low, w) {
				toks[i].low, toks[i].stem = w, stem(w)
			}
			continue
		}
		if w, ok := lexicon().lexiconStems[t.stem]; ok {
			// "befor": the planner's own word with a letter lost.
			toks[i].low = w
			continue
		}
		if lexicon().fillerStems[t.stem] {
			continue
		}
		maxD := 1
		if len(t.low) >= 9 && !strings.HasSuffix(t.low, "ing") && !strings.HasSuffix(t.low, "ed") && !strings.HasSuffix(t.low, "s") {
			maxD = 2
		}
		best, bestD, ties := "", maxD+1, 0
		plural := strings.HasSuffix(t.low, "s") && !text.Known(t.low) && !text.Known(t.low[:len(t.low)-1])
		for w := range ix.wordsOf().vocab {
			if plural && !strings.HasSuffix(w, "s") {
				// "custmers": a plural that is no English word is
				// compared with the plural of the schema's singular
				// word ("scorers" is a word, not "scores" mistyped).
				w += "s"
			}
			if w[0] != t.low[0] || len(w) < len(t.low)-maxD || len(w) > len(t.low)+maxD {
				continue
			}
			d := text.Distance(t.low, w, maxD)
			switch {
			case d < bestD:
				best, bestD, ties = w, d, 0
			case d == bestD && stem(w) != stem(best):
				ties++
			}
		}
		if best == "" || ties > 0 {
			continue
		}
		if strings.HasPrefix(best, t.low) && text.Known(t.low) {
			// "late" is a word, not "later" with a letter lost.
			continue
		}
		toks[i].low, toks[i].stem = best, stem(best)
	}
	return toks
}
