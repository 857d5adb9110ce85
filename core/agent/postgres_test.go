package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/llm/llmtest"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestAgentOnPostgres: on a PostgreSQL database the model is told the
// dialect, its SQL errors come back named as PostgreSQL's with the "did
// you mean" hint, and it repairs with the quoted mixed-case names.
func TestAgentOnPostgres(t *testing.T) {
	d := testdb.Open(t, servers.Postgres(t))
	llmtest.EachProvider(t, func(t *testing.T, provider string) {
		f := llmtest.New(t, provider,
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) FROM Track"}`)),
			llmtest.Calls(llmtest.Call("run_sql", `{"sql":"SELECT count(*) AS n FROM \"Track\""}`)),
			llmtest.Text("There are 3,503 tracks."),
		)
		b := ask(t, newAgent(t, d, f, agent.Options{}), "How many tracks?")
		c := f.ToolResults(1)[0]
		if !strings.Contains(c, "PostgreSQL 1") || !strings.Contains(c, `relation "track" does not exist — did you mean "Track"`) {
			t.Errorf("tool result %q", c)
		}
		if b.Status != answer.StatusAnswered || b.Rows[0][0] != int64(3503) {
			t.Fatalf("bundle %+v", b)
		}
		if !strings.Contains(f.System(0), "PostgreSQL") {
			t.Error("the first request does not name PostgreSQL")
		}
		// The tools' words (run_sql's are the MCP server's, which serves
		// every engine) name no other engine's dialect.
		tools, err := json.Marshal(f.Requests()[0]["tools"])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(tools), "PostgreSQL") || strings.Contains(string(tools), "SQLite") {
			t.Errorf("the first request's tools: %s", tools)
		}
	})
}
