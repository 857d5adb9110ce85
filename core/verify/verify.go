// Package verify checks a statement's result before it becomes an answer.
// The commonest wrong answer is not an error: the query runs and quietly
// answers another question — a filter on 'U.K.' when the column holds
// 'United Kingdom' returns nothing, a join on the wrong key counts twice.
//
// Literals finds each comparison of a column with a text literal (=, IN,
// LIKE) and checks it against the column's values with bounded queries,
// naming the closest values when it does not occur; Inspect adds notes on
// an empty result, an aggregate of NULL or zero on a filtered query, and a
// join that multiplies the driving table's rows. Every query goes through
// core/query (so the engine's guard vets it) and is written with the
// engine's Dialect, so the checks work on every engine.
//
// The checks read the SQL with core/guard's tokenizer: they find what they
// can and skip what they cannot read; they never decide what may run.
package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// Bounds on the checking queries.
const (
	// MaxLiterals is the most literals one statement has checked.
	MaxLiterals = 8
	// MaxClosest is the most close values named for a literal.
	MaxClosest = 5
	// DefaultTimeout bounds each checking query unless Options say
	// otherwise.
	DefaultTimeout = 2 * time.Second
	// DefaultBudget bounds all the checks of one statement unless Options
	// say otherwise: on a big table whose columns have no index, what is
	// left unchecked when it runs out is marked so rather than making the
	// answer wait.
	DefaultBudget = 5 * time.Second
	// candidateRows is how many of a column's most frequent values are
	// compared with an absent literal.
	candidateRows = 500
)

// Options bound the checking queries; a zero field takes its default.
type Options struct {
	// Timeout bounds each checking query (DefaultTimeout).
	Timeout time.Duration
	// Budget bounds all the checks of one statement (DefaultBudget).
	Budget time.Duration
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	return o
}

// Report is what the checks of one statement found.
type Report struct {
	Literals []answer.Literal
	// Notes are sentences for the model (and the reader), one per finding.
	Notes []string
}

// Check checks the statement sql whose result is res: its literals
// (Literals), then the result's shape (empty, NULL or zero aggregates on a
// filtered query) and fan-out of its joins, within opt's bounds. It never
// fails: what could not be checked is left out or marked unchecked.
func Check(ctx context.Context, d *db.DB, sql string, res *query.Result, opt Options) Report {
	opt = opt.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opt.Budget)
	defer cancel()
	var r Report
	r.Literals = Literals(ctx, d, sql, opt)
	r.Notes = append(r.Notes, LiteralNotes(d, r.Literals)...)
	if res != nil {
		r.Notes = append(r.Notes, resultNotes(sql, res, r.Literals)...)
	}
	if n := fanOut(ctx, d, sql, opt); n != "" {
		r.Notes = append(r.Notes, n)
	}
	return r
}

// LiteralNotes says, for each literal that no row matches, which values
// are closest, quoted as d's dialect quotes them.
func LiteralNotes(d *db.DB, lits []answer.Literal) []string {
	q := d.Dialect().QuoteString
	ident := d.Dialect().QuoteIdentIfNeeded
	var out []string
	for _, l := range lits {
		if l.Found || l.Unchecked != "" {
			continue
		}
		what := "equals"
		if l.Op == "LIKE" || l.Op == "ILIKE" {
			what = "matches " + l.Op
		}
		col := ident(l.Table) + "." + ident(l.Column)
		if l.Func != "" {
			col = l.Func + "(" + col + ")"
		}
		s := fmt.Sprintf("no row of %s %s %s", col, what, q(l.Value))
		if len(l.Closest) == 0 {
			s += "; no value of the column is close to it — check the column with sample_values"
		} else {
			quoted := make([]string, len(l.Closest))
			for i, c := range l.Closest {
				quoted[i] = q(c)
			}
			s += "; the closest values are " + strings.Join(quoted, ", ") + " — if the question means one of them, run the query again with it"
		}
		out = append(out, s)
	}
	return out
}

// Fingerprint is a normalized fingerprint of sql: the same for texts that
// differ only in whitespace, comments, the case of keywords and names, and
// a trailing semicolon; different when a literal, a name or an operator
// differs.
func Fingerprint(sql string) string {
	h := sha256.New()
	toks := guard.Lex(sql)
	for len(toks) > 0 && toks[len(toks)-1].Text == ";" {
		toks = toks[:len(toks)-1]
	}
	for _, t := range toks {
		s := t.Text
		if s[0] != '\'' {
			s = strings.ToLower(s)
		}
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
