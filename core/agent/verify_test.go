package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/trace"
	"github.com/tablewise/tablewise/core/verify"
)

// traceEvents decodes the JSON Lines a trace.Writer wrote to buf.
func traceEvents(t *testing.T, buf *bytes.Buffer) []trace.Event {
	t.Helper()
	var out []trace.Event
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var e trace.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// roomy bounds the checking queries far beyond what any test machine
// takes, so the closest values a test expects do not depend on its load.
var roomy = verify.Options{Timeout: time.Minute, Budget: 5 * time.Minute}

func revise(reason, sql string) llmtest.Turn {
	out, _ := json.Marshal(map[string]string{"verdict": "revise", "reason": reason, "sql": sql})
	return llmtest.Review(string(out))
}

// A model that filters on a value absent from the data is told the
// closest values, repairs its filter and ends with the right figure.
func TestAbsentLiteralIsRepaired(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, wire string) {
		d := sample(t)
		f := llmtest.New(t, wire,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM orders WHERE ship_country = 'U.K.'"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM orders WHERE ship_country = 'United Kingdom'"}`)),
			llmtest.Text("842 orders were shipped to the United Kingdom."),
			approve,
		)
		var buf bytes.Buffer
		tw := trace.New(&buf)
		b := ask(t, agent.New(d, provider(t, f, "fake-model", tw), agent.CoreTools(d), agent.Options{Trace: tw, Checks: roomy}), "How many orders went to the U.K.?")
		// The trace line of the first run_sql carries the notes.
		var first0 trace.Event
		for _, e := range traceEvents(t, &buf) {
			if e.Kind == "tool" {
				first0 = e
				break
			}
		}
		if len(first0.Notes) != 2 || !strings.Contains(first0.Notes[0], "'United Kingdom'") {
			t.Errorf("trace notes %q", first0.Notes)
		}
		first := f.ToolResults(1)[0]
		for _, want := range []string{`no row of orders.ship_country equals 'U.K.'`, `the closest values are 'United Kingdom'`, "the count is 0"} {
			if !strings.Contains(first, want) {
				t.Errorf("first result lacks %q: %s", want, first)
			}
		}
		if second := f.ToolResults(2)[1]; strings.Contains(second, "checks") {
			t.Errorf("the repaired statement drew notes: %s", second)
		}
		if b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(842) {
			t.Fatalf("status %s rows %v", b.Status, b.Rows)
		}
		want := []answer.Literal{{Table: "orders", Column: "ship_country", Op: "=", Value: "United Kingdom", Found: true}}
		if c := b.Checks; c == nil || len(c.Literals) != 1 || c.Literals[0].Value != want[0].Value || !c.Literals[0].Found || len(c.Notes) != 0 {
			t.Fatalf("checks %+v", b.Checks)
		}
	})
}

// A reviewer that approves: one isolated call that sees the question, the
// cards of the tables the SQL reads and the SQL, and nothing of the
// conversation; the SQL shown is exactly the reviewed text.
func TestReviewApproves(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		sql := "SELECT count(*) AS n FROM orders WHERE ship_country = 'Germany'"
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"`+sql+`"}`)),
			llmtest.Text("1,192 orders went to Germany."),
			approve,
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many orders went to Germany?")
		reqs := f.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		if _, ok := reqs[2]["tools"]; ok {
			t.Error("the review was offered tools")
		}
		texts := conversation(f.Texts(2))
		if len(texts) != 1 || !strings.Contains(texts[0], "How many orders went to Germany?") || !strings.Contains(texts[0], "orders(order_id") || !strings.Contains(texts[0], sql) || strings.Contains(texts[0], "customers(") {
			t.Fatalf("review request %q", texts)
		}
		if sys := f.System(2); !strings.Contains(sys, "You review one SQL statement") || strings.Contains(sys, "1,192") {
			t.Errorf("review system prompt %.200s", sys)
		}
		rv := b.Checks.Review
		if rv == nil || rv.Verdict != answer.ReviewApproved || rv.Rounds != 1 || rv.Revisions != 0 || rv.Fingerprint != verify.Fingerprint(b.SQL) || b.SQL != sql {
			t.Fatalf("review %+v sql %q", rv, b.SQL)
		}
		if len(b.Flags) != 0 || b.Answer != "1,192 orders went to Germany." {
			t.Errorf("answer %q flags %q", b.Answer, b.Flags)
		}
		if m := b.Checks.Models; len(m) != 1 || m[0].ModelCalls != 3 || m[0].ReviewCalls != 1 {
			t.Errorf("models %+v", m)
		}
	})
}

// A reviewer that revises a missing filter: the revision runs through the
// guard, the model answers from its result, a second review approves, and
// the answer says the review changed the SQL.
func TestReviewRevisesMissingFilter(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		first := "SELECT count(*) AS n FROM orders WHERE ship_country = 'Germany'"
		revised := "SELECT count(*) AS n FROM orders WHERE ship_country = 'Germany' AND status = 'returned'"
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"`+first+`"}`)),
			llmtest.Text("1,192 orders to Germany were returned."),
			revise("the question asks only for returned orders; the status filter is missing", revised),
			llmtest.Text("41 orders to Germany were returned."),
			approve,
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many orders to Germany were returned?")
		told := f.Texts(3)
		if last := told[len(told)-1]; !strings.Contains(last, "review revised your SQL: the question asks only for returned orders") || !strings.Contains(last, revised) || !strings.Contains(last, "41") {
			t.Fatalf("the model was told %q", last)
		}
		if b.SQL != revised || b.Rows[0][0] != int64(41) || b.Answer != "41 orders to Germany were returned." {
			t.Fatalf("sql %q rows %v answer %q", b.SQL, b.Rows, b.Answer)
		}
		rv := b.Checks.Review
		if rv == nil || rv.Verdict != answer.ReviewApproved || rv.Rounds != 2 || rv.Revisions != 1 || rv.Original != first || rv.Fingerprint != verify.Fingerprint(revised) {
			t.Fatalf("review %+v", rv)
		}
		if len(b.Flags) != 1 || !strings.Contains(b.Flags[0], "an independent review changed the SQL: the question asks only for returned orders") {
			t.Errorf("flags %q", b.Flags)
		}
		if b.Usage.ModelCalls != 5 || b.Checks.Models[0].ReviewCalls != 2 {
			t.Errorf("usage %+v models %+v", b.Usage, b.Checks.Models)
		}
	})
}

// A revision that would write is refused by the guard like any statement,
// and the model hears why.
func TestReviewRevisionGoesThroughTheGuard(t *testing.T) {
	d := sample(t)
	before := testdb.FileHash(t, d.Source())
	f := llmtest.New(t, "openai",
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)),
		llmtest.Text("There are 7 regions."),
		revise("stale", "DELETE FROM regions"),
		llmtest.Text("There are 7 regions."),
		approve,
	)
	b := ask(t, newAgent(t, d, f, agent.Options{}), "How many regions?")
	told := f.Texts(3)
	if last := told[len(told)-1]; !strings.Contains(last, "Its revision did not run: refused") {
		t.Fatalf("the model was told %q", last)
	}
	if b.SQL != "SELECT count(*) FROM regions" || b.Checks.Review.Verdict != answer.ReviewApproved || testdb.FileHash(t, d.Source()) != before {
		t.Fatalf("sql %q review %+v", b.SQL, b.Checks.Review)
	}
}

// Escalation after repeated failures: the stronger model starts again and
// answers; both models' usage is counted apart, in the bundle and in the
// trace.
func TestEscalationAfterRepeatedFailures(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, prov string) {
		d := sample(t)
		weak := llmtest.New(t, prov, threeFailures()...)
		strong := llmtest.New(t, prov,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM orders"}`)),
			llmtest.Text("There are 11,887 orders."),
			approve,
		)
		var buf bytes.Buffer
		tw := trace.New(&buf)
		a := agent.New(d, provider(t, weak, "fake-model", tw), agent.CoreTools(d), agent.Options{Trace: tw, Escalate: provider(t, strong, "strong-model", tw)})
		b := ask(t, a, "How many orders?")
		if b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(11887) || b.Checks.Escalated != "strong-model" || b.Model != "strong-model" {
			t.Fatalf("status %s rows %v checks %+v", b.Status, b.Rows, b.Checks)
		}
		// The stronger model started again from the question alone (with
		// the cards a schema search picks for it: the sample's schema does
		// not fit in a request).
		got := withoutCards(conversation(strong.Texts(0)))
		if len(got) != 1 || got[0] != "user: How many orders?" {
			t.Errorf("escalation started with %q", got)
		}
		want := []answer.ModelUsage{
			{Provider: prov, Model: "fake-model", ModelCalls: 3, InputTokens: 3000, OutputTokens: 150},
			{Provider: prov, Model: "strong-model", ModelCalls: 3, ReviewCalls: 1, InputTokens: 3000, OutputTokens: 150},
		}
		if m := b.Checks.Models; len(m) != 2 || m[0] != want[0] || m[1] != want[1] {
			t.Errorf("models %+v, want %+v", m, want)
		}
		if b.Usage.ModelCalls != 6 || b.Usage.InputTokens != 6000 {
			t.Errorf("usage %+v", b.Usage)
		}
		if len(b.Flags) != 1 || !strings.Contains(b.Flags[0], "answered by strong-model after 3 SQL attempts failed") {
			t.Errorf("flags %q", b.Flags)
		}
		calls := map[string]int{}
		kinds := map[string]int{}
		for _, e := range traceEvents(t, &buf) {
			kinds[e.Kind]++
			if e.Model != nil {
				calls[e.Model.Model+"/"+e.Model.Role]++
			}
		}
		if calls["fake-model/"] != 3 || calls["strong-model/"] != 2 || calls["strong-model/review"] != 1 || kinds["escalate"] != 1 || kinds["review"] != 1 {
			t.Errorf("trace: model calls %v, kinds %v", calls, kinds)
		}
	})
}

// A reviewer that objects twice escalates too; the stronger model's answer
// is reviewed by it.
func TestEscalationAfterTwoObjections(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, prov string) {
		d := sample(t)
		weak := llmtest.New(t, prov,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM customers"}`)),
			llmtest.Text("2,400 customers."),
			revise("business customers only", "SELECT count(*) FROM customers WHERE type = 'business'"),
			llmtest.Text("2,400 customers, as before."),
			revise("business customers have a company", "SELECT count(*) FROM customers WHERE type = 'business' AND company IS NOT NULL"),
		)
		strong := llmtest.New(t, prov,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers WHERE type = 'business'"}`)),
			llmtest.Text("There are 480 business customers."),
			approve,
		)
		a := agent.New(d, provider(t, weak, "fake-model", nil), agent.CoreTools(d), agent.Options{Escalate: provider(t, strong, "strong-model", nil)})
		b := ask(t, a, "How many business customers?")
		if b.Checks.Escalated != "strong-model" || b.Status != answer.StatusAnswered || b.SQL != "SELECT count(*) AS n FROM customers WHERE type = 'business'" {
			t.Fatalf("bundle %+v checks %+v", b, b.Checks)
		}
		if rv := b.Checks.Review; rv == nil || rv.Verdict != answer.ReviewApproved || rv.Fingerprint != verify.Fingerprint(b.SQL) {
			t.Fatalf("review %+v", rv)
		}
		if m := b.Checks.Models; len(m) != 2 || m[0].ModelCalls != 5 || m[0].ReviewCalls != 2 || m[1].ModelCalls != 3 || m[1].ReviewCalls != 1 {
			t.Errorf("models %+v", m)
		}
		// Nothing of the first attempt carries over but its usage: its
		// revision's flag is gone, its literals are the new statement's.
		if len(b.Flags) != 1 || !strings.Contains(b.Flags[0], "answered by strong-model after the review objected twice (business customers have a company)") {
			t.Errorf("flags %q", b.Flags)
		}
		if l := b.Checks.Literals; len(l) != 1 || l[0].Value != "business" || !l[0].Found || b.Rows[0][0] != int64(178) {
			t.Errorf("literals %+v rows %v", l, b.Rows)
		}
	})
}

// Budgets still hold with the review on: the review is a model call.
func TestBudgetsHoldWithReview(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		// Two calls allowed: the review cannot run, and the answer says so.
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)),
			llmtest.Text("There are 7 regions."),
			approve,
		)
		b := ask(t, newAgent(t, d, f, agent.Options{Budgets: agent.Budgets{ModelCalls: 2}}), "How many regions?")
		if n := len(f.Requests()); n != 2 || b.Usage.ModelCalls != 2 {
			t.Fatalf("%d requests, %d model calls", n, b.Usage.ModelCalls)
		}
		if b.Status != answer.StatusAnswered || b.Checks.Review.Verdict != answer.ReviewSkipped || len(b.Flags) != 1 || !strings.Contains(b.Flags[0], "not reviewed: the limit of 2 model calls") {
			t.Fatalf("status %s review %+v flags %q", b.Status, b.Checks.Review, b.Flags)
		}
		// Three allowed: the review runs and revises; the model would need
		// a fourth call to answer again, so the question stops on the budget.
		f = llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)),
			llmtest.Text("There are 7 regions."),
			revise("regions with countries only", "SELECT count(DISTINCT region_id) FROM countries"),
			llmtest.Text("never reached"),
		)
		b = ask(t, newAgent(t, d, f, agent.Options{Budgets: agent.Budgets{ModelCalls: 3}}), "How many regions?")
		if n := len(f.Requests()); n != 3 || b.Usage.ModelCalls != 3 || b.Status != answer.StatusBudget || !strings.Contains(b.Answer, "limit of 3 model calls") {
			t.Fatalf("%d requests, usage %+v, status %s, answer %q", n, b.Usage, b.Status, b.Answer)
		}
	})
}

// --review=false: no review call.
func TestReviewCanBeTurnedOff(t *testing.T) {
	f := llmtest.New(t, "anthropic",
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)),
		llmtest.Text("There are 7 regions."),
	)
	b := ask(t, newAgent(t, sample(t), f, agent.Options{NoReview: true}), "How many regions?")
	if len(f.Requests()) != 2 || b.Checks.Review != nil || len(b.Flags) != 0 {
		t.Fatalf("%d requests, review %+v, flags %q", len(f.Requests()), b.Checks.Review, b.Flags)
	}
}

// TestReviewCost gives the extra model calls a review costs per question:
// the same questions answered with the review on and off.
func TestReviewCost(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		type q struct {
			question, sql, text string
			verdicts            []llmtest.Turn // what the reviewer says, in order
		}
		qs := []q{
			{"How many regions?", "SELECT count(*) FROM regions", "7 regions.", []llmtest.Turn{approve}},
			{"How many suppliers?", "SELECT count(*) FROM suppliers", "24 suppliers.", []llmtest.Turn{approve}},
			{"How many products?", "SELECT count(*) FROM products", "240 products.", []llmtest.Turn{approve}},
			{"How many discontinued products?", "SELECT count(*) FROM products", "240 products.",
				[]llmtest.Turn{revise("discontinued only", "SELECT count(*) FROM products WHERE discontinued = 1"), llmtest.Text("Some are discontinued."), approve}},
		}
		calls := func(review bool) int {
			total := 0
			for _, x := range qs {
				turns := []llmtest.Turn{llmtest.Calls(llmtest.Call("run_sql", `{"sql":"`+x.sql+`"}`)), llmtest.Text(x.text)}
				if review {
					turns = append(turns, x.verdicts...)
				}
				f := llmtest.New(t, provider, turns...)
				b, err := newAgent(t, d, f, agent.Options{NoReview: !review}).Ask(context.Background(), x.question, nil)
				if err != nil || b.Status != answer.StatusAnswered {
					t.Fatalf("%s: %v %+v", x.question, err, b)
				}
				total += b.Usage.ModelCalls
			}
			return total
		}
		off, on := calls(false), calls(true)
		extra := float64(on-off) / float64(len(qs))
		t.Logf("%s: %d questions, %d model calls without review, %d with: %.2f extra calls per question (1 when approved, 3 when revised once)", provider, len(qs), off, on, extra)
		if off != 8 || on != 14 {
			t.Errorf("model calls %d without review, %d with; want 8 and 14", off, on)
		}
	})
}

// A verdict wrapped in prose or a code fence is read; a reply with none
// leaves the answer unreviewed, and it says so.
func TestReviewReplies(t *testing.T) {
	d := sample(t)
	for _, c := range []struct {
		reply, verdict, flag string
	}{
		{"Looks right.\n```json\n{\"verdict\": \"Approve\"}\n```", answer.ReviewApproved, ""},
		{"I think it is fine.", answer.ReviewSkipped, "this answer was not reviewed: the review's reply held no verdict"},
		{`{"verdict": "maybe"}`, answer.ReviewSkipped, `this answer was not reviewed: the review's verdict "maybe" is neither approve nor revise`},
	} {
		f := llmtest.New(t, "openai",
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM regions"}`)),
			llmtest.Text("There are 7 regions."),
			llmtest.Review(c.reply),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many regions?")
		if b.Status != answer.StatusAnswered || b.Checks.Review == nil || b.Checks.Review.Verdict != c.verdict {
			t.Errorf("%q: status %s review %+v", c.reply, b.Status, b.Checks.Review)
		}
		if (c.flag == "") != (len(b.Flags) == 0) || c.flag != "" && b.Flags[0] != c.flag {
			t.Errorf("%q: flags %q", c.reply, b.Flags)
		}
	}
}

// The escalated attempt spends the same model-call budget.
func TestEscalationWithinTheBudget(t *testing.T) {
	d := sample(t)
	weak := llmtest.New(t, "anthropic", threeFailures()...)
	strong := llmtest.New(t, "anthropic",
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM orders"}`)),
		llmtest.Text("never reached"),
	)
	a := agent.New(d, provider(t, weak, "fake-model", nil), agent.CoreTools(d), agent.Options{Budgets: agent.Budgets{ModelCalls: 4}, Escalate: provider(t, strong, "strong-model", nil)})
	b := ask(t, a, "How many orders?")
	if len(weak.Requests()) != 3 || len(strong.Requests()) != 1 || b.Usage.ModelCalls != 4 || b.Status != answer.StatusBudget || !strings.Contains(b.Answer, "limit of 4 model calls") {
		t.Fatalf("requests %d+%d, usage %+v, status %s, answer %q", len(weak.Requests()), len(strong.Requests()), b.Usage, b.Status, b.Answer)
	}
	if b.Checks.Escalated != "strong-model" || b.SQL != "SELECT count(*) FROM orders" {
		t.Errorf("checks %+v sql %q", b.Checks, b.SQL)
	}
}
