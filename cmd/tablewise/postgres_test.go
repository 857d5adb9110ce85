package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// runBinEnv runs the built binary with extra environment variables.
func runBinEnv(t *testing.T, env []string, args ...string) procResult {
	t.Helper()
	return runProc(t, env, "", args...)
}

// TestPostgresCommands: sql, schema, export and doctor through the built
// binary against a PostgreSQL database holding Chinook, by --db and by
// TABLEWISE_DB.
func TestPostgresCommands(t *testing.T) {
	url := servers.Postgres(t)

	r := runBinEnv(t, nil, "sql", "--db", url, `SELECT "GenreId", "Name" FROM "Genre" ORDER BY "GenreId" LIMIT 2`)
	if r.code != 0 || r.stdout != "GenreId,Name\r\n1,Rock\r\n2,Jazz\r\n" {
		t.Fatalf("sql: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinEnv(t, []string{"TABLEWISE_DB=" + url}, "sql", `SELECT count(*) AS n FROM "Track"`)
	if r.code != 0 || r.stdout != "n\r\n3503\r\n" {
		t.Fatalf("sql with TABLEWISE_DB: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinEnv(t, nil, "sql", "--db", url, `DELETE FROM "Track"`)
	if r.code != exitRefused || !strings.Contains(r.stderr, "refused: DELETE is not allowed") {
		t.Errorf("DELETE: exit %d: %s", r.code, r.stderr)
	}
	r = runBinEnv(t, nil, "sql", "--db", url, "SELECT pg_read_file('/etc/passwd')")
	if r.code != exitRefused || !strings.Contains(r.stderr, "pg_read_file()") {
		t.Errorf("pg_read_file: exit %d: %s", r.code, r.stderr)
	}
	r = runBinEnv(t, nil, "sql", "--db", url, "--timeout", "2s", "SELECT pg_sleep(30)")
	if r.code != exitLimit || r.elapsed > 3*time.Second {
		t.Errorf("pg_sleep(30) with a 2 s deadline: exit %d after %s: %s", r.code, r.elapsed, r.stderr)
	}

	// The summary's example runs as printed, its quoted name kept from
	// the shell.
	r = runBinEnv(t, []string{"TABLEWISE_DB=" + url})
	if r.code != 0 || !strings.Contains(r.stdout, `Try:  tablewise sql 'SELECT * FROM "Album" LIMIT 5'`) {
		t.Errorf("summary: exit %d\n%s", r.code, r.stdout)
	}

	r = runBinEnv(t, nil, "schema", "--db", url, "Track")
	for _, want := range []string{"Track", "TrackId", "AlbumId", "Album"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("schema: exit %d, no %q in\n%s\n%s", r.code, want, r.stdout, r.stderr)
		}
	}

	out := filepath.Join(t.TempDir(), "tracks.csv")
	r = runBinEnv(t, nil, "export", "--db", url, "--sql", `SELECT "TrackId", "Name", "UnitPrice" FROM "Track" ORDER BY "TrackId"`, "--out", out)
	if r.code != 0 {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n")), "\n")
	if len(lines) != 3504 || lines[0] != "TrackId,Name,UnitPrice" || lines[1] != "1,For Those About To Rock (We Salute You),0.99" {
		t.Errorf("export: %d lines, starting %q", len(lines), lines[:2])
	}

	// A password in the URL is never shown: in errors, in doctor's
	// report, in the schema's header.
	secret := strings.Replace(url, "postgres://postgres@", "postgres://postgres:s3cret-pw@", 1)
	for _, args := range [][]string{{"doctor", "--db", secret}, {"schema", "--db", secret}, {"sql", "--db", secret, "SELECT * FROM nowhere"},
		{"sql", "--db", strings.Replace(secret, "127.0.0.1:5432", "127.0.0.1:1", 1), "SELECT 1"}} {
		r = runBinEnv(t, nil, args...)
		if strings.Contains(r.stdout+r.stderr, "s3cret-pw") {
			t.Errorf("%s shows the password:\n%s\n%s", args[0], r.stdout, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "postgres:xxxxx@127.0.0.1:1") || r.code != exitDatabase {
		t.Errorf("unreachable server: exit %d: %s", r.code, r.stderr)
	}

	r = runBinEnv(t, nil, "doctor", "--db", url)
	for _, want := range []string{"PostgreSQL 1", "SUPERUSER", "GRANT pg_read_all_data TO tablewise_reader", `guard refuses "SELECT pg_read_file('/etc/hostname')"`, "catalog readable"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor: no %q in\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "cannot write tables") {
		t.Errorf("doctor tells a superuser it cannot write tables:\n%s", r.stdout)
	}
	if r.code == 0 || strings.Contains(r.stdout, "FAIL  guard") {
		t.Errorf("doctor as a superuser: exit %d (want a failed privilege check, every guard probe ok)\n%s", r.code, r.stdout)
	}
}

// TestPostgresDoctorLeastPrivilege: a role made with the SQL doctor
// prints passes every check.
func TestPostgresDoctorLeastPrivilege(t *testing.T) {
	url := servers.Postgres(t)
	a := servers.PostgresClient(t, url)
	role := "tw_reader_" + strings.ToLower(strings.TrimPrefix(filepath.Base(strings.Split(url, "?")[0]), "tw_"))
	role = role[:min(len(role), 60)]
	dbName := strings.Split(filepath.Base(url), "?")[0]
	for _, sql := range []string{
		`DROP ROLE IF EXISTS "` + role + `"`,
		`CREATE ROLE "` + role + `" LOGIN`,
		`GRANT CONNECT ON DATABASE "` + dbName + `" TO "` + role + `"`,
		`GRANT pg_read_all_data TO "` + role + `"`,
	} {
		if _, err := a.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		a.Exec(context.Background(), `DROP OWNED BY "`+role+`"`)
		a.Exec(context.Background(), `DROP ROLE IF EXISTS "`+role+`"`)
	})
	readerURL := strings.Replace(url, "postgres://postgres@", "postgres://"+role+"@", 1)
	r := runBinEnv(t, nil, "doctor", "--db", readerURL)
	if r.code != 0 || !strings.Contains(r.stdout, "all checks passed") || !strings.Contains(r.stdout, "is not a superuser") {
		t.Errorf("doctor as a read-only role: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// A grant to write one table fails doctor, naming it.
	if _, err := a.Exec(context.Background(), `GRANT INSERT ON "Genre" TO "`+role+`"`); err != nil {
		t.Fatal(err)
	}
	r = runBinEnv(t, nil, "doctor", "--db", readerURL)
	if r.code == 0 || !strings.Contains(r.stdout, "may write 1 table(s)") || !strings.Contains(r.stdout, "GRANT pg_read_all_data") {
		t.Errorf("doctor with a write grant: exit %d\n%s", r.code, r.stdout)
	}
	if _, err := a.Exec(context.Background(), `REVOKE INSERT ON "Genre" FROM "`+role+`"`); err != nil {
		t.Fatal(err)
	}
	// The superuser's URL with tablewise_role runs every transaction as
	// the reader: what it cannot read is refused by the server.
	if _, err := a.Exec(context.Background(), `REVOKE pg_read_all_data FROM "`+role+`"`); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	r = runBinEnv(t, nil, "sql", "--db", url+sep+"tablewise_role="+role, `SELECT count(*) FROM "Track"`)
	if r.code != exitDatabase || !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("SET ROLE to a role without grants: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}

// TestPostgresMCP: tablewise mcp over stdio (the built binary) runs
// run_sql on PostgreSQL; set_config and advisory locks are refused and
// leave nothing for later calls on the same pooled sessions.
func TestPostgresMCP(t *testing.T) {
	url := servers.Postgres(t)
	secret := strings.Replace(url, "postgres://postgres@", "postgres://postgres:s3cret-pw@", 1)
	c := binMCP(t, []string{"NO_COLOR=1"}, secret, "cmd-test")
	mcpSQL(t, c, map[string]any{"sql": `SELECT "Name" FROM "Artist" WHERE "ArtistId" = 1`}, false, "AC/DC")
	for _, sql := range []string{"SELECT set_config('statement_timeout', '0', false)", "SELECT pg_advisory_lock(1)", "SET statement_timeout = 0"} {
		res := mcptest.Call(t, c, "run_sql", map[string]any{"sql": sql})
		if !res.IsError || !strings.Contains(resultText(res), "not allowed") {
			t.Errorf("%s: %s", sql, resultText(res))
		}
	}
	for range 6 { // more calls than the pool has connections
		res := mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT current_setting('statement_timeout') AS t, (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS locks"})
		text := resultText(res)
		if res.IsError || !strings.Contains(text, "\nt | locks\n5s | 0\n") {
			t.Fatalf("a later call: %s", text)
		}
	}
	// A slow statement after the attempts still stops at run_sql's
	// deadline, and leaves nothing running on the server.
	start := time.Now()
	res := mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT pg_sleep(30) AS mcp_sleep_marker"})
	if !res.IsError || !strings.Contains(resultText(res), "deadline") || time.Since(start) > 8*time.Second {
		t.Errorf("pg_sleep(30) after %s: %s", time.Since(start), resultText(res))
	}
	var running int
	if err := servers.PostgresClient(t, url).QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%mcp_sleep_marker%' AND pid <> pg_backend_pid()").Scan(&running); err != nil || running != 0 {
		t.Errorf("%d statement(s) still running (%v)", running, err)
	}
	res = mcptest.Call(t, c, "list_tables", nil)
	if res.IsError || !strings.Contains(resultText(res), `"Track"`) {
		t.Errorf("list_tables: %s", resultText(res))
	}
	for _, call := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"describe_table", map[string]any{"table": "Track"}, "AlbumId"},
		{"sample_values", map[string]any{"table": "Genre", "column": "Name", "like": "ROCK"}, "Rock And Roll"},
		{"search_schema", map[string]any{"query": "invoice total"}, "Invoice"},
		{"explain_sql", map[string]any{"sql": `SELECT * FROM "Track" ORDER BY "Name"`}, "Seq Scan on Track"},
	} {
		res = mcptest.Call(t, c, call.tool, call.args)
		if res.IsError || !strings.Contains(resultText(res), call.want) {
			t.Errorf("%s: no %q in %s", call.tool, call.want, resultText(res))
		}
	}
	resources, err := c.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) == 0 {
		t.Error("no MCP resources to check")
	}
	for _, r := range resources.Resources {
		var req mcpgo.ReadResourceRequest
		req.Params.URI = r.URI
		got, err := c.ReadResource(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, content := range got.Contents {
			if tc, ok := content.(mcpgo.TextResourceContents); ok && strings.Contains(tc.Text+r.URI+r.Name+r.Description, "s3cret-pw") {
				t.Errorf("resource %s shows the password", r.URI)
			}
		}
	}
}

// TestPostgresLockedTableDeadline: a statement on a table another
// session holds locked ends at its deadline with exit 5, saying which
// table is locked, by which backend, and what to do.
func TestPostgresLockedTableDeadline(t *testing.T) {
	url := servers.Postgres(t)
	locker := servers.PostgresClient(t, url)
	for _, q := range []string{"CREATE TABLE held (x int)", "BEGIN", "LOCK TABLE held IN ACCESS EXCLUSIVE MODE"} {
		if _, err := locker.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { locker.Exec(context.Background(), "ROLLBACK") })
	pid := servers.PostgresColumn[int32](t, locker, "SELECT pg_backend_pid()")[0]
	r := runBinEnv(t, nil, "sql", "--db", url, "--timeout", "2s", "SELECT count(*) FROM held")
	want := fmt.Sprintf("query stopped at the 2s deadline: it waited all that time for a lock another session holds on held (backend pid %d)", pid)
	if r.code != exitLimit || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "try again once its transaction ends") {
		t.Errorf("exit %d, want %d: %s\nwant %q", r.code, exitLimit, r.stderr, want)
	}
	if r.elapsed > 3*time.Second {
		t.Errorf("took %v with a 2s deadline", r.elapsed)
	}
}
