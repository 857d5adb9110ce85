package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestExplainAnalyzeSQLite: SQLite gives no actuals per step, so explain
// --analyze runs the statement once to count its rows and time it, and
// says so; --timeout must leave it time.
func TestExplainAnalyzeSQLite(t *testing.T) {
	code, out, errOut := runCLI(t, "", "explain", "--analyze", "SELECT count(*) FROM order_items WHERE quantity > 3")
	if code != 0 || !strings.HasPrefix(out, "QUERY PLAN\n`--SCAN order_items\nran in ") || !strings.Contains(out, " ms and returned 1 row\n") ||
		!strings.Contains(out, "note: SQLite gives no rows or time per step: the statement ran once, in full, to count its rows and time it\n") {
		t.Errorf("exit %d: %q %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", "explain", "--analyze", "--format", "json", "SELECT * FROM orders WHERE employee_id = 3")
	var p engine.Plan
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.Actual == nil || p.Actual.Rows != 539 || p.Actual.PerStep {
		t.Errorf("json: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, "", "explain", "--analyze", "--timeout", "0s", "SELECT 1"); code != exitUsage || !strings.Contains(errOut, "--timeout") {
		t.Errorf("--timeout 0: exit %d: %s", code, errOut)
	}
}

// TestExplainAnalyzeAdversarialSQLite: explain --analyze refuses what sql
// refuses (a dozen of TestAdversarial's families, exit 3) and stops what
// sql stops at the deadline (exit 5 within the deadline plus a second);
// the file's bytes are the same at the end.
func TestExplainAnalyzeAdversarialSQLite(t *testing.T) {
	path := testdb.Fixture(t)
	before := testdb.FileHash(t, path)
	attach := filepath.Join(t.TempDir(), "attached.db")
	vacuum := filepath.Join(t.TempDir(), "vacuum.db")
	for _, q := range []string{
		"DELETE FROM t",
		"INSERT INTO t SELECT * FROM t",
		"UPDATE t SET a = 1",
		"WITH x AS (SELECT 1) DELETE FROM t",
		"DROP TABLE IF EXISTS missing",
		"CREATE TABLE x AS SELECT * FROM t",
		"ATTACH DATABASE '" + attach + "' AS x",
		"BEGIN IMMEDIATE",
		"PRAGMA writable_schema = ON",
		"SELECT * FROM pragma_journal_mode",
		"VACUUM INTO '" + vacuum + "'",
		"SELECT load_extension('/tmp/evil.so')",
		"SELECT writefile('/tmp/x', 'y')",
		"SELECT fts3_tokenizer('simple')",
		"SELECT 1; DELETE FROM t",
		`SELECT 'a\' ; DELETE FROM t; --'`,
		"EXPLAIN DELETE FROM t",
	} {
		if code, _, errOut := runCLI(t, "", "explain", "--db", path, "--analyze", "--", q); code != exitRefused {
			t.Errorf("%s: exit %d, want %d: %s", q, code, exitRefused, errOut)
		}
	}
	const deadline = 2 * time.Second
	r := runBin(t, "", "explain", "--db", path, "--analyze", "--timeout", deadline.String(), "--",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 1 OR x = -1")
	checkBounded(t, r, deadline)
	if r.code != exitLimit {
		t.Errorf("a statement that never ends: exit %d, want %d: %s", r.code, exitLimit, r.stderr)
	}
	if testdb.FileHash(t, path) != before {
		t.Error("the database file changed")
	}
	for _, p := range []string{attach, vacuum, "/tmp/x"} {
		if _, err := os.Stat(p); err == nil && p != "/tmp/x" {
			t.Errorf("%s was written", p)
		}
	}
}

// TestExplainAnalyzeServers: through the binary on PostgreSQL and
// MariaDB copies of Chinook, explain --analyze shows actual rows per
// step, refuses a write and a side-effect function (exit 3), and stops a
// 30 s sleep at a 2 s deadline (exit 5 within 3 s), leaving nothing
// running on the server.
func TestExplainAnalyzeServers(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		url := servers.Postgres(t)
		r := runBin(t, "", "explain", "--db", url, "--analyze", `SELECT "GenreId", count(*) FROM "Track" GROUP BY 1`)
		if r.code != 0 || !strings.Contains(r.stdout, "Seq Scan on Track  (actual 3,503 rows") || !strings.Contains(r.stdout, "returned 25 rows") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		for _, q := range []string{`DELETE FROM "Track"`, "SELECT pg_advisory_lock(1)", "SELECT set_config('statement_timeout', '0', false)", "COPY (SELECT 1) TO '/tmp/tw-analyze-copy'"} {
			if r := runBin(t, "", "explain", "--db", url, "--analyze", q); r.code != exitRefused {
				t.Errorf("%s: exit %d: %s", q, r.code, r.stderr)
			}
		}
		r = runBin(t, "", "explain", "--db", url, "--analyze", "--timeout", "2s", "SELECT pg_sleep(30) AS tw_cli_analyze")
		if r.code != exitLimit || r.elapsed > 3*time.Second {
			t.Errorf("pg_sleep(30) with a 2 s deadline: exit %d after %s: %s", r.code, r.elapsed, r.stderr)
		}
		var n int
		if err := servers.PostgresClient(t, url).QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND strpos(query, 'tw_cli_analyze') > 0 AND pid <> pg_backend_pid()").Scan(&n); err != nil || n != 0 {
			t.Errorf("still on the server: %d %v", n, err)
		}
	})
	t.Run("mysql", func(t *testing.T) {
		url := servers.MySQL(t)
		r := runBin(t, "", "explain", "--db", url, "--analyze", "SELECT GenreId, COUNT(*) FROM Track GROUP BY GenreId")
		if r.code != 0 || !strings.Contains(r.stdout, "actual 3,503 rows") {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		out := filepath.Join(t.TempDir(), "outfile")
		for _, q := range []string{"DELETE FROM Genre", "SELECT GET_LOCK('tw', 0)", "SELECT 1 INTO OUTFILE '" + out + "'"} {
			if r := runBin(t, "", "explain", "--db", url, "--analyze", q); r.code != exitRefused {
				t.Errorf("%s: exit %d: %s", q, r.code, r.stderr)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s was written", out)
		}
		r = runBin(t, "", "explain", "--db", url, "--analyze", "--timeout", "2s", "SELECT SLEEP(30) AS tw_cli_analyze")
		if r.code != exitLimit || r.elapsed > 3*time.Second {
			t.Errorf("SLEEP(30) with a 2 s deadline: exit %d after %s: %s", r.code, r.elapsed, r.stderr)
		}
		var n int
		servers.MySQLClient(t, url, "").QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%tw_cli_analyze%' AND ID <> CONNECTION_ID()").Scan(&n)
		if n != 0 {
			t.Errorf("SLEEP(30) still on the server after exit 5 (%d)", n)
		}
		r = runBin(t, "", "advise", "--db", url, "--format", "json", "--sql", "SELECT * FROM Track WHERE Composer = 'AC/DC'")
		var a struct {
			Proof       string `json:"proof"`
			Suggestions []struct {
				Create, Proof string
			} `json:"suggestions"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &a) != nil || a.Proof != "estimate" || len(a.Suggestions) != 1 || a.Suggestions[0].Proof != "estimate" {
			t.Errorf("advise: exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
	})
}
