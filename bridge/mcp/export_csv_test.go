package mcp

import (
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
)

func csvOf(t *testing.T, res *mcpgo.CallToolResult) (uri, csv string) {
	t.Helper()
	for _, c := range res.Content {
		if er, ok := mcpgo.AsEmbeddedResource(c); ok {
			tr, ok := mcpgo.AsTextResourceContents(er.Resource)
			require.True(t, ok, "a text resource")
			assert.Equal(t, "text/csv", tr.MIMEType)
			return tr.URI, tr.Text
		}
	}
	t.Fatal("no embedded resource")
	return "", ""
}

func TestExportCSV(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "export_csv", map[string]any{"sql": "SELECT region_id, name FROM regions ORDER BY region_id"})
	got := okResult[CSVExport](t, res)
	assert.Equal(t, 7, got.RowCount)
	assert.False(t, got.Capped)
	uri, csv := csvOf(t, res)
	assert.Equal(t, got.URI, uri)
	assert.True(t, strings.HasPrefix(uri, "tablewise://export/"))
	lines := strings.Split(strings.TrimRight(csv, "\r\n"), "\n")
	assert.Len(t, lines, 8)
	assert.Equal(t, "region_id,name", strings.TrimRight(lines[0], "\r"))
	assert.Equal(t, len(csv), got.Bytes)
	assert.Contains(t, text(t, res), "CSV of 7 rows")
}

func TestExportCSVCaps(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: exports megabytes (-short)")
	}
	c := sampleClient(t)
	// 28,445 × 7 rows: more than the row cap.
	res := mcptest.Call(t, c, "export_csv", map[string]any{"sql": "SELECT oi.order_item_id, r.region_id FROM order_items AS oi, regions AS r"})
	got := okResult[CSVExport](t, res)
	assert.True(t, got.Capped)
	assert.Equal(t, "rows", got.CappedBy)
	assert.Equal(t, exportMaxRows, got.RowCount)
	assert.Contains(t, text(t, res), "capped at the rows limit")

	// Wide rows: the byte cap comes first.
	res = mcptest.Call(t, c, "export_csv", map[string]any{"sql": "SELECT order_item_id, printf('%.300c', 'x') AS pad FROM order_items"})
	got = okResult[CSVExport](t, res)
	assert.True(t, got.Capped)
	assert.Equal(t, "bytes", got.CappedBy)
	assert.Less(t, got.RowCount, 28445)
	assert.GreaterOrEqual(t, got.Bytes, exportMaxBytes)
	assert.Less(t, got.Bytes, exportMaxBytes+(128<<10))
	_, csv := csvOf(t, res)
	assert.Equal(t, got.RowCount+1, strings.Count(csv, "\n"), "header plus whole rows")
}
