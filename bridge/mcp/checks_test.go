package mcp

import (
	"context"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/advise"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/health"
	"github.com/tablewise/tablewise/core/migrate"
)

func checksClient(t *testing.T) *Server {
	t.Helper()
	s, err := New(Options{Databases: []*db.DB{sampleDB(t)}, Version: "test", ValidateOutput: true, Checks: true})
	require.NoError(t, err)
	return s
}

// TestChecksAreOptIn: the default tools/list stays within its budget; the
// checks appear with Options.Checks.
func TestChecksAreOptIn(t *testing.T) {
	names := func(s *Server) []string {
		res, err := connect(t, s).ListTools(context.Background(), mcpgo.ListToolsRequest{})
		require.NoError(t, err)
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	def := names(newServer(t, sampleDB(t)))
	assert.NotContains(t, def, "validate_schema")
	with := names(checksClient(t))
	for _, n := range []string{"validate_schema", "suggest_index", "migration_context", "validate_migration"} {
		assert.Contains(t, with, n)
	}
	// The README's figure for tools/list with the checks.
	wire, _ := wireToolsList(t, connect(t, checksClient(t)))
	assert.LessOrEqual(t, len(wire), 8500, "tools/list with --checks grew past 8,500 bytes (the README's figure)")
}

func TestValidateSchema(t *testing.T) {
	c := connect(t, checksClient(t))
	rep := okResult[health.Report](t, mcptest.Call(t, c, "validate_schema", map[string]any{"tables": "orders, reviews"}))
	assert.Equal(t, 2, rep.Tables)
	codes := map[string]bool{}
	for _, f := range rep.Findings {
		codes[f.Code] = true
	}
	assert.True(t, codes[health.UnindexedFK], "findings: %+v", rep.Findings)
	msg := errResult(t, mcptest.Call(t, c, "validate_schema", map[string]any{"tables": "ordrs"}))
	assert.Contains(t, msg, "did you mean orders?")
}

func TestSuggestIndex(t *testing.T) {
	c := connect(t, checksClient(t))
	adv := okResult[advise.Advice](t, mcptest.Call(t, c, "suggest_index", map[string]any{"sql": "SELECT * FROM orders WHERE employee_id = 3"}))
	require.Len(t, adv.Suggestions, 1)
	assert.Equal(t, "CREATE INDEX orders_employee_id_idx ON orders (employee_id);", adv.Suggestions[0].Create)
	assert.Contains(t, errResult(t, mcptest.Call(t, c, "suggest_index", map[string]any{"sql": "DELETE FROM orders"})), "read-only")
}

func TestValidateMigration(t *testing.T) {
	c := connect(t, checksClient(t))
	rep := okResult[migrate.Report](t, mcptest.Call(t, c, "validate_migration", map[string]any{
		"up": "ALTER TABLE orders DROP COLUMN channel;", "down": "ALTER TABLE orders ADD COLUMN channel TEXT;"}))
	assert.True(t, rep.Valid)
	assert.True(t, rep.Destructive)
	require.NotNil(t, rep.Reversible)
	assert.False(t, *rep.Reversible, "the column comes back at the end, with another definition")
}

func TestMigrationContext(t *testing.T) {
	c := connect(t, checksClient(t))
	mc := okResult[migrate.SchemaContext](t, mcptest.Call(t, c, "migration_context", map[string]any{
		"sql": "CREATE TABLE order_tags (order_id INTEGER REFERENCES orders(order_id));\nCREATE INDEX t ON order_tags(order_id);\nALTER TABLE customers DROP COLUMN city;"}))
	assert.Equal(t, "SQLite", mc.Engine)
	var names []string
	for _, tb := range mc.Tables {
		names = append(names, tb.Name)
		assert.NotEmpty(t, tb.Columns, tb.Name)
		assert.Empty(t, tb.SampleRows, "a migration's context holds no rows")
	}
	assert.Equal(t, []string{"orders", "customers"}, names)
	assert.Equal(t, []string{"order_tags"}, mc.Missing)
	mc = okResult[migrate.SchemaContext](t, mcptest.Call(t, c, "migration_context", map[string]any{"tables": "reviews, nope"}))
	require.Len(t, mc.Tables, 1)
	assert.Equal(t, "reviews", mc.Tables[0].Name)
	assert.NotEmpty(t, mc.Tables[0].Indexes)
	assert.Equal(t, []string{"nope"}, mc.Missing)
	assert.Contains(t, errResult(t, mcptest.Call(t, c, "migration_context", map[string]any{})), "give sql")
}
