// Package advise suggests indexes for a statement and proves each one with
// the engine's own planner, without creating anything in the database: the
// candidates come from the columns the statement names on the tables its
// plan scans in full, each is tried through engine.IndexTrier (SQLite: on
// an in-memory copy of the schema and statistics; PostgreSQL: HypoPG's
// hypothetical indexes), and only those the planner then uses to avoid a
// scan or a temporary sort are kept. Where the planner cannot try an index
// that does not exist (MySQL, MariaDB, PostgreSQL without HypoPG) the
// advice is an estimate, labelled as such (estimate.go).
package advise

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
)

// Suggestion is one index the planner would use.
type Suggestion struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
	// Create is the statement that makes it; tablewise never runs it.
	Create string `json:"create"`
	// Why says what it changes in the plan.
	Why    string `json:"why"`
	Before string `json:"plan_before"`
	// After is the plan with the index, "" for an estimate.
	After string `json:"plan_after"`
	// Proof is "planner" when the engine's planner used the index
	// without it being built, "estimate" when it was not tried.
	Proof string `json:"proof"`
}

// Proofs of a suggestion.
const (
	ProofPlanner  = "planner"
	ProofEstimate = "estimate"
)

// Advice is Advise's result for one statement.
type Advice struct {
	SQL         string       `json:"sql"`
	Suggestions []Suggestion `json:"suggestions"`
	// Plan is the statement's plan as the database is.
	Plan string `json:"plan"`
	// Notes say why nothing was suggested, or what was not tried.
	Notes []string `json:"notes,omitempty"`
	// Method says how the suggestions were proven, or estimated.
	Method string `json:"method"`
	// Proof is "planner" or "estimate": how every suggestion was made.
	Proof string `json:"proof"`
}

// maxColumns bounds the columns of one table tried as candidates;
// candidates are each of them and each ordered pair.
const maxColumns = 5

// Advise suggests indexes for sql on d: proven by the planner where the
// engine can try an index without building it (engine.IndexTrier), else a
// labelled estimate (MySQL and MariaDB; PostgreSQL without HypoPG).
func Advise(ctx context.Context, d *db.DB, sql string) (*Advice, error) {
	trier, canTry := d.Engine().(engine.IndexTrier)
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	real, err := d.Explain(ctx, sql)
	if err != nil {
		return nil, err
	}
	adv := &Advice{SQL: real.SQL, Plan: real.Text(), Suggestions: []Suggestion{}, Proof: ProofPlanner}
	if canTry {
		adv.Method = "each candidate was " + trier.IndexTrial() + "; the database was only read"
	} else {
		adv.Proof, adv.Method = ProofEstimate, estimateMethod(d, nil)
	}
	aliases := cat.Aliases(real.SQL)
	scanned := map[string][]string{} // table → the aliases it is scanned under
	var order []string
	for _, s := range real.Steps {
		alias, ok := scanOf(s)
		if !ok {
			continue
		}
		t := aliases[strings.ToLower(alias)]
		if t == nil || t.Kind != "table" {
			continue
		}
		if _, seen := scanned[t.Name]; !seen {
			order = append(order, t.Name)
		}
		scanned[t.Name] = append(scanned[t.Name], alias)
	}
	if len(order) == 0 {
		adv.Notes = append(adv.Notes, "the plan reads no table in full: its indexes already serve it")
		return adv, nil
	}
	if !canTry {
		return estimate(ctx, d, cat, real, adv, order, scanned)
	}
	words := identifiersAfterFrom(real.SQL)
	var specs []engine.IndexSpec
	for _, name := range order {
		t := cat.Table(name)
		cols := mentioned(t, words)
		if len(cols) == 0 {
			adv.Notes = append(adv.Notes, fmt.Sprintf("%s is read in full, but the statement filters, joins or sorts on none of its columns: an index cannot help", name))
			continue
		}
		for _, c := range cols {
			specs = append(specs, engine.IndexSpec{Table: t.Name, Columns: []string{c}})
		}
		for _, a := range cols {
			for _, b := range cols {
				if a != b {
					specs = append(specs, engine.IndexSpec{Table: t.Name, Columns: []string{a, b}})
				}
			}
		}
	}
	if len(specs) == 0 {
		return adv, nil
	}
	before, after, err := trier.TryIndexes(ctx, real.SQL, specs)
	if errors.Is(err, engine.ErrNoIndexTrial) {
		adv.Proof, adv.Method = ProofEstimate, estimateMethod(d, err)
		return estimate(ctx, d, cat, real, adv, order, scanned)
	}
	if err != nil {
		return nil, err
	}
	type scored struct {
		spec  engine.IndexSpec
		plan  *engine.Plan
		score int
		name  string
	}
	best := map[string]scored{}
	for i, spec := range specs {
		p := after[i]
		name := fmt.Sprintf("tablewise_candidate_%d", i+1)
		if !strings.Contains(p.Text(), name) {
			continue // the planner does not use it
		}
		gain := 100*(scans(before, scanned[spec.Table])-scans(p, scanned[spec.Table])) + 10*(tempSorts(before)-tempSorts(p))
		if gain <= 0 {
			continue
		}
		// Between indexes that remove the same scans and sorts, the one
		// the planner searches on more terms of, then one that covers
		// the statement (no row lookups).
		score := gain + searchTerms(p, scanned[spec.Table], name)
		if cur, ok := best[spec.Table]; !ok || score > cur.score || score == cur.score && len(spec.Columns) < len(cur.spec.Columns) {
			best[spec.Table] = scored{spec, p, score, name}
		}
	}
	for _, t := range order {
		b, ok := best[t]
		if !ok {
			continue
		}
		idx := catalog.IndexName(b.spec.Table, b.spec.Columns)
		cols := make([]string, len(b.spec.Columns))
		for i, c := range b.spec.Columns {
			cols[i] = d.Dialect().QuoteIdentIfNeeded(c)
		}
		var why []string
		if n := scans(before, scanned[t]) - scans(b.plan, scanned[t]); n > 0 {
			why = append(why, fmt.Sprintf("reads %s through the index instead of scanning all of it", t))
		}
		if n := tempSorts(before) - tempSorts(b.plan); n > 0 {
			why = append(why, "no temporary b-tree to sort or group the rows")
		}
		adv.Suggestions = append(adv.Suggestions, Suggestion{
			Table: t, Columns: b.spec.Columns,
			Create: fmt.Sprintf("CREATE INDEX %s ON %s (%s);", d.Dialect().QuoteIdentIfNeeded(idx), d.Dialect().QuoteIdentIfNeeded(t), strings.Join(cols, ", ")),
			Why:    strings.Join(why, "; "),
			Before: before.Text(),
			After:  strings.ReplaceAll(b.plan.Text(), b.name, idx),
			Proof:  ProofPlanner,
		})
	}
	if len(adv.Suggestions) == 0 {
		adv.Notes = append(adv.Notes, fmt.Sprintf("no index on %s made the planner avoid a scan or a sort (%d candidates tried)", strings.Join(order, ", "), len(specs)))
	}
	return adv, nil
}

// Text renders the advice for people: each suggestion with its plans
// before and after, or why there is none.
func (a *Advice) Text() string {
	w := &strings.Builder{}
	if len(a.Suggestions) == 0 {
		fmt.Fprintf(w, "No index to suggest: %s.\n", strings.Join(a.Notes, "; "))
		if a.Proof == ProofEstimate {
			fmt.Fprintf(w, "(%s: %s.)\n", EstimateLabel, a.Method)
		}
		if a.Plan != "" {
			fmt.Fprintf(w, "\n%s", a.Plan)
		}
		return w.String()
	}
	if a.Proof == ProofEstimate {
		for _, sg := range a.Suggestions {
			fmt.Fprintf(w, "%s\n  %s: %s.\n\nplan now:\n%s\n", sg.Create, EstimateLabel, sg.Why, indent(sg.Before))
		}
		fmt.Fprintf(w, "Estimate, not tried by the planner: %s. tablewise never creates the index.\n", a.Method)
		return w.String()
	}
	for _, sg := range a.Suggestions {
		fmt.Fprintf(w, "%s\n  %s.\n\nbefore:\n%s\nafter:\n%s\n", sg.Create, sg.Why, indent(sg.Before), indent(sg.After))
	}
	fmt.Fprintf(w, "Proven: %s. tablewise never creates the index.\n", a.Method)
	return w.String()
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}

// scanStep reads the table (or alias) of a SQLite plan step that reads a
// table in full: "SCAN o", "SCAN orders USING INDEX idx" (an index scan
// still reads every row), or "SEARCH orders" with no index to search with.
var scanStep = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:SCAN (\S+)|SEARCH (\S+)$)`)
})

// scanOf names the table (or alias) a step reads in full: the engine's own
// mark (engine.PlanStep.Scan: PostgreSQL's Seq Scan, MySQL's ALL), or
// SQLite's wording.
func scanOf(s engine.PlanStep) (string, bool) {
	if s.Scan != "" {
		return s.Scan, true
	}
	m := scanStep().FindStringSubmatch(s.Detail)
	if m == nil {
		return "", false
	}
	return catalog.Unquote(m[1] + m[2]), true
}

// scans counts the steps of p that scan one of aliases in full.
func scans(p *engine.Plan, aliases []string) int {
	n := 0
	for _, s := range p.Steps {
		if a, ok := scanOf(s); ok && slices.ContainsFunc(aliases, func(x string) bool { return strings.EqualFold(x, a) }) {
			n++
		}
	}
	return n
}

// searchTerms counts the terms (each "?") the plan's searches of aliases
// through index name use, plus one when the index covers the statement.
func searchTerms(p *engine.Plan, aliases []string, name string) int {
	n := 0
	for _, s := range p.Steps {
		f := strings.Fields(s.Detail)
		if len(f) < 2 || f[0] != "SEARCH" || !strings.Contains(s.Detail, name) ||
			!slices.ContainsFunc(aliases, func(x string) bool { return strings.EqualFold(x, catalog.Unquote(f[1])) }) {
			continue
		}
		n += strings.Count(s.Detail, "?")
		if strings.Contains(s.Detail, "COVERING INDEX") {
			n++
		}
	}
	return n
}

// tempSorts counts the steps that sort or group rows apart from an index:
// SQLite's temporary b-trees, PostgreSQL's Sort nodes.
func tempSorts(p *engine.Plan) int {
	n := 0
	for _, s := range p.Steps {
		if strings.HasPrefix(s.Detail, "USE TEMP B-TREE") || strings.HasPrefix(s.Detail, "Sort") {
			n++
		}
	}
	return n
}

var identifier = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"(?:[^"]|"")+"|` + "`[^`]+`" + `|\[[^\]]+\]|[\p{L}_][\p{L}\p{N}_$]*|'(?:[^']|'')*'`)
})

// identifiersAfterFrom lists, lower-cased and in order, the identifiers
// after the statement's first FROM: where filters, joins, groups and
// sorts name columns (string literals are skipped).
func identifiersAfterFrom(sql string) []string {
	var out []string
	seenFrom := false
	for _, w := range identifier().FindAllString(sql, -1) {
		if strings.HasPrefix(w, "'") {
			continue
		}
		if !seenFrom {
			seenFrom = strings.EqualFold(w, "from")
			continue
		}
		out = append(out, strings.ToLower(catalog.Unquote(w)))
	}
	return out
}

// mentioned lists t's columns among words, in the order they first
// appear, at most maxColumns.
func mentioned(t *catalog.Table, words []string) []string {
	var out []string
	for _, w := range words {
		for _, c := range t.Columns {
			if strings.ToLower(c.Name) == w && !slices.Contains(out, c.Name) && len(out) < maxColumns {
				out = append(out, c.Name)
			}
		}
	}
	return out
}
