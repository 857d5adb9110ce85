package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestMySQLCommands runs sql, schema and export through the binary on a
// MariaDB copy of Chinook: results, a refusal (exit 3), and SLEEP(30)
// with a 2 s deadline (exit 5 within 3 s, gone from the server).
func TestMySQLCommands(t *testing.T) {
	url := servers.MySQL(t)
	r := runBin(t, "", "sql", "--db", url, "SELECT g.Name, COUNT(*) AS tracks FROM Track t JOIN Genre g USING (GenreId) GROUP BY g.Name ORDER BY tracks DESC LIMIT 2")
	if r.code != 0 || r.stdout != "Name,tracks\r\nRock,1297\r\nLatin,579\r\n" {
		t.Errorf("sql: %d %q %s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", "sql", "--db", url, "--format", "json", "SELECT InvoiceDate, Total FROM Invoice WHERE InvoiceId = 1")
	if r.code != 0 || !strings.Contains(r.stdout, `"rows":[["2021-01-01T00:00:00",1.98]]`) {
		t.Errorf("sql json: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", "sql", "--db", url, "DELETE FROM Genre")
	if r.code != 3 || !strings.Contains(r.stderr, "DELETE is not allowed") {
		t.Errorf("DELETE: %d %s", r.code, r.stderr)
	}
	r = runBin(t, "", "sql", "--db", url, "SELECT LOAD_FILE('/etc/passwd')")
	if r.code != 3 || !strings.Contains(r.stderr, "LOAD_FILE") {
		t.Errorf("LOAD_FILE: %d %s", r.code, r.stderr)
	}
	r = runBin(t, "", "sql", "--db", url, "SELECT nope FROM Track")
	if r.code != 4 || !strings.Contains(r.stderr, "nope") {
		t.Errorf("unknown column: %d %s", r.code, r.stderr)
	}

	r = runBin(t, "", "sql", "--db", url, "--timeout", "2s", "SELECT SLEEP(30) AS tw_cli_sleep")
	if r.code != 5 || r.elapsed > 3*time.Second {
		t.Errorf("SLEEP(30) with a 2s deadline: exit %d after %v: %s", r.code, r.elapsed, r.stderr)
	}
	var n int
	servers.MySQLClient(t, url, "").QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%tw_cli_sleep%' AND ID <> CONNECTION_ID()").Scan(&n)
	if n != 0 {
		t.Errorf("SLEEP(30) still on the server after exit 5 (%d)", n)
	}

	r = runBin(t, "", "schema", "--db", url, "PlaylistTrack")
	if r.code != 0 || !strings.Contains(r.stdout, "PlaylistId  INT(11)  PK, FK → Playlist.PlaylistId") || !strings.Contains(r.stdout, "8,715 rows") {
		t.Errorf("schema: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "invoices.csv")
	r = runBin(t, "", "export", "--db", url, "--sql", "SELECT * FROM Invoice ORDER BY InvoiceId", "--out", out)
	b, err := os.ReadFile(out)
	if r.code != 0 || err != nil || strings.Count(string(b), "\r\n") != 413 || !strings.HasPrefix(string(b), "InvoiceId,CustomerId,InvoiceDate") {
		t.Errorf("export: %d %v %s (%d lines)", r.code, err, r.stderr, strings.Count(string(b), "\r\n"))
	}
}

// TestMySQLDoctor: as root, doctor warns that the user is an
// administrator that can write and read server files, and prints the SQL
// for a user who can only read; as such a user (with a password, which
// never shows), every check passes.
func TestMySQLDoctor(t *testing.T) {
	url := servers.MySQL(t)
	r := runBin(t, "", "doctor", "--db", url)
	if r.code != 1 || !strings.Contains(r.stdout, "WARNING: root@") || !strings.Contains(r.stdout, "an administrator") ||
		!strings.Contains(r.stdout, "GRANT SELECT, SHOW VIEW ON `") || !strings.Contains(r.stdout, "has FILE") {
		t.Errorf("doctor as root: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	roURL, user, password := servers.MySQLReader(t, url)
	r = runBin(t, "", "doctor", "--db", roURL)
	if r.code != 0 || !strings.Contains(r.stdout, "all checks passed") || strings.Contains(r.stdout, "WARNING") {
		t.Errorf("doctor as a read-only user: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, password) || !strings.Contains(r.stdout, user+":xxxxx@") {
		t.Errorf("the password shows, or the URL is not shown redacted:\n%s%s", r.stdout, r.stderr)
	}
	r = runBin(t, "", "sql", "--db", strings.Replace(roURL, password, password+"-wrong", 1), "SELECT 1")
	if r.code != 4 || strings.Contains(r.stderr, password) || !strings.Contains(r.stderr, "refused the login") {
		t.Errorf("a wrong password: exit %d %s", r.code, r.stderr)
	}
}

// TestMySQLMCPStdio: tablewise mcp over stdio serves a MariaDB database:
// run_sql answers, refuses a named lock and leaves no lock held.
func TestMySQLMCPStdio(t *testing.T) {
	url := servers.MySQL(t)
	c := binMCP(t, nil, url, "mysql-test")
	mcpSQL(t, c, map[string]any{"sql": "SELECT COUNT(*) AS n FROM Genre"}, false, "n\n25\n")
	res := mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT GET_LOCK('tw-mcp', 0)"})
	if !res.IsError || !strings.Contains(resultText(res), "GET_LOCK") {
		t.Errorf("GET_LOCK: %s", resultText(res))
	}
	res = mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(1)"})
	if !res.IsError {
		t.Errorf("SET STATEMENT: %s", resultText(res))
	}
	var held sql.NullInt64
	servers.MySQLClient(t, url, "").QueryRow("SELECT IS_USED_LOCK('tw-mcp')").Scan(&held)
	if held.Valid {
		t.Errorf("lock held by connection %d", held.Int64)
	}
	res = mcptest.Call(t, c, "describe_table", map[string]any{"table": "PlaylistTrack"})
	if res.IsError || !strings.Contains(resultText(res), "TrackId") {
		t.Errorf("describe_table: %s", resultText(res))
	}
	// The tools that write their own SQL write the server's.
	res = mcptest.Call(t, c, "sample_values", map[string]any{"table": "Genre", "column": "Name", "like": "roc"})
	if res.IsError || !strings.Contains(resultText(res), "Rock") {
		t.Errorf("sample_values: %s", resultText(res))
	}
	res = mcptest.Call(t, c, "search_schema", map[string]any{"query": "invoice total"})
	if res.IsError || !strings.Contains(resultText(res), "Invoice") {
		t.Errorf("search_schema: %s", resultText(res))
	}
	res = mcptest.Call(t, c, "explain_sql", map[string]any{"sql": "SELECT * FROM Track WHERE Composer LIKE '%Queen%'"})
	if res.IsError || !strings.Contains(resultText(res), "SCAN Track") {
		t.Errorf("explain_sql: %s", resultText(res))
	}
}
