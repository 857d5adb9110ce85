package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// Limits of one scoring query (gold or predicted). Both run through
// core/query, so the guard vets every statement: predictions are untrusted
// text.
const (
	QueryTimeout = 30 * time.Second
	// MaxRows caps a result; a result cut at the cap cannot be compared
	// and is reported as such.
	MaxRows = 200_000
	// MaxBytes caps a result's size in memory.
	MaxBytes = 64 << 20
)

func collect(ctx context.Context, d *db.DB, sql string) (*query.Result, error) {
	res, err := query.Collect(ctx, d, sql, query.Options{MaxRows: MaxRows, MaxBytes: MaxBytes, Timeout: QueryTimeout})
	if err != nil {
		return nil, err
	}
	if res.Truncated {
		return nil, fmt.Errorf("the result is larger than %d rows or %d MB, too large to compare", MaxRows, MaxBytes>>20)
	}
	return res, nil
}

// abstained says whether a bundle declines to answer: refused, asked
// back, or answered without any SQL (an answer no query produced cannot be
// scored, and is not counted as wrong).
func abstained(status answer.Status, sql string) bool {
	return status == answer.StatusRefused || status == answer.StatusClarify ||
		(status == answer.StatusAnswered && strings.TrimSpace(sql) == "")
}

// score judges rec.SQL, which ended with status, against c on d and fills
// rec's outcome, verdict, row counts and note.
func score(ctx context.Context, goldDB, d *db.DB, c Case, status answer.Status, rec *Record) {
	rec.Status = string(status)
	rec.Ordered, rec.Top = c.OrderMatters(), c.AsksTop()
	refuse := c.Expect == ExpectRefuse
	switch {
	case abstained(status, rec.SQL):
		rec.Outcome = OutcomeAbstained
		if refuse {
			rec.Verdict = Verdict{true, true, true, true}
		} else if rec.Note == "" {
			rec.Note = "abstained (" + string(status) + ")"
		}
		return
	case status != answer.StatusAnswered:
		rec.Outcome = OutcomeFailed
		if rec.Note == "" {
			rec.Note = "no answer (" + string(status) + ")"
		}
		return
	}
	rec.Outcome = OutcomeAnswered
	if refuse {
		rec.Note = "answered a question that should be declined"
		return
	}
	gold, err := collect(ctx, goldDB, c.GoldSQL)
	if err != nil {
		if ctx.Err() == nil {
			rec.Outcome = OutcomeInvalid
			rec.Error = "gold SQL failed: " + err.Error()
			rec.Note = "the gold SQL failed; the question is left out of every figure"
		}
		return
	}
	rec.GoldRows = gold.RowCount
	pred, err := collect(ctx, d, rec.SQL)
	if err != nil {
		rec.Error = "prediction failed: " + err.Error()
		rec.Note = "the SQL failed"
		var le *query.LimitError
		if errors.As(err, &le) {
			rec.Note = "the SQL hit a limit"
		}
		return
	}
	rec.PredRows = pred.RowCount
	rec.Verdict = Judge(gold, pred, rec.Ordered, rec.Top)
	rec.Note = verdictNote(rec.Verdict, gold, pred)
}

// verdictNote explains a verdict that is not right under every rule.
func verdictNote(v Verdict, gold, pred *query.Result) string {
	if v.Correct && v.CorrectStrict {
		return ""
	}
	shape := fmt.Sprintf("gold %s × %s, predicted %s × %s",
		format.Plural(int64(gold.RowCount), "row"), format.Plural(int64(len(gold.Columns)), "column"),
		format.Plural(int64(pred.RowCount), "row"), format.Plural(int64(len(pred.Columns)), "column"))
	var held []string
	for _, r := range []struct {
		ok   bool
		name string
	}{{v.Correct, "BIRD's set rule"}, {v.CorrectStrict, "the strict rule"}, {v.CorrectSubset, "the lenient column-subset rule"}, {v.CorrectRanking && !v.CorrectStrict, "the lenient ranking rule"}} {
		if r.ok {
			held = append(held, r.name)
		}
	}
	if len(held) == 0 {
		return "wrong result: " + shape
	}
	return "right only under " + strings.Join(held, ", ") + ": " + shape
}
