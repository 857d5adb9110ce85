package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// slowView is a view whose every row count and sample runs forever.
const slowView = "CREATE VIEW zslow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c;"

type runOutcome struct {
	err     error
	elapsed time.Duration
}

func runSQL(d *db.DB, sql string, timeout time.Duration) runOutcome {
	start := time.Now()
	_, err := query.Run(context.Background(), d, sql, query.Options{Timeout: timeout}, sinkFunc(func(query.Cursor) {}))
	return runOutcome{err, time.Since(start)}
}

type sinkFunc func(query.Cursor)

func (f sinkFunc) Begin([]query.Column) error { return nil }
func (f sinkFunc) Row(c query.Cursor) error   { f(c); return nil }

func openFixture(t testing.TB) *db.DB {
	t.Helper()
	return testdb.Open(t, testdb.Fixture(t))
}

// TestHintWithOneConnection: the "did you mean" hint reads the schema on a
// connection of its own; with a pool of one it must not wait for the
// connection the failed statement still held.
func TestHintWithOneConnection(t *testing.T) {
	d, err := db.Open(context.Background(), testdb.Fixture(t), db.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := testdb.Within(t, 10*time.Second, func() runOutcome { return runSQL(d, "SELECT * FROM custmers", 2*time.Second) })
	var se *guard.SQLError
	if !errors.As(out.err, &se) || !strings.Contains(se.Hint, "customer") {
		t.Fatalf("error %v, want a hint naming customer", out.err)
	}
	if out.elapsed > time.Second {
		t.Errorf("took %v: the hint waited for a connection", out.elapsed)
	}
}

// TestHintWithSlowView: the hint path reads names, never a view's rows, and
// stays within the statement's deadline.
func TestHintWithSlowView(t *testing.T) {
	path := testdb.Build(t, "slow.db", "CREATE TABLE t(a, b);"+slowView)
	d := testdb.Open(t, path)
	out := testdb.Within(t, 20*time.Second, func() runOutcome { return runSQL(d, "SELECT nosuch FROM t", time.Second) })
	var se *guard.SQLError
	if !errors.As(out.err, &se) || !strings.Contains(se.Msg, "no such column") {
		t.Fatalf("error %v", out.err)
	}
	if out.elapsed > 2*time.Second {
		t.Errorf("took %v on a 1s deadline", out.elapsed)
	}
}

// TestHintWithManyTables: thousands of tables make reading the schema slow;
// the hint gives up at the deadline rather than wait. (5,000 tables: SQLite
// takes quadratic time to create them, 15 s for 20,000 here.)
func TestHintWithManyTables(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds a 5,000-table database")
	}
	var schema strings.Builder
	schema.WriteString("BEGIN; CREATE TABLE t(a, b);\n")
	for i := range 5000 {
		fmt.Fprintf(&schema, "CREATE TABLE t%05d(id INTEGER PRIMARY KEY, name TEXT, v REAL);\n", i)
	}
	schema.WriteString("COMMIT;")
	d := testdb.OpenWith(t, testdb.Build(t, "many.db", schema.String()), db.Options{MaxConns: 1})
	for _, timeout := range []time.Duration{5 * time.Millisecond, 5 * time.Second} {
		// Load the schema first (an interrupted read may make SQLite
		// parse it again, which takes long under -race): what is timed is
		// the failing statement and its hint.
		if out := runSQL(d, "SELECT count(*) FROM t", 0); out.err != nil {
			t.Fatal(out.err)
		}
		out := testdb.Within(t, 30*time.Second, func() runOutcome { return runSQL(d, "SELECT nam FROM t01234", timeout) })
		var se *guard.SQLError
		if !errors.As(out.err, &se) || !strings.Contains(se.Msg, "no such column") {
			t.Fatalf("error %v", out.err)
		}
		t.Logf("deadline %v: ended after %v, hint %q", timeout, out.elapsed, se.Hint)
		if out.elapsed > timeout+250*time.Millisecond {
			t.Errorf("deadline %v: took %v", timeout, out.elapsed)
		}
		if timeout > time.Second && !strings.Contains(se.Hint, "name") {
			t.Errorf("with time to read the names, hint %q does not suggest name", se.Hint)
		}
	}
}

// TestHintWithBrokenView: a view whose table was dropped does not cost the
// other tables their hints.
func TestHintWithBrokenView(t *testing.T) {
	d := testdb.Open(t, testdb.Build(t, "broken.db", "CREATE TABLE x(a); CREATE VIEW v AS SELECT a FROM x; DROP TABLE x; CREATE TABLE t(alpha, beta);"))
	out := runSQL(d, "SELECT bta FROM t", time.Second)
	var se *guard.SQLError
	if !errors.As(out.err, &se) || !strings.Contains(se.Hint, "did you mean beta") {
		t.Fatalf("error %v", out.err)
	}
}

func TestErrorsAndHints(t *testing.T) {
	d := openFixture(t)
	_, err := query.Collect(context.Background(), d, "SELECT nmae FROM customer", query.Options{})
	var se *guard.SQLError
	if !errors.As(err, &se) || se.Msg != "no such column: nmae" || !strings.Contains(se.Hint, "did you mean name?") {
		t.Fatalf("got %v", err)
	}
	_, err = query.Collect(context.Background(), d, "SELECT * FROM Order_Details", query.Options{})
	if !errors.As(err, &se) || !strings.Contains(se.Hint, "Order Details") {
		t.Fatalf("got %v", err)
	}
	_, err = query.Collect(context.Background(), d, "DELETE FROM t", query.Options{})
	if !errors.Is(err, guard.ErrRefused) {
		t.Fatalf("got %v", err)
	}
}
