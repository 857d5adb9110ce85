package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/testdb"
)

func withConn(t testing.TB, fn func(c *lite.Conn)) {
	t.Helper()
	d, err := sqlite.Open(context.Background(), testdb.Fixture(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Conn(context.Background(), func(c *lite.Conn) error { fn(c); return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		sql  string
		what string // "" means allowed; "empty" means ErrEmpty; "sql" means *SQLError
	}{
		{"SELECT * FROM t", ""},
		{"  select a from t where b = 'x';  ", ""},
		{"WITH x AS (SELECT 1) SELECT * FROM x", ""},
		{"VALUES (1)", ""},
		{"PRAGMA table_info(t)", ""},
		{"SELECT * FROM pragma_index_list('order')", ""},
		{"EXPLAIN QUERY PLAN SELECT 1", ""},
		{"EXPLAIN SELECT 1", ""},
		{"DELETE FROM t", "DELETE"},
		{"drop view if exists nothing", "DROP VIEW"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
		{"PRAGMA query_only = 0", "PRAGMA query_only"},
		{"SELECT * FROM pragma_journal_mode", "PRAGMA journal_mode"},
		{"BEGIN", "BEGIN"},
		{"SAVEPOINT a", "SAVEPOINT"},
		{"ATTACH 'x' AS y", "ATTACH"},
		{"SELECT load_extension('x')", "function load_extension"},
		{"SELECT 1; SELECT 2", "several statements"},
		{"SELECT 1 -- ; DELETE FROM t", ""},
		{"", "empty"},
		{"/* nothing */ -- at all", "empty"},
		{"SELECT nope FROM t", "sql"},
		{"SELEKT 1", "sql"},
		{"DELETE FROM no_such_table", "DELETE"}, // refused early, though SQLite would call it a bad name
		{"CREATE VIRTUAL TABLE v USING fts5(x)", "CREATE VIRTUAL TABLE"},
		{"create virtual table if not exists v using rtree(id, a, b)", "CREATE VIRTUAL TABLE"},
		{"DROP TABLE IF EXISTS v", "DROP TABLE"},
	}
	withConn(t, func(c *lite.Conn) {
		for _, tc := range cases {
			err := sqlite.Check(c, tc.sql)
			var rej *guard.Rejection
			var se *guard.SQLError
			switch tc.what {
			case "":
				if err != nil {
					t.Errorf("%q: refused: %v", tc.sql, err)
				}
			case "empty":
				if !errors.Is(err, guard.ErrEmpty) {
					t.Errorf("%q: got %v, want ErrEmpty", tc.sql, err)
				}
			case "sql":
				if !errors.As(err, &se) {
					t.Errorf("%q: got %T %v, want *SQLError", tc.sql, err, err)
				}
			default:
				if !errors.As(err, &rej) {
					t.Errorf("%q: got %T %v, want *Rejection", tc.sql, err, err)
					continue
				}
				if rej.What != tc.what {
					t.Errorf("%q: refused %q, want %q", tc.sql, rej.What, tc.what)
				}
				if !errors.Is(err, guard.ErrRefused) || rej.Hint == "" {
					t.Errorf("%q: rejection without ErrRefused or hint: %+v", tc.sql, rej)
				}
			}
		}
	})
}

// TestTablesNamedLikePragmas: a real table or view whose name starts with
// pragma_ is read like any other; the pragma table-valued functions stay
// refused unless they are introspection pragmas.
func TestTablesNamedLikePragmas(t *testing.T) {
	path := testdb.Build(t, "p.db", `CREATE TABLE pragma_notes(note TEXT); INSERT INTO pragma_notes VALUES ('hello');
		CREATE VIEW pragma_view AS SELECT upper(note) AS loud FROM pragma_notes;`)
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Conn(context.Background(), func(c *lite.Conn) error {
		for _, sql := range []string{"SELECT * FROM pragma_notes", "SELECT loud FROM pragma_view", "SELECT n.note FROM main.pragma_notes AS n",
			"SELECT name FROM pragma_table_info('pragma_notes')", `SELECT * FROM "PRAGMA_NOTES"`} {
			if err := sqlite.Check(c, sql); err != nil {
				t.Errorf("%s: %v", sql, err)
			}
		}
		for sql, what := range map[string]string{
			"SELECT * FROM pragma_journal_mode":               "PRAGMA journal_mode",
			"SELECT * FROM main.pragma_user_version":          "PRAGMA user_version",
			"SELECT * FROM pragma_notes, pragma_data_version": "PRAGMA data_version",
			"SELECT * FROM pragma_compile_options":            "PRAGMA compile_options",
		} {
			var rej *guard.Rejection
			if err := sqlite.Check(c, sql); !errors.As(err, &rej) || rej.What != what {
				t.Errorf("%s: %v, want a refusal of %s", sql, err, what)
			}
		}
		stmt, err := sqlite.Prepare(c, "SELECT note FROM pragma_notes")
		if err != nil {
			return err
		}
		defer stmt.Finalize()
		if more, err := stmt.Step(); !more || err != nil || stmt.Text(0) != "hello" {
			t.Errorf("reading pragma_notes: %v %v", more, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRejectionNamesTarget(t *testing.T) {
	withConn(t, func(c *lite.Conn) {
		err := sqlite.Check(c, `UPDATE "Order Details" SET qty = 0`)
		if err == nil || !strings.Contains(err.Error(), "UPDATE on Order Details is not allowed: the database is read-only") {
			t.Fatalf("got %v", err)
		}
		err = sqlite.Check(c, "SELECT 1;\n  DELETE FROM t")
		if err == nil || !strings.Contains(err.Error(), `found "DELETE FROM t" after the first`) || !strings.Contains(err.Error(), "send one statement at a time") {
			t.Fatalf("got %v", err)
		}
	})
}

// BenchmarkCheck measures vetting a typical query (target: under 200 µs).
func BenchmarkCheck(b *testing.B) {
	const sql = `SELECT c.name, count(o.id) AS orders, sum(o.total) AS total
FROM customer AS c JOIN "order" AS o ON o.customer_id = c.id
WHERE o.status = 'shipped' GROUP BY c.name ORDER BY total DESC LIMIT 10`
	withConn(b, func(c *lite.Conn) {
		b.ResetTimer()
		for b.Loop() {
			if err := sqlite.Check(c, sql); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSQLErrorNamesWhatIsMissing: SQLite's errors become *guard.SQLError
// values that name the unknown table or column (for "did you mean" hints
// above the engine) or carry SQLite's own advice.
func TestSQLErrorNamesWhatIsMissing(t *testing.T) {
	withConn(t, func(c *lite.Conn) {
		for _, tc := range []struct{ sql, missing, kind, hint string }{
			{"SELECT * FROM custmer", "custmer", "table", ""},
			{`SELECT nme FROM customer`, "nme", "column", ""},
			{`SELECT c.nme FROM customer AS c`, "c.nme", "column", ""},
			{"SELECT * FORM customer", "", "", "double quotes"},
			{"SELECT id FROM customer, \"order\"", "", "", "qualify the column"},
			{"SELECT nosuchfn(1)", "", "", "SQLite has no such function"},
		} {
			var se *guard.SQLError
			if err := sqlite.Check(c, tc.sql); !errors.As(err, &se) {
				t.Errorf("%s: %v, want a *guard.SQLError", tc.sql, err)
				continue
			}
			if se.Missing != tc.missing || se.MissingKind != tc.kind || !strings.Contains(se.Hint, tc.hint) || tc.hint == "" && se.Hint != "" {
				t.Errorf("%s: %+v", tc.sql, se)
			}
		}
	})
}
