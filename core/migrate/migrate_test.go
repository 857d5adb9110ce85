package migrate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
)

// sample copies the built-in sample into a directory of its own and opens
// it; check reports whether its bytes and directory are unchanged.
func sample(t *testing.T) (*db.DB, func()) {
	t.Helper()
	path, b := testdb.SampleCopy(t)
	dir := filepath.Dir(path)
	d := testdb.Open(t, path)
	return d, func() {
		t.Helper()
		after, _ := os.ReadFile(path)
		if string(after) != string(b) {
			t.Error("the database file changed")
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("files beside the database: %v", entries)
		}
	}
}

// mustCheck is Check of up and down on d, failing the test on an error.
func mustCheck(t *testing.T, d *db.DB, up, down string, opt Options) *Report {
	t.Helper()
	rep, err := Check(context.Background(), d, up, down, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSafeAndReversible(t *testing.T) {
	d, unchanged := sample(t)
	up := `-- tag orders
CREATE TABLE order_tags (order_id INTEGER NOT NULL REFERENCES orders(order_id), tag TEXT NOT NULL);
CREATE INDEX order_tags_order ON order_tags(order_id);
ALTER TABLE orders ADD COLUMN gift_note TEXT;`
	down := `DROP INDEX order_tags_order;
DROP TABLE order_tags;
ALTER TABLE orders DROP COLUMN gift_note;`
	rep := mustCheck(t, d, up, down, Options{})
	unchanged()
	if !rep.Valid || rep.Destructive || rep.Reversible == nil || !*rep.Reversible || len(rep.NotRestored) != 0 {
		t.Fatalf("report: %+v", rep)
	}
	if kinds := []string{rep.Up[0].Kind, rep.Up[1].Kind, rep.Up[2].Kind}; !slices.Equal(kinds, []string{"CREATE TABLE", "CREATE INDEX", "ALTER TABLE"}) {
		t.Errorf("kinds %v", kinds)
	}
	for _, want := range []string{"+ table order_tags", "+ index order_tags_order", "+ column orders.gift_note"} {
		if !slices.Contains(rep.Changes, want) {
			t.Errorf("changes %v lack %q", rep.Changes, want)
		}
	}
	// down drops what up made: destructive in itself, by design.
	if !rep.Down[1].Destructive || !rep.Down[2].Destructive {
		t.Errorf("down's drops not marked destructive: %+v", rep.Down)
	}
}

func TestDestructiveAndIrreversible(t *testing.T) {
	d, unchanged := sample(t)
	up := "ALTER TABLE customers DROP COLUMN marketing_opt_in;\nDELETE FROM reviews;\nDROP TABLE shippers;"
	down := "ALTER TABLE customers ADD COLUMN marketing_opt_in INTEGER;" // shippers is not recreated
	rep := mustCheck(t, d, up, down, Options{})
	unchanged()
	if !rep.Valid || !rep.Destructive {
		t.Fatalf("report: %+v", rep)
	}
	if n := rep.Up[0].Notes; len(n) != 1 || !strings.Contains(n[0], "drops column customers.marketing_opt_in") || !strings.Contains(n[0], "2,400 rows") {
		t.Errorf("drop column notes: %v", n)
	}
	if n := rep.Up[1].Notes; len(n) != 1 || !strings.Contains(n[0], "every row of reviews") {
		t.Errorf("delete notes: %v", n)
	}
	if n := rep.Up[2].Notes; len(n) != 1 || !strings.Contains(n[0], "drops table shippers") || !strings.Contains(n[0], "6 rows") {
		t.Errorf("drop table notes: %v", n)
	}
	if rep.Reversible == nil || *rep.Reversible {
		t.Fatalf("reversible = %v, want false", rep.Reversible)
	}
	if !slices.Contains(rep.NotRestored, "- table shippers") {
		t.Errorf("not restored: %v", rep.NotRestored)
	}
	// The re-added column is not the original (declared type and
	// position differ): the table's definition is reported.
	found := false
	for _, n := range rep.NotRestored {
		found = found || strings.HasPrefix(n, "~ table customers")
	}
	if !found {
		t.Errorf("customers not reported as changed: %v", rep.NotRestored)
	}
}

func TestInvalid(t *testing.T) {
	d, unchanged := sample(t)
	rep := mustCheck(t, d, "CREATE TABLE x(a);\nALTER TABLE nope ADD COLUMN b;\nCREATE TABLE y(a);", "", Options{})
	unchanged()
	if rep.Valid || len(rep.Up) != 2 || rep.Up[1].Error == "" || !strings.Contains(rep.Up[1].Error, "nope") {
		t.Errorf("report: %+v", rep)
	}
	rep = mustCheck(t, d, "CREATE TABLE x(a;", "", Options{})
	if rep.Valid || len(rep.Up) != 1 || rep.Up[0].Error == "" {
		t.Errorf("syntax error: %+v", rep)
	}
}

// TestScriptsReachNoFile: a migration runs only on the in-memory copy:
// ATTACH (which would create a file), VACUUM INTO and PRAGMA are refused.
func TestScriptsReachNoFile(t *testing.T) {
	d, unchanged := sample(t)
	dir := t.TempDir()
	for _, up := range []string{
		"ATTACH '" + filepath.Join(dir, "x.db") + "' AS x;\nCREATE TABLE x.t(a);",
		"VACUUM INTO '" + filepath.Join(dir, "y.db") + "';",
		"PRAGMA journal_mode = WAL;",
		"SELECT load_extension('" + filepath.Join(dir, "z") + "');",
	} {
		rep := mustCheck(t, d, up, "", Options{})
		if rep.Valid || rep.Up[0].Error == "" {
			t.Errorf("%s: ran: %+v", up, rep)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files created: %v", entries)
	}
	unchanged()
}

func TestColumns(t *testing.T) {
	got := columns(`CREATE TABLE "a b" (id INTEGER PRIMARY KEY, "full name" TEXT, price NUMERIC(10,2) CHECK (price > 0), -- note
	  kind TEXT, CONSTRAINT k UNIQUE (kind), FOREIGN KEY (id) REFERENCES x(id))`)
	if want := []string{"id", "full name", "price", "kind"}; !slices.Equal(got, want) {
		t.Errorf("columns = %q, want %q", got, want)
	}
}
