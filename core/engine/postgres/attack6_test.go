package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// ownerRaise is PL/pgSQL that, when it runs in a read-only transaction
// (as the statement's does; not while the test builds a column's values
// with it), ends the victimSession and raises ownerRan: an error that a
// run on a verdict takes for a miss, and vets the statement again.
const ownerRaise = "IF current_setting('transaction_read_only') = 'on' THEN " + endVictim + " RAISE EXCEPTION 'owner code ran'; END IF;"

// ownerRan is the error ownerRaise raises: seen, it shows that the
// database's own code ran.
const ownerRan = "owner code ran"

// TestParseWaitsForNoLock: a statement's Parse reads its literals as the
// types they take (a literal compared with a column takes the column's),
// which runs those types' code: a range's input compares its bounds with
// its subtype_opclass's comparison function. The check that what the
// guard knows is what the database holds comes before the Parse, which
// then waited for the lock on a table another session held: that session
// made a range over int4 whose class compares with the database's own
// PL/pgSQL, changed the column to it and committed, and the Parse,
// granted the lock, read '[1,5]' with that code, before the check after
// it could stop anything. Both on the first vetting and on a verdict kept
// for the statement (made before the other session locked the table).
func TestParseWaitsForNoLock(t *testing.T) {
	for _, verdict := range []bool{false, true} {
		t.Run(fmt.Sprintf("verdict=%v", verdict), func(t *testing.T) {
			url := servers.Postgres(t)
			a := admin(t, url)
			exec(t, a, `CREATE TABLE spans (c int4range)`)
			exec(t, a, `INSERT INTO spans SELECT int4range(g, g + 4, '[]') FROM generate_series(1, 10) g`)
			victim := victimSession(t, url)
			e := openOne(t, url)
			const sql = `SELECT count(*) AS n FROM spans WHERE c = '[1,5]'`
			if verdict {
				verdictMade(t, e, sql)
			} else if res, err := collect(t, e, sql); err != nil || res.Rows[0][0] != int64(1) {
				t.Fatalf("before the lock: %v %v", res, err)
			}
			ddl := lockTable(t, url, "spans")
			runs, waits := postgres.VettedRuns(e), postgres.LockWaits(e)
			done := make(chan error, 1)
			go func() {
				_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 10 * time.Second})
				done <- err
			}()
			metLock(t, a, e, waits, "FROM spans")
			killerClass(t, ddl, "evil_ops", "evil_cmp", "int4", "btint4cmp", ownerRaise)
			exec(t, ddl, `CREATE TYPE evil_range AS RANGE (subtype = int4, subtype_opclass = evil_ops)`)
			exec(t, ddl, `ALTER TABLE spans ALTER COLUMN c TYPE evil_range USING evil_range(lower(c), upper(c), '[)')`)
			exec(t, ddl, "COMMIT")
			err := <-done
			t.Logf("the statement: %v", err)
			switch {
			case err != nil && strings.Contains(err.Error(), ownerRan):
				t.Errorf("the database's own code ran while the statement was parsed: %v", err)
			case !refusalNames(err, "evil_cmp") && !(err != nil && strings.Contains(err.Error(), "own objects changed")):
				t.Errorf("err = %v, want a refusal naming evil_cmp, or the statement stopped as stale", err)
			}
			alive(t, victim, "the column's type changed while the statement waited for its table")
			if postgres.VettedRuns(e) != runs {
				t.Errorf("the statement ran on its verdict")
			}
		})
	}
}

// metLock waits until a statement of e whose text holds marker met a
// lock: it waits for one on the server, or e tried a vetting again after
// one met it (waits is what e counted before); it fails t when neither
// happens within 5 s.
func metLock(t *testing.T, a *pgx.Conn, e *postgres.Engine, waits int64, marker string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if postgres.LockWaits(e) > waits {
			return
		}
		n := servers.PostgresColumn[int64](t, a, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND datname = current_database() AND strpos(query, $1) > 0`, marker)
		if n[0] > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no statement reading %q met the lock", marker)
		}
	}
}

// TestLockHeldPastTheDeadline: a statement on a table another session
// holds locked (ALTER TABLE, LOCK TABLE) waits for it between tries of
// its vetting, not in the server's Parse, and stops at its deadline with
// the deadline's error (exit 5), saying which table is locked and by
// which backend: on its first vetting and on a verdict kept for it.
func TestLockHeldPastTheDeadline(t *testing.T) {
	for _, verdict := range []bool{false, true} {
		t.Run(fmt.Sprintf("verdict=%v", verdict), func(t *testing.T) {
			url := servers.Postgres(t)
			a := admin(t, url)
			exec(t, a, `CREATE TABLE held (x int)`)
			e := openOne(t, url)
			const sql = `SELECT count(*) AS lock_marker FROM held`
			if verdict {
				verdictMade(t, e, sql)
			} else if _, err := collect(t, e, sql); err != nil {
				t.Fatal(err)
			}
			locker := lockTable(t, url, "held")
			pid := servers.PostgresColumn[int32](t, locker, `SELECT pg_backend_pid()`)[0]
			waits := postgres.LockWaits(e)
			const timeout = time.Second
			start := time.Now()
			_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: timeout})
			took := time.Since(start)
			t.Logf("after %v: %v", took.Round(time.Millisecond), err)
			var le *query.LimitError
			if !errors.As(err, &le) || !errors.Is(err, query.ErrDeadline) {
				t.Fatalf("err = %v, want the deadline's error", err)
			}
			if want := fmt.Sprintf("held (backend pid %d)", pid); le.Lock != want || !strings.Contains(le.Msg, want) || !strings.Contains(le.Msg, "the 1s deadline") || le.Hint == "" {
				t.Errorf("the error names %q: %v, want %q and a hint", le.Lock, err, want)
			}
			if took < timeout || took > timeout+time.Second {
				t.Errorf("stopped after %v, want the 1s deadline", took)
			}
			if postgres.LockWaits(e) == waits {
				t.Error("the statement waited for the lock on the server, not between tries")
			}
			if n := running(t, a, "lock_marker"); n != 0 {
				t.Errorf("%d statement(s) still running on the server", n)
			}
		})
	}
}

// TestLockReleasedThenAnswered: a statement that met a table's lock
// answers once the other session's transaction ends, within its
// deadline.
func TestLockReleasedThenAnswered(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE TABLE held AS SELECT generate_series(1, 7) AS x`)
	e := openOne(t, url)
	locker := lockTable(t, url, "held")
	waits := postgres.LockWaits(e)
	// The lock ends 300 ms after the statement met it.
	released := make(chan struct{})
	go func() {
		defer close(released)
		for end := time.Now().Add(5 * time.Second); postgres.LockWaits(e) == waits && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		locker.Exec(context.Background(), "ROLLBACK")
	}()
	res, err := collect(t, e, `SELECT count(*) AS n FROM held`)
	<-released
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(7) {
		t.Fatalf("after the lock ended: %v %v", res, err)
	}
	if postgres.LockWaits(e) < waits+2 {
		t.Errorf("%d tries met the lock held for 300 ms", postgres.LockWaits(e)-waits)
	}
}
