package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tablewise/tablewise/core/tools"
)

func TestExplainSQL(t *testing.T) {
	c := sampleClient(t)
	res := call(t, c, "explain_sql", map[string]any{"sql": "SELECT * FROM order_items WHERE quantity > 3"})
	got := okResult[tools.Plan](t, res)
	assert.Equal(t, []tools.PlanStep{{ID: got.Steps[0].ID, Parent: 0, Detail: "SCAN order_items"}}, got.Steps)
	assert.Equal(t, []string{"full scan of order_items (28,445 rows)"}, got.Notes)
	assert.True(t, strings.HasPrefix(text(t, res), "QUERY PLAN\n`--SCAN order_items\n"))

	msg := errResult(t, call(t, c, "explain_sql", map[string]any{"sql": "DELETE FROM orders"}))
	assert.Contains(t, msg, "read-only")
	msg = errResult(t, call(t, c, "explain_sql", map[string]any{"sql": "SELECT * FROM custmers"}))
	assert.Contains(t, msg, "did you mean customers?")
}
