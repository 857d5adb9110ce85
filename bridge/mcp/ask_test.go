package mcp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm/llmtest"
)

// askServer serves dbs with the ask tool answered by the agent, talking to
// a scripted model server.
func askServer(t *testing.T, f *llmtest.Server, dbs ...*db.DB) *Server {
	t.Helper()
	vars := f.Env()
	svc, err := ask.New(ask.Config{Getenv: func(k string) string { return vars[k] }, TracePath: filepath.Join(t.TempDir(), "trace.jsonl")})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	s, err := New(Options{Databases: dbs, Version: "test", ValidateOutput: true, Ask: svc})
	require.NoError(t, err)
	return s
}

// bundle decodes a result's structured content.
type bundle struct {
	Status    string   `json:"status"`
	Answer    string   `json:"answer"`
	SQL       string   `json:"sql"`
	Rows      [][]any  `json:"rows"`
	Provider  string   `json:"provider"`
	FollowUps []string `json:"follow_ups"`
}

func bundleOf(t *testing.T, res *mcpgo.CallToolResult) bundle {
	t.Helper()
	var b bundle
	raw, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(raw, &b))
	return b
}

// askOK calls the ask tool with args, requires a result that is not an
// error, and returns it with its bundle.
func askOK(t *testing.T, c *client.Client, args map[string]any) (*mcpgo.CallToolResult, bundle) {
	t.Helper()
	res := mcptest.Call(t, c, "ask", args)
	require.False(t, res.IsError, text(t, res))
	return res, bundleOf(t, res)
}

// TestAskToolWithoutAModel: with no model configured the ask tool is still
// listed, read-only, and the offline planner answers it, in threads too.
func TestAskToolWithoutAModel(t *testing.T) {
	c := connect(t, newServer(t, sampleDB(t)))
	tools, err := c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	found := false
	for _, tl := range tools.Tools {
		found = found || tl.Name == "ask" && tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint
	}
	require.True(t, found, "ask not listed as read-only")

	res, b := askOK(t, c, map[string]any{"question": "How many customers are there?", "thread_id": "t1"})
	require.Equal(t, "offline", b.Provider)
	require.Equal(t, "answered", b.Status)
	require.EqualValues(t, 2400, b.Rows[0][0])
	require.Contains(t, text(t, res), "2,400")

	_, b = askOK(t, c, map[string]any{"question": "Why did revenue drop last spring?", "thread_id": "t1"})
	require.Equal(t, "refused", b.Status)
}

func TestAskToolAnswersInThreads(t *testing.T) {
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
			llmtest.Text("There are 2,400 customers."),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM orders"}`)),
			llmtest.Text("And 11,887 orders."),
		)
		c := connect(t, askServer(t, f, sampleDB(t)))
		res, b := askOK(t, c, map[string]any{"question": "How many customers?", "thread_id": "t1"})
		require.Equal(t, "answered", b.Status)
		require.Equal(t, "SELECT count(*) AS n FROM customers", b.SQL)
		require.EqualValues(t, 2400, b.Rows[0][0])
		require.Contains(t, text(t, res), "There are 2,400 customers.")

		askOK(t, c, map[string]any{"question": "And orders?", "thread_id": "t1"})
		require.Contains(t, f.Texts(2), "assistant: There are 2,400 customers.", "the thread's first answer was not carried")

		res = mcptest.Call(t, c, "ask", map[string]any{})
		require.True(t, res.IsError)
		require.True(t, strings.Contains(text(t, res), "question"), text(t, res))
	})
}

// TestAskThreadsAreScopedByDatabase: the same thread_id on two databases
// names two conversations.
func TestAskThreadsAreScopedByDatabase(t *testing.T) {
	f := llmtest.New(t, "openai",
		llmtest.Text("First, on the sample."),
		llmtest.Text("First, on the fixture."),
		llmtest.Text("Second, on the sample."),
	)
	c := connect(t, askServer(t, f, sampleDB(t), fixtureDB(t)))
	for _, label := range []string{"sample", "fixture", "sample"} {
		askOK(t, c, map[string]any{"question": "hello " + label, "thread_id": "t", "database": label})
	}
	var got []string
	for _, m := range f.Texts(2) {
		if !strings.HasPrefix(m, "system: ") {
			got = append(got, m)
		}
	}
	require.Equal(t, []string{"user: hello sample", "assistant: First, on the sample.", "user: hello sample"}, got)
}
