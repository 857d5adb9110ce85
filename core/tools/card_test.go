package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/catalog"
)

func TestSchemaTextFixtureGolden(t *testing.T) {
	d := openFixture(t)
	cat, err := d.Catalog(context.Background())
	require.NoError(t, err)
	golden(t, "schema_fixture.txt", SchemaText(d.Dialect(), cat))
}

func TestSchemaCardSample(t *testing.T) {
	d := openSample(t)
	cat, err := d.Catalog(context.Background())
	require.NoError(t, err)
	card := SchemaCard(d.Dialect(), cat.Table("orders"))
	first, notes, _ := strings.Cut(card, "\n")
	assert.True(t, strings.HasPrefix(first, "orders(order_id INTEGER PK, customer_id → customers.customer_id, employee_id → employees.employee_id, order_date DATETIME,"), first)
	assert.Contains(t, first, `promo_code_id → "promo codes".promo_code_id, freight REAL) 11,887 rows`)
	assert.Contains(t, first, "; status one of: pending, processing, shipped, delivered, cancelled, returned")
	assert.Contains(t, first, "; e.g. order_date: 2022-01-01 ")
	assert.Contains(t, notes, "order_date: 'YYYY-MM-DD HH:MM:SS', store time")
	assert.True(t, strings.HasPrefix(notes, "  -- "), notes)

	pc := SchemaCard(d.Dialect(), cat.Table("promo codes"))
	assert.True(t, strings.HasPrefix(pc, `"promo codes"(promo_code_id INTEGER PK, code TEXT, type TEXT, value NUMERIC,`), pc)
	assert.Contains(t, pc, "type one of: percent, free_shipping")

	text := SchemaText(d.Dialect(), cat)
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(l, "  -- ") {
			lines++
		}
	}
	assert.Equal(t, len(cat.Tables), lines, "one card per table")
	assert.Less(t, strings.Index(text, "\nshipments("), strings.Index(text, "\nmonthly_sales("), "tables before views")
}

func TestExamplesSkipKeysAndLongText(t *testing.T) {
	d := openSample(t)
	cat, err := d.Catalog(context.Background())
	require.NoError(t, err)
	for _, ex := range examples(cat.Table("customers")) {
		assert.NotEqual(t, "email", ex.column, "unique columns are left out")
		assert.NotEqual(t, "customer_id", ex.column, "keys are left out")
		assert.NotEqual(t, "country_id", ex.column, "foreign keys are left out")
	}
	for _, ex := range examples(cat.Table("reviews")) {
		assert.NotEqual(t, "body", ex.column, "long text is left out")
	}
}

func TestCategoryColumns(t *testing.T) {
	d := openSample(t)
	cat, err := d.Catalog(context.Background())
	require.NoError(t, err)
	orders := cat.Table("orders")
	assert.Equal(t, []string{"status", "channel", "ship_country"}, CategoryColumns(orders))
	assert.Equal(t, map[string][]string{"status": {"pending", "processing", "shipped", "delivered", "cancelled", "returned"}}, AllowedValues(orders))
	assert.Equal(t, []string{"discontinued"}, CategoryColumns(cat.Table("products")))
	assert.Empty(t, CategoryColumns(cat.Table("regions")))
}

func TestDocs(t *testing.T) {
	for _, name := range []string{NameListTables, NameDescribeTable, NameSearchSchema, NameSampleValues, NameRunSQL, NameExplainSQL, NameMakeChart, NameExportCSV} {
		d := DocFor(name)
		assert.Equal(t, name, d.Name)
		assert.NotEmpty(t, d.Title, name)
		assert.Greater(t, len(d.Description), 80, "%s: say when to use it", name)
	}
	assert.Equal(t, Doc{}, DocFor("nope"))
}

// A card says what a relation is when it is not a plain table: a
// materialized view or a virtual table (FTS5, R*Tree) is queried as a
// table is, but the model should know it is not one (a virtual table
// answers MATCH, a materialized view may be stale).
func TestSchemaCardKinds(t *testing.T) {
	dl := openSample(t).Dialect()
	for _, kind := range []string{"view", "materialized view", catalog.VirtualTable} {
		card := SchemaCard(dl, &catalog.Table{Name: "docs", Kind: kind, Columns: []catalog.Column{{Name: "body", Type: "TEXT"}}, RowCount: 3})
		assert.Contains(t, card, ") "+kind+", 3 rows", kind)
	}
	card := SchemaCard(dl, &catalog.Table{Name: "docs", Kind: "table", Columns: []catalog.Column{{Name: "body", Type: "TEXT"}}, RowCount: 3})
	assert.Contains(t, card, ") 3 rows", card)
}
