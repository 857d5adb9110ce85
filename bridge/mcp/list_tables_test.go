package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
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

// A server that has been running sees a table created since it started.
func TestListTablesSeesNewTable(t *testing.T) {
	path := testdb.Build(t, "pets.db", `CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT);`)
	d := testdb.OpenWith(t, path, db.Options{SchemaCheck: time.Millisecond})
	c := connect(t, newServer(t, d))
	names := func() []string {
		var out []string
		for _, s := range okResult[tools.TableList](t, mcptest.Call(t, c, "list_tables", nil)).Tables {
			out = append(out, s.Name)
		}
		return out
	}
	require.Equal(t, []string{"pets"}, names())
	testdb.BuildAt(t, path, `CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT)`)
	time.Sleep(5 * time.Millisecond)
	assert.ElementsMatch(t, []string{"owners", "pets"}, names())
}
