package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/testdb"
)

// binPath is the tablewise binary built once for the tests that need a
// real process (exit codes, peak memory, wall time).
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tablewise-bin-")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "tablewise")
	out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic("build tablewise: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type procResult struct {
	code    int
	stdout  string
	stderr  string
	elapsed time.Duration
	cpu     time.Duration // user and system time of the process
	maxRSS  int64         // bytes
}

// killAfter ends a tablewise process that runs this long, so that a
// statement that ignores its deadline fails the test instead of hanging it.
const killAfter = 30 * time.Second

func runBin(t *testing.T, stdin string, args ...string) procResult {
	t.Helper()
	return runProc(t, nil, stdin, args...)
}

// runProc runs the built binary with extra environment variables and
// stdin, measuring its wall time, CPU time and peak memory.
func runProc(t *testing.T, env []string, stdin string, args ...string) procResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), killAfter)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	start := time.Now()
	err := cmd.Run()
	r := procResult{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
			if ctx.Err() != nil {
				r.stderr += fmt.Sprintf("\n(killed after %v)", killAfter)
			}
		} else {
			t.Fatalf("run tablewise: %v", err)
		}
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return r
}

// TestAdversarial runs every way of writing, escaping or exhausting the
// database through the real binary: writes and DDL exit 3 naming what was
// refused, bombs end with 3, 4 or 5 within the deadline plus a second and
// under 512 MiB, and legitimate reads with scary words run. The file's
// bytes are the same at the end.
func TestAdversarial(t *testing.T) {
	path := testdb.Fixture(t)
	before := testdb.FileHash(t, path)
	vacuumTarget := filepath.Join(t.TempDir(), "vacuum-copy.db")
	attachTarget := filepath.Join(t.TempDir(), "attached.db")

	refused := []struct{ sql, reason string }{
		// writes
		{"INSERT INTO t VALUES (3, 'x')", "INSERT"},
		{"INSERT INTO t SELECT * FROM t", "INSERT"},
		{"INSERT OR IGNORE INTO t VALUES (1, 'x')", "INSERT"},
		{"INSERT INTO t DEFAULT VALUES", "INSERT"},
		{"REPLACE INTO t VALUES (1, 'x')", "INSERT"},
		{"INSERT INTO customer(id, name) VALUES (1, 'x') ON CONFLICT(id) DO UPDATE SET name = 'y'", "INSERT"},
		{"UPDATE t SET a = 1", "UPDATE"},
		{`UPDATE "order" SET total = 0 WHERE id = 1`, "UPDATE"},
		{"UPDATE OR REPLACE t SET a = 2", "UPDATE"},
		{"DELETE FROM t", "DELETE"},
		{`DELETE FROM "Order Details" WHERE 1`, "DELETE"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
		{"WITH x AS (SELECT 1) INSERT INTO t SELECT 1, 'a' FROM x", "INSERT"},
		{"WITH x AS (SELECT 1) UPDATE t SET a = 2", "UPDATE"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5) INSERT INTO t SELECT x, 'r' FROM c", "INSERT"},
		{"EXPLAIN DELETE FROM t", "DELETE"},
		{"EXPLAIN QUERY PLAN DELETE FROM t", "DELETE"},
		{"EXPLAIN INSERT INTO t VALUES (1, 'a')", "INSERT"},
		{"EXPLAIN DROP TABLE t", "DROP"},
		// DDL, including no-ops that never reach the authorizer
		{"DROP TABLE t", "DROP TABLE"},
		{"DROP TABLE IF EXISTS missing", "DROP"},
		{"DROP VIEW IF EXISTS missing", "DROP"},
		{"DROP VIEW big_orders", "DROP VIEW"},
		{"DROP INDEX order_customer", "DROP INDEX"},
		{"DROP INDEX IF EXISTS missing", "DROP"},
		{"DROP TRIGGER IF EXISTS missing", "DROP"},
		{"CREATE TABLE x (a)", "CREATE TABLE"},
		{"CREATE TABLE IF NOT EXISTS t (a)", "CREATE"},
		{"CREATE TEMP TABLE x (a)", "CREATE TEMP TABLE"},
		{"CREATE TABLE x AS SELECT * FROM t", "CREATE TABLE"},
		{"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
		{"CREATE TEMP VIEW v AS SELECT 1", "CREATE TEMP VIEW"},
		{"CREATE INDEX i ON t(a)", "CREATE INDEX"},
		{"CREATE UNIQUE INDEX IF NOT EXISTS i ON t(a)", "CREATE INDEX"},
		{"CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t; END", "CREATE TRIGGER"},
		{"CREATE VIRTUAL TABLE v USING fts5(x)", "CREATE VIRTUAL TABLE"},
		{"ALTER TABLE t ADD COLUMN c", "ALTER TABLE"},
		{"ALTER TABLE t RENAME TO t2", "ALTER TABLE"},
		{"ALTER TABLE t RENAME COLUMN a TO z", "ALTER TABLE"},
		{"ALTER TABLE t DROP COLUMN b", "ALTER TABLE"},
		// other databases
		{"ATTACH DATABASE '" + attachTarget + "' AS x", "ATTACH"},
		{"ATTACH ':memory:' AS m", "ATTACH"},
		{"ATTACH 'file:/etc/passwd?mode=ro' AS p", "ATTACH"},
		{"DETACH DATABASE x", "DETACH"},
		// transactions
		{"BEGIN", "BEGIN"},
		{"BEGIN IMMEDIATE", "BEGIN"},
		{"BEGIN EXCLUSIVE TRANSACTION", "BEGIN"},
		{"COMMIT", "COMMIT"},
		{"END", "COMMIT"},
		{"ROLLBACK", "ROLLBACK"},
		{"SAVEPOINT s", "SAVEPOINT"},
		{"RELEASE s", "RELEASE"},
		{"ROLLBACK TO s", "ROLLBACK"},
		// pragmas other than introspection, as statements and functions
		{"PRAGMA query_only = 0", "PRAGMA query_only"},
		{"PRAGMA query_only", "PRAGMA query_only"},
		{"PRAGMA journal_mode = WAL", "PRAGMA journal_mode"},
		{"PRAGMA writable_schema = ON", "PRAGMA writable_schema"},
		{"PRAGMA user_version = 7", "PRAGMA user_version"},
		{"PRAGMA main.user_version = 1", "PRAGMA user_version"},
		{"PRAGMA schema_version = 1", "PRAGMA schema_version"},
		{"PRAGMA foreign_keys = OFF", "PRAGMA foreign_keys"},
		{"PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA wal_checkpoint"},
		{"PRAGMA integrity_check", "PRAGMA integrity_check"},
		{"PRAGMA database_list", "PRAGMA database_list"},
		{"PRAGMA temp_store = FILE", "PRAGMA temp_store"},
		{"SELECT * FROM pragma_journal_mode", "journal_mode"},
		{"SELECT * FROM pragma_compile_options", "compile_options"},
		{"SELECT * FROM pragma_database_list", "database_list"},
		// maintenance
		{"VACUUM", "VACUUM"},
		{"VACUUM INTO '" + vacuumTarget + "'", "VACUUM"},
		{"VACUUM main", "VACUUM"},
		{"REINDEX", "REINDEX"},
		{"REINDEX t", "REINDEX"},
		{"ANALYZE", "ANALYZE"},
		{"ANALYZE t", "ANALYZE"},
		// dangerous functions
		{"SELECT load_extension('/tmp/evil.so')", "load_extension"},
		{"SELECT fts3_tokenizer('simple')", "fts3_tokenizer"},
		{"SELECT readfile('/etc/passwd')", "readfile"},
		{"SELECT writefile('/tmp/x', 'y')", "writefile"},
		// more than one statement, however smuggled
		{"SELECT 1; DELETE FROM t", "one statement at a time"},
		{"SELECT 1; SELECT 2", "one statement at a time"},
		{`SELECT 'a\' ; DELETE FROM t; --'`, "one statement at a time"},
		{"SELECT 1 /* x */; DROP TABLE t", "one statement at a time"},
		{"SELECT 1; -- comment\nDELETE FROM t", "one statement at a time"},
		{"SELECT 1;;; DELETE FROM t", "one statement at a time"},
		{"SELECT 1; ATTACH 'x.db' AS y", "one statement at a time"},
		{"SELECT 1;\nPRAGMA query_only = 0", "one statement at a time"},
		{"SELECT 1; garbage", "one statement at a time"},
		{"DELETE FROM t; SELECT 1", "DELETE"},
		{"/* SELECT */ DELETE FROM t", "DELETE"},
		{"-- SELECT\nDROP TABLE t", "DROP TABLE"},
		// input limits
		{"SELECT 1;\x00DELETE FROM t", "NUL"},
		{"SELECT '\xff\xfe'", "UTF-8"},
		{"SELECT " + strings.Repeat("1+", 512<<10) + "1", "limit"},
	}
	for _, c := range refused {
		name := c.sql
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run("refuse/"+name, func(t *testing.T) {
			r := runBin(t, c.sql, "sql", "--db", path, "-")
			if r.code != exitRefused {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, exitRefused, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, c.reason) {
				t.Errorf("stderr %q does not name %q", r.stderr, c.reason)
			}
			if r.stdout != "" {
				t.Errorf("refused statement printed output: %q", r.stdout)
			}
		})
	}

	usage := []string{"", "   \n\t", "-- only a comment", "/* only a comment */", ";", " ; ; "}
	for _, sql := range usage {
		t.Run("usage/"+sql, func(t *testing.T) {
			r := runBin(t, sql, "sql", "--db", path, "-")
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d (stderr %q)", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, "no SQL statement") {
				t.Errorf("stderr %q does not explain", r.stderr)
			}
		})
	}

	const deadline = 2 * time.Second
	recursion := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
	bombs := []string{
		recursion + "SELECT count(*) FROM c",
		recursion + "SELECT x FROM c WHERE x = 1 OR x = -1", // slow only after its first row
		recursion + "SELECT max(x) FROM c",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000) SELECT count(*) FROM c a, c b",
		"SELECT count(*) FROM customer a, customer b, customer c, customer d, customer e, customer f, customer g, customer h, customer i, customer j, customer k, customer l, customer m, customer n, customer o, customer p, customer q",
		"SELECT zeroblob(2e9)",
		"SELECT length(zeroblob(2e9))",
		"SELECT printf('%.*c', 2e9, 'x')",
		"SELECT randomblob(1e9)",
		"SELECT length(replace(hex(zeroblob(1e7)), '0', hex(zeroblob(100))))",
		recursion + "SELECT length(group_concat(hex(randomblob(1000)))) FROM c",
		recursion + "SELECT json_group_array(x) FROM c",
		recursion + "SELECT x FROM c ORDER BY random() LIMIT 1",
		recursion + "SELECT count(DISTINCT x) FROM c",
		"SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		"SELECT 1 WHERE " + strings.Repeat("1 AND ", 5000) + "1",
		"SELECT " + strings.Repeat("abs(", 5000) + "1" + strings.Repeat(")", 5000),
		strings.Repeat("SELECT 1 UNION ALL ", 5000) + "SELECT 1",
		"SELECT " + strings.Repeat("1+", 512<<10) + "1",
		"SELECT 'x' LIKE '" + strings.Repeat("%a", 30000) + "'",
	}
	for _, sql := range bombs {
		name := sql
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run("bomb/"+name, func(t *testing.T) {
			r := runBin(t, sql, "sql", "--db", path, "--timeout", deadline.String(), "-")
			if r.code != exitRefused && r.code != exitDatabase && r.code != exitLimit {
				t.Fatalf("exit %d, want 3, 4 or 5\nstderr: %s", r.code, r.stderr)
			}
			if r.elapsed > deadline+time.Second {
				t.Errorf("took %v, more than the %v deadline plus a second", r.elapsed, deadline)
			}
			if r.maxRSS > 512<<20 {
				t.Errorf("peak memory %d MiB, over 512 MiB", r.maxRSS>>20)
			}
			if strings.TrimSpace(r.stderr) == "" {
				t.Error("no message on stderr")
			}
		})
	}

	legit := []struct{ sql, want string }{
		{"SELECT 'DELETE FROM t'", "DELETE FROM t"},
		{`SELECT 1 AS "update"`, "update"},
		{`SELECT a AS "drop table t" FROM t`, "drop table t"},
		{"SELECT 'a; DELETE FROM t'", "a; DELETE FROM t"},
		{"SELECT 1 -- ; DELETE FROM t", "1"},
		{"/* DELETE */ SELECT 42", "42"},
		{"SELECT 7;", "7"},
		{"SELECT 8;  -- done", "8"},
		{"SELECT 9 /* unterminated", "9"},
		{`SELECT count(*) FROM "order"`, "4"},
		{`SELECT sum(qty) FROM "Order Details"`, "6"},
		{"SELECT away FROM Match WHERE id = 2", "Łódź"},
		{"SELECT count(*) FROM big_orders", "2"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 10) SELECT sum(x) FROM c", "55"},
		{"VALUES (1, 'a'), (2, 'b')", "b"},
		{"SELECT 1 UNION SELECT 2 INTERSECT SELECT 2", "2"},
		{"SELECT a FROM t EXCEPT SELECT 1", "2"},
		{"SELECT b, row_number() OVER (ORDER BY a DESC) AS rn FROM t", "two,1"},
		{"SELECT 'a' || 'b'", "ab"},
		{"SELECT replace('DROP TABLE t', 'DROP', 'KEEP')", "KEEP TABLE t"},
		{"PRAGMA table_info(t)", "a,INTEGER"},
		{`PRAGMA table_info("order")`, "customer_id"},
		{"PRAGMA table_xinfo(t)", "b,TEXT"},
		{`PRAGMA index_list("order")`, "order_customer"},
		{"PRAGMA index_info(order_customer)", "customer_id"},
		{`PRAGMA foreign_key_list("order")`, "customer"},
		{"SELECT name FROM pragma_table_info('Order Details')", "product"},
		{"SELECT * FROM pragma_foreign_key_list('Order Details')", "order"},
		{"EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1", "SCAN"},
		{"SELECT name FROM sqlite_schema WHERE type = 'view'", "big_orders"},
	}
	for _, c := range legit {
		t.Run("read/"+c.sql, func(t *testing.T) {
			r := runBin(t, "", "sql", "--db", path, "--format", "csv", c.sql)
			if r.code != exitOK {
				t.Fatalf("exit %d, want 0\nstderr: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, c.want) {
				t.Errorf("output %q lacks %q", r.stdout, c.want)
			}
		})
	}

	if n := len(refused) + len(usage) + len(bombs); n < 80 {
		t.Errorf("only %d adversarial cases", n)
	}
	if after := testdb.FileHash(t, path); after != before {
		t.Fatal("the database file changed")
	}
	for _, p := range []string{vacuumTarget, attachTarget, path + "-journal", path + "-wal"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}
