package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// openOne opens url with a single pooled connection, so that every
// statement meets the verdicts the previous ones left.
func openOne(t *testing.T, url string) *postgres.Engine {
	t.Helper()
	e, err := postgres.Open(context.Background(), url, engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func collect(t *testing.T, e *postgres.Engine, sql string) (*query.Result, error) {
	t.Helper()
	return query.Collect(context.Background(), e, sql, query.Options{MaxRows: 100, Timeout: 10 * time.Second})
}

// collectVetted is collect's error, failing the test when the statement
// ran on a verdict made before instead of being vetted again.
func collectVetted(t *testing.T, e *postgres.Engine, sql string) error {
	t.Helper()
	runs := postgres.VettedRuns(e)
	_, err := collect(t, e, sql)
	if postgres.VettedRuns(e) != runs {
		t.Errorf("%s ran on a verdict made before, not vetted again", sql)
	}
	return err
}

// TestOneCallerKeepsToOneConnection: with several connections idle (two
// statements ran at once), statements one after another run on the same
// one, whose verdicts they then meet (a point query runs on its verdict
// from its third run, as with a single connection). Before, idle
// connections took turns, each making its own verdicts.
func TestOneCallerKeepsToOneConnection(t *testing.T) {
	e := open(t, servers.PostgresSample(t))
	ctx := context.Background()
	slow := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := query.Collect(ctx, e, "SELECT pg_catalog.pg_sleep(0.2)", query.Options{MaxRows: 1, Timeout: 10 * time.Second})
			slow <- err
		}()
	}
	for range 2 {
		if err := <-slow; err != nil {
			t.Fatal(err)
		}
	}
	pids := map[any]bool{}
	for range 5 {
		res, err := collect(t, e, "SELECT pg_catalog.pg_backend_pid()")
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("%v %v", err, res)
		}
		pids[res.Rows[0][0]] = true
	}
	if len(pids) != 1 {
		t.Errorf("five statements in a row ran on %d connections, want 1", len(pids))
	}
}

// TestVerdictsRunInOneRoundTrip: a point query seen twice before, with
// this id or another, runs on its verdict (made the second time), and
// answers the row asked for.
func TestVerdictsRunInOneRoundTrip(t *testing.T) {
	e := openOne(t, servers.PostgresSample(t))
	for id := 1; id <= 6; id++ {
		res, err := collect(t, e, fmt.Sprintf("SELECT customer_id, name FROM customers WHERE customer_id = %d", id))
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(id) {
			t.Fatalf("id %d: %v %v", id, err, res)
		}
	}
	if got := postgres.VettedRuns(e); got != 4 {
		t.Errorf("%d of 6 point queries of one shape ran on a verdict, want 4 (all but the first two)", got)
	}
	// A statement without literals to replace is kept under its text.
	for range 3 {
		if res, err := collect(t, e, "SELECT count(*) FROM customers"); err != nil || len(res.Rows) != 1 {
			t.Fatalf("%v %v", err, res)
		}
	}
	if got := postgres.VettedRuns(e); got != 5 {
		t.Errorf("the same text a third time did not run on its verdict: %d verdict runs, want 5", got)
	}
	// ORDER BY 2 sorts by the second column: not a literal to replace.
	res, err := collect(t, e, "SELECT customer_id, name FROM customers WHERE customer_id < 4 ORDER BY 2 DESC LIMIT 2")
	if err != nil || len(res.Rows) != 2 {
		t.Fatalf("%v %v", err, res)
	}
	again, err := collect(t, e, "SELECT customer_id, name FROM customers WHERE customer_id < 5 ORDER BY 2 DESC LIMIT 2")
	if err != nil || len(again.Rows) != 2 || fmt.Sprint(again.Rows[0][1]) < fmt.Sprint(again.Rows[1][1]) {
		t.Fatalf("sorted by name descending: %v %v", err, again)
	}
}

// TestVerdictRunKeepsItsTimeout: a statement run on its verdict runs
// under the statement timeout of its own call, set on the server (the
// check before its Parse sets it), and with the lock timeout the check
// after its Parse sets.
func TestVerdictRunKeepsItsTimeout(t *testing.T) {
	e := openOne(t, servers.PostgresSample(t))
	const sql = "SELECT current_setting('statement_timeout') AS st, current_setting('lock_timeout') AS lt"
	for i, timeout := range []time.Duration{10 * time.Second, 10 * time.Second, 1234 * time.Millisecond, 2345 * time.Millisecond} {
		runs := postgres.VettedRuns(e)
		res, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 1, Timeout: timeout})
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("run %d: %v %v", i+1, err, res)
		}
		if i < 2 {
			continue
		}
		if postgres.VettedRuns(e) != runs+1 {
			t.Fatalf("run %d did not run on its verdict", i+1)
		}
		want := fmt.Sprintf("%dms", timeout.Milliseconds())
		if got := fmt.Sprint(res.Rows[0][0], " ", res.Rows[0][1]); got != want+" 1ms" {
			t.Errorf("run %d with a %v deadline ran with statement_timeout and lock_timeout %q, want %q", i+1, timeout, got, want+" 1ms")
		}
	}
}

// TestVerdictSeesCatalogChange: a statement that passed, run again after
// its view was replaced by one that calls a denied function, is vetted
// again and refused; nothing of it runs.
func TestVerdictSeesCatalogChange(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track"`)
	e := openOne(t, url)
	for id := 1; id <= 3; id++ {
		if _, err := collect(t, e, fmt.Sprintf(`SELECT * FROM cheap WHERE "TrackId" = %d`, id)); err != nil {
			t.Fatal(err)
		}
	}
	if postgres.VettedRuns(e) != 1 {
		t.Fatalf("the third query did not run on its verdict (%d)", postgres.VettedRuns(e))
	}
	// Within the guard's 10 s memory of the database's own objects: only
	// the plan shows the call.
	exec(t, a, `CREATE OR REPLACE VIEW cheap AS SELECT "TrackId", "Name" FROM "Track" WHERE pg_try_advisory_lock(4242)`)
	_, err := collect(t, e, `SELECT * FROM cheap WHERE "TrackId" = 4`)
	var rej *guard.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("after the view changed: err = %v, want a refusal", err)
	}
	var locks int
	if err := a.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`).Scan(&locks); err != nil || locks != 0 {
		t.Errorf("advisory locks held after the refusal: %d (%v)", locks, err)
	}
	if postgres.VettedRuns(e) != 1 {
		t.Errorf("a statement ran on a verdict made before the view changed (%d)", postgres.VettedRuns(e))
	}
}

// TestVerdictAfterReload: reloading the configuration (which may change
// the search_path every session resolves names with) ends the verdicts.
func TestVerdictAfterReload(t *testing.T) {
	url := servers.PostgresSample(t)
	a := admin(t, url)
	e := openOne(t, url)
	for id := 1; id <= 3; id++ {
		if _, err := collect(t, e, fmt.Sprintf("SELECT * FROM customers WHERE customer_id = %d", id)); err != nil {
			t.Fatal(err)
		}
	}
	if postgres.VettedRuns(e) != 1 {
		t.Fatalf("the third query did not run on its verdict (%d)", postgres.VettedRuns(e))
	}
	exec(t, a, "SELECT pg_reload_conf()")
	// The server signals its sessions; each reads the files again before
	// its next command.
	time.Sleep(300 * time.Millisecond)
	res, err := collect(t, e, "SELECT * FROM customers WHERE customer_id = 4")
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%v %v", err, res)
	}
	if postgres.VettedRuns(e) != 1 {
		t.Errorf("a statement ran on a verdict made before the configuration was reloaded (%d)", postgres.VettedRuns(e))
	}
	if _, err := collect(t, e, "SELECT * FROM customers WHERE customer_id = 5"); err != nil || postgres.VettedRuns(e) != 2 {
		t.Errorf("after vetting again, the next one did not run on its verdict (%v, %d)", err, postgres.VettedRuns(e))
	}
}

// TestVerdictShapeSeesEveryPartition: the shape of a query on a
// partitioned table is not kept when its generic plan prunes partitions:
// the same query for a partition read through a program is vetted and
// refused, and the program never runs.
func TestVerdictShapeSeesEveryPartition(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	mark := filepath.Join(os.TempDir(), fmt.Sprintf("tablewise-partition-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.Remove(mark) })
	exec(t, a, "CREATE EXTENSION file_fdw")
	exec(t, a, "CREATE SERVER files FOREIGN DATA WRAPPER file_fdw")
	exec(t, a, "CREATE TABLE parted (k int, v text) PARTITION BY LIST (k)")
	exec(t, a, "CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1)")
	exec(t, a, "INSERT INTO parted VALUES (1, 'one')")
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE parted_2 PARTITION OF parted FOR VALUES IN (2) SERVER files OPTIONS (program 'touch %s; echo 2,two', format 'csv')`, mark))
	e := openOne(t, url)
	for range 3 {
		res, err := collect(t, e, "SELECT v FROM parted WHERE k = 1")
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("partition 1: %v %v", err, res)
		}
	}
	_, err := collect(t, e, "SELECT v FROM parted WHERE k = 2")
	var rej *guard.Rejection
	if !errors.As(err, &rej) {
		t.Errorf("partition 2 (read through a program): err = %v, want a refusal", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("the partition's program ran: %s exists", mark)
	}
}
