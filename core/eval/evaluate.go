package eval

import (
	"context"
	"fmt"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
)

// Answerer answers one question on its own: the offline planner, in its
// own tests, without files or a service.
type Answerer interface {
	Answer(ctx context.Context, question string) (*answer.Bundle, error)
}

// Outcome is how one case went in Evaluate.
type Outcome struct {
	Case    Case
	Status  answer.Status
	SQL     string
	Verdict Verdict
	// Correct is the verdict of the rule Evaluate counts by (its doc).
	Correct bool
	// Note says why a case is not right ("wrong result: …", "abstained
	// (refused)", "the SQL failed").
	Note string
}

// Report sums up Evaluate.
//
// Execution accuracy is correct answers over the cases that have gold SQL;
// precision is correct answers over everything answered, including the
// cases that should have been declined (they count as wrong).
type Report struct {
	Outcomes []Outcome
	Gold     int // cases with gold SQL
	Answered int // cases answered with SQL (all cases)
	Correct  int
	Refused  int // cases that should be declined and were
}

// Filter returns the report restricted to the outcomes keep accepts.
func (r *Report) Filter(keep func(Outcome) bool) *Report {
	out := &Report{}
	for _, o := range r.Outcomes {
		if keep(o) {
			out.add(o)
		}
	}
	return out
}

func (r *Report) add(o Outcome) {
	r.Outcomes = append(r.Outcomes, o)
	refuse := o.Case.Expect == ExpectRefuse
	if !refuse {
		r.Gold++
	}
	switch {
	case o.Status == answer.StatusAnswered && o.SQL != "":
		r.Answered++
		if o.Correct && !refuse {
			r.Correct++
		}
	case refuse && o.Correct:
		r.Refused++
	}
}

// Accuracy is Correct / Gold.
func (r *Report) Accuracy() float64 { return ratio(r.Correct, r.Gold) }

// Precision is Correct / Answered (1 when nothing was answered).
func (r *Report) Precision() float64 {
	if r.Answered == 0 {
		return 1
	}
	return ratio(r.Correct, r.Answered)
}

// Evaluate asks every case of a on d, one after the other, and scores the
// answers as Run does. Outcome.Correct, and the report's counts, use the
// lenient column-subset rule with the order compared only when a case says
// "ordered": the rule the offline planner's floors were set under (every
// verdict is in Outcome.Verdict). An error means a question could not be
// asked at all.
func Evaluate(ctx context.Context, d *db.DB, a Answerer, cases []Case) (*Report, error) {
	return EvaluateAgainst(ctx, d, d, a, cases)
}

// EvaluateAgainst is Evaluate with the gold SQL run on gold and the
// answers' SQL on d: the same data in two engines (gold SQL written for
// SQLite, answers written for PostgreSQL, say).
func EvaluateAgainst(ctx context.Context, gold, d *db.DB, a Answerer, cases []Case) (*Report, error) {
	rep := &Report{}
	for _, c := range cases {
		b, err := a.Answer(ctx, c.Question)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", c.Question, err)
		}
		if c.Ordered == nil {
			unordered := false
			c.Ordered = &unordered
		}
		rec := &Record{SQL: b.SQL}
		score(ctx, gold, d, c, b.Status, rec)
		o := Outcome{Case: c, Status: b.Status, SQL: b.SQL, Verdict: rec.Verdict, Correct: rec.CorrectSubset, Note: rec.Note}
		if rec.Error != "" {
			o.Note = rec.Error
		}
		rep.add(o)
	}
	return rep, nil
}
