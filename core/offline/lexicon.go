package offline

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/text"
)

// The planner's vocabulary: generic English, never the names of any
// particular database. Schema words come from the catalog at run time.

// synonymGroups are words people use for the same thing. A question word
// links to a schema word of the same group with a lower score than an
// exact match.
var synonymGroups = [][]string{
	{"customer", "client", "buyer", "shopper", "patron", "purchaser"},
	{"employee", "staff", "worker", "personnel", "colleague", "salesperson", "rep", "representative", "agent"},
	{"product", "item", "article", "merchandise", "good"},
	{"item", "line", "lineitem", "detail", "entry"},
	{"supplier", "vendor", "provider", "supply", "supplies", "supplied"},
	{"order", "purchase", "sale", "invoice", "transaction", "bought", "buy", "sold", "sell"},
	{"price", "cost", "charge", "fee", "priced", "costs", "pricing", "spend", "spent", "spending"},
	{"amount", "total", "sum", "value", "spend", "spent"},
	{"quantity", "qty", "unit", "units", "volume"},
	{"country", "nation", "cntry", "ctry"},
	{"city", "town"},
	{"region", "area", "territory", "zone"},
	{"category", "class", "group", "segment", "department"},
	{"type", "kind", "variety", "method", "mode", "format"},
	{"name", "label", "called", "named"},
	{"date", "timestamp", "dated"},
	{"birth", "born", "birthday", "birthdate", "dob"},
	{"hire", "hired", "joined", "employment", "started"},
	{"email", "mail", "e-mail"},
	{"phone", "telephone", "tel", "cell"},
	{"address", "street"},
	{"description", "desc", "summary", "details"},
	{"duration", "length", "millisecond", "milliseconds", "second", "seconds", "minute", "minutes", "runtime", "long", "playtime"},
	{"size", "byte", "bytes", "filesize", "kb", "mb", "gb"},
	{"weight", "kg", "mass", "heavy"},
	{"rating", "score", "stars", "rated", "grade"},
	{"discount", "rebate", "markdown", "off"},
	{"stock", "inventory", "stocked"},
	{"company", "firm", "organisation", "organization", "employer"},
	{"track", "song", "tune", "recording"},
	{"artist", "band", "musician", "performer", "singer"},
	{"genre", "style"},
	{"composer", "songwriter", "composed"},
	{"shipment", "delivery", "parcel", "consignment"},
	{"shipper", "carrier", "courier"},
	{"ship", "dispatch"},
	{"review", "feedback", "testimonial"},
	{"payment", "paid", "pay"},
	{"manager", "boss", "supervisor"},
	{"language", "lang", "locale"},
	{"user", "member", "account"},
	{"student", "pupil"},
	{"teacher", "instructor", "tutor", "faculty", "professor", "lecturer"},
	{"entry", "start", "started", "enter", "entered"},
	{"movie", "film"},
	{"team", "club", "squad"},
	{"player", "athlete"},
	{"game", "match"},
	{"refuse", "reject", "decline", "deny", "denied", "turndown"},
	{"approve", "accept", "grant"},
	{"withdraw", "dropout"},
	{"hospital", "clinic", "facility", "organization", "organisation"},
	{"fare", "price", "cost", "charge", "fee"},
}

// phraseSynonyms rewrite multi-word expressions to one schema word before
// linking ("file size" → size, "e mail" → email).
var phraseSynonyms = map[string]string{
	"file size":     "size",
	"e mail":        "email",
	"sign up":       "signup",
	"signed up":     "signup",
	"zip code":      "zip",
	"postal code":   "postal",
	"post code":     "postal",
	"date of birth": "birth",
	"phone number":  "phone",
	"job title":     "title",
	"break down":    "breakdown",
	"broken down":   "breakdown",
	"turned down":   "turndown",
	"turn down":     "turndown",
	"dropped out":   "dropout",
	"drop out":      "dropout",
	"drops out":     "dropout",
	"went out":      "sent", // goods, mail: "went out in March" (never "out of")
	"go out":        "sent",
	"goes out":      "sent",
	"gone out":      "sent",
	"sent out":      "sent",
	"send out":      "sent",
	"on file":       "recorded",
	"on record":     "recorded",
}

// fillerWords carry no meaning for a plan: function words, generic verbs
// and nouns that name the database itself.
var fillerWords = []string{
	"the", "a", "an", "of", "in", "on", "at", "to", "for", "with", "from", "into", "and", "or", "as", "via",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "have", "has", "had",
	"there", "here", "we", "our", "ours", "us", "you", "your", "i", "me", "my", "they", "them", "their", "it", "its",
	"this", "that", "these", "those", "all", "any", "some", "something", "anything", "everything", "ever", "so", "far",
	"currently", "current", "now", "please", "tell", "know", "want", "like", "can", "could", "may", "might", "just",
	"also", "exist", "exists", "existing", "available", "recorded", "record", "records", "stored", "listed",
	"registered", "database", "db", "table", "tables", "data", "dataset", "entries", "entry", "row", "rows",
	"system", "store", "shop", "catalogue", "catalog", "place", "placed", "make", "made", "write", "written",
	"get", "got", "come", "came", "go", "went", "issue", "issued", "handle", "handled", "process", "processed",
	"use", "used", "uses", "using", "work", "works", "working", "live", "lives", "living",
	"located", "location", "based", "belong", "belongs", "belonging", "contain", "contains", "containing",
	"include", "includes", "including", "appear", "appears", "hold", "holds", "own", "owns", "carry", "carries",
	"offer", "offers", "offered", "provide", "provides", "provided", "release", "released", "publish",
	"published", "produce", "produced", "feature", "featured", "employ", "employed", "employs", "employing", "generate", "generated",
	"receive", "received", "take", "took", "taken", "give", "given", "gave", "see", "find", "show", "list",
	"display", "return", "returning", "member", "members", "one", "ones",
	"thing", "things", "info", "information", "detail", "details", "everyone", "anyone", "somebody",
	"who", "whom", "whose", "what", "which", "where", "when", "how", "that", "than", "then", "very", "really",
	"overall", "altogether", "respectively", "each", "every", "per", "by", "only", "either", "currently",
	"right", "today", "yet", "already", "still", "out", "up", "down", "about", "around", "approximately",
	"roughly", "exactly", "sorted", "descending", "ascending", "value", "values",
	"number", "numbers", "count", "amount", "total", "quantity", "such", "other", "others", "same", "own",
	"times", "ever", "far", "ones", "across", "throughout", "within", "during", "since", "after",
	"before", "until", "till", "between", "through", "under", "over", "above", "below", "than", "least",
	"most", "more", "fewer", "less", "let", "need", "needs", "whole", "entire", "full", "complete",
	"breakdown", "broken", "split", "grouped", "group", "distribution", "figure", "figures", "stats",
	"statistics", "summary", "overview", "look", "tally", "many", "much", "bring",
	"dollars", "dollar", "usd", "euros", "euro", "eur", "bucks", "yet",
	"brought", "been", "being", "got", "gotten", "sign", "signed", "signing", "posted", "submitted", "logged",
	"entered", "left", "leave", "gave", "write", "wrote",
	"marked", "flagged", "worth", "collect", "collected", "collecting", "serve", "serves", "served", "serving", "new",
}

// refuseWords ask for what a query cannot give: causes, predictions,
// advice, ratios and change over time.
var refuseWords = map[string]string{
	"why":         "explain causes",
	"predict":     "predict",
	"prediction":  "predict",
	"forecast":    "predict",
	"will":        "predict",
	"should":      "give advice",
	"recommend":   "give advice",
	"suggest":     "give advice",
	"advise":      "give advice",
	"explain":     "explain causes",
	"cause":       "explain causes",
	"caused":      "explain causes",
	"reason":      "explain causes",
	"likely":      "predict",
	"probability": "predict",
	"expected":    "predict",
	"future":      "predict",
	"correlation": "compute correlations",
	"correlate":   "compute correlations",
	"impact":      "explain causes",
	"affect":      "explain causes",
	"percentage":  "compute percentages or ratios",
	"percent":     "compute percentages or ratios",
	"proportion":  "compute percentages or ratios",
	"ratio":       "compute percentages or ratios",
	"share":       "compute percentages or ratios",
	"fraction":    "compute percentages or ratios",
	"growth":      "compare periods",
	"grow":        "compare periods",
	"grew":        "compare periods",
	"increase":    "compare periods",
	"decrease":    "compare periods",
	"decline":     "compare periods",
	"drop":        "compare periods",
	"rise":        "compare periods",
	"change":      "compare periods",
	"difference":  "compare values",
	"compare":     "compare values",
	"versus":      "compare values",
	"vs":          "compare values",
	"median":      "compute medians",
	"deviation":   "compute statistics beyond count, sum, average, minimum and maximum",
	"variance":    "compute statistics beyond count, sum, average, minimum and maximum",
	"insert":      "change data (the database is read-only)",
	"update":      "change data (the database is read-only)",
	"delete":      "change data (the database is read-only)",
	"remove":      "change data (the database is read-only)",
	"add":         "change data (the database is read-only)",
	"create":      "change data (the database is read-only)",
}

// Aggregate functions.
type aggFunc int

const (
	aggNone aggFunc = iota
	aggCount
	aggSum
	aggAvg
	aggMin
	aggMax
)

func (a aggFunc) sql() string {
	return [...]string{"", "COUNT", "SUM", "AVG", "MIN", "MAX"}[a]
}

func (a aggFunc) word() string {
	return [...]string{"", "number", "total", "average", "lowest", "highest"}[a]
}

var aggWords = map[string]aggFunc{
	"average": aggAvg, "avg": aggAvg, "mean": aggAvg, "typical": aggAvg,
	"total": aggSum, "sum": aggSum, "combined": aggSum, "overall": aggSum, "altogether": aggSum, "cumulative": aggSum, "aggregate": aggSum,
	"maximum": aggMax, "max": aggMax, "highest": aggMax, "largest": aggMax, "biggest": aggMax, "greatest": aggMax, "peak": aggMax,
	"minimum": aggMin, "min": aggMin, "lowest": aggMin, "smallest": aggMin,
}

// superlative concepts: which column an adjective ranks by.
type concept int

const (
	conceptAny      concept = iota // highest/lowest/most/least/top: the column named next to it
	conceptPrice                   // expensive, cheap
	conceptAge                     // young, old (of people: by birth date)
	conceptTime                    // recent, latest, newest, earliest
	conceptDuration                // long, short
	conceptSize                    // big, large, small
	conceptWeight                  // heavy, light
	conceptSales                   // best-selling
)

type superlative struct {
	c    concept
	desc bool // true: largest values first
	// young inverts a birth date: the youngest has the latest birth date.
	young bool
}

// superlatives are read from the lower-case word.
var superlatives = map[string]superlative{
	"highest": {conceptAny, true, false}, "largest": {conceptSize, true, false}, "biggest": {conceptSize, true, false},
	"greatest": {conceptAny, true, false}, "most": {conceptAny, true, false}, "top": {conceptAny, true, false}, "max": {conceptAny, true, false},
	"maximum": {conceptAny, true, false}, "best": {conceptAny, true, false},
	"lowest": {conceptAny, false, false}, "smallest": {conceptSize, false, false}, "least": {conceptAny, false, false},
	"fewest": {conceptAny, false, false}, "bottom": {conceptAny, false, false}, "min": {conceptAny, false, false},
	"minimum": {conceptAny, false, false}, "worst": {conceptAny, false, false},
	"priciest": {conceptPrice, true, false}, "costliest": {conceptPrice, true, false}, "dearest": {conceptPrice, true, false},
	"cheapest": {conceptPrice, false, false},
	"youngest": {conceptAge, true, true}, "oldest": {conceptAge, false, false},
	"newest": {conceptTime, true, false}, "latest": {conceptTime, true, false}, "earliest": {conceptTime, false, false},
	"longest": {conceptDuration, true, false}, "shortest": {conceptDuration, false, false},
	"heaviest": {conceptWeight, true, false}, "lightest": {conceptWeight, false, false},
}

// After "most"/"least": an adjective names the concept ("most expensive").
var adjectives = map[string]superlative{
	"expensive": {conceptPrice, true, false}, "pricey": {conceptPrice, true, false}, "costly": {conceptPrice, true, false},
	"recent": {conceptTime, true, false}, "recently": {conceptTime, true, false},
	"popular": {conceptSales, true, false}, "sold": {conceptSales, true, false}, "selling": {conceptSales, true, false},
	"purchased": {conceptSales, true, false}, "ordered": {conceptSales, true, false}, "bought": {conceptSales, true, false},
	"valuable": {conceptPrice, true, false},
}

// conceptWords: column words (stems computed at init) that carry a concept.
var conceptWords = map[concept][]string{
	conceptPrice:    {"price", "cost", "fee", "charge", "amount", "total", "value"},
	conceptAge:      {"birth", "born", "dob", "age", "birthday", "birthdate"},
	conceptDuration: {"duration", "length", "millisecond", "milliseconds", "second", "seconds", "minute", "minutes", "runtime", "hours", "time"},
	conceptSize:     {"size", "bytes", "byte", "kb", "mb", "gb", "area", "capacity", "volume", "amount", "total", "quantity", "value"},
	conceptWeight:   {"weight", "kg", "mass", "grams", "pounds", "lbs"},
	conceptSales:    {"quantity", "qty", "units", "unit", "amount"},
}

// Comparison words before a number.
type cmpOp string

var comparatives = map[string]cmpOp{
	"over": ">", "above": ">", "more": ">", "greater": ">", "exceeding": ">", "exceed": ">", "exceeds": ">",
	"higher": ">", "larger": ">", "bigger": ">", "longer": ">", "older": ">", "pricier": ">", "heavier": ">",
	"under": "<", "below": "<", "less": "<", "fewer": "<", "lower": "<", "smaller": "<", "shorter": "<",
	"cheaper": "<", "younger": "<", "lighter": "<",
}

// Time units for buckets.
type timeUnit int

const (
	unitNone timeUnit = iota
	unitYear
	unitQuarter
	unitMonth
	unitWeek
	unitDay
)

var timeUnits = map[string]timeUnit{
	"year": unitYear, "years": unitYear, "yearly": unitYear, "annual": unitYear, "annually": unitYear, "yr": unitYear,
	"quarter": unitQuarter, "quarters": unitQuarter, "quarterly": unitQuarter,
	"month": unitMonth, "months": unitMonth, "monthly": unitMonth,
	"week": unitWeek, "weeks": unitWeek, "weekly": unitWeek,
	"day": unitDay, "days": unitDay, "daily": unitDay,
}

var months = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
	"june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
	"october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

// functionWords never name a table or column on their own, even when a
// name contains them (copies_on_hand, reports_to_id, open_from).
var functionWords = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "at": true, "to": true, "for": true,
	"with": true, "from": true, "by": true, "and": true, "or": true, "as": true, "is": true, "are": true, "be": true,
	"per": true, "since": true, "until": true, "into": true, "than": true, "not": true, "no": true, "it": true,
	"its": true, "we": true, "our": true, "us": true, "you": true, "do": true, "does": true, "did": true,
	"has": true, "have": true, "had": true, "was": true, "were": true, "been": true, "this": true, "that": true,
	"there": true, "all": true, "any": true, "each": true, "every": true, "which": true, "what": true, "who": true,
	"how": true, "many": true, "much": true, "me": true, "my": true, "i": true, "if": true, "so": true,
}

// currentWords ask for rows whose validity period is open (an end date
// still empty, or set to a far-future marker); formerWords for rows whose
// period has ended. Where a schema has no such period they are fillers.
var (
	currentWords = map[string]bool{"current": true, "currently": true, "now": true, "still": true, "presently": true,
		"ongoing": true, "living": true, "alive": true, "unresolved": true}
	formerWords = map[string]bool{"former": true, "formerly": true, "left": true, "quit": true, "departed": true, "ex": true,
		"past": true, "previous": true, "ended": true, "dead": true, "deceased": true}
	// endWords name the column that closes a period.
	endWords = []string{"end", "stop", "to", "until", "thru", "through", "expir", "termin", "leav", "left", "death", "die",
		"close", "resolv", "discharg", "finish", "return", "cancel", "valid"}
)

// Words that make the next noun phrase a grouping ("per", "each", "by").
var groupWords = map[string]bool{"per": true, "each": true, "every": true, "by": true, "across": true}

// Words that ask for distinct values.
var distinctWords = map[string]bool{"distinct": true, "different": true, "unique": true, "various": true, "separate": true}

// Negations the planner does not try to read.
var negations = map[string]bool{"not": true, "never": true, "except": true, "excluding": true, "exclude": true, "neither": true, "nor": true, "non": true}

// lexiconTables are the stemmed forms of the planner's word lists.
type lexiconTables struct {
	fillers     map[string]bool
	fillerStems map[string]bool
	// lexiconStems: the stem of each word of the planner's own vocabulary
	// that has a single such word.
	lexiconStems map[string]string
	synGroup     map[string][]int // stem → synonym group ids
	conceptStems map[concept]map[string]bool
}

// lexicon stems the word lists the first time the planner needs them, not
// when the program starts: every command links the planner, and stemming
// every list takes milliseconds.
var lexicon = sync.OnceValue(func() *lexiconTables {
	l := &lexiconTables{
		fillers:      map[string]bool{},
		fillerStems:  map[string]bool{},
		lexiconStems: map[string]string{},
		synGroup:     map[string][]int{},
		conceptStems: map[concept]map[string]bool{},
	}
	for _, w := range fillerWords {
		l.fillers[w] = true
		l.fillerStems[stem(w)] = true
	}
	for i, g := range synonymGroups {
		for _, w := range g {
			s := stem(w)
			if !slices.Contains(l.synGroup[s], i) {
				l.synGroup[s] = append(l.synGroup[s], i)
			}
		}
	}
	seen := map[string]int{}
	for _, w := range lexiconWords() {
		st := stem(w)
		if l.lexiconStems[st] != w {
			seen[st]++
		}
		l.lexiconStems[st] = w
	}
	for st, n := range seen {
		if n > 1 {
			delete(l.lexiconStems, st)
		}
	}
	for c, ws := range conceptWords {
		m := map[string]bool{}
		for _, w := range ws {
			m[stem(w)] = true
		}
		l.conceptStems[c] = m
	}
	return l
})

// synonymous reports whether two stems share a synonym group.
func synonymous(a, b string) bool {
	for _, g := range lexicon().synGroup[a] {
		if slices.Contains(lexicon().synGroup[b], g) {
			return true
		}
	}
	return false
}

// agentNoun reports whether n is the doer of verb stem v: ship/shipper,
// suppli/supplier, compos/composer.
func agentNoun(v, n string) bool {
	if len(v) < 4 || !strings.HasPrefix(n, v) {
		return false
	}
	switch n[len(v):] {
	case "er", "r", "or":
		return true
	}
	return len(n) == len(v)+3 && n[len(v)] == v[len(v)-1] && n[len(v)+1:] == "er"
}

// wordMatch scores how well a question stem q names a schema stem s:
// 1 identical, 0.85 synonyms, 0.6 one a long prefix of the other.
func wordMatch(q, s string) float64 {
	switch {
	case q == s:
		return 1
	case synonymous(q, s):
		return 0.85
	case agentNoun(q, s) || agentNoun(s, q):
		// ship → shipper, supply → supplier, compose → composer
		return 0.7
	case text.Derived(q, s):
		// rent → rental, depart → departure
		return 0.7
	}
	short, long := q, s
	if len(short) > len(long) {
		short, long = long, short
	}
	if len(short) >= 5 && strings.HasPrefix(long, short) && len(short)*10 >= len(long)*7 {
		return 0.6
	}
	if abbreviates(short, long) {
		// qty → quantity, dept → department, amt → amount
		return 0.6
	}
	return 0
}

// abbreviates is core/text's: short is an abbreviation of long (qty →
// quantity), and not an English word of its own.
func abbreviates(short, long string) bool { return text.Abbreviates(short, long) }

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// lexiconWords lists every word of the planner's own vocabulary.
func lexiconWords() []string {
	var out []string
	out = append(out, fillerWords...)
	for _, g := range synonymGroups {
		out = append(out, g...)
	}
	for _, m := range []map[string]bool{functionWords, groupWords, distinctWords, negations, currentWords, formerWords} {
		out = slices.AppendSeq(out, maps.Keys(m))
	}
	out = slices.AppendSeq(out, maps.Keys(refuseWords))
	out = slices.AppendSeq(out, maps.Keys(aggWords))
	out = slices.AppendSeq(out, maps.Keys(superlatives))
	out = slices.AppendSeq(out, maps.Keys(adjectives))
	out = slices.AppendSeq(out, maps.Keys(comparatives))
	out = slices.AppendSeq(out, maps.Keys(timeUnits))
	out = slices.AppendSeq(out, maps.Keys(months))
	out = slices.AppendSeq(out, maps.Keys(numberWords))
	out = slices.AppendSeq(out, maps.Keys(unitWords))
	return out
}
