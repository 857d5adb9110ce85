package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/tools"
)

func TestSearchSchema(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "search_schema", map[string]any{"query": "revenue per month", "detail": "names", "limit": 3})
	got := okResult[tools.SearchResult](t, res)
	require.NotEmpty(t, got.Hits)
	assert.Equal(t, "monthly_sales", got.Hits[0].Table)
	assert.Equal(t, []string{"month", "revenue"}, got.Hits[0].Columns)
	assert.Equal(t, "1 table matching \"revenue per month\", best first:\nmonthly_sales (month, revenue)\n", text(t, res))

	res = mcptest.Call(t, c, "search_schema", map[string]any{"query": "customer country"})
	got = okResult[tools.SearchResult](t, res)
	assert.Equal(t, "summary", got.Detail)
	assert.Equal(t, "customers", got.Hits[0].Table)
	assert.NotEmpty(t, got.Neighbours)

	msg := errResult(t, mcptest.Call(t, c, "search_schema", map[string]any{"query": "x", "detail": "everything"}))
	assert.Contains(t, msg, "detail")
	msg = errResult(t, mcptest.Call(t, c, "search_schema", map[string]any{"query": "x", "limit": 500}))
	assert.Contains(t, msg, "limit")
}
