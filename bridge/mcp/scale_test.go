package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/tools"
	"github.com/tablewise/tablewise/data/scaledb"
)

// maxResultBytes bounds one schema result on any schema: what a client
// puts in its model's context.
const maxResultBytes = 20_000

// resultBytes is a tool result's size as the wire carries it.
func resultBytes(t *testing.T, res *mcpgo.CallToolResult) int {
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	return len(raw)
}

// TestSchemaToolsOnAWideSchema: on 2,000 tables of 20 columns (and one of
// 1,500), list_tables' default result stays under 20 KB and its pages reach
// every table; describe_table of the wide table, its table resource and
// the schema resource stay under it too.
func TestSchemaToolsOnAWideSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 2,000-table database")
	}
	c := connect(t, newServer(t, testdb.Wide(t, 2000, 20)))

	seen := map[string]bool{}
	var args map[string]any
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100)
		res := mcptest.Call(t, c, "list_tables", args)
		n := resultBytes(t, res)
		require.LessOrEqual(t, n, maxResultBytes, "list_tables %v: %d bytes", args, n)
		l := okResult[tools.TableList](t, res)
		require.Equal(t, 2000, l.Total)
		if pages == 0 {
			t.Logf("list_tables default result: %d bytes, %d tables", n, len(l.Tables))
			assert.Contains(t, text(t, res), "next page: offset=")
		}
		for _, s := range l.Tables {
			seen[s.Name] = true
		}
		if l.NextOffset == 0 {
			break
		}
		args = map[string]any{"offset": l.NextOffset}
	}
	assert.Len(t, seen, 2000)

	res := mcptest.Call(t, c, "list_tables", map[string]any{"pattern": "crm_*", "limit": 500})
	l := okResult[tools.TableList](t, res)
	assert.Equal(t, 100, l.Total)
	assert.Len(t, l.Tables, 100)
	msg := errResult(t, mcptest.Call(t, c, "list_tables", map[string]any{"limit": 501}))
	assert.Contains(t, msg, "limit must be at most 500")

	schema := resourceText(t, c, uriSchema)
	assert.LessOrEqual(t, len(schema), maxResultBytes)
	assert.Contains(t, schema, "here is a summary")
	t.Logf("schema resource: %d bytes", len(schema))

	wc := connect(t, newServer(t, testdb.Wide(t, 1, 1500)))
	card, err := readResource(t, wc, "tablewise://table/"+scaledb.WideName(0))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(card), maxResultBytes)
	t.Logf("table resource of 1,500 columns: %d bytes", len(card))
	assert.Contains(t, card, "(clipped at")

	res = mcptest.Call(t, wc, "describe_table", map[string]any{"table": scaledb.WideName(0)})
	n := resultBytes(t, res)
	assert.LessOrEqual(t, n, maxResultBytes, "describe_table of 1,500 columns: %d bytes", n)
	desc := okResult[tools.TableDescription](t, res)
	assert.Equal(t, 1500, desc.ColumnsTotal)
	assert.Len(t, desc.Columns, tools.DefaultDescribeColumns)
	res = mcptest.Call(t, wc, "describe_table", map[string]any{"table": scaledb.WideName(0), "columns": "*_date*"})
	desc = okResult[tools.TableDescription](t, res)
	require.Greater(t, len(desc.Columns), 1)
	for _, col := range desc.Columns[1:] {
		assert.True(t, strings.Contains(col.Name, "_date"), col.Name)
	}
}
