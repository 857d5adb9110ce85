package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// TestVerdictResetClearsTheSession: the reset a verdict's run ends with
// (which keeps the prepared checks) clears what DISCARD ALL clears but
// prepared statements: settings, session and transaction state, advisory
// locks, listening, temporary tables, held cursors, sequence values. The
// poison is put there directly, around the guard.
func TestVerdictResetClearsTheSession(t *testing.T) {
	ctx := context.Background()
	url := servers.PostgresSample(t)
	e := openOne(t, url)
	var pid uint32
	err := e.WithConn(ctx, func(c *pgconn.PgConn) error {
		pid = c.PID()
		if _, err := c.Exec(ctx, "SET default_transaction_read_only = off").ReadAll(); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, `SELECT set_config('statement_timeout', '123s', false), set_config('search_path', 'pg_catalog', false),
			pg_advisory_lock(4242); LISTEN tw_reset;
			CREATE SEQUENCE public.tw_reset_seq; SELECT nextval('public.tw_reset_seq'); CREATE TEMP TABLE tw_reset_tmp (x int);
			BEGIN; DECLARE tw_reset_cur CURSOR WITH HOLD FOR SELECT 1; COMMIT; BEGIN; SELECT pg_advisory_xact_lock(1)`).ReadAll(); err != nil {
			return err
		}
		return postgres.ResetSession(ctx, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	a := servers.PostgresClient(t, url)
	var locks int
	if err := a.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $1", pid).Scan(&locks); err != nil || locks != 0 {
		t.Errorf("advisory locks held after the reset: %d (%v)", locks, err)
	}
	var state string
	if err := a.QueryRow(ctx, "SELECT state FROM pg_stat_activity WHERE pid = $1", pid).Scan(&state); err != nil || state != "idle" {
		t.Errorf("after the reset the session is %q (%v)", state, err)
	}
	err = e.WithConn(ctx, func(c *pgconn.PgConn) error {
		if c.PID() != pid {
			t.Fatalf("a new connection (pid %d, was %d): the pool did not reuse it", c.PID(), pid)
		}
		res, err := c.Exec(ctx, `SELECT current_setting('statement_timeout'), current_setting('search_path'), current_setting('default_transaction_read_only'),
			(SELECT count(*) FROM pg_listening_channels()), (SELECT count(*) FROM pg_cursors), pg_my_temp_schema() = 0 OR NOT EXISTS (SELECT FROM pg_class WHERE relnamespace = pg_my_temp_schema()),
			(SELECT count(*) FROM pg_prepared_statements)`).ReadAll()
		if err != nil {
			return err
		}
		var got []string
		for _, v := range res[0].Rows[0] {
			got = append(got, string(v))
		}
		want := []string{"0", `"$user", public`, "on", "0", "0", "t", "0"}
		if !slices.Equal(got, want) {
			t.Errorf("after the reset: statement_timeout, search_path, read only, channels, cursors, no temp tables, prepared = %q, want %q", got, want)
		}
		// currval reads the session's sequence values, which DISCARD
		// SEQUENCES clears.
		_, err = c.Exec(ctx, "SELECT currval('tw_reset_seq')").ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55000" {
			t.Errorf("currval after the reset: %v, want 55000 (not yet defined in this session)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVerdictChecksPrepared: a verdict's run prepares its two checks and
// its statement on the connection once and keeps them; a DISCARD ALL (any
// other statement's reset, or release's) drops them, and the next
// verdict's run prepares them again.
func TestVerdictChecksPrepared(t *testing.T) {
	ctx := context.Background()
	e := openOne(t, servers.PostgresSample(t))
	opt := query.Options{MaxRows: 10, Timeout: 4 * time.Second}
	point := func(id int) {
		t.Helper()
		res, err := query.Collect(ctx, e, fmt.Sprintf("SELECT * FROM customers WHERE customer_id = %d", id), opt)
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("point query %d: %v", id, err)
		}
		// The statement kept for the shape is bound with this id.
		if res.Columns[0].Name != "customer_id" || res.Rows[0][0] != int64(id) {
			t.Fatalf("point query %d: %v %v", id, res.Columns[0].Name, res.Rows[0][0])
		}
	}
	prepared := func() []string {
		t.Helper()
		var names []string
		err := e.WithConn(ctx, func(c *pgconn.PgConn) error {
			res, err := c.Exec(ctx, "SELECT name FROM pg_prepared_statements ORDER BY name").ReadAll()
			if err != nil {
				return err
			}
			for _, r := range res[0].Rows {
				names = append(names, string(r[0]))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	for id := 1; id <= 4; id++ {
		point(id)
	}
	hits := postgres.VettedRuns(e)
	if hits < 2 {
		t.Fatalf("%d of 4 point queries ran on a verdict, want at least 2", hits)
	}
	// The checks, and the point query's shape.
	if got, want := prepared(), []string{"tablewise_check", "tablewise_precheck", "tablewise_v1"}; !slices.Equal(got, want) {
		t.Errorf("prepared after verdicts' runs: %q, want %q", got, want)
	}
	// prepared() released the connection with DISCARD ALL, and another
	// statement's run ends with one: a verdict's run after each prepares
	// the checks again.
	point(5)
	if got := postgres.VettedRuns(e); got != hits+1 {
		t.Errorf("after a release's DISCARD ALL, %d verdicts' runs, want 1", got-hits)
	}
	if _, err := query.Collect(ctx, e, "SELECT count(*) FROM orders", opt); err != nil {
		t.Fatal(err)
	}
	point(6)
	if got := postgres.VettedRuns(e); got != hits+2 {
		t.Errorf("after a statement's DISCARD ALL, %d verdicts' runs in all, want 2", got-hits)
	}
}

// TestOwedResetIsReadBeforeReuse: a connection returns to the pool with
// the answer to its reset still to read; the next statement reads it
// first, and runs on another connection when the reset failed.
func TestOwedResetIsReadBeforeReuse(t *testing.T) {
	ctx := context.Background()
	e := openOne(t, servers.PostgresSample(t))
	for _, c := range []struct {
		reset  string
		reused bool
	}{
		{"ROLLBACK; RESET ALL", true},
		{"ROLLBACK; SELECT 1/0; RESET ALL", false},
		{"SELECT pg_sleep(0.2); ROLLBACK", true},
	} {
		var pid uint32
		err := e.WithConn(ctx, func(pc *pgconn.PgConn) error {
			pid = pc.PID()
			return postgres.Owe(e, pc, c.reset)
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := query.Collect(ctx, e, "SELECT pg_backend_pid()", query.Options{Timeout: 4 * time.Second})
		if err != nil {
			t.Fatalf("after the reset %q: %v", c.reset, err)
		}
		if reused := res.Rows[0][0] == int64(pid); reused != c.reused {
			t.Errorf("after the reset %q: the next statement ran on the same connection: %v, want %v", c.reset, reused, c.reused)
		}
	}
}
