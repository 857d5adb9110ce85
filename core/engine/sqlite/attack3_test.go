package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestFTS5TableIsRead: an FTS5 table is read with a statement of the
// module's own, PRAGMA data_version, which it prepares while the user's
// statement runs. The authorizer refused it, so any read of the table, a
// plain count included, was refused as "PRAGMA data_version is not
// allowed" (exit 3). The module's pragma runs; the same pragma written by
// the user is still refused, and the file is unchanged.
func TestFTS5TableIsRead(t *testing.T) {
	path := testdb.Build(t, "docs.db", `
CREATE VIRTUAL TABLE docs USING fts5(title, body);
INSERT INTO docs VALUES ('first', 'hello world'), ('second', 'goodbye world'), ('third', 'hello again');`)
	dir := filepath.Dir(path)
	before, names := testdb.FileHash(t, path), dirNames(t, dir)
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for sql, want := range map[string][]query.Row{
		"SELECT count(*) FROM docs":                                                {{int64(3)}},
		"SELECT title FROM docs WHERE docs MATCH 'hello' ORDER BY title":           {{"first"}, {"third"}},
		"SELECT highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'goodbye'": {{"[goodbye] world"}},
	} {
		res, err := query.Collect(context.Background(), d, sql, query.Options{})
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if !slices.EqualFunc(res.Rows, want, slices.Equal) {
			t.Errorf("%s: %v, want %v", sql, res.Rows, want)
		}
	}
	for _, sql := range []string{"PRAGMA data_version", "PRAGMA main.data_version", "SELECT * FROM pragma_data_version"} {
		var rej *guard.Rejection
		if _, err := query.Collect(context.Background(), d, sql, query.Options{}); !errors.As(err, &rej) {
			t.Errorf("%s: %v, want it refused", sql, err)
		}
	}
	if testdb.FileHash(t, path) != before || !slices.Equal(dirNames(t, dir), names) {
		t.Errorf("the directory or the database changed: %v, was %v", dirNames(t, dir), names)
	}
}

// TestRawPagesAreNotRead: sqlite_dbpage hands out the database file's raw
// pages, free ones included, where rows that were deleted (and not yet
// vacuumed) still sit. Before, `SELECT data FROM sqlite_dbpage` read them,
// so a deleted row came back through any front door although no table
// holds it. Every form of the read is refused by name; the file is
// unchanged.
func TestRawPagesAreNotRead(t *testing.T) {
	path := testdb.Build(t, "deleted.db", `
PRAGMA secure_delete = OFF;
CREATE TABLE users(name TEXT, secret TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 300)
INSERT INTO users SELECT 'user' || i, 'gone-' || i FROM n;
DELETE FROM users WHERE name <> 'user1';`)
	dir := filepath.Dir(path)
	before, names := testdb.FileHash(t, path), dirNames(t, dir)
	d := openAt(t, path)
	for _, sql := range []string{
		"SELECT count(*) FROM sqlite_dbpage WHERE instr(data, CAST('gone-299' AS BLOB)) > 0",
		"SELECT pgno FROM main.sqlite_dbpage",
		"SELECT data FROM sqlite_dbpage('main') WHERE pgno = 2",
		"WITH p AS (SELECT * FROM sqlite_dbpage) SELECT count(*) FROM p",
		"SELECT (SELECT data FROM sqlite_dbpage LIMIT 1) AS d",
	} {
		res, err := query.Collect(context.Background(), d, sql, query.Options{})
		var rej *guard.Rejection
		if !errors.As(err, &rej) || rej.What != "sqlite_dbpage" {
			t.Errorf("%s: %v %v, want it refused as sqlite_dbpage", sql, res, err)
		}
	}
	if testdb.FileHash(t, path) != before || !slices.Equal(dirNames(t, dir), names) {
		t.Errorf("the directory or the database changed: %v, was %v", dirNames(t, dir), names)
	}
}
