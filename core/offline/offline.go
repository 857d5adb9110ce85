// Package offline is tablewise's built-in planner: it answers the common
// shapes of analytic questions — counts, filtered counts and lists,
// top/bottom N, aggregates, breakdowns per group or per period, the group
// with the most or least, distinct counts — on any SQLite schema, with no
// model, no key and no network.
//
// It links the words of a question to the catalog (table and column names
// split on case and underscores, singular and plural, a small generic
// synonym list, column comments) and to the data (a value index of the
// short text values of low-cardinality columns, built once per database),
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
// The package also holds the evaluation used to measure it (Compare, the
// BIRD-style result comparison; LoadCases and Evaluate over the gold files
// in data/eval) so that other providers can be scored the same way.
package offline

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
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
// first use; it is safe for concurrent use.
type Planner struct {
	d *db.DB

	mu  sync.Mutex
	idx *index
}

// index is everything the planner knows about a database, immutable once
// built.
type index struct {
	s      *schema
	values *valueIndex
	// words: every stem of a table or column name and its synonyms.
	words map[string]bool
	built time.Duration
}

// New returns a planner for d.
func New(d *db.DB) *Planner {
	return &Planner{d: d}
}

// index returns the planner's index, building it on first use.
func (p *Planner) index(ctx context.Context) (*index, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idx != nil {
		return p.idx, nil
	}
	start := time.Now()
	cat, err := p.d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	s := newSchema(cat)
	ix := &index{s: s}
	ix.values = buildValues(ctx, p.d, s)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	ix.words = schemaWords(s)
	ix.built = time.Since(start)
	p.idx = ix
	return ix, nil
}

// Warm builds the planner's indexes now (they are otherwise built by the
// first question).
func (p *Planner) Warm(ctx context.Context) error {
	_, err := p.index(ctx)
	return err
}

func schemaWords(s *schema) map[string]bool {
	words := map[string]bool{}
	add := func(w string) {
		words[w] = true
		for _, g := range synGroup[w] {
			for _, o := range synonymGroups[g] {
				words[stem(o)] = true
			}
		}
	}
	for _, t := range s.tables {
		for _, w := range t.words {
			add(w)
		}
		for _, c := range t.cols {
			for _, w := range c.words {
				if w != "id" {
					add(w)
				}
			}
		}
	}
	return words
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
	b.Chart = res.plan.chart(r)
	b.FollowUps = ix.followUps(res.plan, question, res.sql)
	b.Timings.SQLMS = r.Elapsed.Milliseconds()
	b.Timings.TotalMS = time.Since(start).Milliseconds()
	b.Steps[0].Summary = fmt.Sprintf("%d rows", r.RowCount)
	return b, nil
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

var cueNames = map[cue]string{cueCount: "count", cueAgg: "agg", cueSuper: "super", cueAdj: "adj", cueN: "n", cueGroup: "group",
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
	return `"How many ` + pluralOf(strings.Join(best.raw, " ")) + ` are there?"`
}
