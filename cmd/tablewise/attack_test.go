package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrayArgumentWithSQLFlagWritesNothing: export and chart take the
// statement from --sql or from their arguments, not both. Before, an
// argument beside --sql was dropped without a word: "export data.csv
// --sql … --out data.csv" (data.csv meant as the database, as the bare
// command takes it) ran against the built-in sample and replaced
// data.csv with its result.
func TestStrayArgumentWithSQLFlagWritesNothing(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	const orig = "a,b\n1,2\n"
	if err := os.WriteFile(data, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "c.png")
	for _, args := range [][]string{
		{"export", data, "--sql", "SELECT 1 AS x", "--out", data},
		{"chart", data, "--sql", "SELECT 1 AS x, 2 AS y", "--kind", "bar", "--x", "x", "--y", "y", "--out", png},
	} {
		code, _, errs := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, data) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming %s", args[:2], code, errs, data)
		}
	}
	if b, _ := os.ReadFile(data); string(b) != orig {
		t.Errorf("data.csv was replaced: %q", b)
	}
	if _, err := os.Stat(png); err == nil {
		t.Error("a chart was written")
	}
}
