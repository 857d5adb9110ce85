package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/advise"
	"github.com/tablewise/tablewise/core/engine"
)

func TestExplainCommand(t *testing.T) {
	code, out, errOut := runCLI(t, "", "explain", "SELECT * FROM orders o WHERE o.status = 'shipped'")
	if code != 0 || out != "QUERY PLAN\n`--SCAN o\nnote: full scan of orders (11,887 rows)\n" {
		t.Errorf("exit %d, %q %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "explain", "--format", "json", "SELECT * FROM orders WHERE order_id = 3")
	var p engine.Plan
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || len(p.Steps) != 1 || !strings.HasPrefix(p.Steps[0].Detail, "SEARCH orders") {
		t.Errorf("json: exit %d, %s", code, out)
	}
	if code, _, errOut = runCLI(t, "", "explain", "DROP TABLE orders"); code != 3 {
		t.Errorf("a write: exit %d, %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "", "explain"); code != 2 || !strings.Contains(errOut, "give the statement") {
		t.Errorf("no statement: exit %d, %s", code, errOut)
	}
}

func TestAdviseCommand(t *testing.T) {
	code, out, errOut := runCLI(t, "", "advise", "--sql", "SELECT * FROM orders WHERE employee_id = 3")
	if code != 0 || !strings.Contains(out, "CREATE INDEX orders_employee_id_idx ON orders (employee_id);") ||
		!strings.Contains(out, "SEARCH orders USING INDEX orders_employee_id_idx (employee_id=?)") || !strings.Contains(out, "never creates the index") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
	w := filepath.Join(t.TempDir(), "workload.sql")
	os.WriteFile(w, []byte("-- the nightly report\nSELECT * FROM orders\n WHERE employee_id = 3;\nSELECT * FROM orders WHERE order_id = 1;\n"), 0o644)
	code, out, errOut = runCLI(t, "", "advise", "--workload", w, "--format", "json")
	var all []advise.Advice
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil || len(all) != 2 || len(all[0].Suggestions) != 1 || len(all[1].Suggestions) != 0 {
		t.Errorf("workload: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, "", "advise", "DELETE FROM orders"); code != 3 {
		t.Errorf("a write: exit %d, %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "", "advise", "--workload", "/nonexistent.sql"); code != 2 || !strings.Contains(errOut, "/nonexistent.sql") {
		t.Errorf("missing workload: exit %d, %s", code, errOut)
	}
}
