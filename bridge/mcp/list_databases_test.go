package mcp

import (
	"context"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/tools"
)

func TestMultipleDatabases(t *testing.T) {
	c := connect(t, newServer(t, sampleDB(t), fixtureDB(t)))

	res := mcptest.Call(t, c, "list_databases", nil)
	got := okResult[DatabaseList](t, res)
	require.Len(t, got.Databases, 2)
	assert.Equal(t, "sample", got.Databases[0].Label)
	assert.Equal(t, 14, got.Databases[0].Tables)
	assert.Equal(t, 2, got.Databases[0].Views)
	assert.Equal(t, DatabaseInfo{Label: "fixture", File: "fixture.db", Tables: 5, Views: 1, Rows: 15}, got.Databases[1])
	assert.Contains(t, text(t, res), "fixture  fixture.db — 5 tables, 1 views, 15 rows")

	r := okResult[tools.SQLResult](t, mcptest.Call(t, c, "run_sql", map[string]any{"database": "fixture", "sql": `SELECT count(*) FROM "order"`}))
	assert.Equal(t, float64(4), r.Rows[0][0])
	r = okResult[tools.SQLResult](t, mcptest.Call(t, c, "run_sql", map[string]any{"database": "sample", "sql": "SELECT count(*) FROM orders"}))
	assert.Equal(t, float64(11887), r.Rows[0][0])

	l := okResult[tools.TableList](t, mcptest.Call(t, c, "list_tables", map[string]any{"database": "fixture"}))
	assert.Len(t, l.Tables, 6)

	msg := errResult(t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT 1"}))
	assert.Contains(t, msg, "database")
	msg = errResult(t, mcptest.Call(t, c, "run_sql", map[string]any{"database": "nope", "sql": "SELECT 1"}))
	assert.Contains(t, msg, "database")

	// Every per-database tool requires the database argument.
	tl, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	for _, tool := range tl.Tools {
		if tool.Name == "list_databases" {
			assert.NotContains(t, tool.InputSchema.Required, "database")
			continue
		}
		assert.Contains(t, tool.InputSchema.Required, "database", tool.Name)
	}
}

func TestListDatabasesOnlyWithSeveral(t *testing.T) {
	s := newServer(t, sampleDB(t))
	assert.NotContains(t, s.ToolNames(), "list_databases")
	c := connect(t, s)
	var req mcpgo.CallToolRequest
	req.Params.Name = "list_databases"
	_, err := c.CallTool(context.Background(), req)
	assert.Error(t, err, "an unknown tool is a protocol error")
}
