package offline

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/data/eval/evaldb"
)

// evalSet is one gold file and the database it is asked against.
type evalSet struct {
	name, file string
	open       func(testing.TB) *testPlanner
	// Targets; a zero target is reported but not enforced.
	accuracy, precision float64
	// heldOut sets run only when asked for (OFFLINE_EVAL_HELDOUT=1 or by
	// name in OFFLINE_EVAL_SETS), so that tuning never sees their misses.
	heldOut bool
}

// Targets of the built-in planner on its own gold sets.
const (
	targetAccuracy  = 0.95
	targetPrecision = 1.0
)

// blindFloors are the cross-domain blind sets' figures at the end of the
// last round of work (data/eval/README.md: third round), enforced so that
// a change that loses a correct answer or answers wrongly fails. They are
// above the targets (0.60 accuracy, 0.90 precision on each); raise a
// floor when a set improves.
var blindFloors = map[string][2]float64{
	"hr":       {0.88, 1.0}, // 38/43, 38/38 answered
	"airlines": {0.68, 1.0}, // 28/41, 28/28
	"health":   {0.70, 1.0}, // 31/44, 31/31
	"campus":   {0.72, 1.0}, // 32/44, 32/32
	// The third round's tuning set, after its round (data/eval/README.md).
	"logistics": {0.97, 1.0}, // 41/42, 41/41
}

// heldOutFloors are the held-out sets' figures after the precision work
// on their misses (data/eval/README.md), enforced when they are run.
var heldOutFloors = map[string][2]float64{
	"saas":    {0.70, 1.0}, // 31/44, 31/31 answered
	"library": {0.62, 1.0}, // 23/37, 23/23
	// Its single run after the third round, misses unread: 24/44, 24/27.
	"restaurant": {0.54, 0.88},
}

func evalSets() []evalSet {
	sets := []evalSet{
		{name: "sample", file: "sample.jsonl", open: samplePlanner, accuracy: targetAccuracy, precision: targetPrecision},
		{name: "chinook", file: "chinook.jsonl", open: chinookPlanner, accuracy: targetAccuracy, precision: targetPrecision},
	}
	// The cross-domain blind sets (data/eval/README.md): databases built
	// by data/eval/evaldb, questions written without reading the planner.
	for _, name := range []string{"hr", "airlines", "health", "campus", "logistics"} {
		f := blindFloors[name]
		sets = append(sets, evalSet{name: "blind-" + name, file: name + ".jsonl", accuracy: f[0], precision: f[1],
			open: func(t testing.TB) *testPlanner { return evalDBPlanner(t, name) }})
	}
	// The held-out sets, run once at the end of the work that added them
	// (data/eval/README.md); see TestEval for how they are run.
	for _, name := range evaldb.HeldOut {
		f := heldOutFloors[name]
		sets = append(sets, evalSet{name: evaldb.SetTag(name), file: name + ".jsonl", heldOut: true, accuracy: f[0], precision: f[1],
			open: func(t testing.TB) *testPlanner { return evalDBPlanner(t, name) }})
	}
	return sets
}

// TestEval measures execution accuracy and precision on the gold questions
// of the sample database (data/eval/sample.jsonl), of Chinook
// (data/eval/chinook.jsonl, run against ../shared/data/chinook.sqlite)
// and of the cross-domain blind sets (data/eval/{hr,airlines,health,
// campus,logistics}.jsonl on databases built by data/eval/evaldb), and
// fails when a set falls below its floor.
//
// OFFLINE_EVAL_VERBOSE=1 logs every question with the SQL the planner ran;
// failures are always logged, with Explain's reading of the question.
// OFFLINE_EVAL_SETS=name,name runs only the named sets. The held-out sets
// (heldout-<name>) are skipped unless OFFLINE_EVAL_HELDOUT=1 or
// OFFLINE_EVAL_SETS names them: their figure is a single run at the end of
// a round of work, and looking at their misses while tuning would spend it.
func TestEval(t *testing.T) {
	only := map[string]bool{}
	for _, s := range strings.Split(os.Getenv("OFFLINE_EVAL_SETS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			only[s] = true
		}
	}
	for _, set := range evalSets() {
		t.Run(set.name, func(t *testing.T) {
			if len(only) > 0 && !only[set.name] {
				t.Skipf("OFFLINE_EVAL_SETS does not name %s", set.name)
			}
			if set.heldOut && !only[set.name] && os.Getenv("OFFLINE_EVAL_HELDOUT") == "" {
				t.Skipf("%s is a held-out set: run it once with OFFLINE_EVAL_HELDOUT=1 (data/eval/README.md)", set.name)
			}
			tp := set.open(t)
			cases := goldCases(t, set.file)
			rep := evaluate(t, tp, cases)
			verbose := os.Getenv("OFFLINE_EVAL_VERBOSE") != ""
			for _, o := range rep.Outcomes {
				switch {
				case !o.Correct:
					t.Logf("FAIL [%s] %s\n\t%s\n\tsql:  %s\n\tgold: %s\n%s", o.Case.Shape, o.Case.Question, o.Note, o.SQL, o.Case.GoldSQL,
						indent(tp.p.Explain(context.Background(), o.Case.Question)))
				case verbose:
					t.Logf("ok   [%s] %s\n\t%s", o.Case.Shape, o.Case.Question, o.SQL)
				}
			}
			t.Logf("%s: execution accuracy %.1f%% (%d/%d), precision %.1f%% (%d/%d answered), refusals of out-of-scope questions %d/%d",
				set.name, 100*rep.Accuracy(), rep.Correct, rep.Gold, 100*rep.Precision(), rep.Correct, rep.Answered,
				rep.Refused, len(cases)-rep.Gold)
			for _, batch := range []string{"holdout", "blind2"} {
				if h := rep.Filter(func(o eval.Outcome) bool { return o.Case.Batch == batch }); len(h.Outcomes) > 0 {
					t.Logf("%s batch %q: execution accuracy %.1f%% (%d/%d), precision %.1f%% (%d/%d answered)",
						set.name, batch, 100*h.Accuracy(), h.Correct, h.Gold, 100*h.Precision(), h.Correct, h.Answered)
				}
			}
			if rep.Accuracy() < set.accuracy {
				t.Errorf("%s: execution accuracy %.1f%% is below its floor of %.0f%%", set.name, 100*rep.Accuracy(), 100*set.accuracy)
			}
			if rep.Precision() < set.precision {
				t.Errorf("%s: precision %.1f%% is below its floor of %.0f%%", set.name, 100*rep.Precision(), 100*set.precision)
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
