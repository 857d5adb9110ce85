package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/llm/llmtest"
)

// askServer serves the sample database with the ask tool, its agent
// talking to a scripted model server.
func askServer(t *testing.T, f *llmtest.Server) *Server {
	t.Helper()
	p, err := llm.New(llm.Config{Provider: f.Provider(), OpenAIBaseURL: f.URL, OpenAIKey: "k", AnthropicBaseURL: f.URL, AnthropicKey: "k", Model: "fake"},
		llm.WithBackoff(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	s, err := New(Options{Databases: []*db.DB{sampleDB(t)}, Version: "test", ValidateOutput: true,
		NewAgent: func(d *db.DB) *agent.Agent { return agent.New(d, p, agent.CoreTools(d), agent.Options{}) }})
	require.NoError(t, err)
	return s
}

func TestAskToolOnlyWithAModel(t *testing.T) {
	c := connect(t, newServer(t, sampleDB(t)))
	tools, err := c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	for _, tl := range tools.Tools {
		require.NotEqual(t, "ask", tl.Name, "ask is served without a model")
	}
	f := llmtest.New(t, "anthropic")
	c = connect(t, askServer(t, f))
	tools, err = c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	found := false
	for _, tl := range tools.Tools {
		found = found || tl.Name == "ask" && tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint
	}
	require.True(t, found, "ask not listed as read-only")
}

func TestAskToolAnswersInThreads(t *testing.T) {
	for _, provider := range llmtest.Providers {
		t.Run(provider, func(t *testing.T) {
			f := llmtest.New(t, provider,
				llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM customers"}`)),
				llmtest.Text("There are 2,400 customers."),
				llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM orders"}`)),
				llmtest.Text("And 11,887 orders."),
			)
			c := connect(t, askServer(t, f))
			res := call(t, c, "ask", map[string]any{"question": "How many customers?", "thread_id": "t1"})
			require.False(t, res.IsError, text(t, res))
			var b struct {
				Status string  `json:"status"`
				Answer string  `json:"answer"`
				SQL    string  `json:"sql"`
				Rows   [][]any `json:"rows"`
			}
			raw, _ := json.Marshal(res.StructuredContent)
			require.NoError(t, json.Unmarshal(raw, &b))
			require.Equal(t, "answered", b.Status)
			require.Equal(t, "SELECT count(*) AS n FROM customers", b.SQL)
			require.EqualValues(t, 2400, b.Rows[0][0])
			require.Contains(t, text(t, res), "There are 2,400 customers.")

			res = call(t, c, "ask", map[string]any{"question": "And orders?", "thread_id": "t1"})
			require.False(t, res.IsError, text(t, res))
			carried := false
			for _, m := range f.Texts(2) {
				carried = carried || m == "assistant: There are 2,400 customers."
			}
			require.True(t, carried, "the thread's first answer was not carried: %q", f.Texts(2))

			res = call(t, c, "ask", map[string]any{})
			require.True(t, res.IsError)
			require.True(t, strings.Contains(text(t, res), "question"), text(t, res))
		})
	}
}
