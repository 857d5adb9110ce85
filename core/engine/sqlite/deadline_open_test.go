package sqlite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// manyTables is enough tables that reading the schema takes SQLite far
// longer than the deadlines below (about 0.5 s on an idle machine; the
// time grows faster than the count).
const manyTables = 40_000

// bound is how long past a deadline a call may take to return.
const bound = 500 * time.Millisecond * engine.RaceSlowdown

// Opening reads the whole schema; it stops when the caller's context
// ends, with the context's error.
func TestOpenKeepsTheDeadline(t *testing.T) {
	path := testdb.ManyTables(t, manyTables)
	before := testdb.FileHash(t, path)
	const timeout = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	d, err := sqlite.Open(ctx, path, engine.Options{})
	took := time.Since(start)
	if err == nil {
		d.Close()
		t.Fatalf("opened in %v past a %v deadline", took.Round(time.Millisecond), timeout)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the context's deadline", err)
	}
	if took > timeout+bound {
		t.Errorf("took %v with a %v deadline, want at most %v", took.Round(time.Millisecond), timeout, timeout+bound)
	}
	if testdb.FileHash(t, path) != before {
		t.Error("the database file changed")
	}
}

// A statement that is a connection's first reads the whole schema while
// it is prepared: its deadline covers that too.
func TestRunDeadlineCoversPrepare(t *testing.T) {
	const timeout = 50 * time.Millisecond
	err := onNewConn(t, timeout, func(_ context.Context, d *sqlite.Engine) error {
		_, err := d.Run(context.Background(), "SELECT 1", query.Options{Timeout: timeout}, sinkFunc(func(query.Cursor) {}))
		return err
	})
	var le *query.LimitError
	if !errors.As(err, &le) || !errors.Is(err, query.ErrDeadline) || le.Msg != "query stopped at the 50ms deadline" {
		t.Errorf("error %v, want the deadline's", err)
	}
}

// Check on a new connection reads the whole schema too: it stops when
// its context ends.
func TestCheckKeepsTheDeadline(t *testing.T) {
	err := onNewConn(t, 50*time.Millisecond, func(ctx context.Context, d *sqlite.Engine) error {
		return d.Check(ctx, "SELECT 1")
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the context's deadline", err)
	}
}

// onNewConn opens a database of manyTables tables and, holding the
// connection that read the schema while opening, calls fn, which gets a
// new one, with a context of timeout; it fails the test when fn returns
// more than bound past the timeout, and returns fn's error.
func onNewConn(t *testing.T, timeout time.Duration, fn func(context.Context, *sqlite.Engine) error) error {
	t.Helper()
	d, err := sqlite.Open(context.Background(), testdb.ManyTables(t, manyTables), engine.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return d.Conn(context.Background(), func(*lite.Conn) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		start := time.Now()
		err := fn(ctx, d)
		if took := time.Since(start); took > timeout+bound {
			t.Errorf("took %v with a %v deadline, want at most %v", took.Round(time.Millisecond), timeout, timeout+bound)
		}
		return err
	})
}
