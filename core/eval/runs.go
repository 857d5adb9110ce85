package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tablewise/tablewise/core/answer"
)

// ReadRun reads a run's settings and records from its directory.
func ReadRun(dir string) (RunInfo, []Record, error) {
	info, err := LoadRunInfo(dir)
	if err != nil {
		return RunInfo{}, nil, fmt.Errorf("read the run in %s: %w", dir, err)
	}
	recs, _, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		return RunInfo{}, nil, fmt.Errorf("read the run in %s: %w", dir, err)
	}
	return info, recs, nil
}

// RegradeResult is what Regrade did.
type RegradeResult struct {
	Summary *Summary
	// Changed lists the answers whose verdict changed.
	Changed []Change
	// Kept counts records carried over as they were: behaviour checks
	// (they judge the whole answer, which is not stored), missing
	// predictions and questions that ended in an error.
	Kept int
}

// Regrade scores the stored predictions of the run in dir again with the
// current rules, asking no one, and writes the regraded run (results,
// summary, report, run.json) to out. The gold SQL and the question come
// from the stored records; the databases from dbs. Behaviour checks,
// missing predictions and questions that ended in an error are
// carried over as they were.
func Regrade(ctx context.Context, dir, out string, dbs *Databases) (*RegradeResult, error) {
	info, recs, err := ReadRun(dir)
	if err != nil {
		return nil, err
	}
	if filepath.Clean(out) == filepath.Clean(dir) {
		return nil, fmt.Errorf("regrade: write to another directory than the run's own (%s), so the original stays", dir)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("regrade: %w", err)
	}
	w, _, err := openResults(out, false)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	res := &RegradeResult{}
	cases := casesOf(recs)
	byID := map[string]Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	// The suite as it is now, when it can still be read, decides whether
	// order matters (a case's "ordered", else the current rule); the
	// stored gold SQL is what the run was scored against.
	if s, err := LoadSuite(info.Suite); err == nil {
		for _, c := range s.Cases {
			if old, ok := byID[c.ID]; ok {
				old.Ordered = c.Ordered
				byID[c.ID] = old
			}
		}
	}
	for i := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		old := recs[i]
		r := old
		if info.Suite == SuiteBehaviours || r.GoldSQL == "" && r.Expect != ExpectRefuse || r.Status == StatusMissing || r.Status == string(answer.StatusError) {
			res.Kept++
		} else {
			d, err := dbs.Get(ctx, r.DB)
			if err != nil {
				return nil, err
			}
			r.Verdict, r.Note, r.Error, r.GoldRows, r.PredRows = Verdict{}, "", "", 0, 0
			score(ctx, d, d, byID[r.ID], answer.Status(r.Status), &r)
			if r.Verdict != old.Verdict || r.Outcome != old.Outcome {
				res.Changed = append(res.Changed, Change{ID: r.ID, Attempt: r.Attempt, Question: r.Question, Before: outcomeLabel(old), After: outcomeLabel(r)})
			}
		}
		if err := w.write(&r); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(out, RunFile), info); err != nil {
		return nil, err
	}
	if res.Summary, err = Finish(out, cases, info); err != nil {
		return nil, err
	}
	return res, nil
}

// casesOf rebuilds the cases of a run from its records, in order of first
// appearance. Whether order matters is kept as the run decided it.
func casesOf(recs []Record) []Case {
	var out []Case
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		ordered := r.Ordered
		out = append(out, Case{ID: r.ID, Question: r.Question, GoldSQL: r.GoldSQL, DB: r.DB, Difficulty: r.Difficulty, Set: r.Set, Expect: r.Expect, Ordered: &ordered})
	}
	return out
}

// Change is a question whose outcome differs between two runs (or a run
// and its regrading).
type Change struct {
	ID       string `json:"id"`
	Attempt  int    `json:"attempt,omitempty"`
	Question string `json:"question"`
	Before   string `json:"before"`
	After    string `json:"after"`
}

// outcomeLabel names how one answer went, in a word or three.
func outcomeLabel(r Record) string {
	switch {
	case r.Outcome == OutcomeInvalid:
		return "invalid gold"
	case r.Correct && r.CorrectStrict:
		return "right"
	case r.Correct:
		return "right (BIRD only)"
	case r.CorrectStrict:
		return "right (strict only)"
	case r.Outcome == OutcomeAbstained:
		return "abstained"
	case r.Outcome == OutcomeFailed:
		return "failed"
	}
	return "wrong"
}

// questionLabel names how a question went over its attempts.
func questionLabel(rs []Record) string {
	if len(rs) == 1 {
		return outcomeLabel(rs[0])
	}
	right := 0
	for _, r := range rs {
		right += b2i(r.Correct)
	}
	return fmt.Sprintf("%d/%d right", right, len(rs))
}

// CompareRuns lists the questions whose outcome changed from run a to run
// b (directories), in a's order, then the questions only one of them has.
func CompareRuns(a, b string) ([]Change, error) {
	_, ra, err := ReadRun(a)
	if err != nil {
		return nil, err
	}
	_, rb, err := ReadRun(b)
	if err != nil {
		return nil, err
	}
	group := func(recs []Record) (map[string][]Record, []string) {
		m := map[string][]Record{}
		var ids []string
		for _, r := range recs {
			if _, ok := m[r.ID]; !ok {
				ids = append(ids, r.ID)
			}
			m[r.ID] = append(m[r.ID], r)
		}
		for _, rs := range m {
			slices.SortFunc(rs, func(x, y Record) int { return x.Attempt - y.Attempt })
		}
		return m, ids
	}
	ga, ida := group(ra)
	gb, idb := group(rb)
	var out []Change
	for _, id := range ida {
		before := questionLabel(ga[id])
		after := "not asked"
		if rs, ok := gb[id]; ok {
			after = questionLabel(rs)
		}
		if before != after {
			out = append(out, Change{ID: id, Question: ga[id][0].Question, Before: before, After: after})
		}
	}
	for _, id := range idb {
		if _, ok := ga[id]; !ok {
			out = append(out, Change{ID: id, Question: gb[id][0].Question, Before: "not asked", After: questionLabel(gb[id])})
		}
	}
	return out, nil
}
