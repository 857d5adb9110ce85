// Package offline is tablewise's built-in planner: it answers the common
// shapes of analytic questions — counts, filtered counts and lists,
// top/bottom N, aggregates, breakdowns per group or per period, the group
// with the most or least, distinct counts — on any SQLite schema, with no
// model, no key and no network.
//
// It links the words of a question to the catalog (table and column names
// split on case and underscores, singular and plural, a small generic
// synonym list, column comments) and to the data (a value index of the
// short text values of low-cardinality columns, built once per database
// and rebuilt in the background when the database changes, refresh.go),
// finds join paths along foreign keys, fills a small typed plan and renders
// SQL from it. Every statement runs through query.Collect, so the guard
// vets it like any other.
//
// When a question needs knowledge the schema does not hold ("profit",
// "late"), asks why, or uses words it cannot link, the planner refuses and
// says what it could not map, instead of guessing: every content word of a
// question must play a part in the plan. A value that two columns could
// hold equally well is not guessed either; both readings are offered.
//
// It is measured with core/eval (the gold files in data/eval), like every
// other provider.
package offline

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/text"
	"github.com/tablewise/tablewise/core/verify"
)

// Provider is the name the planner reports in answer bundles.
const Provider = "offline"

// Limits of one answer.
const (
	// MaxRows caps the rows an answer carries.
	MaxRows = 1000
	// QueryTimeout bounds one statement.
	QueryTimeout = 10 * time.Second
)

// Planner answers questions about one database. Its indexes are built on
// first use, and rebuilt in the background when the database has changed
// (refresh.go); it is safe for concurrent use.
type Planner struct {
	d *db.DB
	// indexDir keeps the value index's scans between runs (persist.go);
	// empty keeps none.
	indexDir string

	// building admits one first build at a time; a question waiting for
	// it gives up when its context ends.
	building chan struct{}
	// cur is the index questions use; a rebuild swaps it (refresh.go).
	cur     atomic.Pointer[index]
	refresh refresher
}

// index is everything the planner knows about a database, immutable once
// built.
type index struct {
	s      *schema
	values *valueIndex
	// words: every stem of a table or column name and its synonyms.
	words map[string]bool
	// wordList: the stems of table and column names, sorted.
	wordList []string
	// tableWords: every stem of a table name and its synonyms.
	tableWords map[string]bool
	// hasPeriods: some table has rows with an open-ended period.
	hasPeriods bool
	// derived: what is derived from the words of names and values for
	// reading questions, built on first use (wordsOf).
	wordsOnce sync.Once
	derived   *valueWords
	built     time.Duration
	// keptScans counts the scans whose results were read from the state
	// directory, directly or through the value index kept with them;
	// keptCatalog: the catalog came from there too, not the database.
	keptScans   int
	keptCatalog bool
	// keptIndex: the value index was read from the state directory.
	keptIndex bool
	// lookup: the tables each name word occurs in, built on first use.
	lookupOnce sync.Once
	lookup     *nameLookup
	// countryCols: the columns of country codes, built on first use
	// (countryCodeCols).
	countryOnce sync.Once
	countryCols countryColumns
	// files is the database's db.FileStamp when the build began (stamped:
	// it has one); schemaV and rowsV are schemaVersion's of the catalog
	// it was built on. A rebuild is due when they no longer hold.
	files          string
	stamped        bool
	schemaV, rowsV string
}

// New returns a planner for d.
func New(d *db.DB) *Planner {
	return NewKept(d, "")
}

// NewKept returns a planner for d that keeps what its value index read
// of the data in dir (DefaultIndexDir in production), so that the next
// planner on the same database, in this process or another, builds its
// index without scanning the data again.
func NewKept(d *db.DB, dir string) *Planner {
	return &Planner{d: d, indexDir: dir, building: make(chan struct{}, 1), refresh: newRefresher()}
}

// index returns the planner's index, building it on first use. Later,
// it returns the index it has at once, and starts building a fresh one
// in the background when the database may have changed since
// (refresh.go).
func (p *Planner) index(ctx context.Context) (*index, error) {
	if ix := p.cur.Load(); ix != nil {
		p.maybeRefresh(ix)
		return ix, nil
	}
	select {
	case p.building <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.building }()
	if ix := p.cur.Load(); ix != nil {
		return ix, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.refresh.timeout)
	defer cancel()
	ix, err := p.build(ctx, nil)
	if err != nil {
		return nil, err
	}
	p.cur.Store(ix)
	return ix, nil
}

// build builds an index of the database as it is now. With fresh nil it
// is the first build, and the catalog is the database's (cached) one;
// otherwise it is a rebuild, and fresh tells where its catalog comes
// from (refresh.go). Scans and the index kept in the state directory are
// used where still valid, and what was built is kept there in turn.
func (p *Planner) build(ctx context.Context, fresh *freshCatalog) (*index, error) {
	if h := p.refresh.onBuild; h != nil {
		if err := h(ctx, fresh != nil); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	files, stamped := p.d.FileStamp()
	kept, cat, err := openKept(ctx, p.indexDir, p.d, fresh)
	if err != nil {
		return nil, err
	}
	defer kept.release()
	s := newSchema(cat, p.d.Dialect())
	ix := &index{s: s, files: files, stamped: stamped}
	ix.schemaV, ix.rowsV = schemaVersion(cat)
	if vi, scans := kept.keptValues(s); vi != nil {
		ix.values, ix.keptScans, ix.keptIndex = vi, scans, true
	} else {
		ix.values = buildValues(context.WithValue(ctx, scanCacheKey{}, kept), p.d, s)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ix.keptScans = kept.reused()
		kept.keepValues(s, ix.values)
	}
	ix.keptCatalog = kept.catalogKept()
	_ = kept.save() // best effort: the next run scans again
	// The data may have shown flags and integer years: place rows in
	// time again.
	for _, t := range s.tables {
		t.mainDate = t.findMainDate()
		t.label = t.findLabel()
		if !t.view && t.openEnd() != nil {
			ix.hasPeriods = true
		}
	}
	ix.words, ix.tableWords = schemaWords(s)
	ix.wordList = nameWords(s)
	ix.built = time.Since(start)
	return ix, nil
}

// valueWords is what the index derives from the words of names and
// values for reading questions. A question that needs none of it (its
// words all name tables and columns) does not pay for building it: on a
// schema of thousands of tables, tens of thousands of values.
type valueWords struct {
	// vocab: every word a question may use that the planner knows — the
	// words of names and values and its own vocabulary — for correcting
	// typing errors.
	vocab map[string]bool
	// valueVocab: the words of indexed values, for correcting names.
	valueVocab map[string]bool
	// glosses: codes and the words column comments give them.
	glosses []glossRef
	// codeColumns: columns of short upper-case codes, for abbreviations.
	codeColumns []codeColumn
	// words2: the values holding each word (stem); valueWords: those
	// words, sorted.
	words2     wordIndex
	valueWords []string
}

// countryCodeCols returns the index's columns of country codes, building
// them on first use.
func (ix *index) countryCodeCols() countryColumns {
	ix.countryOnce.Do(func() { ix.countryCols = buildCountryColumns(ix.values) })
	return ix.countryCols
}

// wordsOf returns the index's valueWords, building them on first use.
func (ix *index) wordsOf() *valueWords {
	ix.wordsOnce.Do(func() { ix.derived = buildValueWords(ix.s, ix.values) })
	return ix.derived
}

func buildValueWords(s *schema, values *valueIndex) *valueWords {
	vw := &valueWords{vocab: vocabulary(s, values), valueVocab: map[string]bool{}}
	for _, refs := range values.byKey {
		for _, r := range refs {
			for _, w := range splitName(r.text) {
				if len(w) >= 4 && isLetters(w) {
					vw.valueVocab[w] = true
				}
			}
		}
	}
	vw.glosses = buildGlosses(s, values)
	vw.codeColumns = findCodeColumns(values)
	vw.words2 = buildWordIndex(values)
	for w := range vw.words2 {
		vw.valueWords = append(vw.valueWords, w)
	}
	sort.Strings(vw.valueWords)
	for _, g := range vw.glosses {
		for _, w := range g.words {
			vw.vocab[w] = true
		}
	}
	return vw
}

// Warm builds the planner's indexes now (they are otherwise built by the
// first question).
func (p *Planner) Warm(ctx context.Context) error {
	_, err := p.index(ctx)
	return err
}

// nameWords lists, sorted and once each, the stems of the schema's table
// and column names (not their synonyms).
func nameWords(s *schema) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if !seen[w] && w != "id" {
			seen[w] = true
			out = append(out, w)
		}
	}
	s.eachName(func(words, _ []string) {
		for _, w := range words {
			add(w)
		}
	})
	sort.Strings(out)
	return out
}

// eachName calls f with the stems and the lower-case words of every table
// name and column name, each table before its columns.
func (s *schema) eachName(f func(words, raw []string)) {
	for _, t := range s.tables {
		f(t.words, t.raw)
		for _, c := range t.cols {
			f(c.words, c.raw)
		}
	}
}

func schemaWords(s *schema) (map[string]bool, map[string]bool) {
	words, tables := map[string]bool{}, map[string]bool{}
	addTo := func(m map[string]bool, w string) {
		m[w] = true
		for _, g := range lexicon().synGroup[w] {
			for _, o := range synonymGroups[g] {
				m[stem(o)] = true
			}
		}
	}
	add := func(w string) { addTo(words, w) }
	for _, t := range s.tables {
		for _, w := range t.words {
			add(w)
		}
		if !t.view && len(t.words) == 1 {
			addTo(tables, t.words[0])
		} else if !t.view && len(t.words) > 0 {
			// The head noun of a table named in several words.
			addTo(tables, t.words[len(t.words)-1])
		}
		for _, c := range t.cols {
			for _, w := range c.words {
				if w != "id" {
					add(w)
				}
			}
		}
	}
	return words, tables
}

// lexiconVocab is the part of every index's vocabulary that the
// planner's own word lists give: a word in it is known without building
// the rest.
var lexiconVocab = sync.OnceValue(func() map[string]bool {
	v := map[string]bool{}
	for _, w := range lexiconWords() {
		if vocabWord(w) {
			v[w] = true
		}
	}
	return v
})

// vocabWord: w may be in a vocabulary (three letters or more).
func vocabWord(w string) bool { return len(w) >= 3 && isLetters(w) }

// vocabulary collects the words of table and column names, of indexed
// values and of the planner's word lists.
func vocabulary(s *schema, vi *valueIndex) map[string]bool {
	v := map[string]bool{}
	add := func(w string) {
		if vocabWord(w) {
			v[w] = true
		}
	}
	s.eachName(func(_, raw []string) {
		for _, w := range raw {
			add(w)
		}
	})
	for _, refs := range vi.byKey {
		for _, r := range refs {
			for _, w := range splitName(r.text) {
				add(w)
			}
		}
	}
	for _, ws := range lexiconWords() {
		add(ws)
	}
	return v
}

// Answer answers one question. A question the planner cannot map comes back
// with Status refused and a message saying why; an error means the database
// failed.
func (p *Planner) Answer(ctx context.Context, question string) (*answer.Bundle, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("offline planner: %w", err)
	}
	b := &answer.Bundle{Question: question, Provider: Provider}
	ix, err := p.index(ctx)
	if err != nil {
		return nil, fmt.Errorf("offline planner: %w", err)
	}
	res := ix.plan(question)
	if res.refusal != "" {
		b.Status = answer.StatusRefused
		b.Answer = res.refusal
		b.FollowUps = res.options
		if len(res.options) > 0 {
			// Two readings and no word to decide: ask which.
			b.Status = answer.StatusClarify
			b.Clarification = &answer.Clarification{Question: res.refusal, Options: res.options}
		}
		if len(b.FollowUps) == 0 {
			b.FollowUps = ix.followUps(nil, question, "")
		}
		b.Timings.TotalMS = time.Since(start).Milliseconds()
		return b, nil
	}
	r, err := query.Collect(ctx, p.d, res.sql, query.Options{MaxRows: MaxRows, Timeout: QueryTimeout})
	b.SQL = res.sql
	b.Steps = append(b.Steps, answer.Step{Tool: "run_sql", Input: res.sql, OK: err == nil})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("offline planner: %w", ctx.Err())
		}
		b.Status = answer.StatusError
		b.Answer = "The query the planner built failed: " + err.Error()
		b.Timings.TotalMS = time.Since(start).Milliseconds()
		return b, nil
	}
	b.Status = answer.StatusAnswered
	b.Columns, b.Rows, b.RowCount, b.Truncated = r.Columns, r.Rows, r.RowCount, r.Truncated
	b.Answer = res.plan.sentence(r)
	if res.plan.note != "" {
		b.Answer += " " + res.plan.note
	}
	b.Chart = res.plan.chart(r)
	b.FollowUps = ix.followUps(res.plan, question, res.sql)
	// The planner's own filters are checked against the data as a model's
	// are (core/verify); a literal no row holds is told to the reader.
	if rep := verify.Check(ctx, p.d, res.sql, r, verify.Options{}); len(rep.Literals) > 0 || len(rep.Notes) > 0 {
		b.Checks = &answer.Checks{Literals: rep.Literals, Notes: rep.Notes}
		b.Flags = append(b.Flags, verify.LiteralNotes(p.d, rep.Literals)...)
	}
	b.Timings.SQLMS = r.Elapsed.Milliseconds()
	b.Timings.TotalMS = time.Since(start).Milliseconds()
	b.Steps[0].Summary = fmt.Sprintf("%d rows", r.RowCount)
	return b, nil
}

// AnswerAfter answers question as the next in a conversation: prior are
// its earlier exchanges, oldest first, and last is the bundle of the
// question just before (nil at the start), with any clarification it asked
// or choices it offered. A short reply to the planner's own question
// ("the second one", "student") answers the reading it picks; anything
// else is read alone, as Answer does.
func (p *Planner) AnswerAfter(ctx context.Context, prior []answer.Turn, last *answer.Bundle, question string) (*answer.Bundle, error) {
	if last != nil && last.Status == answer.StatusClarify && last.Clarification != nil {
		if opt := chooseOption(last.Question, last.Clarification.Options, question); opt != "" {
			// The reply picks one of the readings offered: answer it.
			return p.Answer(ctx, opt)
		}
	}
	return p.Answer(ctx, question)
}

// chooseOption reads a reply to a clarification: "the first", "2", "the
// other one", or a word that only one of the options added to the
// question ("student"). It returns the option chosen, or "".
func chooseOption(asked string, options []string, reply string) string {
	if len(options) == 0 {
		return ""
	}
	toks := tokenize(reply)
	var content []token
	for _, t := range toks {
		if !lexicon().fillers[t.low] && t.low != "one" && t.low != "please" {
			content = append(content, t)
		}
	}
	ordinal := map[string]int{"first": 0, "1": 0, "1st": 0, "former": 0, "second": 1, "2": 1, "2nd": 1, "two": 1, "latter": 1,
		"third": 2, "3": 2, "3rd": 2, "three": 2}
	if len(content) == 1 {
		if i, ok := ordinal[content[0].low]; ok && i < len(options) {
			return options[i]
		}
		if content[0].low == "other" && len(options) == 2 {
			return options[1]
		}
	}
	if len(content) == 0 || len(content) > 4 {
		return ""
	}
	inAsked := map[string]bool{}
	for _, t := range tokenize(asked) {
		inAsked[t.stem] = true
	}
	pick := -1
	for i, o := range options {
		words := map[string]bool{}
		for _, t := range tokenize(o) {
			if !inAsked[t.stem] {
				words[t.stem] = true
			}
		}
		all := true
		for _, t := range content {
			if !words[t.stem] {
				all = false
			}
		}
		if all {
			if pick >= 0 {
				return ""
			}
			pick = i
		}
	}
	if pick < 0 {
		return ""
	}
	return options[pick]
}

// Explain describes how the planner reads a question: tokens, links, the
// plan and its SQL, or why it refuses. It is a debugging aid.
func (p *Planner) Explain(ctx context.Context, question string) string {
	ix, err := p.index(ctx)
	if err != nil {
		return "index: " + err.Error()
	}
	return ix.explain(question)
}

func (ix *index) explain(question string) string {
	a := ix.analyze(question)
	var b strings.Builder
	b.WriteString("tokens:")
	for i, t := range a.toks {
		fmt.Fprintf(&b, " %s", t.low)
		if a.cues[i] != cueNone && a.cues[i] != cueFiller {
			fmt.Fprintf(&b, "[%s]", cueNames[a.cues[i]])
		}
	}
	b.WriteString("\n")
	for _, m := range a.ments {
		var span []string
		for k := m.start; k < m.end; k++ {
			span = append(span, a.toks[k].low)
		}
		fmt.Fprintf(&b, "mention %q:", strings.Join(span, " "))
		for i, c := range m.cands {
			if i == 5 {
				fmt.Fprintf(&b, " …+%d", len(m.cands)-5)
				break
			}
			fmt.Fprintf(&b, " %s(%.2f)", c, c.score)
		}
		b.WriteString("\n")
	}
	if len(a.unknown) > 0 {
		b.WriteString("unknown:")
		for _, i := range a.unknown {
			b.WriteString(" " + a.toks[i].low)
		}
		b.WriteString("\n")
	}
	res := ix.plan(question)
	if res.refusal != "" {
		b.WriteString("refused: " + res.refusal + "\n")
	} else {
		fmt.Fprintf(&b, "shape: %s\nsql: %s\n", res.plan.shape, res.sql)
	}
	return b.String()
}

var cueNames = map[cue]string{cueCurrent: "current", cueFormer: "former", cueCount: "count", cueAgg: "agg", cueSuper: "super", cueAdj: "adj", cueN: "n", cueGroup: "group",
	cueDistinct: "distinct", cueBucket: "bucket", cueDate: "date", cueCmp: "cmp", cueNumber: "num", cueNeg: "neg",
	cueList: "list", cueExists: "exists", cueSort: "sort"}

// planResult is a plan and its SQL, or a refusal.
type planResult struct {
	plan    *plan
	sql     string
	refusal string
	// options are rephrasings of an ambiguous question.
	options []string
}

// plan reads a question into SQL without running anything. A bug in the
// planner becomes a refusal, never a crash of the caller.
func (ix *index) plan(question string) (res planResult) {
	defer func() {
		if r := recover(); r != nil {
			res = planResult{refusal: refusalMessage(fmt.Sprintf("the planner failed on this question (%v).", r), ix)}
		}
	}()
	q := strings.TrimSpace(question)
	if q == "" {
		return planResult{refusal: "Ask a question about the data, for example " + ix.example() + "."}
	}
	if verb := writeIntent(tokenize(q)); verb != "" {
		return planResult{refusal: "tablewise only reads this database (it is opened read-only): it cannot " + verb + " anything, and nothing was changed. " +
			"Ask about the data instead, for example " + ix.example() + "."}
	}
	a := ix.analyze(q)
	p, why, options := ix.build(a)
	if why != "" {
		if len(options) > 0 {
			return planResult{refusal: "The built-in planner needs you to choose: " + why, options: options}
		}
		return planResult{refusal: refusalMessage(why, ix)}
	}
	sql, err := p.render(ix.s)
	if err != nil {
		return planResult{refusal: refusalMessage("I could not connect the tables the question needs ("+err.Error()+").", ix)}
	}
	return planResult{plan: p, sql: sql}
}

// writeVerbs ask to change the database.
var writeVerbs = map[string]string{
	"drop": "drop", "delete": "delete", "remove": "remove", "insert": "insert", "update": "update", "create": "create",
	"add": "add", "alter": "alter", "truncate": "truncate", "rename": "rename", "change": "change", "modify": "modify",
	"mark": "mark", "set": "set", "edit": "edit", "erase": "erase", "purge": "purge", "wipe": "wipe", "replace": "replace",
	"assign": "assign", "cancel": "cancel", "reset": "reset", "overwrite": "overwrite", "merge": "merge", "upsert": "upsert",
}

// writeIntent returns the verb of a request to change the data ("Drop the
// prices table", "please delete all orders from June", "can you mark
// flight 12 as cancelled"), or "".
func writeIntent(toks []token) string {
	i := 0
	skip := func(ws ...string) bool {
		for k, w := range ws {
			if i+k >= len(toks) || toks[i+k].low != w {
				return false
			}
		}
		i += len(ws)
		return true
	}
	for progress := true; progress && i < len(toks); {
		progress = skip("please") || skip("can", "you") || skip("could", "you") || skip("would", "you") || skip("will", "you") ||
			skip("i", "want", "to") || skip("i", "would", "like", "to") || skip("i", "need", "to") || skip("let", "us") ||
			skip("go", "ahead", "and") || skip("now")
	}
	if i < len(toks) {
		if v, ok := writeVerbs[toks[i].low]; ok && i+1 < len(toks) {
			return v
		}
	}
	return ""
}

// refusalMessage wraps what could not be mapped with what to do instead.
func refusalMessage(why string, ix *index) string {
	return "The built-in planner can't answer this: " + why +
		" Try rephrasing with the names of tables, columns or values (for example " + ix.example() + "), " +
		"or configure a model for open-ended questions: set ANTHROPIC_API_KEY, or OPENAI_API_KEY (OPENAI_BASE_URL for a local or compatible server)."
}

// example is a question this database can answer, built from its largest
// table.
func (ix *index) example() string {
	var best *tableInfo
	for _, t := range ix.s.tables {
		if t.view || t.junction {
			continue
		}
		if best == nil || t.rows > best.rows {
			best = t
		}
	}
	if best == nil {
		return `"How many rows are there?"`
	}
	return `"How many ` + text.Plural(strings.Join(best.raw, " ")) + ` are there?"`
}
