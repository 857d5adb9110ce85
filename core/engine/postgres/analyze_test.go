package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestExplainAnalyze: EXPLAIN (ANALYZE) gives each plan node its actual
// rows and time and the statement's own; a leading EXPLAIN is dropped.
func TestExplainAnalyze(t *testing.T) {
	e := open(t, servers.Postgres(t))
	for _, sql := range []string{
		`SELECT "GenreId", count(*) FROM "Track" GROUP BY 1`,
		`EXPLAIN SELECT "GenreId", count(*) FROM "Track" GROUP BY 1`,
	} {
		p, err := e.ExplainAnalyze(context.Background(), sql, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if p.Actual == nil || p.Actual.Rows != 25 || !p.Actual.PerStep || p.Actual.MS <= 0 {
			t.Errorf("%s: actual %+v, want 25 rows per step", sql, p.Actual)
		}
		var scan bool
		for _, s := range p.Steps {
			if s.ActualRows == nil || s.ActualMS == nil {
				t.Errorf("%s: step %q has no actuals", sql, s.Detail)
				continue
			}
			if s.Scan == "Track" {
				scan = *s.ActualRows == 3503
			}
		}
		if !scan {
			t.Errorf("%s: no scan of Track with 3,503 actual rows:\n%s", sql, p.Text())
		}
		if !strings.Contains(p.Text(), "actual 3,503 rows") || !strings.Contains(p.Text(), "returned 25 rows") {
			t.Errorf("%s: text\n%s", sql, p.Text())
		}
	}
}

// TestExplainAnalyzeAdversarial: ANALYZE runs the statement, so every
// statement Run refuses, ExplainAnalyze refuses too (a dozen families of
// TestAdversarial), and the server is unchanged: table checksums, large
// objects, advisory locks, relations, configuration, no file written, the
// other session alive. A slow statement stops at the deadline (2 s on
// pg_sleep(30): within 3 s) and is gone from the server.
func TestExplainAnalyzeAdversarial(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	// Code the text does not show: the server's plan of it, as Run vets
	// it, must.
	exec(t, a, `CREATE VIEW leak AS SELECT pg_read_file('/etc/hostname') AS f`)
	exec(t, a, `CREATE FUNCTION leak_sql() RETURNS text LANGUAGE sql AS $$ SELECT pg_read_file('/etc/hostname') $$`)
	exec(t, a, `CREATE DOMAIN locked AS int CHECK (pg_try_advisory_lock(VALUE::bigint))`)
	exec(t, a, `CREATE FUNCTION lock_step(int, int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_lock($2); RETURN $1; END $$`)
	exec(t, a, `CREATE AGGREGATE lock_all(int) (SFUNC = lock_step, STYPE = int, INITCOND = '0')`)
	adminPID := servers.PostgresColumn[int](t, a, "SELECT pg_backend_pid()")[0]
	out := filepath.Join(os.TempDir(), fmt.Sprintf("tablewise-pg-analyze-%d", os.Getpid()))
	os.Remove(out)
	t.Cleanup(func() { os.Remove(out) })
	before := snapshot(t, a)
	e := open(t, url)
	for _, sql := range []string{
		`DELETE FROM "Track"`,
		`UPDATE "Track" SET "Name" = 'x'`,
		`WITH d AS (DELETE FROM "Track" RETURNING *) SELECT count(*) FROM d`,
		"COPY (SELECT 1) TO '" + out + "'",
		"SELECT pg_read_file('/etc/passwd')",
		"SELECT lo_import('/etc/hostname')",
		"SELECT pg_advisory_lock(42)",
		"SELECT pg_try_advisory_lock(42)",
		`SELECT * FROM "Track" FOR UPDATE`,
		"SELECT set_config('statement_timeout', '0', false)",
		"SELECT set_config('role', 'pg_read_server_files', false)",
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", adminPID),
		"SELECT pg_reload_conf()",
		"SELECT query_to_xml($$SELECT pg_advisory_lock(1)$$, true, true, '')",
		"SELECT nextval('x')",
		"SELECT * FROM leak",
		"SELECT leak_sql()",
		"SELECT 42::locked",
		`SELECT lock_all("GenreId") FROM "Genre"`,
		`EXPLAIN ANALYZE DELETE FROM "Track"`,
		`EXPLAIN (ANALYZE) SELECT pg_advisory_lock(1)`,
		`SELECT 1; DELETE FROM "Track"`,
		`SELECT 'a\'; DELETE FROM "Track"; --'`,
		"SHOW search_path",
	} {
		_, runErr := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 5 * time.Second})
		_, err := e.ExplainAnalyze(context.Background(), sql, 5*time.Second)
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%s: not refused: %v", sql, err)
		} else if rej.Reason == "" || rej.Hint == "" {
			t.Errorf("%s: refusal without reason or hint: %+v", sql, rej)
		}
		if sql != "SHOW search_path" && !errors.As(runErr, &rej) {
			t.Errorf("%s: Run did not refuse it: %v", sql, runErr)
		}
	}

	servers.StopsAtDeadline(t, "ExplainAnalyze of pg_sleep(30)", func(timeout time.Duration) error {
		_, err := e.ExplainAnalyze(context.Background(), "SELECT pg_sleep(30) AS analyze_marker", timeout)
		return err
	}, func() int { return running(t, a, "analyze_marker") })

	unchanged(t, a, before)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was written (%v)", out, err)
	}
	var one int
	if err := a.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("the other session: %v", err)
	}
	// The pooled sessions are reset: the next statement has its own
	// deadline and no lock is held.
	res, err := query.Collect(context.Background(), e, "SELECT current_setting('statement_timeout')", query.Options{Timeout: 3 * time.Second})
	if err != nil || res.Rows[0][0] != "3s" {
		t.Errorf("next statement: %v %v", res, err)
	}
}
