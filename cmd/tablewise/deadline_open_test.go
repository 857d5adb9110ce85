package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/testdb"
)

// manyTables is enough tables that reading the schema takes SQLite far
// longer than the deadline below (about 0.5 s on an idle machine; the time grows faster than the count).
const manyTables = 40_000

// The deadline of every command that takes --timeout is absolute:
// opening the database, which reads its whole schema, counts against it
// as the statement does. A file whose schema holds tens of thousands of
// tables used to be read to the end first, and the statement's deadline
// only started after.
func TestDeadlineCoversOpening(t *testing.T) {
	path := testdb.ManyTables(t, manyTables)
	before := testdb.FileHash(t, path)
	const timeout = 100 * time.Millisecond
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"sql", "SELECT 1"},
		{"export", "--sql", "SELECT 1", "--out", out + ".csv"},
		{"chart", "--sql", "SELECT 1 AS x, 2 AS y", "--kind", "bar", "--x", "x", "--y", "y", "--out", out + ".png"},
		{"explain", "--analyze", "SELECT 1"},
	} {
		args = append([]string{args[0], "--db", path, "--timeout", timeout.String()}, args[1:]...)
		start := time.Now()
		code, stdout, errs := runCLI(t, "", args...)
		took := time.Since(start)
		if code != exitLimit {
			t.Errorf("%s: exit %d, want %d (deadline)\nstdout %q\nstderr %q", args[0], code, exitLimit, stdout, errs)
		}
		if want := "error: query stopped at the 100ms deadline"; !strings.HasPrefix(errs, want) {
			t.Errorf("%s: stderr %q, want it to begin %q", args[0], errs, want)
		}
		if limit := timeout + 500*time.Millisecond*engine.RaceSlowdown; took > limit {
			t.Errorf("%s: took %v with a %v deadline, want at most %v", args[0], took.Round(time.Millisecond), timeout, limit)
		}
	}
	for _, f := range []string{out + ".csv", out + ".png"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s written after the deadline: %v", filepath.Base(f), err)
		}
	}
	if testdb.FileHash(t, path) != before {
		t.Error("the database file changed")
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + suffix); !os.IsNotExist(err) {
			t.Errorf("%s beside the database: %v", filepath.Base(path+suffix), err)
		}
	}
}
