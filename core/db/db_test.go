package db_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

func TestOpenMissingFileIsClearAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.db")
	for _, p := range []string{missing, "file:" + missing + "?mode=rwc"} {
		_, err := db.Open(context.Background(), p, db.Options{})
		if !errors.Is(err, db.ErrNotFound) || !strings.Contains(err.Error(), "never creates") {
			t.Fatalf("Open(%q) = %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Open created %v", entries)
	}
}

func TestOpenRejectsNonDatabases(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o644)
	if _, err := db.Open(context.Background(), junk, db.Options{}); err == nil || !strings.Contains(err.Error(), "not a database") {
		t.Fatalf("junk file: %v", err)
	}
	if _, err := db.Open(context.Background(), dir, db.Options{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("directory: %v", err)
	}
}

func TestOpenPathsWithSpecialCharacters(t *testing.T) {
	src := testdb.Fixture(t)
	dir := filepath.Join(t.TempDir(), "a dir#%")
	os.MkdirAll(dir, 0o755)
	dst := filepath.Join(dir, "my data?.db")
	b, _ := os.ReadFile(src)
	os.WriteFile(dst, b, 0o644)
	escaped := "file:" + strings.NewReplacer(" ", "%20", "#", "%23", "%", "%25", "?", "%3F").Replace(dst)
	for _, p := range []string{dst, escaped + "?mode=rw", escaped + "?mode=rwc&immutable=1"} {
		d, err := db.Open(context.Background(), p, db.Options{})
		if err != nil {
			t.Fatalf("Open(%q): %v", p, err)
		}
		if d.Path() != dst {
			t.Errorf("Path() = %q, want %q", d.Path(), dst)
		}
		h, err := d.Health(context.Background())
		if err != nil || !h.ReadOnly || !h.Defensive || h.TrustedSchema || h.AttachLimit != 0 {
			t.Fatalf("%q: health %+v %v (mode=rw in the URI must not make it writable)", p, h, err)
		}
		d.Close()
	}
}

func TestCatalog(t *testing.T) {
	d, err := db.Open(context.Background(), testdb.Fixture(t), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cat, err := d.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Join(cat.TableNames(), ",")
	if names != "customer,Match,order,Order Details,t,big_orders" {
		t.Fatalf("tables %s", names)
	}
	od := cat.Table("order details")
	if od == nil || od.Kind != "table" || od.RowCount != 3 || od.RowCountEstimated {
		t.Fatalf("Order Details: %+v", od)
	}
	if strings.Join(od.PrimaryKey, ",") != "order_id,product" {
		t.Errorf("pk %v", od.PrimaryKey)
	}
	if len(od.ForeignKeys) != 1 || od.ForeignKeys[0].RefTable != "order" || od.ForeignKeys[0].Columns[0] != "order_id" {
		t.Errorf("fks %+v", od.ForeignKeys)
	}
	if len(od.Sample) != 3 || len(od.Sample[0]) != 4 {
		t.Errorf("sample %v", od.Sample)
	}
	ord := cat.Table("order")
	if len(ord.Indexes) != 1 || ord.Indexes[0].Name != "order_customer" || ord.Indexes[0].Columns[0] != "customer_id" {
		t.Errorf("indexes %+v", ord.Indexes)
	}
	refs := cat.ReferencedBy("order")
	if len(refs) != 1 || refs[0].Table != "Order Details" {
		t.Errorf("referenced by %+v", refs)
	}
	cust := cat.Table("customer")
	if cust.Columns[2].Name != "country" || cust.Columns[2].Comment != "where they live" || !cust.Columns[1].NotNull {
		t.Errorf("customer columns %+v", cust.Columns)
	}
	v := cat.Table("big_orders")
	if v.Kind != "view" || v.RowCount != 2 || len(v.Columns) != 4 {
		t.Errorf("view %+v", v)
	}
	if got := cat.ColumnNames("Match"); strings.Join(got, ",") != "id,home,away,data" {
		t.Errorf("Match columns %v", got)
	}
}

func TestPoolBoundsAndConcurrency(t *testing.T) {
	d, err := db.Open(context.Background(), testdb.Fixture(t), db.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM customer", query.Options{})
			if err != nil || res.Rows[0][0] != int64(4) {
				t.Errorf("got %v %v", res, err)
			}
		}()
	}
	wg.Wait()
	d.Close()
	if _, err := query.Collect(context.Background(), d, "SELECT 1", query.Options{}); err == nil {
		t.Fatal("query after Close succeeded")
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "Order Details": `"Order Details"`, "order": `"order"`, `we"ird`: `"we""ird"`, "Match": `"Match"`, "x1": "x1", "1x": `"1x"`} {
		if got := db.QuoteIdentIfNeeded(in); got != want {
			t.Errorf("QuoteIdentIfNeeded(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCheckOutput(t *testing.T) {
	path := testdb.Fixture(t)
	d, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-journal", path + "-wal", link} {
		if err := d.CheckOutput(p); !errors.Is(err, db.ErrOutputIsDatabase) || !strings.Contains(err.Error(), "refusing to write to") {
			t.Errorf("CheckOutput(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"", "-", filepath.Join(t.TempDir(), "out.csv")} {
		if err := d.CheckOutput(p); err != nil {
			t.Errorf("CheckOutput(%q) = %v", p, err)
		}
	}
}
