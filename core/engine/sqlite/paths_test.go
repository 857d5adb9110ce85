package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestCatalogSampleBytes: a view's sample rows are held to
// catalog.SampleMaxBytes, as a server engine's are: three rows of 40 MB
// each (values as large as the length limit lets a view make in a few
// instructions, well within the sample's budgets) are not kept whole.
func TestCatalogSampleBytes(t *testing.T) {
	d, err := sqlite.Open(context.Background(), testdb.Build(t, "big.db", `CREATE TABLE t(a); INSERT INTO t VALUES (1);
CREATE VIEW big AS SELECT zeroblob(20000000) AS a, zeroblob(20000000) AS b FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3);`), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := testdb.Within(t, 20*time.Second, func() catOutcome { return readCatalog(context.Background(), d) })
	if out.err != nil {
		t.Fatal(out.err)
	}
	v := out.cat.Table("big")
	if v == nil {
		t.Fatal("no view big")
	}
	var held int
	for _, r := range v.Sample {
		for _, x := range r {
			if b, ok := x.([]byte); ok {
				held += len(b)
			}
		}
	}
	if held > catalog.SampleMaxBytes {
		t.Errorf("the sample of big holds %d bytes in %d rows, past %d", held, len(v.Sample), catalog.SampleMaxBytes)
	}
	if tt := out.cat.Table("t"); tt == nil || len(tt.Sample) != 1 {
		t.Errorf("t: %+v", tt)
	}
}
