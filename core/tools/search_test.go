package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"orderDate", []string{"order", "date"}},
		{"HTTPServer2Go", []string{"http", "server", "2", "go"}},
		{"order_items", []string{"order", "item"}},
		{"Order Details", []string{"order", "detail"}},
		{"categories", []string{"categori"}},
		{"boxes status address", []string{"box", "status", "address"}},
		{"delivered deliveries", []string{"deliv", "deliveri"}},
		{"shipped shipping", []string{"ship", "ship"}},
		{"東京 São-Paulo", []string{"東京", "sao", "paulo"}},
	} {
		assert.Equal(t, tc.want, tokenize(tc.in), tc.in)
	}
}

func TestSearchSchemaSample(t *testing.T) {
	d := openSample(t)
	ctx := context.Background()

	r, err := SearchSchema(ctx, d, "revenue per month", DetailNames, 5)
	require.NoError(t, err)
	require.NotEmpty(t, r.Hits)
	assert.Equal(t, "monthly_sales", r.Hits[0].Table)
	assert.Equal(t, []string{"month", "revenue"}, r.Hits[0].Columns)
	assert.Empty(t, r.Hits[0].Description, "names detail has no descriptions")
	assert.Empty(t, r.Neighbours)
	assert.Equal(t, "1 table matching \"revenue per month\", best first:\nmonthly_sales (month, revenue)\n", r.Text())

	r, err = SearchSchema(ctx, d, "customer country", DetailSummary, 5)
	require.NoError(t, err)
	assert.Equal(t, "customers", r.Hits[0].Table)
	assert.Equal(t, []string{"customer_id", "country_id"}, r.Hits[0].Columns)
	assert.Contains(t, r.Hits[0].Joins, "customers.country_id = countries.country_id")
	assert.NotEmpty(t, r.Hits[0].Description)
	var neighbours []string
	for _, n := range r.Neighbours {
		neighbours = append(neighbours, n.Table)
	}
	assert.Contains(t, neighbours, "regions", "a neighbour of countries, itself not a hit")
	for _, h := range r.Hits {
		assert.NotContains(t, neighbours, h.Table, "hits are not neighbours")
	}

	r, err = SearchSchema(ctx, d, "review rating", DetailFull, 3)
	require.NoError(t, err)
	assert.Equal(t, "reviews", r.Hits[0].Table)
	assert.True(t, strings.HasPrefix(r.Hits[0].Card, "reviews(review_id INTEGER PK,"), r.Hits[0].Card)
	assert.Contains(t, r.Text(), "reviews(review_id INTEGER PK")

	// A prefix finds the word it starts.
	r, err = SearchSchema(ctx, d, "cust", "", 0)
	require.NoError(t, err)
	assert.Equal(t, DetailSummary, r.Detail)
	assert.Equal(t, "customers", r.Hits[0].Table)

	// A word found only in sample or CHECK values.
	r, err = SearchSchema(ctx, d, "refunded", DetailNames, 3)
	require.NoError(t, err)
	require.NotEmpty(t, r.Hits)
	assert.Equal(t, "payments", r.Hits[0].Table)
	assert.Equal(t, []string{"status"}, r.Hits[0].Columns)

	r, err = SearchSchema(ctx, d, "zebra giraffe", DetailNames, 3)
	require.NoError(t, err)
	assert.Empty(t, r.Hits)
	assert.Contains(t, r.Text(), "no table matches")

	r, err = SearchSchema(ctx, d, "the of", DetailNames, 3)
	require.NoError(t, err)
	assert.Empty(t, r.Hits, "stopwords alone match nothing")

	_, err = SearchSchema(ctx, d, "x", "everything", 3)
	assert.ErrorContains(t, err, "use names, summary or full")

	r, err = SearchSchema(ctx, d, "order", DetailNames, 2)
	require.NoError(t, err)
	assert.Len(t, r.Hits, 2, "limit")
}

func TestSearchSchemaFixture(t *testing.T) {
	d := openFixture(t)
	r, err := SearchSchema(context.Background(), d, "product", DetailSummary, 5)
	require.NoError(t, err)
	require.Len(t, r.Hits, 1)
	assert.Equal(t, "Order Details", r.Hits[0].Table)
	assert.Equal(t, []string{"product"}, r.Hits[0].Columns)
	assert.Equal(t, []string{`"Order Details".order_id = "order".id`}, r.Hits[0].Joins)
	assert.Equal(t, []Neighbour{{Table: "order", Join: `"Order Details".order_id = "order".id`}}, r.Neighbours)
	// Summaries and cards both go on with the matching columns and joins.
	const matched = "\n  matching columns: product\n  join: \"Order Details\".order_id = \"order\".id\n"
	assert.Contains(t, r.Text(), matched)
	r, err = SearchSchema(context.Background(), d, "product", DetailFull, 5)
	require.NoError(t, err)
	assert.Contains(t, r.Text(), matched)

	r, err = SearchSchema(context.Background(), d, "Kraków", DetailNames, 5)
	require.NoError(t, err)
	require.Len(t, r.Hits, 1)
	assert.Equal(t, "Match", r.Hits[0].Table)
	assert.Equal(t, []string{"home"}, r.Hits[0].Columns)
}
