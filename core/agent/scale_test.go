package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data/scaledb"
)

// maxRequestBytes bounds every model request, whatever the schema's size.
const maxRequestBytes = agent.RequestBytes

// TestRequestsDoNotGrowWithTheSchema asks a question of a 2,000-table
// schema (20 columns each) with a model that looks around the way a model
// does on a big schema — list_tables, search_schema, describe_table,
// run_sql — and holds every request the scripted server received to
// maxRequestBytes.
func TestRequestsDoNotGrowWithTheSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 2,000-table database (about 1 s)")
	}
	d := testdb.Wide(t, 2000, 20)
	table := scaledb.WideName(1234)
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("list_tables", `{}`)),
			llmtest.Calls(llmtest.Call("search_schema", `{"query":"billing invoices status"}`)),
			llmtest.Calls(llmtest.Call("describe_table", `{"table":"`+table+`"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT * FROM `+table+`"}`)),
			// 27 rows of 40 columns: a result far over the request's size.
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT * FROM `+table+` a, `+table+` b, `+table+` c"}`)),
			llmtest.Calls(llmtest.Call("describe_table", `{"table":"`+scaledb.WideName(7)+`"}`)),
			llmtest.Text("There are 3."),
		)
		prior := []answer.Turn{{Question: "Which billing tables are there?", Answer: strings.Repeat("billing_invoices, billing_accounts and more. ", 40)}}
		b, err := newAgent(t, d, f, agent.Options{}).AskAfter(context.Background(), prior, "How many open billing invoices are there?", nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.Usage.ToolCalls != 6 {
			t.Fatalf("tool calls %d, want 6: %+v", b.Usage.ToolCalls, b.Steps)
		}
		// The big result reached the model clipped, saying so.
		if res := f.ToolResults(5); len(res) != 5 || !strings.Contains(res[4], "[clipped:") {
			t.Errorf("the big result was not clipped: %.200q", res)
		}
		if want := int64(slices.Max(f.Bodies())); b.Usage.MaxRequestBytes != want {
			t.Errorf("the bundle's largest request is %d bytes; the server read %d", b.Usage.MaxRequestBytes, want)
		}
		for i, n := range f.Bodies() {
			t.Logf("%s request %d: %d bytes", provider, i+1, n)
			if n > maxRequestBytes {
				t.Errorf("%s request %d is %d bytes, over %d", provider, i+1, n, maxRequestBytes)
			}
		}
	})
}
