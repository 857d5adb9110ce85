package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

// askEnv points the providers at fake servers and keeps state in a
// temporary directory.
func askEnv(t *testing.T, f *llmtest.Server) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	for _, k := range []string{"TABLEWISE_PROVIDER", "TABLEWISE_MODEL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	if f == nil {
		return state
	}
	for k, v := range f.Env() {
		t.Setenv(k, v)
	}
	return state
}

func askJSON(t *testing.T, args ...string) (int, *answer.Bundle, string) {
	t.Helper()
	return runJSON[answer.Bundle](t, "ask", args...)
}

// TestAskScenarios runs the agent's scenarios through "tablewise ask
// --format json", against each provider's wire format.
func TestAskScenarios(t *testing.T) {
	L, C, T := llmtest.Call, llmtest.Calls, llmtest.Text
	samplePath, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	before := testdb.FileHash(t, samplePath)
	scenarios := []struct {
		name     string
		script   []llmtest.Turn
		throttle int
		fail     int
		code     int
		check    func(t *testing.T, b *answer.Bundle, stderr string)
	}{
		{"direct answer", []llmtest.Turn{C(L("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)), T("There are 2,400 customers.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Status != answer.StatusAnswered || b.Rows[0][0] != 2400.0 || b.SQL != "SELECT count(*) AS n FROM customers" {
					t.Errorf("%+v", b)
				}
			}},
		{"repair", []llmtest.Turn{C(L("run_sql", `{"sql":"SELECT count(*) FROM customer"}`)), C(L("run_sql", `{"sql":"SELECT count(*) FROM customers"}`)), T("2,400.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if len(b.Steps) != 2 || b.Steps[0].OK || !strings.Contains(b.Steps[0].Summary, "did you mean customers") || b.Rows[0][0] != 2400.0 {
					t.Errorf("%+v", b.Steps)
				}
			}},
		{"drop refused", []llmtest.Turn{C(L("run_sql", `{"sql":"DROP TABLE orders"}`)), T("The database is read-only; nothing was dropped.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Steps[0].OK || !strings.Contains(b.Steps[0].Summary, "read-only") {
					t.Errorf("%+v", b.Steps)
				}
			}},
		{"runaway model", nil, 0, 0, exitLimit,
			func(t *testing.T, b *answer.Bundle, stderr string) {
				if b.Status != answer.StatusBudget || !strings.Contains(stderr, "limit of 10 tool calls") {
					t.Errorf("%s %q", b.Status, stderr)
				}
			}},
		{"push-back", []llmtest.Turn{T("About 9 categories."), C(L("run_sql", `{"sql":"SELECT count(*) FROM categories"}`)), T("There are 11 categories.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				// Three calls answer; the fourth reviews the SQL.
				if b.Answer != "There are 11 categories." || b.Usage.ModelCalls != 4 {
					t.Errorf("%+v", b)
				}
			}},
		{"invalid JSON arguments", []llmtest.Turn{C(L("run_sql", `{"sql": "SELECT`)), C(L("run_sql", `{"sql":"SELECT count(*) FROM shippers"}`)), T("6 shippers.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Rows[0][0] != 6.0 || b.Steps[0].OK {
					t.Errorf("%+v", b)
				}
			}},
		{"429 then success", []llmtest.Turn{C(L("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)), T("7 regions.")}, 1, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Status != answer.StatusAnswered || b.Rows[0][0] != 7.0 {
					t.Errorf("%+v", b)
				}
			}},
		{"401", nil, 0, 401, exitInternal,
			func(t *testing.T, b *answer.Bundle, stderr string) {
				if !strings.Contains(stderr, "authentication failed (401)") || !strings.Contains(stderr, "_API_KEY") {
					t.Errorf("stderr %q", stderr)
				}
			}},
		{"clarification", []llmtest.Turn{C(L("ask_user", `{"question":"Which year?","options":["2024","2025"]}`))}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Status != answer.StatusClarify || len(b.Clarification.Options) != 2 {
					t.Errorf("%+v", b)
				}
			}},
		{"chart", []llmtest.Turn{C(L("run_sql", `{"sql":"SELECT month, revenue FROM monthly_sales"}`)), C(L("make_chart", `{"kind":"line","x":"month","y":"revenue"}`)), T("Revenue peaks every December.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Chart == nil || b.Chart.Kind != "line" || b.RowCount != 42 || len(b.Rows) != 42 {
					t.Errorf("chart %+v rows %d/%d", b.Chart, len(b.Rows), b.RowCount)
				}
			}},
		{"injection row", []llmtest.Turn{C(L("run_sql", `{"sql":"SELECT count(*) AS n, max(body) AS body FROM reviews WHERE body LIKE '%`+data.InjectionMarker+`%'"}`)), T("One review contains an instruction aimed at AI tools; it was treated as data.")}, 0, 0, 0,
			func(t *testing.T, b *answer.Bundle, _ string) {
				if b.Rows[0][0] != 1.0 || len(b.Flags) != 1 {
					t.Errorf("rows %v flags %v", b.Rows, b.Flags)
				}
			}},
	}
	for _, p := range llmtest.Providers {
		for _, sc := range scenarios {
			t.Run(p+"/"+sc.name, func(t *testing.T) {
				f := llmtest.New(t, p, sc.script...)
				f.Throttle(sc.throttle)
				if sc.fail != 0 {
					f.FailWith(sc.fail)
				}
				askEnv(t, f)
				start := time.Now()
				code, b, errs := askJSON(t, "the question")
				if code != sc.code {
					t.Fatalf("exit %d, want %d; stderr %q", code, sc.code, errs)
				}
				if sc.fail == 401 && time.Since(start) > 5*time.Second {
					t.Errorf("auth failure took %v", time.Since(start))
				}
				sc.check(t, b, errs)
			})
		}
	}
	if testdb.FileHash(t, samplePath) != before {
		t.Fatal("the sample database changed")
	}
}

func TestAskThreadAcrossRuns(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, p string) {
		f := llmtest.New(t, p,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM customers"}`)), llmtest.Text("There are 2,400 customers."),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM customers WHERE type = 'business'"}`)), llmtest.Text("Of them, some are businesses."))
		state := askEnv(t, f)
		if code, _, errs := askJSON(t, "--thread", "t1", "How many customers?"); code != 0 {
			t.Fatal(errs)
		}
		if code, _, errs := askJSON(t, "--thread", "t1", "And how many of them are businesses?"); code != 0 {
			t.Fatal(errs)
		}
		if !slices.Contains(f.Texts(2), "assistant: There are 2,400 customers.") {
			t.Fatalf("second run did not carry the first answer: %q", f.Texts(2))
		}
		if _, err := os.Stat(filepath.Join(state, "tablewise", "threads", "t1.json")); err != nil {
			t.Fatal(err)
		}
		// The trace file has a line per model call and per tool call.
		tf, err := os.Open(filepath.Join(state, "tablewise", "trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer tf.Close()
		kinds := map[string]int{}
		sc := bufio.NewScanner(tf)
		for sc.Scan() {
			var e struct{ Kind string }
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				t.Fatalf("bad trace line %q", sc.Text())
			}
			kinds[e.Kind]++
			if strings.Contains(sc.Text(), "test-key") {
				t.Fatal("the API key reached the trace")
			}
		}
		// Each of the two answers: two model calls, a tool call, and
		// a review (a model call and a review line).
		if kinds["model"] != 6 || kinds["tool"] != 2 || kinds["review"] != 2 {
			t.Errorf("trace lines %v", kinds)
		}
	})
}

func TestAskWithoutModel(t *testing.T) {
	askEnv(t, nil)
	path := testdb.Fixture(t)
	code, _, errs := runCLI(t, "", "ask", "--db", path, "--provider", "anthropic", "How many?")
	if code != exitUsage || !strings.Contains(errs, "ANTHROPIC_API_KEY") {
		t.Errorf("missing key: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "ask", "--provider", "nope", "How many?")
	if code != exitUsage || !strings.Contains(errs, "valid providers") {
		t.Errorf("bad provider: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "ask")
	if code != exitUsage || !strings.Contains(errs, "give a question") {
		t.Errorf("no question: %d %q", code, errs)
	}
}

func TestAskTextOutput(t *testing.T) {
	f := llmtest.New(t, "anthropic",
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT name, country_id FROM customers ORDER BY customer_id LIMIT 3"}`)),
		llmtest.Text("Here are three customers.\nFollow-ups: How many customers are there?"))
	askEnv(t, f)
	code, out, errs := runCLI(t, "", "ask", "Show three customers")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"Here are three customers.", "✓ reviewed: approved\n", "SQL:\n  SELECT name, country_id FROM customers", "(3 rows)", "Follow-ups:\n  • How many customers are there?"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Two calls answer; the third reviews the SQL.
	if !strings.Contains(errs, "3 model calls · 1 query · 3,000+150 tokens") {
		t.Errorf("footer %q", errs)
	}
}

func TestAskOfflineNeedsNoKey(t *testing.T) {
	askEnv(t, nil)
	code, b, errs := askJSON(t, "How many customers are there?")
	if code != 0 || b.Status != answer.StatusAnswered || b.Provider != "offline" || b.Rows[0][0] != 2400.0 || !strings.Contains(b.Answer, "2,400") {
		t.Fatalf("exit %d %q: %+v", code, errs, b)
	}
	code, b, _ = askJSON(t, "Why did revenue drop last spring?")
	if code != 0 || b.Status != answer.StatusRefused || b.SQL != "" {
		t.Fatalf("out-of-scope question: exit %d %+v", code, b)
	}
}

// TestAskOfflineThread: without a model, --thread still keeps the
// conversation: the planner's exchanges land in the thread file, with its
// last bundle.
func TestAskOfflineThread(t *testing.T) {
	state := askEnv(t, nil)
	for _, q := range []string{"How many customers are there?", "How many orders are there?"} {
		if code, b, errs := askJSON(t, "--thread", "shop-1", q); code != 0 || b.Provider != "offline" || b.Status != answer.StatusAnswered {
			t.Fatalf("%q: exit %d %q %+v", q, code, errs, b)
		}
	}
	raw, err := os.ReadFile(filepath.Join(state, "tablewise", "threads", "shop-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Turns []answer.Turn
		Last  *answer.Bundle
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("thread file: %v\n%s", err, raw)
	}
	if len(h.Turns) != 2 || h.Turns[0].Question != "How many customers are there?" || !strings.Contains(h.Turns[0].Answer, "2,400") ||
		h.Last == nil || h.Last.Question != "How many orders are there?" || h.Last.SQL == "" {
		t.Errorf("thread kept %s", raw)
	}
	code, _, errs := runCLI(t, "", "ask", "--thread", "../x", "How many customers are there?")
	if code != exitUsage || !strings.Contains(errs, "--thread") || !strings.Contains(errs, "letters, digits") {
		t.Errorf("bad thread ID: exit %d %q", code, errs)
	}
}

// TestAskContinuesEarlierThreadFiles: a thread file written before the
// answer service kept the last bundle (a bare array of turns) continues.
func TestAskContinuesEarlierThreadFiles(t *testing.T) {
	f := llmtest.New(t, "anthropic", llmtest.Text("The same as before."))
	state := askEnv(t, f)
	dir := filepath.Join(state, "tablewise", "threads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	legacy := `[{"question": "How many customers?", "answer": "There are 2,400 customers."}]`
	if err := os.WriteFile(filepath.Join(dir, "old.json"), []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := askJSON(t, "--thread", "old", "Remind me?"); code != 0 {
		t.Fatal(errs)
	}
	if !slices.Contains(f.Texts(0), "assistant: There are 2,400 customers.") {
		t.Fatalf("the earlier thread file was not carried: %q", f.Texts(0))
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "old.json"))
	if !strings.Contains(string(raw), `"Remind me?"`) || !strings.Contains(string(raw), `"How many customers?"`) {
		t.Errorf("thread file after the question: %s", raw)
	}
}

// TestAskReviewAndEscalationFlags: --review=false makes no review call;
// --escalate-model names the model a question is retried with.
func TestAskReviewAndEscalationFlags(t *testing.T) {
	f := llmtest.New(t, "openai",
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM categories"}`)),
		llmtest.Text("There are 11 categories."))
	askEnv(t, f)
	code, _, errs := runCLI(t, "", "ask", "--review=false", "How many categories?")
	if code != 0 || !strings.Contains(errs, "2 model calls") || f.Approved() != 0 {
		t.Fatalf("--review=false: %d %q, %d reviews", code, errs, f.Approved())
	}
	f.Script(
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT nope FROM categories"}`)),
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT nada FROM categories"}`)),
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT zip FROM categories"}`)),
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM categories"}`)),
		llmtest.Text("There are 11 categories."))
	code, out, errs := runCLI(t, "", "ask", "--escalate-model", "strong-model", "--format", "json", "How many categories?")
	if code != 0 {
		t.Fatalf("--escalate-model: %d %q", code, errs)
	}
	var b answer.Bundle
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	if b.Checks == nil || b.Checks.Escalated != "strong-model" || len(b.Checks.Models) != 2 || b.Checks.Models[1].Model != "strong-model" || f.Approved() != 1 {
		t.Fatalf("checks %+v", b.Checks)
	}
}
