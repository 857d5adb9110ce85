package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/engine"
)

func TestExplainSQL(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "SELECT * FROM order_items WHERE quantity > 3"})
	got := okResult[engine.Plan](t, res)
	assert.Equal(t, []engine.PlanStep{{ID: got.Steps[0].ID, Parent: 0, Detail: "SCAN order_items"}}, got.Steps)
	assert.Equal(t, []string{"full scan of order_items (28,445 rows)"}, got.Notes)
	assert.True(t, strings.HasPrefix(text(t, res), "QUERY PLAN\n`--SCAN order_items\n"))

	msg := errResult(t, mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "DELETE FROM orders"}))
	assert.Contains(t, msg, "read-only")
	msg = errResult(t, mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "SELECT * FROM custmers"}))
	assert.Contains(t, msg, "did you mean customers?")

	// analyze: run once, read-only, for the rows and time.
	res = mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "SELECT * FROM orders WHERE employee_id = 3", "analyze": true})
	got = okResult[engine.Plan](t, res)
	if assert.NotNil(t, got.Actual) {
		assert.Equal(t, int64(539), got.Actual.Rows)
		assert.False(t, got.Actual.PerStep)
	}
	assert.Contains(t, text(t, res), " ms and returned 539 rows\n")
	msg = errResult(t, mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "DELETE FROM orders", "analyze": true}))
	assert.Contains(t, msg, "read-only")
	msg = errResult(t, mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "SELECT 1", "analyze": "yes"}))
	assert.Contains(t, msg, "analyze must be true or false")
}
