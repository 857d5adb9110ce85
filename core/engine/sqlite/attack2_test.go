package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestStatementsWithSideEffectsLeaveNoTrace runs statements that would
// write the database, create a file beside it or change how it is kept
// (ATTACH of a name built in SQL, VACUUM INTO, pragmas with side effects
// in odd spellings and as table-valued functions, extension loading),
// against a database in rollback-journal mode and one in WAL mode (file
// format 2, no -wal file). Each must be refused, and the directory must
// hold exactly what it held before, the database's bytes unchanged.
func TestStatementsWithSideEffectsLeaveNoTrace(t *testing.T) {
	src, err := os.ReadFile(testdb.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"rollback", "wal"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "shop.db")
			b := slices.Clone(src)
			if mode == "wal" {
				b[18], b[19] = 2, 2 // the header's read and write versions: WAL
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			before, names := testdb.FileHash(t, path), dirNames(t, dir)
			d, err := sqlite.Open(context.Background(), path, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			out := filepath.Join(dir, "copy.db")
			for _, sql := range []string{
				"ATTACH 'side' || '.db' AS x",
				"ATTACH printf('%s/%s', '" + dir + "', 'side.db') AS x",
				"ATTACH ':memory:' AS m",
				"ATTACH 'file:side.db?mode=rwc' AS x",
				"VACUUM INTO '" + out + "'",
				"VACUUM main INTO 'file:" + out + "?mode=rwc'",
				"VACUUM",
				"PRAGMA main.journal_mode = WAL",
				"PRAGMA \"main\".\"journal_mode\" = DELETE",
				"pragma JOURNAL_MODE=truncate",
				"SELECT * FROM pragma_journal_mode('wal')",
				"SELECT * FROM main.pragma_journal_mode('delete')",
				"SELECT * FROM \"PRAGMA_JOURNAL_MODE\"('wal')",
				"SELECT journal_mode FROM pragma_table_info('t'), pragma_journal_mode('wal')",
				"SELECT * FROM pragma_wal_checkpoint('truncate')",
				"PRAGMA wal_checkpoint(TRUNCATE)",
				"PRAGMA user_version = 7",
				"SELECT * FROM pragma_user_version(7)",
				"PRAGMA schema_version = 1",
				"PRAGMA optimize",
				"SELECT * FROM pragma_optimize",
				"PRAGMA incremental_vacuum",
				"PRAGMA locking_mode = EXCLUSIVE",
				"PRAGMA temp_store_directory = '" + dir + "'",
				"ANALYZE",
				"REINDEX",
				"SELECT load_extension('" + filepath.Join(dir, "ext") + "')",
				"SELECT writefile('" + out + "', 'x')",
				"CREATE TEMP TABLE spill AS SELECT * FROM t",
				"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM t",
			} {
				res, err := query.Collect(context.Background(), d, sql, query.Options{MaxRows: 10})
				if err == nil {
					t.Errorf("%s: ran, returned %v", sql, res.Rows)
				}
				if got := dirNames(t, dir); !slices.Equal(got, names) {
					t.Fatalf("%s: the directory holds %v, before %v", sql, got, names)
				}
				if testdb.FileHash(t, path) != before {
					t.Fatalf("%s: the database file changed", sql)
				}
			}
		})
	}
}

// TestRunawayStatementsStopAtTheirBounds: statements that would build a
// value past the size limit in one call, or grow without end, stop with
// a limit error (the deadline interrupts a recursive CTE whether it
// grows a queue or a table of seen rows, and a cross join of huge
// json_each), soon after their deadline at the latest.
func TestRunawayStatementsStopAtTheirBounds(t *testing.T) {
	d, err := sqlite.Open(context.Background(), testdb.Fixture(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range []struct{ sql, kind string }{
		{"SELECT length(randomblob(2e9))", "size"},
		{"SELECT length(zeroblob(2000000000))", "size"},
		{"SELECT length(printf('%.*c', 1000000000, 'x'))", "size"},
		{"SELECT length(hex(zeroblob(30000000)))", "size"},
		{"WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || s FROM r) SELECT length(s) FROM r ORDER BY 1 DESC LIMIT 1", "size"},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r", "deadline"},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r) SELECT count(*) FROM r", "deadline"},
		{"SELECT count(*) FROM json_each(printf('[%.*c1]', 40000000, ' ')), json_each(printf('[%.*c1]', 40000000, ' ')) AS b, (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r)", "deadline"},
	} {
		// The size limits must stop a statement before any deadline does:
		// those run with a long one.
		timeout := 10 * time.Second
		if c.kind == "deadline" {
			timeout = 500 * time.Millisecond
		}
		start := time.Now()
		_, err := query.Collect(context.Background(), d, c.sql, query.Options{MaxRows: 10, Timeout: timeout})
		took := time.Since(start)
		var le *query.LimitError
		if !errors.As(err, &le) || le.Kind != c.kind {
			t.Errorf("%s: %v, want a %s limit", c.sql, err, c.kind)
		}
		if took > timeout+2*time.Second*engine.RaceSlowdown {
			t.Errorf("%s: stopped after %s (deadline %s)", c.sql, took, timeout)
		}
	}
}

// TestPragmaFunctionBehindARealTableIsRefusedByName: in a database that
// has a table named pragma_journal_mode, temp.pragma_journal_mode is
// still SQLite's pragma function (no such table in temp), which the
// check at prepare time took for the table. The pragma it runs is denied
// by the authorizer as it runs; that denial must read as the refusal it
// is, naming the pragma, not as a bare "not authorized" database error.
func TestPragmaFunctionBehindARealTableIsRefusedByName(t *testing.T) {
	path := testdb.Build(t, "crafted.db", "CREATE TABLE pragma_journal_mode(journal_mode TEXT); INSERT INTO pragma_journal_mode VALUES ('x');")
	before, names := testdb.FileHash(t, path), dirNames(t, filepath.Dir(path))
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if res, err := query.Collect(context.Background(), d, "SELECT * FROM pragma_journal_mode", query.Options{}); err != nil || len(res.Rows) != 1 {
		t.Fatalf("the table itself: %v %v", res, err)
	}
	for _, sql := range []string{
		"SELECT * FROM temp.pragma_journal_mode",
		"SELECT * FROM temp.pragma_journal_mode('main')",
	} {
		_, err := query.Collect(context.Background(), d, sql, query.Options{})
		var r *guard.Rejection
		if !errors.As(err, &r) || !strings.Contains(err.Error(), "journal_mode") {
			t.Errorf("%s: %v, want a refusal naming journal_mode", sql, err)
		}
	}
	if testdb.FileHash(t, path) != before || !slices.Equal(dirNames(t, filepath.Dir(path)), names) {
		t.Fatal("the database or its directory changed")
	}
}
