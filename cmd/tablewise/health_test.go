package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/health"
	"github.com/tablewise/tablewise/core/testdb"
)

func TestHealth(t *testing.T) {
	sql, err := os.ReadFile("../../core/health/testdata/planted.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := testdb.Build(t, "planted.db", string(sql))
	before, _ := os.ReadFile(path)

	code, out, errOut := runCLI(t, "", "health", "--db", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"10 tables checked, 9 findings", "error   orphan-rows  tags.parent_id", "CREATE INDEX notes_parent_id_idx ON notes (parent_id);", "runs none of these fixes"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runCLI(t, "", "health", "--db", path, "--format", "json", "stock", "events")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var rep health.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if rep.Tables != 2 || len(rep.Findings) != 2 || rep.Findings[0].Code != health.TypeMismatch && rep.Findings[1].Code != health.TypeMismatch {
		t.Errorf("json report for two tables: %+v", rep)
	}

	code, _, errOut = runCLI(t, "", "health", "--db", path, "stocks")
	if code != 2 || !strings.Contains(errOut, "stocks") || !strings.Contains(errOut, "did you mean stock") {
		t.Errorf("unknown table: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "health", "--db", path, "--format", "xml")
	if code != 2 || !strings.Contains(errOut, `"xml"`) {
		t.Errorf("bad format: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the database file changed")
	}
}
