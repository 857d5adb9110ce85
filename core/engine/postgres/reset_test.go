package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestPooledSessionReset: whatever a statement left on its session (a
// setting, an advisory lock, a role) is gone before the connection serves
// the next one. The poison is put there directly, around the guard, to
// test this layer on its own.
func TestPooledSessionReset(t *testing.T) {
	url := servers.Postgres(t)
	e, err := postgres.Open(context.Background(), url, engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var pid uint32
	err = e.WithConn(context.Background(), func(c *pgconn.PgConn) error {
		pid = c.PID()
		_, err := c.Exec(context.Background(), `SELECT set_config('statement_timeout', '0', false), set_config('search_path', 'pg_catalog', false),
			pg_advisory_lock(4242); SET default_transaction_read_only = off; BEGIN; SELECT pg_advisory_xact_lock(1)`).ReadAll()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	a := servers.PostgresClient(t, url)
	var locks int
	if err := a.QueryRow(context.Background(), "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $1", pid).Scan(&locks); err != nil || locks != 0 {
		t.Errorf("advisory locks held after release: %d (%v)", locks, err)
	}
	res, err := query.Collect(context.Background(), e, "SELECT pg_backend_pid(), current_setting('statement_timeout'), current_setting('search_path'), current_setting('default_transaction_read_only')",
		query.Options{Timeout: 4e9})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	if r[0] != int64(pid) {
		t.Fatalf("a new connection (pid %v, was %d): the pool did not reuse it", r[0], pid)
	}
	if r[1] != "4s" || r[2] != `"$user", public` || r[3] != "on" {
		t.Errorf("settings survived the reset: %v", r)
	}
	// A statement's own pipeline ends with ROLLBACK and DISCARD ALL: the
	// session is idle, its last statement the reset.
	var state, last string
	if err := a.QueryRow(context.Background(), "SELECT state, query FROM pg_stat_activity WHERE pid = $1", pid).Scan(&state, &last); err != nil {
		t.Fatal(err)
	}
	if state != "idle" || last != "DISCARD ALL" {
		t.Errorf("after a statement the session is %q, its last statement %q", state, last)
	}
}

// TestResetBeforeReuse: with one connection, each statement runs on the
// same session in a transaction of its own (the previous one rolled back
// and the session reset), and Close ends the session.
func TestResetBeforeReuse(t *testing.T) {
	url := servers.Postgres(t)
	e, err := postgres.Open(context.Background(), url, engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := query.Options{Timeout: 4e9}
	var pid, began any
	for i := range 50 {
		res, err := query.Collect(context.Background(), e, "SELECT pg_backend_pid(), now()::text", opt)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Rows[0]
		if i == 0 {
			pid = r[0]
		}
		// now() is when the transaction began: a statement run in the
		// previous one's transaction would show the same time.
		if r[0] != pid || r[1] == began {
			t.Fatalf("statement %d: pid %v (first %v), its transaction began %v, the previous one's %v", i, r[0], pid, r[1], began)
		}
		began = r[1]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// The server ends the session once it reads the connection's end.
	a := servers.PostgresClient(t, url)
	var n int
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := a.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 || time.Now().After(end) {
			break
		}
	}
	if n != 0 {
		t.Errorf("the session is still there 2 s after Close")
	}
}
