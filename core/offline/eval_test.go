package offline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Targets of the built-in planner on the gold sets.
const (
	targetAccuracy  = 0.80
	targetPrecision = 0.95
)

// TestEval measures execution accuracy and precision on the gold questions
// of the sample database (data/eval/sample.jsonl) and of Chinook
// (data/eval/chinook.jsonl, run against ../shared/data/chinook.sqlite) and
// fails when a set falls below the targets.
//
// OFFLINE_EVAL_VERBOSE=1 logs every question with the SQL the planner ran;
// failures are always logged, with Explain's reading of the question.
func TestEval(t *testing.T) {
	sets := []struct {
		name, file string
		open       func(testing.TB) *testPlanner
	}{
		{"sample", "sample.jsonl", samplePlanner},
		{"chinook", "chinook.jsonl", chinookPlanner},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			tp := set.open(t)
			cases, err := LoadCases(filepath.Join("..", "..", "data", "eval", set.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Evaluate(context.Background(), tp.d, tp.p, cases)
			if err != nil {
				t.Fatal(err)
			}
			verbose := os.Getenv("OFFLINE_EVAL_VERBOSE") != ""
			for _, o := range rep.Outcomes {
				switch {
				case !o.Correct:
					t.Logf("FAIL [%s] %s\n\t%s\n\tsql:  %s\n\tgold: %s\n%s", o.Case.Shape, o.Case.Question, o.Note, o.SQL, o.Case.SQL,
						indent(tp.p.Explain(context.Background(), o.Case.Question)))
				case verbose:
					t.Logf("ok   [%s] %s\n\t%s", o.Case.Shape, o.Case.Question, o.SQL)
				}
			}
			t.Logf("%s: execution accuracy %.1f%% (%d/%d), precision %.1f%% (%d/%d answered), refusals of out-of-scope questions %d/%d",
				set.name, 100*rep.Accuracy(), rep.Correct, rep.Gold, 100*rep.Precision(), rep.Correct, rep.Answered,
				rep.Refused, len(cases)-rep.Gold)
			for _, batch := range []string{"holdout", "blind2"} {
				if h := rep.Filter(func(o Outcome) bool { return o.Case.Batch == batch }); len(h.Outcomes) > 0 {
					t.Logf("%s batch %q: execution accuracy %.1f%% (%d/%d), precision %.1f%% (%d/%d answered)",
						set.name, batch, 100*h.Accuracy(), h.Correct, h.Gold, 100*h.Precision(), h.Correct, h.Answered)
				}
			}
			if rep.Accuracy() < targetAccuracy {
				t.Errorf("%s: execution accuracy %.1f%% is below the %.0f%% target", set.name, 100*rep.Accuracy(), 100*targetAccuracy)
			}
			if rep.Precision() < targetPrecision {
				t.Errorf("%s: precision %.1f%% is below the %.0f%% target", set.name, 100*rep.Precision(), 100*targetPrecision)
			}
		})
	}
}

func indent(s string) string {
	out := ""
	for _, line := range splitLines(s) {
		out += "\t\t" + line + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
