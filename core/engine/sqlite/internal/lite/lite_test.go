package lite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestHeapLimitSurvivesEarlyInit opens a database through the plain driver
// first (which initializes SQLite), then checks that memory statistics were
// on anyway and that the hard heap limit stops a big allocation.
func TestHeapLimitSurvivesEarlyInit(t *testing.T) {
	d, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec("CREATE TABLE t(a)"); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if !HeapLimitEnforced() {
		t.Fatal("memory statistics are off")
	}
	ConfigureHeap(32 << 20)
	defer ConfigureHeap(0)
	c, err := Open("file:"+filepath.Join(t.TempDir(), "y.db")+"?mode=rwc", OpenURI|OpenNoMutex|0x2|0x4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Limit(LimitLength, 200<<20)
	st, _, err := c.Prepare("SELECT length(zeroblob(100000000) || zeroblob(1))")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Finalize()
	_, err = st.Step()
	var le *Error
	if err == nil || !asError(err, &le) || le.Code != CodeNoMem {
		t.Fatalf("a 100 MB value under a 32 MiB heap limit: %v", err)
	}
	if !strings.Contains(err.Error(), "out of memory") {
		t.Errorf("message %q", err)
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// TestReadOnlyVFSCannotWrite: through ReadOnlyVFS even a connection opened
// read-write with "create" cannot create the database, nor write to one
// that exists; a WAL database whose -wal is missing fails to open it
// instead of creating it.
func TestReadOnlyVFSCannotWrite(t *testing.T) {
	if err := RegisterReadOnlyVFS(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const rwc = OpenURI | OpenNoMutex | 0x2 | 0x4 // READWRITE | CREATE
	missing := filepath.Join(dir, "new.db")
	if c, err := Open("file:"+missing+"?vfs="+ReadOnlyVFS, rwc); err == nil {
		// SQLite opens lazily: the first statement must fail.
		err = c.Exec("CREATE TABLE t(a)")
		c.Close()
		if err == nil {
			t.Fatal("created a table through the read-only VFS")
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("the read-only VFS created a database file")
	}

	walDB := filepath.Join(dir, "wal.db")
	d, err := sql.Open("sqlite", walDB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec("PRAGMA journal_mode=WAL; CREATE TABLE t(a); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	d.Close()
	before, _ := os.ReadFile(walDB)
	c, err := Open("file:"+walDB+"?vfs="+ReadOnlyVFS+"&readonly_shm=1", rwc)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec("INSERT INTO t VALUES (2)"); err == nil {
		t.Error("wrote through the read-only VFS")
	}
	if err := c.Exec("SELECT count(*) FROM t"); err == nil {
		t.Error("read a WAL database with no -wal file by creating one")
	}
	c.Close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files now: %v", entries)
	}
	if after, _ := os.ReadFile(walDB); string(after) != string(before) {
		t.Error("the database changed")
	}
}

// TestInterruptAfter: a statement slow after its first row stops at the
// deadline or when the context ends; a stop before the deadline reports
// that nothing fired, and no interrupt reaches a later statement.
func TestInterruptAfter(t *testing.T) {
	c, err := Open("file:"+filepath.Join(t.TempDir(), "i.db")+"?mode=rwc", OpenURI|OpenNoMutex|0x2|0x4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 1 OR x = -1"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name   string
		d      time.Duration
		cancel bool
	}{{"deadline", 100 * time.Millisecond, false}, {"context", time.Hour, true}} {
		if tc.cancel {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
		stop := c.InterruptAfter(tc.d, ctx)
		start := time.Now()
		err := c.Exec(slow)
		fired := stop()
		var le *Error
		if !asError(err, &le) || le.Code != CodeInterrupt || !fired {
			t.Errorf("%s: %v (fired %v)", tc.name, err, fired)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: stopped after %v", tc.name, d)
		}
	}
	stop := c.InterruptAfter(50*time.Millisecond, context.Background())
	if err := c.Exec("SELECT 1"); err != nil || stop() {
		t.Fatalf("a quick statement: %v (fired %v)", err, stop())
	}
	time.Sleep(100 * time.Millisecond) // past the deadline that was stopped
	if err := c.Exec("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50000) SELECT count(*) FROM c"); err != nil {
		t.Fatalf("a statement after a stopped deadline: %v", err)
	}
}

// Once an InterruptAfter has fired, no statement of its connection runs,
// however short, until it is stopped: an interrupt reaches only a running
// statement, so a quick statement started after the deadline or on a
// context that had already ended would otherwise answer (a sequence of
// them, such as a rehearsed script, would run on past its deadline).
func TestNothingRunsAfterTheInterrupt(t *testing.T) {
	c, err := Open("file:"+filepath.Join(t.TempDir(), "i.db")+"?mode=rwc", OpenURI|OpenNoMutex|0x2|0x4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		d    time.Duration
		ctx  context.Context
	}{{"ended context", time.Hour, ended}, {"deadline passed", time.Millisecond, context.Background()}} {
		stop := c.InterruptAfter(tc.d, tc.ctx)
		time.Sleep(20 * time.Millisecond) // past the deadline
		for i := range 3 {
			err := c.Exec("SELECT 1")
			var le *Error
			if !asError(err, &le) || le.Code != CodeInterrupt {
				t.Errorf("%s: statement %d after the interrupt: %v", tc.name, i, err)
			}
		}
		if !stop() {
			t.Errorf("%s: stop reports nothing fired", tc.name)
		}
		if err := c.Exec("SELECT 1"); err != nil {
			t.Errorf("%s: a statement after stop: %v", tc.name, err)
		}
	}
}
