package mcp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/tools"
)

func TestListTables(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "list_tables", nil)
	got := okResult[tools.TableList](t, res)
	cat, err := sampleDB(t).Catalog(context.Background())
	require.NoError(t, err)
	require.Len(t, got.Tables, len(cat.Tables))
	byName := map[string]tools.TableSummary{}
	for _, s := range got.Tables {
		byName[s.Name] = s
	}
	assert.Equal(t, int64(2400), byName["customers"].RowCount)
	assert.Equal(t, "view", byName["order_totals"].Kind)
	txt := text(t, res)
	assert.Contains(t, txt, "tables and views: 16\n")
	assert.Contains(t, txt, `"promo codes"  table  21 rows, 8 cols`)
}

func TestListTablesRejectsUnknownArguments(t *testing.T) {
	c := sampleClient(t)
	msg := errResult(t, mcptest.Call(t, c, "list_tables", map[string]any{"tabel": "x"}))
	assert.Contains(t, msg, "tabel")
}
