package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

func TestSampleValuesSample(t *testing.T) {
	d := openSample(t)
	ctx := context.Background()

	s, err := SampleValues(ctx, d, "orders", "status", "", 0)
	require.NoError(t, err)
	require.Len(t, s.Values, 6)
	assert.Equal(t, ValueCount{Value: "delivered", Count: 11154}, s.Values[0])
	assert.Equal(t, ValueCount{Value: "pending", Count: 6}, s.Values[5])
	assert.Equal(t, int64(6), s.Distinct)
	assert.Equal(t, int64(0), s.Nulls)
	assert.Equal(t, int64(11887), s.Rows)
	assert.False(t, s.Truncated)
	assert.Equal(t, `SELECT "status" AS value, count(*) AS count FROM "orders" GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 21`, s.SQL)
	assert.Contains(t, s.Text(), "delivered  (11,154)\n")

	s, err = SampleValues(ctx, d, "orders", "status", "SHIP", 0)
	require.NoError(t, err)
	assert.Equal(t, []ValueCount{{Value: "shipped", Count: 50}}, s.Values, "substring, case-insensitive")

	s, err = SampleValues(ctx, d, "orders", "status", "%ed", 0)
	require.NoError(t, err)
	var got []any
	for _, v := range s.Values {
		got = append(got, v.Value)
	}
	assert.Equal(t, []any{"delivered", "cancelled", "returned", "shipped"}, got, "a LIKE pattern")

	s, err = SampleValues(ctx, d, "orders", "status", "", 2)
	require.NoError(t, err)
	assert.Len(t, s.Values, 2)
	assert.True(t, s.Truncated)
	assert.Contains(t, s.Text(), "more values exist")

	s, err = SampleValues(ctx, d, "orders", "shipped_date", "", 1)
	require.NoError(t, err)
	assert.Equal(t, int64(6+13+359), s.Nulls, "pending, processing and cancelled orders have no shipped_date")

	s, err = SampleValues(ctx, d, "reviews", "body", "previous instructions", 5)
	require.NoError(t, err)
	require.Len(t, s.Values, 1)
	assert.Contains(t, s.Values[0].Value, data.InjectionMarker)
	require.Len(t, s.Flags, 1)
	assert.Equal(t, "body", s.Flags[0].Column)

	s, err = SampleValues(ctx, d, "promo codes", "type", "", 0)
	require.NoError(t, err)
	assert.Equal(t, `SELECT "type" AS value, count(*) AS count FROM "promo codes" GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 21`, s.SQL)
	assert.Len(t, s.Values, 2)

	_, err = SampleValues(ctx, d, "orders", "stats", "", 0)
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, "column", nf.Kind)
	assert.Equal(t, []string{"status"}, nf.Nearest)

	_, err = SampleValues(ctx, d, "ordrs", "status", "", 0)
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, "table", nf.Kind)
	assert.Contains(t, nf.Nearest, "orders")
}

func TestSampleValuesFixture(t *testing.T) {
	d := openFixture(t)
	ctx := context.Background()
	s, err := SampleValues(ctx, d, "match", "data", "", 0)
	require.NoError(t, err)
	b, err := json.Marshal(s.Values)
	require.NoError(t, err)
	assert.Equal(t, `[{"value":null,"count":1},{"value":"AP8Q","count":1}]`, string(b))
	assert.Contains(t, s.Text(), "x'00ff10'  (1)")

	// Wildcards in a plain substring are literal.
	s, err = SampleValues(ctx, d, "Order Details", "product", `mug, "big"`, 0)
	require.NoError(t, err)
	require.Len(t, s.Values, 1)
	assert.Equal(t, `mug, "big"`, s.Values[0].Value)

	s, err = SampleValues(ctx, d, "t", "b", "100%", 0)
	require.NoError(t, err)
	assert.Empty(t, s.Values)
	assert.Contains(t, s.Text(), "no values match")

	s, err = SampleValues(ctx, d, "customer", "country", "", 0)
	require.NoError(t, err)
	assert.Equal(t, int64(1), s.Nulls)
	assert.Equal(t, int64(3), s.Distinct)
}

// TestSampleValuesBytes: the values sampled are held to the same byte cap
// as run_sql's rows, however large the column's values are.
func TestSampleValuesBytes(t *testing.T) {
	path := testdb.Build(t, "big.db", `CREATE TABLE big (v TEXT);
		INSERT INTO big VALUES (hex(zeroblob(3000000)) || 'a'), (hex(zeroblob(3000000)) || 'b'), ('small');`)
	d := testdb.Open(t, path)
	s, err := SampleValues(context.Background(), d, "big", "v", "", 0)
	require.NoError(t, err)
	size := 0
	for _, v := range s.Values {
		size += len(v.Value.(string))
	}
	assert.LessOrEqual(t, size, runMaxBytes, "bytes of the values sampled")
	assert.True(t, s.Truncated)
}
