package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/tools"
)

func TestDescribeTable(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "describe_table", map[string]any{"table": "Orders"})
	got := okResult[tools.TableDescription](t, res)
	assert.Equal(t, "orders", got.Name)
	assert.Equal(t, int64(11887), got.RowCount)
	assert.Len(t, got.Columns, 12)
	assert.Len(t, got.ReferencedBy, 4)
	assert.Len(t, got.SampleRows, 3)
	assert.Contains(t, text(t, res), "status TEXT NOT NULL one of: pending, processing, shipped, delivered, cancelled, returned")

	res = mcptest.Call(t, c, "describe_table", map[string]any{"table": "promo codes"})
	got = okResult[tools.TableDescription](t, res)
	assert.Equal(t, "promo codes", got.Name)
	require.Len(t, got.ReferencedBy, 1)
	assert.Equal(t, tools.ForeignKeyInfo{Table: "orders", Columns: []string{"promo_code_id"}, RefTable: "promo codes", RefColumns: []string{"promo_code_id"}}, got.ReferencedBy[0])
	assert.Contains(t, text(t, res), "  orders.promo_code_id = \"promo codes\".promo_code_id\n")
}

func TestDescribeTableUnknown(t *testing.T) {
	c := sampleClient(t)
	msg := errResult(t, mcptest.Call(t, c, "describe_table", map[string]any{"table": "custmers"}))
	assert.Equal(t, "no such table: custmers\nhint: did you mean customers? (list_tables shows every table)", msg)

	msg = errResult(t, mcptest.Call(t, c, "describe_table", map[string]any{}))
	assert.Contains(t, msg, "table")
}
