package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
)

// Case is one gold question: {"question", "sql", "shape"}, with "expect":
// "refuse" for questions a planner should decline (they have no SQL) and
// "ordered": true when the question asks for an order.
type Case struct {
	Question string `json:"question"`
	SQL      string `json:"sql,omitempty"`
	Shape    string `json:"shape,omitempty"`
	Expect   string `json:"expect,omitempty"`
	Ordered  bool   `json:"ordered,omitempty"`
	// Batch names a group of cases reported separately (e.g. "holdout":
	// questions written after the planner was tuned).
	Batch string `json:"batch,omitempty"`
}

// ExpectRefuse marks a case the planner should decline.
const ExpectRefuse = "refuse"

// LoadCases reads a JSON Lines gold file.
func LoadCases(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load gold questions: %w", err)
	}
	defer f.Close()
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(text), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if c.Question == "" || (c.SQL == "" && c.Expect != ExpectRefuse) {
			return nil, fmt.Errorf("%s:%d: a case needs a question and sql (or \"expect\": \"refuse\")", path, line)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load gold questions: %w", err)
	}
	return out, nil
}

// Outcome is how one case went.
type Outcome struct {
	Case    Case
	Status  answer.Status
	SQL     string
	Correct bool
	// Note says why a case failed ("refused: …", "wrong result", "gold
	// failed: …").
	Note string
}

// Report sums up an evaluation.
//
// Execution accuracy is correct answers over the cases that have gold SQL;
// precision is correct answers over everything the planner answered,
// including the refuse-expected cases it answered anyway (they count as
// wrong).
type Report struct {
	Outcomes []Outcome
	Gold     int // cases with gold SQL
	Answered int // cases the planner answered (all cases)
	Correct  int
	Refused  int // refuse-expected cases that were refused
}

// Filter returns the report restricted to the outcomes keep accepts.
func (r *Report) Filter(keep func(Outcome) bool) *Report {
	out := &Report{}
	for _, o := range r.Outcomes {
		if !keep(o) {
			continue
		}
		out.Outcomes = append(out.Outcomes, o)
		if o.Case.Expect != ExpectRefuse {
			out.Gold++
		}
		if o.Status == answer.StatusAnswered {
			out.Answered++
			if o.Correct && o.Case.Expect != ExpectRefuse {
				out.Correct++
			}
		} else if o.Case.Expect == ExpectRefuse {
			out.Refused++
		}
	}
	return out
}

// Accuracy is Correct / Gold.
func (r *Report) Accuracy() float64 {
	if r.Gold == 0 {
		return 0
	}
	return float64(r.Correct) / float64(r.Gold)
}

// Precision is Correct / Answered (1 when nothing was answered).
func (r *Report) Precision() float64 {
	if r.Answered == 0 {
		return 1
	}
	return float64(r.Correct) / float64(r.Answered)
}

// Asker answers questions: the offline Planner, or any provider.
type Asker interface {
	Answer(ctx context.Context, question string) (*answer.Bundle, error)
}

// Evaluate asks every case, runs the gold SQL on d and compares the
// results with Compare (CompareOrdered for ordered cases). The predicted
// result is re-run from the bundle's SQL without a row cap so truncation
// never decides a comparison.
func Evaluate(ctx context.Context, d *db.DB, asker Asker, cases []Case) (*Report, error) {
	rep := &Report{}
	for _, c := range cases {
		o := Outcome{Case: c}
		if c.Expect != ExpectRefuse {
			rep.Gold++
		}
		b, err := asker.Answer(ctx, c.Question)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", c.Question, err)
		}
		o.Status, o.SQL = b.Status, b.SQL
		switch {
		case b.Status != answer.StatusAnswered:
			o.Note = string(b.Status) + ": " + b.Answer
			if c.Expect == ExpectRefuse {
				rep.Refused++
				o.Note = ""
				o.Correct = true
			}
		case c.Expect == ExpectRefuse:
			rep.Answered++
			o.Note = "answered a question it should refuse"
		default:
			rep.Answered++
			gold, err := query.Collect(ctx, d, c.SQL, query.Options{Timeout: QueryTimeout})
			if err != nil {
				o.Note = "gold failed: " + err.Error()
				break
			}
			pred, err := query.Collect(ctx, d, b.SQL, query.Options{Timeout: QueryTimeout})
			if err != nil {
				o.Note = "prediction failed: " + err.Error()
				break
			}
			if c.Ordered {
				o.Correct = CompareOrdered(gold, pred)
			} else {
				o.Correct = Compare(gold, pred)
			}
			if o.Correct {
				rep.Correct++
			} else {
				o.Note = fmt.Sprintf("wrong result: gold %d rows × %d cols, predicted %d rows × %d cols", gold.RowCount, len(gold.Columns), pred.RowCount, len(pred.Columns))
			}
		}
		rep.Outcomes = append(rep.Outcomes, o)
	}
	return rep, nil
}
