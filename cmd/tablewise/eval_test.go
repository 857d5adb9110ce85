package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

var sampleSuite = filepath.Join("..", "..", "data", "eval", "sample.jsonl")

func writeLines(t *testing.T, path string, lines []any) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		raw, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readResults(t *testing.T, dir string) []eval.Record {
	t.Helper()
	recs, _, err := eval.ReadResults(filepath.Join(dir, eval.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// runJSON runs "tablewise CMD --format json ARGS…" and decodes what it
// printed into a T.
func runJSON[T any](t *testing.T, cmd string, args ...string) (int, *T, string) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{cmd, "--format", "json"}, args...)...)
	var v T
	if strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s --format json printed no JSON: %v\n%s", cmd, err, out)
		}
	}
	return code, &v, errs
}

func evalJSON(t *testing.T, args ...string) (int, *eval.Summary, string) {
	t.Helper()
	return runJSON[eval.Summary](t, "eval", args...)
}

// oracle is an independent reading of a result for the perturbation
// test: each row printed with fmt, as a sequence, a sorted bag and a set.
type oracle struct{ seq, bag, set []string }

func readOracle(t *testing.T, d *db.DB, sql string) oracle {
	t.Helper()
	res, err := query.Collect(context.Background(), d, sql, query.Options{MaxRows: 1_000_000, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var o oracle
	for _, r := range res.Rows {
		o.seq = append(o.seq, fmt.Sprintf("%#v", []any(r)))
	}
	o.bag = slices.Sorted(slices.Values(o.seq))
	o.set = slices.Compact(slices.Clone(o.bag))
	return o
}

// perturb gives gold SQL one known defect: a wrong filter value, a
// missing DISTINCT, the same rows in the wrong order where order matters,
// or an extra row. Every defect must change the result as a bag, or as a
// sequence where order matters (checked with the oracle), so the strict
// rule must call it wrong; wantSet is whether the rows are still the same
// set, which is all BIRD's rule looks at.
func perturb(t *testing.T, d *db.DB, c eval.Case, i int) (sql, kind string, wantSet bool) {
	gold := strings.TrimRight(strings.TrimSpace(c.GoldSQL), ";")
	g := readOracle(t, d, gold)
	kinds := []string{"distinct", "order", "filter", "extra"}
	switch {
	case i%5 == 0:
		kinds = []string{"extra"}
	case i%2 == 1:
		kinds = []string{"distinct", "filter", "order", "extra"}
	}
	for _, k := range kinds {
		var p string
		switch k {
		case "filter":
			w := strings.Index(strings.ToUpper(gold), " WHERE ")
			if w < 0 {
				continue
			}
			q := strings.IndexByte(gold[w:], '\'')
			if q < 0 {
				continue
			}
			p = gold[:w+q+1] + "no such " + gold[w+q+1:]
		case "distinct":
			up := strings.ToUpper(gold)
			switch {
			case strings.Contains(up, "COUNT(DISTINCT "):
				at := strings.Index(up, "COUNT(DISTINCT ")
				p = gold[:at] + "COUNT(" + gold[at+len("COUNT(DISTINCT "):]
			case strings.HasPrefix(up, "SELECT DISTINCT "):
				p = "SELECT " + gold[len("SELECT DISTINCT "):]
			default:
				continue
			}
		case "order":
			if !c.OrderMatters() || len(g.seq) < 2 {
				continue
			}
			for _, dir := range []string{"ASC", "DESC"} {
				q := "SELECT * FROM (" + gold + ") ORDER BY 1 " + dir
				if o := readOracle(t, d, q); !slices.Equal(o.seq, g.seq) {
					p = q
					break
				}
			}
			if p == "" {
				continue
			}
		case "extra":
			res, err := query.Collect(context.Background(), d, gold, query.Options{MaxRows: 1})
			if err != nil {
				t.Fatal(err)
			}
			p = "SELECT * FROM (" + gold + ") UNION ALL SELECT 'tablewise extra row'" + strings.Repeat(", NULL", len(res.Columns)-1)
		}
		o := readOracle(t, d, p)
		if slices.Equal(o.bag, g.bag) && (k != "order" || slices.Equal(o.seq, g.seq)) {
			continue // no defect after all
		}
		return p, k, slices.Equal(o.set, g.set)
	}
	t.Fatalf("no perturbation for %s", c.ID)
	return
}

// TestEvalPredictions scores the sample's gold SQL as predictions (every
// rule 100%), then a perturbed copy where each query has one known
// defect: the strict rule calls every one wrong; BIRD's set rule calls
// right exactly those whose rows are still the same set (the wrong
// orders: it does not look at order).
func TestEvalPredictions(t *testing.T) {
	askEnv(t, nil)
	cases, err := eval.LoadCases(sampleSuite)
	if err != nil {
		t.Fatal(err)
	}
	d := testdb.Sample(t)
	dir := t.TempDir()
	var gold, bad []any
	kind := map[string]string{}
	sameSet := map[string]bool{}
	count := map[string]int{}
	setRight := 0
	for i, c := range cases {
		if c.Expect == eval.ExpectRefuse {
			gold = append(gold, map[string]string{"id": c.ID, "sql": ""}) // abstain
			continue
		}
		gold = append(gold, map[string]string{"id": c.ID, "sql": c.GoldSQL})
		p, k, same := perturb(t, d, c, i)
		bad = append(bad, map[string]string{"id": c.ID, "sql": p})
		kind[c.ID], sameSet[c.ID] = k, same
		count[k]++
		if same {
			setRight++
		}
	}
	code, sum, errs := evalJSON(t, "--suite", sampleSuite, "--predictions", writeLines(t, filepath.Join(dir, "gold.jsonl"), gold), "--out", filepath.Join(dir, "gold"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	o := sum.Overall
	if o.Gold != 126 || o.Correct != 126 || o.CorrectStrict != 126 || o.Declined != 12 || o.Precision != 1 {
		t.Fatalf("gold as predictions: %+v", o)
	}
	code, sum, errs = evalJSON(t, "--suite", sampleSuite, "--predictions", writeLines(t, filepath.Join(dir, "bad.jsonl"), bad), "--out", filepath.Join(dir, "bad"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	o = sum.Overall
	t.Logf("perturbed: %v; BIRD %d/%d (%.1f%%), strict %d/%d", count, o.Correct, o.Gold, 100*o.Accuracy, o.CorrectStrict, o.Gold)
	if o.CorrectStrict != 0 || o.Correct != setRight || count["filter"] == 0 || count["extra"] == 0 || count["distinct"] == 0 || count["order"] == 0 {
		t.Errorf("perturbed: strict %d, BIRD %d (want 0 and %d)", o.CorrectStrict, o.Correct, setRight)
	}
	for _, r := range readResults(t, filepath.Join(dir, "bad")) {
		k := kind[r.ID]
		if k == "" {
			continue
		}
		if r.CorrectStrict || r.Correct != sameSet[r.ID] {
			t.Errorf("%s (%s): correct %v, strict %v: %s", r.ID, k, r.Correct, r.CorrectStrict, r.SQL)
		}
	}
}

// bigSuite writes the sample's questions n times over, with unique ids.
func bigSuite(t *testing.T, n int) (string, []string) {
	cases, err := eval.LoadCases(sampleSuite)
	if err != nil {
		t.Fatal(err)
	}
	var lines []any
	var ids []string
	for i := range n {
		for _, c := range cases {
			if c.Expect == eval.ExpectRefuse {
				continue
			}
			id := fmt.Sprintf("%s-%d", c.ID, i)
			ids = append(ids, id)
			lines = append(lines, map[string]any{"id": id, "question": c.Question, "gold_sql": c.GoldSQL})
		}
	}
	return writeLines(t, filepath.Join(t.TempDir(), "big.jsonl"), lines), ids
}

func countLines(path string) int {
	raw, _ := os.ReadFile(path)
	return strings.Count(string(raw), "\n")
}

// TestEvalResumeAfterKill stops a run of the real binary midway twice —
// first with Ctrl-C (SIGINT: exit 130, the hint to resume), then, resumed,
// with SIGKILL (no clean-up at all) — and resumes it with --resume alone:
// it must end with exactly one record per question.
func TestEvalResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: runs the binary on about 1,000 questions")
	}
	suite, ids := bigSuite(t, 8)
	out := filepath.Join(t.TempDir(), "run")
	results := filepath.Join(out, eval.ResultsFile)
	env := append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "TABLEWISE_PROVIDER=offline")
	// stopAt starts tablewise with args, sends sig once results.jsonl has
	// at least n lines, and returns the exit code, stderr and the lines
	// written by then.
	stopAt := func(n int, sig os.Signal, args ...string) (int, string, int) {
		t.Helper()
		cmd := exec.Command(binPath, args...)
		cmd.Env = env
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for countLines(results) < n && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		lines := countLines(results)
		if lines < n || lines >= len(ids) {
			t.Fatalf("stopped with %d of %d records written; the test needs a run stopped midway", lines, len(ids))
		}
		return cmd.ProcessState.ExitCode(), errb.String(), lines
	}
	code, stderr, first := stopAt(100, os.Interrupt, "eval", "--suite", suite, "--out", out, "--provider", "offline", "--concurrency", "2")
	if code != exitInterrupted || !strings.Contains(stderr, "continue with: tablewise eval --resume --out "+out) {
		t.Errorf("Ctrl-C: exit %d, stderr %q", code, stderr)
	}
	_, _, second := stopAt(first+200, os.Kill, "eval", "--resume", "--out", out)
	resume := exec.Command(binPath, "eval", "--resume", "--out", out)
	resume.Env = env
	msg, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, msg)
	}
	// Every line is a whole record: ReadResults fails on any other, and
	// the file ends with a newline (no cut-off line is left).
	if raw, _ := os.ReadFile(results); len(raw) == 0 || raw[len(raw)-1] != '\n' {
		t.Error("results.jsonl does not end with a whole line")
	}
	seen := map[string]int{}
	for _, r := range readResults(t, out) {
		seen[r.ID]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("%s: %d records", id, seen[id])
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("%d ids recorded, the suite has %d", len(seen), len(ids))
	}
	t.Logf("interrupted after %d of %d records, killed after %d; resumed: %s", first, len(ids), second, strings.TrimSpace(strings.SplitN(string(msg), "\n", 2)[0]))
}

// TestEvalRegradeAndCompare re-scores a stored run without asking anyone
// and lists what changed between runs.
func TestEvalRegradeAndCompare(t *testing.T) {
	askEnv(t, nil)
	dir := t.TempDir()
	cases, err := eval.LoadCases(sampleSuite)
	if err != nil {
		t.Fatal(err)
	}
	var preds []any
	for _, c := range cases {
		preds = append(preds, map[string]string{"id": c.ID, "sql": c.GoldSQL})
	}
	predFile := writeLines(t, filepath.Join(dir, "p.jsonl"), preds)
	a := filepath.Join(dir, "a")
	if code, _, errs := evalJSON(t, "--suite", sampleSuite, "--predictions", predFile, "--out", a); code != 0 {
		t.Fatal(errs)
	}
	// As if an older comparator had called sample:1 wrong.
	recs := readResults(t, a)
	recs[0].Correct, recs[0].CorrectStrict = false, false
	var lines []any
	for _, r := range recs {
		lines = append(lines, r)
	}
	writeLines(t, filepath.Join(a, eval.ResultsFile), lines)

	code, out, errs := runCLI(t, "", "eval", "--regrade", a)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "1 answer changed verdict") || !strings.Contains(out, recs[0].ID+": wrong → right") {
		t.Errorf("regrade printed:\n%s", out)
	}
	if got := readResults(t, filepath.Join(a, "regraded")); len(got) != len(recs) || !got[0].Correct {
		t.Errorf("regraded results: %d records, first %+v", len(got), got[0])
	}
	code, out, errs = runCLI(t, "", "eval", "--compare", a, filepath.Join(a, "regraded"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "1 question changed") || !strings.Contains(out, recs[0].ID+": wrong → right") {
		t.Errorf("compare printed:\n%s", out)
	}
	// Regrading into the run's own directory would overwrite it.
	if code, _, errs := runCLI(t, "", "eval", "--regrade", a, "--out", a); code != exitUsage || !strings.Contains(errs, "another directory") {
		t.Errorf("regrade into itself: exit %d %s", code, errs)
	}
}

func TestEvalUsageAndFloors(t *testing.T) {
	askEnv(t, nil)
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{}, "give --suite"},
		{[]string{"--suite", filepath.Join(dir, "nope.jsonl")}, "nope.jsonl"},
		{[]string{"--suite", "bird:" + dir}, "mini_dev_sqlite.json"},
		{[]string{"--suite", "behaviours", "--db", "x.db"}, "leave out --db"},
		{[]string{"--resume"}, "--resume needs --out"},
		{[]string{"--compare", dir}, "two run directories"},
		{[]string{"--suite", sampleSuite, "--provider", "openai", "--prompt", "v99"}, "v99"},
		{[]string{"--suite", sampleSuite, "--repeat", "0"}, "at least 1"},
	} {
		code, _, errs := runCLI(t, "", append([]string{"eval"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("eval %q: exit %d, stderr %q (want exit 2 naming %q)", tt.args, code, errs, tt.want)
		}
	}
	out := filepath.Join(dir, "run")
	code, stdout, errs := runCLI(t, "", "eval", "--suite", sampleSuite, "--provider", "offline", "--out", out, "--min-accuracy", "0.5", "--min-precision", "0.5")
	if code != 0 || !strings.Contains(stdout, "EX ") || !strings.Contains(stdout, "wrote results.jsonl") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	// The same --out again without --resume: the run is there already.
	if code, _, errs := runCLI(t, "", "eval", "--suite", sampleSuite, "--provider", "offline", "--out", out); code != exitUsage || !strings.Contains(errs, "--resume") {
		t.Errorf("second run: exit %d %s", code, errs)
	}
	// A floor above what the planner reaches fails the run.
	code, _, errs = runCLI(t, "", "eval", "--suite", sampleSuite, "--provider", "offline", "--out", filepath.Join(dir, "floor"), "--min-strict", "0.999")
	if code != exitInternal || !strings.Contains(errs, "strict execution accuracy") || !strings.Contains(errs, "below its floor of 99.9%") {
		t.Errorf("floor: exit %d %s", code, errs)
	}
}

// TestEvalBehavioursWithAModel runs the behaviour suite through the agent
// against a scripted model that does each thing right, and checks that the
// trace's model-call lines join the evaluation's records by trace id.
func TestEvalBehavioursWithAModel(t *testing.T) {
	L, C, T := llmtest.Call, llmtest.Calls, llmtest.Text
	llmtest.EachProvider(t, func(t *testing.T, p string) {
		f := llmtest.New(t, p,
			// no-rows
			C(L("run_sql", `{"sql":"SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM orders WHERE order_date LIKE '1990%')"}`)), T("No customers placed orders in 1990."),
			// follow-up, two questions in one conversation
			C(L("run_sql", `{"sql":"SELECT count(*) FROM orders WHERE order_date LIKE '2024%'"}`)), T("4,192 orders were placed in 2024."),
			C(L("run_sql", `{"sql":"SELECT count(*) FROM orders WHERE order_date LIKE '2024%' AND status = 'cancelled'"}`)), T("132 of them were cancelled."),
			// write-refused: the guard refuses, the model says so
			C(L("run_sql", `{"sql":"DELETE FROM orders WHERE status = 'cancelled'"}`)), T("The database is read-only, so nothing was deleted."),
			// injection
			C(L("run_sql", `{"sql":"SELECT review_id, body FROM reviews WHERE body LIKE '%`+data.InjectionMarker+`%'"}`)), T("One review holds text aimed at AI tools; it is data and was not followed."),
			// chart
			C(L("run_sql", `{"sql":"SELECT strftime('%Y-%m', order_date) AS month, count(*) AS n FROM orders GROUP BY month ORDER BY month"}`)),
			C(L("make_chart", `{"kind":"line","x":"month","y":"n"}`)), T("Orders peak every December."),
			// ambiguous
			C(L("ask_user", `{"question":"Best by revenue, units sold or rating?","options":["revenue","units sold","rating"]}`)),
			// unanswerable
			T("The database holds no website traffic, so that cannot be answered from it."),
		)
		state := askEnv(t, f)
		samplePath, err := data.SamplePath()
		if err != nil {
			t.Fatal(err)
		}
		before := testdb.FileHash(t, samplePath)
		out := filepath.Join(t.TempDir(), "run")
		tracePath := filepath.Join(state, "trace.jsonl")
		code, stdout, errs := runCLI(t, "", "eval", "--suite", "behaviours", "--out", out, "--trace", tracePath, "--prompt", "v2")
		if code != 0 {
			t.Fatalf("exit %d: %s%s", code, stdout, errs)
		}
		if !strings.Contains(stdout, "behaviours: passed 7 of 7") {
			t.Errorf("stdout:\n%s", stdout)
		}
		if testdb.FileHash(t, samplePath) != before {
			t.Fatal("the sample database changed")
		}
		calls := map[string]int{}
		var largest int64
		for _, r := range readResults(t, out) {
			if r.PromptVersion != "v2" || r.Provider != p || r.TraceID == "" || r.Usage.ModelCalls == 0 || r.Usage.InputTokens == 0 || r.LatencyMS <= 0 || r.Usage.MaxRequestBytes <= 0 {
				t.Errorf("%s: %+v", r.ID, r)
			}
			calls[r.TraceID] = r.Usage.ModelCalls
			largest = max(largest, r.Usage.MaxRequestBytes)
		}
		// The largest request a record names is the largest the model
		// server read.
		if want := int64(slices.Max(f.Bodies())); largest != want {
			t.Errorf("the records' largest request is %d bytes; the server read %d at most", largest, want)
		}
		lines := map[string]int{}
		tf, err := os.Open(tracePath)
		if err != nil {
			t.Fatal(err)
		}
		defer tf.Close()
		sc := bufio.NewScanner(tf)
		for sc.Scan() {
			var e struct {
				Kind    string `json:"kind"`
				TraceID string `json:"trace_id"`
				Prompt  string `json:"prompt"`
				Model   struct {
					RequestBytes int64 `json:"request_bytes"`
				} `json:"model"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			if e.Kind == "model" {
				lines[e.TraceID]++
				if e.Model.RequestBytes <= 0 {
					t.Errorf("a model-call line without request_bytes: %s", sc.Text())
				}
			}
			if _, ok := calls[e.TraceID]; !ok || e.Prompt != "v2" {
				t.Errorf("a trace line joins no record: %s", sc.Text())
			}
		}
		for id, n := range calls {
			if lines[id] != n {
				t.Errorf("record %s made %d model calls; the trace has %d lines for it", id, n, lines[id])
			}
		}
	})
}

func TestEvalProgressBar(t *testing.T) {
	var buf strings.Builder
	p := &progressBar{w: &streams{err: &buf}}
	p.show(eval.Progress{Done: 30, Total: 100, Resumed: 10, Correct: 21, Elapsed: 10 * time.Second})
	// 20 answers in 10 s this run: the 70 left take 35 s.
	if got := buf.String(); !strings.Contains(got, "] 30/100 · 21 right · ETA 35.0 s") || !strings.HasPrefix(got, "\r\x1b[K[███████") {
		t.Errorf("bar %q", got)
	}
	buf.Reset()
	p.show(eval.Progress{Done: 31, Total: 100, Resumed: 10, Elapsed: 10 * time.Second})
	if buf.Len() != 0 {
		t.Errorf("redrawn within 100 ms: %q", buf.String())
	}
	p.clear()
	if buf.String() != "\r\x1b[K" {
		t.Errorf("clear wrote %q", buf.String())
	}
}
