package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/migrate"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// tempFiles returns a function that writes a file of text in one new
// temporary directory and returns its path.
func tempFiles(t *testing.T) func(name, text string) string {
	dir := t.TempDir()
	return func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func TestMigrateCheck(t *testing.T) {
	write := tempFiles(t)
	up := write("up.sql", "ALTER TABLE customers DROP COLUMN marketing_opt_in;\nCREATE INDEX c_city ON customers(city);\n")
	down := write("down.sql", "DROP INDEX c_city;\n")
	code, out, errOut := runCLI(t, "", "migrate-check", "--up", up, "--down", down)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"drops column customers.marketing_opt_in", "DESTRUCTIVE", "IRREVERSIBLE", "- column customers.marketing_opt_in"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "migrate-check", "--up", write("safe.sql", "CREATE TABLE t(a);"), "--down", write("undo.sql", "DROP TABLE t;"), "--format", "json")
	var rep migrate.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Valid || rep.Destructive || rep.Reversible == nil || !*rep.Reversible {
		t.Errorf("safe migration: exit %d: %s", code, out)
	}
	code, out, errOut = runCLI(t, "", "migrate-check", "--up", write("bad.sql", "ALTER TABLE nope ADD x;"))
	if code != 4 || !strings.Contains(out, "no such table: nope") || !strings.Contains(errOut, "fails") {
		t.Errorf("invalid: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, "", "migrate-check"); code != 2 || !strings.Contains(errOut, "--up FILE") {
		t.Errorf("no --up: exit %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "", "migrate-check", "--up", filepath.Join(filepath.Dir(up), "missing.sql")); code != 2 || !strings.Contains(errOut, "missing.sql") {
		t.Errorf("missing file: exit %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "", "mcp", "--scratch", "postgres://127.0.0.1/scratch"); code != 2 || !strings.Contains(errOut, "add --checks") {
		t.Errorf("mcp --scratch without --checks: exit %d: %s", code, errOut)
	}
}

// TestMigrateCheckServers: on PostgreSQL and MariaDB the rehearsal needs
// --scratch, refuses the checked database as one (and on PostgreSQL a
// superuser's scratch database on the same server), and exits 4 on a
// statement that fails.
func TestMigrateCheckServers(t *testing.T) {
	write := tempFiles(t)
	up := write("up.sql", "ALTER TABLE customers DROP COLUMN marketing_opt_in;\n")
	down := write("down.sql", "ALTER TABLE customers ADD COLUMN marketing_opt_in int;\n")
	bad := write("bad.sql", "ALTER TABLE nope ADD COLUMN x int;\n")
	for name, urls := range map[string]func(t *testing.T) (string, string){
		"postgres": func(t *testing.T) (string, string) { return servers.PostgresSample(t), servers.PostgresScratch(t) },
		"mysql":    func(t *testing.T) (string, string) { return servers.MySQLSample(t), servers.MySQL(t) },
	} {
		t.Run(name, func(t *testing.T) {
			url, scratch := urls(t)
			code, out, errOut := runCLI(t, "", "migrate-check", "--db", url, "--scratch", scratch, "--up", up, "--down", down)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"drops column customers.marketing_opt_in", "DESTRUCTIVE", "IRREVERSIBLE", "made in the scratch database"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if name == "postgres" && !strings.Contains(out, "lock: ACCESS EXCLUSIVE on customers") {
				t.Errorf("no lock level:\n%s", out)
			}
			code, out, errOut = runCLI(t, "", "migrate-check", "--db", url, "--scratch", scratch, "--up", bad)
			if code != 4 || !strings.Contains(out, "nope") || !strings.Contains(errOut, "fails") {
				t.Errorf("invalid: exit %d: %s %s", code, out, errOut)
			}
			code, _, errOut = runCLI(t, "", "migrate-check", "--db", url, "--up", up)
			if code != 2 || !strings.Contains(errOut, "--scratch URL") {
				t.Errorf("no --scratch: exit %d: %s", code, errOut)
			}
			code, _, errOut = runCLI(t, "", "migrate-check", "--db", url, "--scratch", url, "--up", up)
			if code != 2 || !strings.Contains(errOut, "names the database being checked") {
				t.Errorf("--scratch = --db: exit %d: %s", code, errOut)
			}
			if name == "postgres" {
				code, out, errOut = runCLI(t, "", "migrate-check", "--db", url, "--scratch", servers.Postgres(t), "--up", up)
				if code != 2 || out != "" || !strings.Contains(errOut, "the scratch user postgres is a superuser") || !strings.Contains(errOut, "a scratch database on another server") {
					t.Errorf("a superuser's --scratch on the same server: exit %d: %s %s", code, out, errOut)
				}
			}
		})
	}
	code, _, errOut := runCLI(t, "", "migrate-check", "--scratch", servers.DefaultPostgres, "--up", up)
	if code != 2 || !strings.Contains(errOut, "in memory") {
		t.Errorf("--scratch on SQLite: exit %d: %s", code, errOut)
	}
}
