package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/testdb"
)

// virtualSchema holds an FTS5 table, an R*Tree and a virtual table whose
// module this build lacks, beside an ordinary table. The R*Tree module
// prepares writes to its shadow tables when it connects, which the
// authorizer refuses: it cannot be read here, like the missing module.
const virtualSchema = `
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
CREATE VIRTUAL TABLE docs USING fts5(title, body);
INSERT INTO docs VALUES ('a', 'hello there'), ('b', 'general kenobi');
CREATE VIRTUAL TABLE boxes USING rtree(id, minx, maxx);
PRAGMA writable_schema = ON;
INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql)
  VALUES ('table', 'elsewhere', 'elsewhere', 0, 'CREATE VIRTUAL TABLE elsewhere USING nosuchmodule(a, b)');
PRAGMA writable_schema = OFF;
`

// Virtual tables are in the catalog, marked as such: their columns and row
// count when their module can be read, their name alone when it cannot.
func TestCatalogVirtualTables(t *testing.T) {
	path := testdb.Build(t, "virtual.db", virtualSchema)
	cat := sqlite.CatalogOf(t, path)
	for _, want := range []struct {
		name string
		cols string
		rows int64
	}{
		{"docs", "title,body", 2},
		{"boxes", "", -1},
		{"elsewhere", "", -1},
	} {
		tb := cat.Table(want.name)
		if tb == nil {
			t.Errorf("%s is not in the catalog; it has %v", want.name, cat.TableNames())
			continue
		}
		if tb.Kind != "virtual table" {
			t.Errorf("%s: kind %q, want %q", want.name, tb.Kind, "virtual table")
		}
		if got := strings.Join(tb.ColumnNames(), ","); got != want.cols || tb.RowCount != want.rows {
			t.Errorf("%s: columns %q, %d rows; want %q, %d", want.name, got, tb.RowCount, want.cols, want.rows)
		}
	}
	if tb := cat.Table("notes"); tb == nil || tb.Kind != "table" {
		t.Errorf("notes: %+v, want a table", tb)
	}
	names, err := openAt(t, path).Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tb := names.Table("docs"); tb == nil || tb.Kind != "virtual table" {
		t.Errorf("names: docs is %+v, want a virtual table", tb)
	}
}
