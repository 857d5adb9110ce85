package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
	_ "modernc.org/sqlite"
)

// dirState is every file in a directory with a hash of its bytes.
func dirState(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, e := range entries {
		out[e.Name()] = testdb.FileHash(t, filepath.Join(dir, e.Name()))
	}
	return out
}

func names(m map[string][32]byte) string {
	var n []string
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ",")
}

// sameState fails the test if tablewise created, removed or changed a file.
func sameState(t *testing.T, dir string, before map[string][32]byte) {
	t.Helper()
	after := dirState(t, dir)
	if names(after) != names(before) {
		t.Fatalf("files changed: before %s, after %s", names(before), names(after))
	}
	for n, h := range before {
		if after[n] != h {
			t.Errorf("%s changed", n)
		}
	}
}

// walWriter opens path read-write in WAL mode with automatic checkpoints
// off, on one connection that stays open: a live writer whose committed
// rows stay in the -wal file.
func walWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	t.Cleanup(func() { w.Close() })
	return w
}

// checkpointedWAL is a WAL database, app.db with two rows in t, whose
// writer has closed: its directory, its path and the directory's state,
// app.db alone.
func checkpointedWAL(t *testing.T) (dir, path string, before map[string][32]byte) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "app.db")
	w := walWriter(t, path)
	mustExec(t, w, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
	w.Close()
	before = dirState(t, dir)
	if names(before) != "app.db" {
		t.Fatalf("setup left %s", names(before))
	}
	return dir, path, before
}

// lines is CSV output with CRLF line ends made plain and the last one cut.
// readCount runs "tablewise sql --db db 'SELECT count(*) FROM t'", fails
// t unless it prints want rows, and checks that no file in dir changed
// from before.
func readCount(t *testing.T, dir string, before map[string][32]byte, db string, want int) {
	t.Helper()
	r := runBin(t, "", "sql", "--db", db, "SELECT count(*) FROM t")
	if r.code != exitOK || lines(r.stdout) != fmt.Sprintf("count(*)\n%d", want) {
		t.Fatalf("count with --db %s: exit %d, stdout %q, stderr %q", db, r.code, r.stdout, r.stderr)
	}
	sameState(t, dir, before)
}

func lines(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }

func mustExec(t *testing.T, d *sql.DB, sql string) {
	t.Helper()
	if _, err := d.Exec(sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// copyFiles copies the named files of src into a new directory, as a
// copy taken while a writer was connected would hold them.
func copyFiles(t *testing.T, src string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWALCheckpointedReadCreatesNothing reads a WAL-mode database whose
// writer has gone (no -wal, no -shm): the rows are there and no file is
// created or changed.
func TestWALCheckpointedReadCreatesNothing(t *testing.T) {
	dir, path, before := checkpointedWAL(t)
	readCount(t, dir, before, path, 2)
	r := runBin(t, "", "schema", "--db", path)
	if r.code != exitOK || !strings.Contains(r.stdout, "t") {
		t.Fatalf("schema: exit %d, stderr %q", r.code, r.stderr)
	}
	sameState(t, dir, before)
}

// TestWALLiveWriter reads a database whose writer is still connected and
// has rows committed only in the -wal file: tablewise sees them and
// changes no byte of the database, -wal or -shm.
func TestWALLiveWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	w := walWriter(t, path)
	mustExec(t, w, "CREATE TABLE t(x); PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO t VALUES (1), (2), (3)")
	before := dirState(t, dir)
	if names(before) != "app.db,app.db-shm,app.db-wal" {
		t.Fatalf("setup: %s", names(before))
	}
	readCount(t, dir, before, path, 3)
	mustExec(t, w, "INSERT INTO t VALUES (4)")
	before = dirState(t, dir)
	readCount(t, dir, before, path, 4)
}

// TestWALWithoutSHM: a -wal file with committed rows but no -shm (a copied
// database, or a writer that crashed and lost it) cannot be read without
// creating the -shm file. tablewise refuses, says why and what to do, and
// creates nothing; with immutable=1 it reads the checkpointed rows and
// warns that the WAL's rows are not shown.
func TestWALWithoutSHM(t *testing.T) {
	src := t.TempDir()
	w := walWriter(t, filepath.Join(src, "app.db"))
	mustExec(t, w, "CREATE TABLE t(x); INSERT INTO t VALUES (1); PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO t VALUES (2), (3)")
	dir := copyFiles(t, src, "app.db", "app.db-wal")
	path := filepath.Join(dir, "app.db")
	before := dirState(t, dir)
	r := runBin(t, "", "sql", "--db", path, "SELECT count(*) FROM t")
	if r.code != exitDatabase {
		t.Fatalf("exit %d, want %d; stdout %q, stderr %q", r.code, exitDatabase, r.stdout, r.stderr)
	}
	for _, want := range []string{"app.db-wal", "app.db-shm", "immutable=1"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("message %q does not mention %s", r.stderr, want)
		}
	}
	sameState(t, dir, before)

	r = runBin(t, "", "sql", "--db", "file:"+path+"?immutable=1", "SELECT count(*) FROM t")
	if r.code != exitOK || lines(r.stdout) != "count(*)\n1" {
		t.Fatalf("immutable: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "app.db-wal") {
		t.Errorf("immutable read of a database with WAL rows gave no warning: %q", r.stderr)
	}
	sameState(t, dir, before)
}

// TestWALOrphanedSHM: -wal and -shm left by a writer that is gone (copied
// here while it was live): the committed rows in the WAL are read from a
// private copy of the index, and nothing is written.
func TestWALOrphanedSHM(t *testing.T) {
	src := t.TempDir()
	w := walWriter(t, filepath.Join(src, "app.db"))
	mustExec(t, w, "CREATE TABLE t(x); PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO t VALUES (1), (2)")
	dir := copyFiles(t, src, "app.db", "app.db-wal", "app.db-shm")
	path := filepath.Join(dir, "app.db")
	before := dirState(t, dir)
	readCount(t, dir, before, path, 2)
}

// TestWALThroughSymlink: the database is given as a link; SQLite reads the
// -wal and -shm beside the real file, and so must the choice of how to
// open it (looking beside the link would find no -wal and hide the rows).
func TestWALThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	w := walWriter(t, path)
	mustExec(t, w, "CREATE TABLE t(x); PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO t VALUES (1), (2), (3)")
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)
	readCount(t, dir, before, link, 3)
	if entries, _ := os.ReadDir(filepath.Dir(link)); len(entries) != 1 {
		t.Errorf("files beside the link: %v", entries)
	}
}

// TestURIParametersCannotWrite: a file: URI may carry parameters that
// would let a connection write or leave files: mode=rw/rwc, a
// _pragma that changes the journal mode or lifts query_only, an exclusive
// transaction lock, another VFS (unix-dotfile makes a lock directory).
// Given to a WAL database whose writer is gone, each reads the rows and
// no file in the directory is created or changed.
func TestURIParametersCannotWrite(t *testing.T) {
	dir, path, before := checkpointedWAL(t)
	for _, q := range []string{
		"mode=rwc", "mode=rw&cache=shared", "_pragma=journal_mode(delete)",
		"_pragma=query_only(0)&_txlock=exclusive", "_pragma=locking_mode(exclusive)",
		"vfs=unix-dotfile", "nolock=1&mode=rw",
	} {
		readCount(t, dir, before, "file:"+path+"?"+q, 2)
	}
}
