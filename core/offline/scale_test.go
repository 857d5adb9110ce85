package offline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data/scaledb"
)

// withSampleRows lowers sampleRows for one test, so a small generated
// table counts as a big one.
func withSampleRows(t *testing.T, n int64) {
	old := sampleRows
	sampleRows = n
	t.Cleanup(func() { sampleRows = old })
}

func writeOrders(t *testing.T, path string, orders int) *db.DB {
	t.Helper()
	if err := (scaledb.Orders{Orders: orders, Customers: 200}).Write(path); err != nil {
		t.Fatal(err)
	}
	d := testdb.Open(t, path)
	return d
}

// keptOrders writes orders.db of 5,000 orders, sampled from 1,000 rows,
// in a directory of its own, and gives a directory to keep indexes in.
func keptOrders(t *testing.T) (dbDir, keep, path string, d *db.DB) {
	withSampleRows(t, 1000)
	dbDir, keep = t.TempDir(), t.TempDir()
	path = filepath.Join(dbDir, "orders.db")
	return dbDir, keep, path, writeOrders(t, path, 5000)
}

const germanyQuestion = "total amount of shipped orders from Germany in 2023"

const germanySQL = `SELECT SUM(o.amount) FROM orders o JOIN customers c USING (customer_id)
WHERE c.country = 'Germany' AND o.status = 'shipped' AND o.order_date >= '2023-01-01' AND o.order_date < '2024-01-01'`

// TestBigTablesAreSampled: the status of orders, a table past
// sampleRows, is indexed from a sample, so "shipped" maps to it and the
// Germany question gets the answer the SQL written by hand gives.
func TestBigTablesAreSampled(t *testing.T) {
	withSampleRows(t, 1000)
	ctx := context.Background()
	d := writeOrders(t, filepath.Join(t.TempDir(), "orders.db"), 5000)
	p := New(d)
	b, err := p.Answer(ctx, germanyQuestion)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.SQL, "orders.status = 'shipped'") || !strings.Contains(b.SQL, "'Germany'") {
		t.Fatalf("sql %q (answer %q)", b.SQL, b.Answer)
	}
	want, err := query.Collect(ctx, d, germanySQL, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Rows) != 1 || b.Rows[0][0] != want.Rows[0][0] {
		t.Fatalf("rows %v, want %v", b.Rows, want.Rows)
	}
	ix, _ := p.index(ctx)
	var status *colInfo
	for _, refs := range ix.values.byKey[textKey("shipped")] {
		if refs.col.name == "status" {
			status = refs.col
			if refs.count < 5000/20 {
				t.Errorf("shipped counted %d times: a sample's count is scaled to the table", refs.count)
			}
		}
	}
	if status == nil || status.distinct != 6 {
		t.Fatalf("orders.status not indexed from its sample: %+v", ix.values.byKey[textKey("shipped")])
	}
}

// TestValueIndexIsKept: a planner keeps its scans in the directory it is
// given (and writes nothing beside the database); the next planner on the
// same database reads them instead of scanning and answers the same; a
// database whose row counts changed is scanned again.
func TestValueIndexIsKept(t *testing.T) {
	ctx := context.Background()
	dbDir, keep, path, d := keptOrders(t)

	first := NewKept(d, keep)
	b1, err := first.Answer(ctx, germanyQuestion)
	if err != nil {
		t.Fatal(err)
	}
	if ix, _ := first.index(ctx); ix.keptScans != 0 {
		t.Fatalf("a first build read %d kept scans", ix.keptScans)
	}
	files, _ := os.ReadDir(keep)
	if len(files) != 1 || !strings.HasSuffix(files[0].Name(), ".gob") {
		t.Fatalf("kept files %v", files)
	}
	beside, _ := os.ReadDir(dbDir)
	if len(beside) != 1 {
		t.Fatalf("files beside the database: %v", beside)
	}

	second := NewKept(d, keep)
	b2, err := second.Answer(ctx, germanyQuestion)
	if err != nil {
		t.Fatal(err)
	}
	ix2, _ := second.index(ctx)
	if ix2.keptScans < 5 {
		t.Fatalf("the second planner read %d kept scans", ix2.keptScans)
	}
	if ix1, _ := first.index(ctx); ix1.keptCatalog || !ix2.keptCatalog {
		t.Fatalf("catalog kept: first planner %v, second %v; want false, true", ix1.keptCatalog, ix2.keptCatalog)
	}
	if b1.SQL != b2.SQL || b1.Answer != b2.Answer {
		t.Fatalf("answers differ:\n%s\n%s", b1.SQL, b2.SQL)
	}
	ix1, _ := first.index(ctx)
	if len(ix1.values.byKey) != len(ix2.values.byKey) || ix1.values.values != ix2.values.values {
		t.Fatalf("indexes differ: %d/%d keys, %d/%d values", len(ix1.values.byKey), len(ix2.values.byKey), ix1.values.values, ix2.values.values)
	}

	// A row written to the database: its files changed, so the catalog
	// is read again, and the row count with it.
	d2 := rewrite(t, d, path, "INSERT INTO customers SELECT max(customer_id) + 1, 'Late', 'late@example.com', NULL, 'Germany', '2024-01-01' FROM customers")
	rewritten := NewKept(d2, keep)
	if err := rewritten.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	ixw, _ := rewritten.index(ctx)
	if ixw.keptCatalog || ixw.keptScans != 0 {
		t.Fatalf("after a write: catalog kept %v, %d kept scans; want false, 0", ixw.keptCatalog, ixw.keptScans)
	}
	if got := ixw.s.byName["customers"].rows; got != 201 {
		t.Fatalf("customers after a write: %d rows, want 201", got)
	}
	d2.Close()

	// Other row counts at the same path: scanned again.
	d3 := writeOrders(t, path, 5100)
	third := NewKept(d3, keep)
	if err := third.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	if ix3, _ := third.index(ctx); ix3.keptScans != 0 {
		t.Fatalf("a changed database read %d kept scans", ix3.keptScans)
	}

	// Another schema at the same path: its own file, the old one gone.
	d3.Close()
	if err := (scaledb.Wide{Tables: 3, Columns: 5, Rows: 3}).Write(path); err != nil {
		t.Fatal(err)
	}
	d4, err := db.Open(ctx, path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d4.Close()
	if err := NewKept(d4, keep).Warm(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadDir(keep)
	if len(after) != 1 || after[0].Name() == files[0].Name() {
		t.Fatalf("kept files after a schema change: %v (before: %v)", after, files)
	}
}
