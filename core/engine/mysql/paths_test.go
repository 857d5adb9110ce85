package mysql_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestCatalogSampleBytes: a view's sample rows are held to
// catalog.SampleMaxBytes, as PostgreSQL's are: three rows of two 1 MB
// strings are not kept whole.
func TestCatalogSampleBytes(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	f.exec(t, "CREATE VIEW big AS SELECT REPEAT('x', 1000000) AS a, REPEAT('y', 1000000) AS b FROM Genre LIMIT 3")
	cat, err := eng.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v := cat.Table("big")
	if v == nil {
		t.Fatal("no view big")
	}
	if held := testdb.SampleBytes(v); held > catalog.SampleMaxBytes {
		t.Errorf("the sample of big holds %d bytes in %d rows, past %d", held, len(v.Sample), catalog.SampleMaxBytes)
	}
	if g := cat.Table("Genre"); g == nil || len(g.Sample) == 0 {
		t.Errorf("Genre in the catalog: %+v", g)
	}
}
