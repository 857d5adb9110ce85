package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data/scaledb"
)

// TestListTablesPagesReachEveryTable: on 2,000 tables the default page
// (text and structured copy together, as MCP sends it) stays under 20 KB,
// says the total and where the next page starts, and following next_offset
// reaches every table once.
func TestListTablesPagesReachEveryTable(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 2,000-table database")
	}
	d := testdb.Wide(t, 2000, 20)
	ctx := context.Background()
	seen := map[string]bool{}
	pages := 0
	for off := 0; ; pages++ {
		l, err := ListTables(ctx, d, ListOptions{Offset: off})
		require.NoError(t, err)
		raw, err := json.Marshal(l)
		require.NoError(t, err)
		size := len(raw) + len(l.Text())
		require.LessOrEqual(t, size, 20_000, "page at offset %d is %d bytes", off, size)
		require.Equal(t, 2000, l.Total)
		require.Equal(t, off, l.Offset)
		require.NotEmpty(t, l.Tables)
		for _, s := range l.Tables {
			require.False(t, seen[s.Name], "%s listed twice", s.Name)
			seen[s.Name] = true
		}
		if pages == 0 {
			assert.Contains(t, l.Text(), "tables and views: 2,000 (these are 1–")
			assert.Contains(t, l.Text(), "next page: offset=")
		}
		if l.NextOffset == 0 {
			break
		}
		off = l.NextOffset
	}
	assert.Len(t, seen, 2000)
	t.Logf("%d pages by default", pages+1)

	l, err := ListTables(ctx, d, ListOptions{Pattern: "billing_*", Limit: 500})
	require.NoError(t, err)
	assert.Equal(t, 100, l.Total)
	assert.Len(t, l.Tables, 100)
	assert.Zero(t, l.NextOffset)
	for _, s := range l.Tables {
		assert.True(t, strings.HasPrefix(s.Name, "billing_"), s.Name)
	}
	l, err = ListTables(ctx, d, ListOptions{Pattern: "INVOICE_LINES", Limit: 3, Offset: 39})
	require.NoError(t, err)
	assert.Equal(t, 40, l.Total)
	assert.Len(t, l.Tables, 1)
	l, err = ListTables(ctx, d, ListOptions{Pattern: "no such thing"})
	require.NoError(t, err)
	assert.Zero(t, l.Total)
	assert.Equal(t, "tables and views matching \"no such thing\": 0\n", l.Text())

	sum, err := SummarizeTables(ctx, d, 1500)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(sum), 1500)
	assert.Contains(t, sum, "tables and views: 2,000, too many to list here")
	assert.Contains(t, sum, "billing_* 100")
}

func TestDescribeTableBound(t *testing.T) {
	d := testdb.Wide(t, 3, 250)
	ctx := context.Background()
	desc, err := DescribeTable(ctx, d, scaledb.WideName(2))
	require.NoError(t, err)
	require.Len(t, desc.Columns, 250)
	desc.Bound("", 0)
	assert.Len(t, desc.Columns, DefaultDescribeColumns)
	assert.Equal(t, 250, desc.ColumnsTotal)
	assert.Len(t, desc.SampleColumns, DefaultDescribeColumns)
	require.Len(t, desc.SampleRows, 3)
	assert.Len(t, desc.SampleRows[0], DefaultDescribeColumns)
	assert.Contains(t, desc.Text(), "columns: 100 of 250, the first; describe_table with columns=PATTERN")

	desc, err = DescribeTable(ctx, d, scaledb.WideName(2))
	require.NoError(t, err)
	desc.Bound("*_date*", 0)
	require.NotEmpty(t, desc.Columns)
	assert.Equal(t, "id", desc.Columns[0].Name, "the key stays")
	for _, c := range desc.Columns[1:] {
		assert.Contains(t, c.Name, "_date", c.Name)
	}
	assert.Equal(t, desc.SampleColumns[0], "id")
	assert.Contains(t, desc.Text(), `those matching "*_date*" (and the key)`)

	// A narrow table is left as it is.
	desc, err = DescribeTable(ctx, d, scaledb.WideName(0))
	require.NoError(t, err)
	before := desc.Text()
	d2 := testdb.Wide(t, 1, 20)
	narrow, err := DescribeTable(ctx, d2, scaledb.WideName(0))
	require.NoError(t, err)
	text := narrow.Text()
	narrow.Bound("", 0)
	assert.Equal(t, text, narrow.Text())
	assert.Zero(t, narrow.ColumnsTotal)
	assert.NotEmpty(t, before)
}
