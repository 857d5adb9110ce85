package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// Statements that try to break the promises a SQLite database is read
// under: nothing written, the deadline kept, memory bounded. The guard's
// refusals are in guard_test.go; these are ways found around the rest.

// TestSortPastDeadline: SQLite sorts in memory in one instruction of its
// machine, after the scan that fills the sorter and before the first row,
// and an interrupt waits for the end of it. ORDER BY a column repeated
// 1,999 times (all equal) and then b, over 10,000 rows, makes every
// comparison walk 2,000 fields: the sort ran for seconds past a 1 s
// deadline (SELECT b FROM t ORDER BY b over 6,000,000 integers: 8.4 s).
// The caller is answered at the deadline, and the next statement runs at
// once.
func TestSortPastDeadline(t *testing.T) {
	sqlite.WaitStepping(t)
	path := testdb.Build(t, "sort.db", `CREATE TABLE k(a INTEGER PRIMARY KEY, c INTEGER, b INTEGER);
WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r LIMIT 10000)
INSERT INTO k SELECT x, 0, (x * 7919) % 10007 FROM r;`)
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sql := "SELECT b FROM k ORDER BY " + strings.Repeat("c, ", 1999) + "b"
	// The scan that fills the sorter takes a fraction of a second; the
	// sort, seconds: the deadline falls inside the sort.
	const timeout = time.Second
	start := time.Now()
	_, err = query.Collect(context.Background(), d, sql, query.Options{Timeout: timeout, MaxRows: 1})
	elapsed := time.Since(start)
	var le *query.LimitError
	if !errors.As(err, &le) || le.Kind != "deadline" {
		t.Fatalf("err = %v after %v, want the deadline's", err, elapsed)
	}
	if elapsed > timeout+700*time.Millisecond {
		t.Errorf("answered after %v on a %v deadline", elapsed, timeout)
	}
	countsAtOnce(t, d, "k", 10000)
}

// countsAtOnce checks that the next statement, a count of table, runs at
// once beside the statements left stepping alone, and gives want.
func countsAtOnce(t *testing.T, d *sqlite.Engine, table string, want int64) {
	t.Helper()
	start := time.Now()
	res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM "+table, query.Options{Timeout: 5 * time.Second})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != want {
		t.Fatalf("next statement: %v %v", res, err)
	}
	if e := time.Since(start); e > 500*time.Millisecond {
		t.Errorf("next statement took %v", e)
	}
}

// TestMemoryStatementsGetAFilesRoom: data files are loaded under a heap
// limit of 4 GiB, which stayed in force for every statement after: on a
// three-row CSV, SELECT DISTINCT over 3,000 values of 1 MB held 3 GB in
// SQLite's heap (peak RSS 6.0 GB) where a database file stops at 256 MiB.
// Once loaded, the limit is what the data holds plus DefaultHeapLimit.
func TestMemoryStatementsGetAFilesRoom(t *testing.T) {
	d := openMemory(t, 1<<30, "tiny.csv")
	defer d.Close()
	_, err := query.Collect(context.Background(), d,
		"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r LIMIT 400) SELECT count(*) FROM (SELECT DISTINCT printf('%.*c', 1000000, 'x') || i FROM r)",
		query.Options{Timeout: 30 * time.Second})
	var le *query.LimitError
	if !errors.As(err, &le) || le.Kind != "memory" {
		t.Fatalf("400 MB of distinct values on a tiny in-memory database: err = %v, want the memory limit's", err)
	}
	// The data itself is still read.
	res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM t", query.Options{})
	if err != nil || res.Rows[0][0] != int64(100) {
		t.Fatalf("count: %v %v", res, err)
	}
}
