package discord

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestCSVOneHugeRowStaysSmall: the CSV of a result is bounded by the
// upload limit while it is made, not only once it is made. Before, a row
// that alone passed the limit was written whole into memory (two 20 MB
// values for a 1 MB limit), three times over as the export retried.
func TestCSVOneHugeRowStaysSmall(t *testing.T) {
	d := testdb.Open(t, testdb.Fixture(t))
	const limit = 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, rows, capped, err := (&Bot{}).csv(context.Background(), d, "SELECT printf('%.*c', 20000000, 'x') AS a, printf('%.*c', 20000000, 'y') AS b", limit)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.True(t, capped)
	require.Equal(t, 0, rows)
	require.LessOrEqual(t, len(data), limit)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*limit), "bytes allocated making a CSV of at most %d bytes", limit)
}
