package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm"
)

// fakeAsker answers with reply(question, n), n counting the times the
// question was asked (from 1). It records the trace ids it was given.
type fakeAsker struct {
	reply func(q string, n int) (*answer.Bundle, error)

	mu     sync.Mutex
	asked  map[string]int
	traces []string
}

func (f *fakeAsker) Ask(ctx context.Context, d *db.DB, q, conv string) (*answer.Bundle, error) {
	f.mu.Lock()
	if f.asked == nil {
		f.asked = map[string]int{}
	}
	f.asked[q]++
	n := f.asked[q]
	id := llm.CallTagsFrom(ctx).TraceID
	f.traces = append(f.traces, id)
	f.mu.Unlock()
	b, err := f.reply(q, n)
	if b != nil {
		b.TraceID = id
		b.Provider = "fake"
	}
	return b, err
}

func (f *fakeAsker) count(q string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked[q]
}

func answered(sql string) *answer.Bundle {
	return &answer.Bundle{Status: answer.StatusAnswered, SQL: sql, Answer: "an answer"}
}

// concertCases are the Spider-shaped fixture's questions and a question
// that should be declined.
func concertCases(t *testing.T) ([]Case, *Databases) {
	s, err := LoadSuite("spider:" + spiderDir(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := append(s.Cases, Case{ID: "why", Question: "Why do singers age?", Expect: ExpectRefuse, DB: "concert"})
	dbs := &Databases{Dir: s.DBDir}
	t.Cleanup(dbs.Close)
	return cases, dbs
}

func readRecords(t *testing.T, dir string) []Record {
	t.Helper()
	recs, _, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRunScoresAndWritesFiles(t *testing.T) {
	cases, dbs := concertCases(t)
	f := &fakeAsker{reply: func(q string, _ int) (*answer.Bundle, error) {
		switch {
		case strings.HasPrefix(q, "How many"):
			b := answered("SELECT count(*) AS n FROM singer")
			b.Usage = answer.Usage{ModelCalls: 2, InputTokens: 100, OutputTokens: 20, CostUSD: 0.002}
			return b, nil
		case strings.HasPrefix(q, "List"):
			return answered("SELECT name FROM singer ORDER BY age DESC"), nil // the wrong order
		}
		return &answer.Bundle{Status: answer.StatusRefused, Answer: "no"}, nil
	}}
	out := t.TempDir()
	sum, err := Run(context.Background(), cases, Options{Asker: f, DBs: dbs, Out: out, Info: RunInfo{Suite: "spider:x", Provider: "fake"}})
	if err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, out)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	byID := map[string]Record{}
	for _, r := range recs {
		byID[r.ID] = r
		if r.TraceID == "" || r.Attempt != 1 || r.Time.IsZero() {
			t.Errorf("%s: trace %q attempt %d", r.ID, r.TraceID, r.Attempt)
		}
	}
	if r := byID["spider-0"]; !r.Correct || !r.CorrectStrict || r.Outcome != OutcomeAnswered || r.GoldRows != 1 || r.Usage.InputTokens != 100 || r.Provider != "fake" {
		t.Errorf("spider-0: %+v", r)
	}
	// Right as a set, wrong as a sequence: the gold orders by age.
	if r := byID["spider-1"]; !r.Correct || r.CorrectStrict || !r.Ordered || !strings.Contains(r.Note, "BIRD's set rule") {
		t.Errorf("spider-1: %+v", r)
	}
	if r := byID["why"]; r.Outcome != OutcomeAbstained || !r.Correct || r.Status != "refused" {
		t.Errorf("why: %+v", r)
	}
	// The trace id in the context is the record's.
	for _, id := range f.traces {
		found := false
		for _, r := range recs {
			found = found || r.TraceID == id
		}
		if !found {
			t.Errorf("trace id %q given to the asker is in no record", id)
		}
	}
	o := sum.Overall
	if o.Gold != 2 || o.Correct != 2 || o.CorrectStrict != 1 || o.Answered != 2 || o.Abstained != 1 || o.Declined != 1 ||
		o.Accuracy != 1 || o.AccuracyStrict != 0.5 || o.PrecisionStrict != 0.5 || o.InputTokens != 100 || o.CostUSD != 0.002 || o.Asked != 3 {
		t.Errorf("overall %+v", o)
	}
	var js Summary
	raw, err := os.ReadFile(filepath.Join(out, SummaryFile))
	if err != nil || json.Unmarshal(raw, &js) != nil || js.Overall.CorrectStrict != 1 || !js.Complete {
		t.Errorf("summary.json: %v %+v", err, js.Overall)
	}
	md, _ := os.ReadFile(filepath.Join(out, ReportFile))
	for _, want := range []string{"| all | 3 | 100.0% (2) | 50.0% (1) |", "1 of 1 declined", "| spider-1 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	// A second run into the same directory must say --resume.
	_, err = Run(context.Background(), cases, Options{Asker: f, DBs: dbs, Out: out, Info: RunInfo{Suite: "spider:x", Provider: "fake"}})
	var existing *ExistingRunError
	if !errors.As(err, &existing) || existing.Records != 3 {
		t.Errorf("second run: %v", err)
	}
}

// A resumed run keeps whole records, drops a cut-off line, a duplicate and
// an error (asked again), and asks only what is missing.
func TestRunResume(t *testing.T) {
	cases, dbs := concertCases(t)
	out := t.TempDir()
	good := Record{ID: "spider-0", Attempt: 1, Question: "How many singers are there?", SQL: "SELECT 3", Status: "answered", Outcome: OutcomeAnswered, TraceID: "kept", Verdict: Verdict{true, true, true, true}}
	failed := Record{ID: "spider-1", Attempt: 1, Status: "error", Outcome: OutcomeFailed, Error: "provider down"}
	var text strings.Builder
	for _, r := range []Record{good, good, failed} {
		line, _ := json.Marshal(r)
		text.Write(line)
		text.WriteByte('\n')
	}
	text.WriteString(`{"id":"why","attempt":1,"quest`) // killed mid-write
	write(t, filepath.Join(out, ResultsFile), text.String())
	info := RunInfo{Suite: "spider:x", Provider: "fake"}
	if err := writeJSON(filepath.Join(out, RunFile), info); err != nil {
		t.Fatal(err)
	}

	f := &fakeAsker{reply: func(q string, _ int) (*answer.Bundle, error) {
		return answered("SELECT name FROM singer ORDER BY age"), nil
	}}
	// Other settings than the run's are refused.
	other := info
	other.Model = "another"
	_, err := Run(context.Background(), cases, Options{Asker: f, DBs: dbs, Out: out, Resume: true, Info: other})
	var mismatch *ResumeMismatchError
	if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), "model another") {
		t.Fatalf("resume with another model: %v", err)
	}
	sum, err := Run(context.Background(), cases, Options{Asker: f, DBs: dbs, Out: out, Resume: true, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	if f.count("How many singers are there?") != 0 || f.count("List singer names by age") != 1 || f.count("Why do singers age?") != 1 {
		t.Errorf("asked %v", f.asked)
	}
	recs := readRecords(t, out)
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.ID]++
	}
	if len(recs) != 3 || seen["spider-0"] != 1 || seen["spider-1"] != 1 || seen["why"] != 1 {
		t.Fatalf("records per id: %v", seen)
	}
	if recs[0].TraceID != "kept" || !sum.Complete || sum.Overall.CorrectStrict != 2 {
		t.Errorf("kept %q, complete %v, %+v", recs[0].TraceID, sum.Complete, sum.Overall)
	}
}

// Questions in flight when the run is stopped are not recorded; a resumed
// run asks them and ends with one record per question and attempt.
func TestRunInterruptedThenResumed(t *testing.T) {
	cases, dbs := concertCases(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	f := &fakeAsker{reply: func(q string, n int) (*answer.Bundle, error) {
		if strings.HasPrefix(q, "List") && n == 2 {
			once.Do(cancel)
			return &answer.Bundle{Status: answer.StatusBudget, Answer: "Stopped: ran out of time."}, nil
		}
		return answered("SELECT name FROM singer ORDER BY age"), nil
	}}
	info := RunInfo{Suite: "s", Repeat: 3}
	sum, err := Run(ctx, cases, Options{Asker: f, DBs: dbs, Out: out, Info: info, Concurrency: 2})
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Complete {
		t.Fatalf("interrupted run: %v, summary %+v", err, sum)
	}
	for _, r := range readRecords(t, out) {
		if r.Status == string(answer.StatusBudget) {
			t.Errorf("the question in flight was recorded: %+v", r)
		}
	}
	f2 := &fakeAsker{reply: func(string, int) (*answer.Bundle, error) {
		return answered("SELECT name FROM singer ORDER BY age"), nil
	}}
	sum, err = Run(context.Background(), cases, Options{Asker: f2, DBs: dbs, Out: out, Resume: true, Info: info, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	per := map[key]int{}
	for _, r := range readRecords(t, out) {
		per[r.key()]++
	}
	if len(per) != 9 || !sum.Complete || sum.Records != 9 {
		t.Fatalf("%d distinct records of 9, complete %v", len(per), sum.Complete)
	}
	for k, n := range per {
		if n != 1 {
			t.Errorf("%v recorded %d times", k, n)
		}
	}
}

// pass@k and pass^k, hand-computed: three questions asked three times,
// right 3, 1 and 0 times.
func TestRunRepeatReliability(t *testing.T) {
	dbs := &Databases{Dir: filepath.Join(spiderDir(t), "database")}
	defer dbs.Close()
	gold := "SELECT count(*) FROM singer"
	cases := []Case{
		{ID: "always", Question: "q always", GoldSQL: gold, DB: "concert", Difficulty: "simple"},
		{ID: "once", Question: "q once", GoldSQL: gold, DB: "concert", Difficulty: "simple"},
		{ID: "never", Question: "q never", GoldSQL: gold, DB: "concert", Difficulty: "hard"},
	}
	f := &fakeAsker{reply: func(q string, n int) (*answer.Bundle, error) {
		if q == "q always" || (q == "q once" && n == 2) {
			return answered(gold), nil
		}
		return answered("SELECT 99"), nil
	}}
	sum, err := Run(context.Background(), cases, Options{Asker: f, DBs: dbs, Out: t.TempDir(), Info: RunInfo{Suite: "s", Repeat: 3}, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []Reliability{
		{Name: "all", Questions: 3, K: 3, PassAtK: 2.0 / 3, PassAllK: 1.0 / 3, PassAtKStrict: 2.0 / 3, PassAllKStrict: 1.0 / 3},
		{Name: "simple", Questions: 2, K: 3, PassAtK: 1, PassAllK: 0.5, PassAtKStrict: 1, PassAllKStrict: 0.5},
		{Name: "hard", Questions: 1, K: 3},
	}
	if len(sum.Reliability) != len(want) {
		t.Fatalf("%+v", sum.Reliability)
	}
	for i := range want {
		if sum.Reliability[i] != want[i] {
			t.Errorf("reliability[%d] = %+v, want %+v", i, sum.Reliability[i], want[i])
		}
	}
	// 4 of 9 answers right.
	if sum.Overall.Records != 9 || sum.Overall.Correct != 4 {
		t.Errorf("%+v", sum.Overall)
	}
}

func TestRunStopsWhenQuestionsKeepFailing(t *testing.T) {
	cases, dbs := concertCases(t)
	var more []Case
	for i := range 10 {
		c := cases[0]
		c.ID = c.ID + "-" + string(rune('a'+i))
		more = append(more, c)
	}
	f := &fakeAsker{reply: func(string, int) (*answer.Bundle, error) {
		return nil, errors.New("openai: authentication failed (401)")
	}}
	out := t.TempDir()
	_, err := Run(context.Background(), more, Options{Asker: f, DBs: dbs, Out: out, Info: RunInfo{Suite: "s"}, MaxErrorsInARow: 3})
	var stop *ErrorsInARowError
	if !errors.As(err, &stop) || !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("%v", err)
	}
	if n := len(readRecords(t, out)); n != 3 {
		t.Errorf("%d records before stopping, want 3", n)
	}
}

func TestPercentile(t *testing.T) {
	var xs []float64
	for i := 20; i >= 1; i-- {
		xs = append(xs, float64(i))
	}
	// Nearest rank: the 50th percentile of 1…20 is the 10th value, the
	// 95th the 19th.
	if p50, p95, p100 := percentile(xs, 50), percentile(xs, 95), percentile(xs, 100); p50 != 10 || p95 != 19 || p100 != 20 {
		t.Errorf("p50 %v p95 %v p100 %v", p50, p95, p100)
	}
	if percentile(nil, 50) != 0 || percentile([]float64{7}, 95) != 7 {
		t.Error("edge cases")
	}
}
