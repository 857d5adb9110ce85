package sqlite_test

import (
	"testing"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestCatalogSampleBytes: a view's sample rows are held to
// catalog.SampleMaxBytes, as a server engine's are: three rows of 40 MB
// each (values as large as the length limit lets a view make in a few
// instructions, well within the sample's budgets) are not kept whole.
func TestCatalogSampleBytes(t *testing.T) {
	cat := sqlite.CatalogOf(t, testdb.Build(t, "big.db", `CREATE TABLE t(a); INSERT INTO t VALUES (1);
CREATE VIEW big AS SELECT zeroblob(20000000) AS a, zeroblob(20000000) AS b FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3);`))
	v := cat.Table("big")
	if v == nil {
		t.Fatal("no view big")
	}
	if held := testdb.SampleBytes(v); held > catalog.SampleMaxBytes {
		t.Errorf("the sample of big holds %d bytes in %d rows, past %d", held, len(v.Sample), catalog.SampleMaxBytes)
	}
	if tt := cat.Table("t"); tt == nil || len(tt.Sample) != 1 {
		t.Errorf("t: %+v", tt)
	}
}
