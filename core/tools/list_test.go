package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/testdb"
)

func TestListTablesFixture(t *testing.T) {
	d := openFixture(t)
	l, err := ListTables(context.Background(), d, ListOptions{})
	require.NoError(t, err)
	want := []TableSummary{
		{Name: "customer", Kind: "table", RowCount: 4, Columns: 4, Description: `4 columns; referenced by "order"`},
		{Name: "Match", Kind: "table", RowCount: 2, Columns: 4, Description: "4 columns"},
		{Name: "order", Kind: "table", RowCount: 4, Columns: 4, Description: `4 columns; references customer; referenced by "Order Details"`},
		{Name: "Order Details", Kind: "table", RowCount: 3, Columns: 4, Description: `4 columns; references "order"`},
		{Name: "t", Kind: "table", RowCount: 2, Columns: 2, Description: "2 columns"},
		{Name: "big_orders", Kind: "view", RowCount: 2, Columns: 4, Description: `view, 4 columns; reads "order"`},
	}
	assert.Equal(t, want, l.Tables)
	text := l.Text()
	assert.True(t, strings.HasPrefix(text, "tables and views: 6\n"), text)
	assert.Contains(t, text, `"Order Details"  table  3 rows, 4 cols — 4 columns; references "order"`)
}

func TestListTablesSample(t *testing.T) {
	d := openSample(t)
	ctx := context.Background()
	l, err := ListTables(ctx, d, ListOptions{})
	require.NoError(t, err)
	cat, err := d.Catalog(ctx)
	require.NoError(t, err)
	require.Len(t, l.Tables, len(cat.Tables))
	byName := map[string]TableSummary{}
	for _, s := range l.Tables {
		byName[s.Name] = s
	}
	assert.Equal(t, int64(2400), byName["customers"].RowCount)
	assert.Equal(t, int64(11887), byName["orders"].RowCount)
	assert.Equal(t, 12, byName["orders"].Columns)
	assert.Equal(t, `12 columns; references "promo codes", employees, customers; referenced by order_items, payments, reviews, shipments`, byName["orders"].Description)
	assert.Equal(t, "view", byName["monthly_sales"].Kind)
	assert.Equal(t, "view, 4 columns; reads order_totals", byName["monthly_sales"].Description)
	// Tables before views.
	assert.Equal(t, "view", l.Tables[len(l.Tables)-1].Kind)
	assert.Equal(t, "table", l.Tables[0].Kind)
}

func TestListTablesUsesLeadingComment(t *testing.T) {
	path := testdb.Build(t, "commented.db", `CREATE TABLE ledger ( -- every payment we received
  id INTEGER PRIMARY KEY, amount REAL);
INSERT INTO ledger VALUES (1, 2.5);`)
	d := testdb.Open(t, path)
	l, err := ListTables(context.Background(), d, ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Tables, 1)
	assert.Equal(t, "every payment we received", l.Tables[0].Description)
	cat, err := d.Catalog(context.Background())
	require.NoError(t, err)
	card := SchemaCard(d.Dialect(), cat.Table("ledger"))
	assert.Equal(t, "ledger(id INTEGER PK, amount REAL) 1 row — every payment we received", card)
}
