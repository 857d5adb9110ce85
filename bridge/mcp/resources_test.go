package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/query"
)

func readResource(t *testing.T, c *client.Client, uri string) (string, error) {
	t.Helper()
	var req mcpgo.ReadResourceRequest
	req.Params.URI = uri
	res, err := c.ReadResource(context.Background(), req)
	if err != nil {
		return "", err
	}
	require.Len(t, res.Contents, 1)
	tr, ok := mcpgo.AsTextResourceContents(res.Contents[0])
	require.True(t, ok)
	assert.Equal(t, uri, tr.URI)
	assert.Equal(t, "text/plain", tr.MIMEType)
	return tr.Text, nil
}

// resourceText is the text of the resource at uri, which must be readable.
func resourceText(t *testing.T, c *client.Client, uri string) string {
	t.Helper()
	txt, err := readResource(t, c, uri)
	require.NoError(t, err)
	return txt
}

func TestResourcesList(t *testing.T) {
	c := sampleClient(t)
	ctx := context.Background()
	rs, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	require.NoError(t, err)
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	assert.ElementsMatch(t, []string{"tablewise://schema", "tablewise://sample-questions"}, uris)
	ts, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	require.NoError(t, err)
	require.Len(t, ts.ResourceTemplates, 1)
	assert.Equal(t, "tablewise://table/{name}", ts.ResourceTemplates[0].URITemplate.Raw())
}

func TestSchemaResource(t *testing.T) {
	c := sampleClient(t)
	txt := resourceText(t, c, "tablewise://schema")
	assert.Contains(t, txt, "orders(order_id INTEGER PK, customer_id → customers.customer_id,")
	// Under -race a view may be too slow to count within the catalog budget.
	assert.Regexp(t, `\nmonthly_sales\(month, orders, units, revenue\) view, (42|\?) rows`, txt)
	cat, err := sampleDB(t).Catalog(context.Background())
	require.NoError(t, err)
	cards := 0
	for _, l := range strings.Split(strings.TrimSpace(txt), "\n") {
		if !strings.HasPrefix(l, "  ") {
			cards++
		}
	}
	assert.Equal(t, len(cat.Tables), cards)
}

func TestTableResource(t *testing.T) {
	c := sampleClient(t)
	txt := resourceText(t, c, "tablewise://table/orders")
	assert.True(t, strings.HasPrefix(txt, "orders(order_id INTEGER PK"), txt)
	assert.Contains(t, txt, "  ← order_items.order_id = orders.order_id\n")

	txt = resourceText(t, c, "tablewise://table/promo%20codes")
	assert.True(t, strings.HasPrefix(txt, `"promo codes"(promo_code_id INTEGER PK`), txt)

	_, err := readResource(t, c, "tablewise://table/custmers")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did you mean customers?")
}

func TestSampleQuestionsResource(t *testing.T) {
	c := sampleClient(t)
	txt := resourceText(t, c, "tablewise://sample-questions")
	assert.True(t, strings.HasPrefix(txt, "- Which 10 products have the most order items?\n  SQL: SELECT r.name, count(*) AS n FROM order_items AS t JOIN products AS r ON t.product_id = r.product_id GROUP BY r.product_id ORDER BY n DESC LIMIT 10\n"), txt)
	assert.Contains(t, txt, "- How many payments are there for each status?\n  SQL: SELECT status, count(*) AS n FROM payments GROUP BY status ORDER BY n DESC\n")
	assert.Contains(t, txt, "- How many orders were there per month (by order date)?\n")
	qs := strings.Count(txt, "\n- ") + 1
	assert.GreaterOrEqual(t, qs, 5)
	assert.LessOrEqual(t, qs, maxSampleQuestions)
	// Every listed SQL runs.
	for _, line := range strings.Split(txt, "\n") {
		if sql, ok := strings.CutPrefix(line, "  SQL: "); ok {
			_, err := query.Collect(context.Background(), sampleDB(t), sql, query.Options{MaxRows: 1})
			assert.NoError(t, err, sql)
		}
	}
}

func TestSampleQuestionsFixture(t *testing.T) {
	c := connect(t, newServer(t, fixtureDB(t)))
	txt := resourceText(t, c, "tablewise://sample-questions")
	assert.Contains(t, txt, "- Which 10 customers have the most orders?\n  SQL: SELECT r.name, count(*) AS n FROM \"order\" AS t JOIN customer AS r ON t.customer_id = r.id GROUP BY r.id ORDER BY n DESC LIMIT 10\n")
	assert.Contains(t, txt, "- How many orders are there for each status?\n")
}

func TestResourcesWithSeveralDatabases(t *testing.T) {
	c := connect(t, newServer(t, sampleDB(t), fixtureDB(t)))
	txt := resourceText(t, c, "tablewise://schema")
	assert.True(t, strings.HasPrefix(txt, "# database sample\n"), txt[:40])
	assert.Contains(t, txt, "\n# database fixture\ncustomer(id INTEGER PK")

	txt = resourceText(t, c, "tablewise://fixture/table/Order%20Details")
	assert.True(t, strings.HasPrefix(txt, `"Order Details"(order_id → "order".id`), txt)
	txt, err := readResource(t, c, "tablewise://table/Order%20Details")
	require.NoError(t, err, "a table only one database has")
	assert.True(t, strings.HasPrefix(txt, `"Order Details"(`), txt)

	txt = resourceText(t, c, "tablewise://fixture/schema")
	assert.True(t, strings.HasPrefix(txt, "customer("), txt)

	_, err = readResource(t, c, "tablewise://nope/schema")
	assert.ErrorContains(t, err, `no database labelled "nope"`)
}
