package db_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

const petsSchema = `CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT, species TEXT);
INSERT INTO pets (name, species) VALUES ('Rex', 'dog'), ('Tom', 'cat');`

func mustCatalog(t *testing.T, d *db.DB) *catalog.Catalog {
	t.Helper()
	cat, err := d.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func hasColumn(cat *catalog.Catalog, table, column string) bool {
	tb := cat.Table(table)
	if tb == nil {
		return false
	}
	for _, c := range tb.Columns {
		if strings.EqualFold(c.Name, column) {
			return true
		}
	}
	return false
}

// openAt opens dsn with schema checks every `every`.
func openAt(t *testing.T, dsn string, every time.Duration) *db.DB {
	t.Helper()
	d := testdb.OpenWith(t, dsn, db.Options{SchemaCheck: every})
	return d
}

// A long-lived process sees a table created, then a column added, by
// another connection once the check interval has passed, and reads the
// catalog again only then.
func TestCatalogFollowsSchemaSQLite(t *testing.T) {
	path := testdb.Build(t, "pets.db", petsSchema)
	d := openAt(t, path, 0) // a file's default: once a second
	first := mustCatalog(t, d)
	if d.SchemaVersion() == "" {
		t.Fatal("no schema version read with the catalog")
	}
	if first.Table("owners") != nil {
		t.Fatal("owners before it was created")
	}
	reads := d.Rereads()
	testdb.BuildAt(t, path, `INSERT INTO pets (name, species) VALUES ('Polly', 'parrot')`)
	time.Sleep(1100 * time.Millisecond)
	if cat := mustCatalog(t, d); cat != first || d.Rereads() != reads {
		t.Fatalf("rows written, schema unchanged: catalog read again (%d reads, was %d)", d.Rereads(), reads)
	}
	testdb.BuildAt(t, path, `CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT)`)
	if cat := mustCatalog(t, d); cat.Table("owners") != nil {
		t.Fatal("checked again within a second") // the interval holds
	}
	time.Sleep(1100 * time.Millisecond)
	if cat := mustCatalog(t, d); cat.Table("owners") == nil {
		t.Fatal("owners not listed after the check interval")
	}
	testdb.BuildAt(t, path, `ALTER TABLE pets ADD COLUMN born TEXT`)
	time.Sleep(1100 * time.Millisecond)
	if cat := mustCatalog(t, d); !hasColumn(cat, "pets", "born") {
		t.Fatal("pets.born not listed after the check interval")
	}
	n, err := d.Names(context.Background())
	if err != nil || n.(*catalog.Catalog).Table("owners") == nil {
		t.Fatalf("Names does not follow the catalog: %v", err)
	}
	reads = d.Rereads()
	time.Sleep(1100 * time.Millisecond)
	for range 5 {
		mustCatalog(t, d)
	}
	if d.Rereads() != reads {
		t.Fatalf("unchanged schema read again: %d reads, want %d", d.Rereads(), reads)
	}
}

// Names alone (no catalog read) follow the schema too.
func TestNamesFollowSchemaSQLite(t *testing.T) {
	path := testdb.Build(t, "pets.db", petsSchema)
	d := openAt(t, path, time.Millisecond)
	n, err := d.Names(context.Background())
	if err != nil || n.(*catalog.Catalog).Table("pets") == nil {
		t.Fatalf("names %v, %v", n, err)
	}
	testdb.BuildAt(t, path, `CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT)`)
	time.Sleep(5 * time.Millisecond)
	n, err = d.Names(context.Background())
	if err != nil || n.(*catalog.Catalog).Table("owners") == nil {
		t.Fatalf("owners not in the names after the check interval: %v", err)
	}
}

// Callers asking while the catalog is read again get a catalog, the old
// or the new, never an error; the re-read happens once.
func TestCatalogConcurrentReread(t *testing.T) {
	path := testdb.Build(t, "pets.db", petsSchema)
	d := openAt(t, path, time.Millisecond)
	mustCatalog(t, d)
	reads := d.Rereads()
	testdb.BuildAt(t, path, `CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT)`)
	time.Sleep(5 * time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				cat, err := d.Catalog(context.Background())
				if err == nil && cat.Table("pets") == nil {
					err = context.Canceled
				}
				if err != nil {
					errs <- err
					return
				}
				if _, err := d.Names(context.Background()); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if mustCatalog(t, d).Table("owners") == nil {
		t.Fatal("owners not listed")
	}
	if got := d.Rereads() - reads; got != 1 {
		t.Fatalf("%d reads for one change, want 1", got)
	}
}

func TestCatalogFollowsSchemaServers(t *testing.T) {
	lite := testdb.Build(t, "pets.db", petsSchema)
	servers.EachKind(t, lite, func(t *testing.T, e servers.Kind, url string) {
		const every = 200 * time.Millisecond
		d := openAt(t, url, every)
		first := mustCatalog(t, d)
		if d.SchemaVersion() == "" {
			t.Fatal("no schema version read with the catalog")
		}
		reads := d.Rereads()
		e.Exec(t, url, "INSERT INTO pets (id, name, species) VALUES (10, 'Polly', 'parrot')")
		time.Sleep(every + 50*time.Millisecond)
		if cat := mustCatalog(t, d); cat != first || d.Rereads() != reads {
			t.Fatalf("rows written, schema unchanged: catalog read again (%d reads, was %d)", d.Rereads(), reads)
		}
		e.Exec(t, url, "CREATE TABLE owners (id INTEGER PRIMARY KEY, name VARCHAR(20))")
		time.Sleep(every + 50*time.Millisecond)
		if cat := mustCatalog(t, d); cat.Table("owners") == nil {
			t.Fatal("owners not listed after the check interval")
		}
		e.Exec(t, url, "ALTER TABLE pets ADD COLUMN born VARCHAR(10)")
		time.Sleep(every + 50*time.Millisecond)
		if cat := mustCatalog(t, d); !hasColumn(cat, "pets", "born") {
			t.Fatal("pets.born not listed after the check interval")
		}
		reads = d.Rereads()
		time.Sleep(every + 50*time.Millisecond)
		mustCatalog(t, d)
		if d.Rereads() != reads {
			t.Fatalf("unchanged schema read again: %d reads, want %d", d.Rereads(), reads)
		}
	})
}

// BenchmarkCatalogCached is what Catalog costs a caller when the catalog
// is cached and no schema check is due (one atomic load).
func BenchmarkCatalogCached(b *testing.B) { benchCatalog(b, time.Hour) }

// BenchmarkSchemaCheckFile is a due schema check of a SQLite file whose
// FileStamp has not moved.
func BenchmarkSchemaCheckFile(b *testing.B) { benchCatalog(b, time.Nanosecond) }

// benchCatalog times Catalog on a cached catalog checked every `every`.
func benchCatalog(b *testing.B, every time.Duration) {
	path := testdb.Build(b, "pets.db", petsSchema)
	d, err := db.Open(context.Background(), path, db.Options{SchemaCheck: every})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	if _, err := d.Catalog(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := d.Catalog(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
