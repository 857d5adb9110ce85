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

// The deadline of tablewise sql is absolute: opening the database, which
// reads its whole schema, counts against it as the statement does. A
// file whose schema holds tens of thousands of tables used to be read to
// the end first, and the statement's deadline only started after.
func TestSQLDeadlineCoversOpening(t *testing.T) {
	path := testdb.ManyTables(t, manyTables)
	before := testdb.FileHash(t, path)
	const timeout = 100 * time.Millisecond
	start := time.Now()
	code, out, errs := runCLI(t, "", "sql", "--db", path, "--timeout", timeout.String(), "SELECT 1")
	took := time.Since(start)
	if code != exitLimit {
		t.Errorf("exit %d, want %d (deadline)\nstdout %q\nstderr %q", code, exitLimit, out, errs)
	}
	if want := "error: query stopped at the 100ms deadline"; !strings.HasPrefix(errs, want) {
		t.Errorf("stderr %q, want it to begin %q", errs, want)
	}
	if limit := timeout + 500*time.Millisecond*engine.RaceSlowdown; took > limit {
		t.Errorf("took %v with a %v deadline, want at most %v", took.Round(time.Millisecond), timeout, limit)
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
