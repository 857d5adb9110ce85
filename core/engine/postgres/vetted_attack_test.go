package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// Attacks on the verdicts (vetted.go): a statement that passed the guard
// on a connection runs again there without its plan being read. Each test
// makes a verdict (three runs: the second makes it, the third uses it),
// then changes what the statement would do in a way the verdict must not
// survive.

// verdictMade runs sql on e until a run uses its verdict (the third,
// unless a transaction of another test committed meanwhile: the state
// is the whole server's), and fails t when none does in ten.
func verdictMade(t *testing.T, e *postgres.Engine, sql string) {
	t.Helper()
	before := postgres.VettedRuns(e)
	for range 10 {
		if _, err := collect(t, e, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if postgres.VettedRuns(e) > before {
			return
		}
	}
	t.Fatalf("%s: no run of ten on a verdict", sql)
}

// killerView is a definition of the view cheap (same columns as the
// first) that ends the victimSession when read (LIKE, not =, which a test
// replaces).
const killerView = `CREATE OR REPLACE VIEW cheap AS SELECT t."TrackId", t."Name" FROM "Track" t
	WHERE (SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'tablewise_victim') >= 0`

// alive fails t when the victim session was ended.
func alive(t *testing.T, victim *pgx.Conn, what string) {
	t.Helper()
	if err := sessionErr(victim); err != nil {
		t.Errorf("%s: the other session was ended: %v", what, err)
	}
}

// sessionErr is nil while the victim session answers a query, else why it
// does not.
func sessionErr(victim *pgx.Conn) error {
	var one int
	return victim.QueryRow(context.Background(), "SELECT 1").Scan(&one)
}

// TestVerdictForeignFileBecomesFIFO: the guard refuses a file_fdw table
// whose file is not a regular one (its plan shows size 0), since opening
// a FIFO blocks the server's session past the deadline. Replacing the
// file by a FIFO changes nothing in the catalog: a verdict on a plan that
// reads a foreign table's file would let the statement open it. It is
// vetted every time, refused, and no session is left blocked.
func TestVerdictForeignFileBecomesFIFO(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, "CREATE EXTENSION file_fdw")
	exec(t, a, "CREATE SERVER files FOREIGN DATA WRAPPER file_fdw")
	dir := serverDir(t, "tablewise-verdict-fifo-")
	file := filepath.Join(dir, "genres.csv")
	if err := os.WriteFile(file, []byte("1,Rock\n2,Jazz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE genres_file (id int, name text) SERVER files OPTIONS (filename '%s', format 'csv')`, file))
	e := openOne(t, url)
	for range 3 {
		if res, err := collect(t, e, `SELECT name FROM genres_file`); err != nil || len(res.Rows) != 2 {
			t.Fatalf("the file's table: %v %v", res, err)
		}
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o666); err != nil {
		t.Fatal(err)
	}
	// A session left blocked opening the FIFO is released by a writer.
	t.Cleanup(func() {
		if f, err := os.OpenFile(file, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	start := time.Now()
	_, err := query.Collect(context.Background(), e, `SELECT name FROM genres_file`, query.Options{MaxRows: 10, Timeout: time.Second})
	if !refusalNames(err, "not a regular file") {
		t.Errorf("the table over a FIFO, after verdicts on the file: err = %v after %s, want a refusal", err, time.Since(start).Round(time.Millisecond))
	}
	if n := servers.PostgresColumn[int64](t, a, `SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%FROM genres_file%' AND pid <> pg_backend_pid()`); n[0] != 0 {
		t.Errorf("%d sessions left opening the FIFO", n[0])
	}
}

// TestVerdictCheckCallsOnlyTheServer: the state that keeps a verdict is
// read and compared by tablewise's own SQL in the statement's session,
// with the database's search_path. A database that puts a schema before
// pg_catalog there, holding an = or || for text that always agrees, must
// not make a changed state look the same: the verdict ends when the view
// changes, and the statement is vetted and refused.
func TestVerdictCheckCallsOnlyTheServer(t *testing.T) {
	for _, tc := range []struct{ name, function, operator string }{
		{"equals", `CREATE FUNCTION shadow.agree(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true'`,
			`CREATE OPERATOR shadow.= (LEFTARG = text, RIGHTARG = text, FUNCTION = shadow.agree)`},
		{"concatenation", `CREATE FUNCTION shadow.same(text, text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT ''same'''`,
			`CREATE OPERATOR shadow.|| (LEFTARG = text, RIGHTARG = text, FUNCTION = shadow.same)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := servers.Postgres(t)
			a := admin(t, url)
			exec(t, a, `CREATE SCHEMA shadow`)
			exec(t, a, tc.function)
			exec(t, a, tc.operator)
			exec(t, a, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET search_path = shadow, pg_catalog, public', current_database()); END $$`)
			exec(t, a, `CREATE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track"`)
			victim := victimSession(t, url)
			e := openOne(t, url)
			verdictMade(t, e, `SELECT count(*) FROM cheap`)
			exec(t, a, killerView)
			err := collectVetted(t, e, `SELECT count(*) FROM cheap`)
			var rej *guard.Rejection
			if !errors.As(err, &rej) {
				t.Errorf("after the view changed: err = %v, want a refusal", err)
			}
			alive(t, victim, "after the view changed")
		})
	}
}

// TestVerdictSeesDDLCommittedWhileWaiting: a statement whose check of the
// state passed, then waited for a lock that a transaction changing its
// view holds, would read the view as it is once that transaction
// commits, never vetted. The transaction started before the verdict was
// made (so the state read then already shows it running), and changes
// the view after. The statement is vetted again and refused.
func TestVerdictSeesDDLCommittedWhileWaiting(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track"`)
	victim := victimSession(t, url)
	e := openOne(t, url)
	ddl := admin(t, url)
	exec(t, ddl, "BEGIN")
	exec(t, ddl, "SELECT pg_current_xact_id()")
	verdictMade(t, e, `SELECT count(*) FROM cheap`)
	exec(t, ddl, killerView)
	done := make(chan error, 1)
	runs, waits := postgres.VettedRuns(e), postgres.LockWaits(e)
	go func() {
		_, err := query.Collect(context.Background(), e, `SELECT count(*) FROM cheap`, query.Options{MaxRows: 10, Timeout: 10 * time.Second})
		done <- err
	}()
	// Commit once the statement met the view's lock.
	metLock(t, a, e, waits, "FROM cheap")
	exec(t, ddl, "COMMIT")
	err := <-done
	var rej *guard.Rejection
	if !errors.As(err, &rej) {
		t.Errorf("the view changed while the statement waited: err = %v, want a refusal", err)
	}
	if postgres.VettedRuns(e) != runs {
		t.Errorf("the statement ran on its verdict")
	}
	alive(t, victim, "the view changed while the statement waited")
}

// foldKiller makes fold(int), an IMMUTABLE function of the database's own
// that ends the victimSession when it runs in a read-only transaction
// (as tablewise's do; not while the test builds an index with it).
const foldKiller = `CREATE FUNCTION fold(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN ` + endVictim + ` END IF; RETURN $1; END $$`

// TestOwnObjectsNewerThanGuard: the guard knows the database's own
// functions and what calls them (views, indexes…), read once and kept;
// the planner runs an IMMUTABLE function on constants while it plans,
// before any plan can be read. A function made after the guard read them,
// and a view or an index that calls it, must not run when a statement is
// vetted: the server checks, before the statement is planned, that the
// database still holds what the guard read, and the guard reads it again.
// Also when the statement had passed before and runs on its verdict.
func TestOwnObjectsNewerThanGuard(t *testing.T) {
	for _, tc := range []struct {
		name, sql, change string
		verdict           bool
	}{
		{"view", `SELECT count(*) FROM cheap`, `CREATE OR REPLACE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track" WHERE "TrackId" > fold(0)`, false},
		{"view after a verdict", `SELECT count(*) FROM cheap`, `CREATE OR REPLACE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track" WHERE "TrackId" > fold(0)`, true},
		{"partial index", `SELECT count(*) FROM "Genre"`, `CREATE INDEX folded ON "Genre" ("GenreId") WHERE fold(1) > 0`, false},
		{"partial index after a verdict", `SELECT count(*) FROM "Genre"`, `CREATE INDEX folded ON "Genre" ("GenreId") WHERE fold(1) > 0`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := servers.Postgres(t)
			a := admin(t, url)
			exec(t, a, `CREATE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track"`)
			victim := victimSession(t, url)
			e := openOne(t, url)
			if tc.verdict {
				verdictMade(t, e, tc.sql)
			} else if _, err := collect(t, e, tc.sql); err != nil {
				t.Fatal(err)
			}
			exec(t, a, foldKiller)
			exec(t, a, tc.change)
			alive(t, victim, "before the statement")
			err := collectVetted(t, e, tc.sql)
			if !refusalNames(err, "fold()") {
				t.Errorf("err = %v, want a refusal naming fold()", err)
			}
			alive(t, victim, "the statement")
		})
	}
}

// TestGuardKnowledgeOnABusyServer: transactions that commit data only
// change the server's state, not the database's own objects: statements
// go on with what the guard read (the print is the same), which it reads
// again once, after a function is made.
func TestGuardKnowledgeOnABusyServer(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE TABLE churn (x int)`)
	e := openOne(t, url)
	loads := postgres.LocalLoads(e)
	run := func(i int) {
		t.Helper()
		exec(t, a, fmt.Sprintf(`INSERT INTO churn VALUES (%d)`, i))
		res, err := collect(t, e, fmt.Sprintf(`SELECT count(*) FROM "Genre" WHERE "GenreId" > %d`, i))
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(25-i) {
			t.Fatalf("statement %d: %v %v", i, err, res)
		}
	}
	for i := range 6 {
		run(i)
	}
	if got := postgres.LocalLoads(e) - loads; got != 0 {
		t.Errorf("the guard read the database's objects again %d times while only data was written", got)
	}
	exec(t, a, `CREATE FUNCTION made_later() RETURNS int LANGUAGE sql AS 'SELECT 1'`)
	for i := 6; i < 10; i++ {
		run(i)
	}
	if got := postgres.LocalLoads(e) - loads; got != 1 {
		t.Errorf("after a function was made, the guard read the database's objects %d times, want 1", got)
	}
}

// TestPlanningWaitsForNoLock: the planner locks the inheritance children
// and partitions of what a statement reads, which its Parse does not:
// a statement checked as current (fresh.go, vetted.go) that then waited
// for a child held by a transaction adding a CHECK constraint that calls
// the database's own code would plan with that constraint once it
// commits, running the code (constraint exclusion folds it). The
// transaction began before the statement (before its verdict was made,
// for the second case). Nothing of the database's own code may run.
func TestPlanningWaitsForNoLock(t *testing.T) {
	for _, verdict := range []bool{false, true} {
		t.Run(fmt.Sprintf("verdict=%v", verdict), func(t *testing.T) {
			url := servers.Postgres(t)
			a := admin(t, url)
			exec(t, a, `CREATE TABLE kids (k int)`)
			exec(t, a, `CREATE TABLE kid1 () INHERITS (kids)`)
			exec(t, a, `INSERT INTO kid1 SELECT generate_series(1, 10)`)
			exec(t, a, foldKiller)
			victim := victimSession(t, url)
			e := openOne(t, url)
			const sql = `SELECT count(*) FROM kids WHERE k IS NOT NULL`
			ddl := admin(t, url)
			exec(t, ddl, "BEGIN")
			exec(t, ddl, "SELECT pg_current_xact_id()")
			if verdict {
				verdictMade(t, e, sql)
			} else if _, err := collect(t, e, sql); err != nil {
				t.Fatal(err)
			}
			exec(t, ddl, `ALTER TABLE kid1 ADD CONSTRAINT folded CHECK (fold(1) > 0 OR k IS NULL)`)
			done := make(chan error, 1)
			go func() {
				_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 10 * time.Second})
				done <- err
			}()
			// Commit once the statement waits for the child's lock, or
			// when it has ended without waiting.
			var err error
			ended := false
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				select {
				case err = <-done:
					ended = true
				default:
				}
				if ended || servers.PostgresColumn[int64](t, a, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND datname = current_database()`)[0] > 0 {
					break
				}
			}
			exec(t, ddl, "COMMIT")
			if !ended {
				err = <-done
			}
			t.Logf("the statement: %v", err)
			alive(t, victim, "a constraint added while the statement was planned")
			if err == nil {
				t.Errorf("the statement ran: want it refused, or stopped for the lock")
			}
		})
	}
}
