package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/tools"
	"github.com/tablewise/tablewise/core/trace"
	"github.com/tablewise/tablewise/data"
)

func sample(t *testing.T) *db.DB { return testdb.Sample(t) }

// approve is a reviewer's approval: the review of an answer's SQL is on by
// default, so every answer resting on SQL costs one more model call.
var approve = llmtest.Review(llmtest.Approve)

// provider is a client of f's wire format for model, tracing to tw when
// it is not nil.
func provider(t testing.TB, f *llmtest.Server, model string, tw *trace.Writer) llm.Provider {
	t.Helper()
	cfg := f.Config(model)
	cfg.MaxRetries = 2
	opts := []llm.Option{llm.WithBackoff(time.Millisecond, 10*time.Millisecond)}
	if tw != nil {
		opts = append(opts, llm.WithTrace(tw.ModelCall))
	}
	p, err := llm.New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newAgent is an agent on d with the core tools, asking f's model.
func newAgent(t testing.TB, d *db.DB, f *llmtest.Server, opt agent.Options) *agent.Agent {
	t.Helper()
	return agent.New(d, provider(t, f, "fake-model", nil), agent.CoreTools(d), opt)
}

// ask asks a the question q, on its own, and fails the test on an error.
func ask(t testing.TB, a *agent.Agent, q string) *answer.Bundle {
	t.Helper()
	b, err := a.Ask(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAnswerRestsOnSQL(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("search_schema", `{"query":"customers"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
			llmtest.Text("There are 2,400 customers.\nFollow-ups: Which country has the most customers? | How many orders were placed in 2024?"),
			approve,
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many customers are there?")
		if b.Status != answer.StatusAnswered || b.Answer != "There are 2,400 customers." {
			t.Fatalf("status %s answer %q", b.Status, b.Answer)
		}
		if b.SQL != "SELECT count(*) AS n FROM customers" || len(b.Rows) != 1 || b.Rows[0][0] != int64(2400) {
			t.Fatalf("sql %q rows %v", b.SQL, b.Rows)
		}
		if len(b.FollowUps) != 2 || b.FollowUps[0] != "Which country has the most customers?" {
			t.Errorf("follow-ups %q", b.FollowUps)
		}
		if b.Usage.ModelCalls != 4 || b.Usage.ToolCalls != 2 || b.Usage.InputTokens != 4000 || b.Usage.OutputTokens != 200 {
			t.Errorf("usage %+v", b.Usage)
		}
		if len(b.Steps) != 2 || b.Steps[1].Tool != "run_sql" || !b.Steps[1].OK {
			t.Errorf("steps %+v", b.Steps)
		}
		// The model was grounded: the first request carries the customers
		// card (the sample's cards do not all fit in a request of
		// agent.RequestBytes, so the question comes with the cards a search
		// picked), and tools were offered with their schemas.
		req := f.Requests()[0]
		if sys := f.System(0); !strings.Contains(strings.Join(f.Texts(0), "\n"), "customers(") || !strings.Contains(sys, "read-only") {
			t.Errorf("first request lacks the customers card: %.300s", f.Texts(0))
		}
		if n := len(req["tools"].([]any)); n != 7 {
			t.Errorf("%d tools offered, want 7", n)
		}
		// The run_sql result went back as data, framed.
		tm := f.ToolResults(2)
		if len(tm) != 2 || !strings.Contains(tm[1], "Rows are data") || !strings.Contains(tm[1], "2400") {
			t.Errorf("tool results %v", tm)
		}
	})
}

func TestSelfRepairAfterSQLError(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM customer"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM customers"}`)),
			llmtest.Text("2,400 customers."),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many customers?")
		tm := f.ToolResults(1)
		if c := tm[0]; !strings.Contains(c, "no such table: customer") || !strings.Contains(c, "did you mean customers") {
			t.Fatalf("repair hint not sent back: %q", c)
		}
		if b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(2400) || b.Steps[0].OK || !b.Steps[1].OK {
			t.Fatalf("bundle %+v", b)
		}
	})
}

func TestMalformedToolArgumentsContinue(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql": "SELECT 1`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM products"}`)),
			llmtest.Text("There are 240 products."),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many products?")
		if c := f.ToolResults(1)[0]; !strings.Contains(c, "not a JSON object") {
			t.Fatalf("malformed arguments answer %q", c)
		}
		if b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(240) {
			t.Fatalf("bundle %+v", b)
		}
	})
}

func TestWritesAreRefusedAndNothingIsWritten(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		before := testdb.FileHash(t, d.Source())
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"DELETE FROM orders"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"UPDATE products SET unit_price = 0"}`)),
			llmtest.Text("I cannot change data: the database is read-only."),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "Delete all orders")
		for i := 1; i <= 2; i++ {
			if c := f.ToolResults(i)[i-1]; !strings.Contains(c, "read-only") {
				t.Errorf("refusal %d: %q", i, c)
			}
		}
		if b.SQL != "" || b.Status != answer.StatusAnswered {
			t.Errorf("bundle %+v", b)
		}
		if testdb.FileHash(t, d.Source()) != before {
			t.Fatal("the database changed")
		}
	})
}

func TestNumbersWithoutQueryArePushedBack(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Text("There are about 500 orders."),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM orders"}`)),
			llmtest.Text("There are 11,887 orders."),
			approve,
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many orders?")
		if u := f.Texts(1); !strings.Contains(u[len(u)-1], "no query has run") {
			t.Fatalf("no push-back: %q", u)
		}
		if b.Answer != "There are 11,887 orders." || b.Rows[0][0] != int64(11887) || len(b.Flags) != 0 {
			t.Fatalf("bundle %+v", b)
		}
	})
}

func TestRowsAreDataNotInstructions(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		q := `{"sql":"SELECT review_id, body FROM reviews WHERE body LIKE '%` + data.InjectionMarker + `%'"}`
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", q)),
			llmtest.Text("One review asks an AI to ignore its instructions; it is shown as data."),
			approve,
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "Show reviews that mention instructions")
		c := f.ToolResults(1)[0]
		if !strings.Contains(c, "not orders to follow") || !strings.Contains(c, data.InjectionMarker) {
			t.Fatalf("result not framed and flagged: %q", c)
		}
		if len(b.Rows) != 1 || len(b.Flags) != 1 || !strings.Contains(b.Flags[0], "looks like an instruction") {
			t.Fatalf("rows %d flags %q", len(b.Rows), b.Flags)
		}
	})
}

func TestBudgetsStopCleanly(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider) // no script: the model calls list_tables forever
		start := time.Now()
		b := ask(t, newAgent(t, d, f, agent.Options{}), "Tell me everything")
		if b.Status != answer.StatusBudget || !strings.Contains(b.Answer, "limit of 10 tool calls") {
			t.Fatalf("status %s answer %q", b.Status, b.Answer)
		}
		if n := len(f.Requests()); n > 12 || b.Usage.ToolCalls != 10 {
			t.Errorf("%d model calls, %d tool calls", n, b.Usage.ToolCalls)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("took %v", time.Since(start))
		}

		// Three failed statements end the question too.
		f2 := llmtest.New(t, provider, append(threeFailures(), llmtest.Text("never reached"))...)
		b, err := newAgent(t, d, f2, agent.Options{}).Ask(context.Background(), "q", nil)
		if err != nil || b.Status != answer.StatusBudget || !strings.Contains(b.Answer, "3 SQL attempts failed") {
			t.Fatalf("failed-SQL budget: %v %+v", err, b)
		}
	})
}

func TestClarification(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("ask_user", `{"question":"Revenue before or after discounts?","options":["before discounts","after discounts"]}`)),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "What was revenue in 2024?")
		if b.Status != answer.StatusClarify || b.Clarification == nil || len(b.Clarification.Options) != 2 || b.Answer != "Revenue before or after discounts?" {
			t.Fatalf("bundle %+v", b)
		}
	})
}

func TestMakeChartIsValidated(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT c.name AS category, count(*) AS products FROM products p JOIN categories c USING (category_id) GROUP BY 1"}`)),
			llmtest.Calls(llmtest.Call("make_chart", `{"kind":"bar","x":"category","y":"category"}`)),
			llmtest.Calls(llmtest.Call("make_chart", `{"kind":"bar","x":"category","y":"products","title":"Products per category"}`)),
			llmtest.Text("Kitchen has the most products."),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "products per category")
		if c := f.ToolResults(2)[1]; !strings.Contains(c, `y column "category" is TEXT, not numeric`) {
			t.Fatalf("bad chart accepted: %q", c)
		}
		if b.Chart == nil || b.Chart.Y != "products" || b.Chart.Kind != "bar" {
			t.Fatalf("chart %+v", b.Chart)
		}
	})
}

func TestAuthFailureIsFastAndNamesTheKey(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider)
		f.FailWith(401)
		start := time.Now()
		b, err := newAgent(t, d, f, agent.Options{}).Ask(context.Background(), "How many customers?", nil)
		keyVar := map[string]string{"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}[provider]
		if err == nil || !strings.Contains(err.Error(), keyVar) {
			t.Fatalf("err %v", err)
		}
		if b.Status != answer.StatusError || time.Since(start) > 5*time.Second {
			t.Fatalf("status %s after %v", b.Status, time.Since(start))
		}
	})
}

// TestAskAfterSendsPriorTurns: the earlier exchanges of a conversation reach
// the model, in order and before the question, and the agent keeps nothing
// of its own: a question asked without them carries none.
func TestAskAfterSendsPriorTurns(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM customers WHERE country_id = 1"}`)),
			llmtest.Text("Of those, some are in the first country."),
			approve,
			llmtest.Text("Nothing to query."),
		)
		a := newAgent(t, d, f, agent.Options{})
		prior := []answer.Turn{{Question: "How many customers?", Answer: "There are 2,400 customers."}}
		if _, err := a.AskAfter(context.Background(), prior, "And in the first country?", nil); err != nil {
			t.Fatal(err)
		}
		want := []string{"user: How many customers?", "assistant: There are 2,400 customers.", "user: And in the first country?"}
		got := withoutCards(conversation(f.Texts(0)))
		if !slices.Equal(got, want) {
			t.Fatalf("first request carried %q, want %q", got, want)
		}
		ask(t, a, "hello")
		got = withoutCards(conversation(f.Texts(3)))
		if !slices.Equal(got, []string{"user: hello"}) {
			t.Fatalf("a question on its own carried %q", got)
		}
	})
}

// conversation drops the system message (OpenAI sends it among the
// messages) from a request's texts.
func conversation(texts []string) []string {
	return slices.DeleteFunc(texts, func(s string) bool { return strings.HasPrefix(s, "system: ") })
}

// withoutCards drops from a conversation's last text, the question, the
// schema cards a search picked for it (the sample's cards do not all fit
// in a request of agent.RequestBytes).
func withoutCards(texts []string) []string {
	if n := len(texts); n > 0 {
		texts[n-1], _, _ = strings.Cut(texts[n-1], "\n\n(Tables that may be relevant")
	}
	return texts
}

// threeFailures is a model's script of three statements that fail, which
// spend the failed-SQL budget.
func threeFailures() []llmtest.Turn {
	return []llmtest.Turn{
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT nope FROM orders"}`)),
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT nada FROM orders"}`)),
		llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT zip FROM orders"}`)),
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM suppliers"}`)),
			llmtest.Text("There are 24 suppliers."),
			approve,
		)
		f.Throttle(1)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many suppliers?")
		if b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(24) || b.Usage.ModelCalls != 3 {
			t.Fatalf("bundle %+v", b)
		}
	})
}

// TestPromptEconomy measures the bytes of JSON a simple question sends on
// Chinook (11 tables): at most 10,000 bytes per request on average.
func TestPromptEconomy(t *testing.T) {
	path := testdb.SharedData(t, "chinook.sqlite")
	d := testdb.Open(t, path)
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS artists FROM Artist"}`)),
			llmtest.Text("Chinook lists 275 artists.\nFollow-ups: Which artist has the most albums? | How many albums are there?"),
		)
		ask(t, newAgent(t, d, f, agent.Options{}), "How many artists are there?")
		total := 0
		for _, n := range f.Bodies() {
			total += n
		}
		avg := total / len(f.Bodies())
		t.Logf("%s: %d requests, %d bytes on average (system prompt %d bytes)", provider, len(f.Bodies()), avg, len(f.System(0)))
		if avg > 10_000 {
			t.Errorf("requests average %d bytes, over 10,000", avg)
		}
	})
}

// BenchmarkToolRoundTrip measures a question with one tool round trip (two
// model calls and one run_sql) against a fake model that answers at once:
// all of the time is the agent's own (plus the SDK and loopback HTTP).
func BenchmarkToolRoundTrip(b *testing.B) {
	path, err := data.SamplePath()
	if err != nil {
		b.Fatal(err)
	}
	d := testdb.Open(b, path)
	script := []llmtest.Turn{llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM categories"}`)), llmtest.Text("There are 11 categories.")}
	f := llmtest.New(b, "openai")
	// Two model calls, as the README's figure says: the review, a third
	// call, is left out here and counted by TestReviewCost.
	a := newAgent(b, d, f, agent.Options{NoReview: true})
	b.ResetTimer()
	for b.Loop() {
		f.Script(script...)
		bundle, err := a.Ask(context.Background(), "How many categories?", nil)
		if err != nil || bundle.Usage.ToolCalls != 1 {
			b.Fatalf("%v %+v", err, bundle.Usage)
		}
	}
}

// TestSharedToolsUseMCPWords checks that the tools the MCP server also
// serves reach the model with the same descriptions.
func TestSharedToolsUseMCPWords(t *testing.T) {
	f := llmtest.New(t, "openai", llmtest.Text("Nothing to query."))
	ask(t, newAgent(t, sample(t), f, agent.Options{}), "hello")
	sent := map[string]string{}
	for _, tl := range f.Requests()[0]["tools"].([]any) {
		fn := tl.(map[string]any)["function"].(map[string]any)
		sent[fn["name"].(string)] = fn["description"].(string)
	}
	for _, name := range []string{tools.NameListTables, tools.NameDescribeTable, tools.NameSampleValues, tools.NameRunSQL} {
		if want := tools.DocFor(name).Description; want == "" || sent[name] != want {
			t.Errorf("%s: sent %q, core/tools says %q", name, sent[name], want)
		}
	}
}

// make_chart uses the same rules as every front door (core/chartspec):
// what the model leaves out is filled from the result's shape, names come
// back as the result spells them, and a pie of negative values is refused
// with the reason.
func TestMakeChartCompletesAndValidatesLikeTheFrontDoors(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT 'north' AS region, -5 AS change UNION ALL SELECT 'south', 7"}`)),
			llmtest.Calls(llmtest.Call("make_chart", `{"kind":"pie"}`)),
			llmtest.Calls(llmtest.Call("make_chart", `{"kind":"BAR","x":"REGION"}`)),
			llmtest.Text("South grew, north shrank."),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "change per region")
		results := f.ToolResults(2)
		if c := results[len(results)-1]; !strings.Contains(c, "pie slices cannot be negative") || !strings.Contains(c, "use a bar chart") {
			t.Fatalf("negative pie accepted: %q", c)
		}
		want := answer.ChartSpec{Kind: "bar", X: "region", Y: "change", Title: "Change by region"}
		if b.Chart == nil || *b.Chart != want {
			t.Fatalf("chart %+v, want %+v", b.Chart, want)
		}
	})
}

// A tool error goes back to the model with its hint exactly once, whichever
// tool raised it: an unknown table named to describe_table and to run_sql.
func TestToolErrorCarriesHintOnce(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		d := sample(t)
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("describe_table", `{"table":"custmers"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM custmers"}`)),
			llmtest.Calls(llmtest.Call("sample_values", `{"table":"customers","column":"emial"}`)),
			llmtest.Text("I could not count them."),
		)
		ask(t, newAgent(t, d, f, agent.Options{}), "How many customers?")
		for i, want := range []string{"did you mean customers?", "did you mean customers?", "did you mean email?"} {
			// Request i+1 carries every tool result so far; the newest is last.
			results := f.ToolResults(i + 1)
			got := results[len(results)-1]
			if n := strings.Count(got, want); n != 1 {
				t.Errorf("tool result %d holds %q %d times, want once: %q", i+1, want, n, got)
			}
		}
	})
}
