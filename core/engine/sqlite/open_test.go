package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	_ "modernc.org/sqlite"
)

// TestOpenFIFOIsRefused: a FIFO as the database would block forever in
// open(2); it is refused at once as a usage error naming the path.
func TestOpenFIFOIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.db")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("skipping: cannot make a FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		d, err := sqlite.Open(context.Background(), p, engine.Options{})
		if d != nil {
			d.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, engine.ErrBadPath) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "FIFO") {
			t.Fatalf("Open(FIFO) = %v", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so the test binary can end.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Open blocked on a FIFO")
	}
}

// TestOpenURIForms: a relative file: URI is percent-decoded as SQLite does,
// and in-memory databases are a usage error.
func TestOpenURIForms(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(testdb.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.db"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, p := range []string{"file:c%2edb", "file:c.db?mode=ro", "file:./c%2Edb"} {
		d, err := sqlite.Open(context.Background(), p, engine.Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", p, err)
			continue
		}
		if d.Path() != filepath.Join(dir, "c.db") {
			t.Errorf("Open(%q).Path() = %q", p, d.Path())
		}
		d.Close()
	}
	for _, p := range []string{"file:x?mode=memory", "file::memory:", ":memory:", "file:c.db?vfs=memdb", "file://example.com/c.db"} {
		_, err := sqlite.Open(context.Background(), p, engine.Options{})
		if !errors.Is(err, engine.ErrBadPath) {
			t.Errorf("Open(%q) = %v, want ErrBadPath", p, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory now holds %d files", len(entries))
	}
}

// TestHotJournalNeedsOwner: a database with a hot rollback journal cannot
// be read without rolling it back, a write; the error says so and names the
// journal instead of SQLite's "attempt to write a readonly database".
func TestHotJournalNeedsOwner(t *testing.T) {
	path := testdb.Fixture(t)
	journal := path + "-journal"
	if err := os.WriteFile(journal, []byte(strings.Repeat("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(context.Background(), path, engine.Options{})
	if !errors.Is(err, engine.ErrNeedsOwner) {
		t.Fatalf("Open = %v, want ErrNeedsOwner", err)
	}
	for _, want := range []string{"fixture.db-journal", "hot journal", "recovery by its owner"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if b, _ := os.ReadFile(journal); len(b) != 512 {
		t.Errorf("the journal was changed (%d bytes)", len(b))
	}
}

// TestHotJournalAppearingLater: a hot journal that appears while the
// database is open (a writer crashed) is reported the same way by the
// next statement.
func TestHotJournalAppearingLater(t *testing.T) {
	path := testdb.Fixture(t)
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := query.Collect(context.Background(), d, "SELECT count(*) FROM t", query.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-journal", []byte(strings.Repeat("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = query.Collect(context.Background(), d, "SELECT count(*) FROM t", query.Options{})
	if !errors.Is(err, engine.ErrNeedsOwner) || !strings.Contains(err.Error(), "fixture.db-journal") {
		t.Fatalf("query = %v, want ErrNeedsOwner naming the journal", err)
	}
}

// TestPoolSeesWriterThatAppears: a WAL database read while no writer is
// connected (immutable, nothing created) is read through its -wal as soon
// as a writer appears, by the same open DB.
func TestPoolSeesWriterThatAppears(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	if _, err := w.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	d, err := sqlite.Open(context.Background(), path, engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	count := func() int64 {
		t.Helper()
		res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM t", query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0].(int64)
	}
	if n := count(); n != 1 {
		t.Fatalf("count %d", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("reading created files: %v", entries)
	}
	w, err = sql.Open("sqlite", "file:"+path+"?_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.Exec("INSERT INTO t VALUES (2), (3)"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Fatalf("after a writer committed two rows to the WAL: count %d, want 3", n)
	}
}

func TestOpenMissingFileIsClearAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.db")
	for _, p := range []string{missing, "file:" + missing + "?mode=rwc"} {
		_, err := sqlite.Open(context.Background(), p, engine.Options{})
		if !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), "never creates") {
			t.Fatalf("Open(%q) = %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Open created %v", entries)
	}
}

func TestOpenRejectsNonDatabases(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o644)
	if _, err := sqlite.Open(context.Background(), junk, engine.Options{}); err == nil || !strings.Contains(err.Error(), "not a database") {
		t.Fatalf("junk file: %v", err)
	}
	if _, err := sqlite.Open(context.Background(), dir, engine.Options{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("directory: %v", err)
	}
}

func TestOpenPathsWithSpecialCharacters(t *testing.T) {
	src := testdb.Fixture(t)
	dir := filepath.Join(t.TempDir(), "a dir#%")
	os.MkdirAll(dir, 0o755)
	dst := filepath.Join(dir, "my data?.db")
	b, _ := os.ReadFile(src)
	os.WriteFile(dst, b, 0o644)
	escaped := "file:" + strings.NewReplacer(" ", "%20", "#", "%23", "%", "%25", "?", "%3F").Replace(dst)
	for _, p := range []string{dst, escaped + "?mode=rw", escaped + "?mode=rwc&immutable=1"} {
		d, err := sqlite.Open(context.Background(), p, engine.Options{})
		if err != nil {
			t.Fatalf("Open(%q): %v", p, err)
		}
		if d.Path() != dst {
			t.Errorf("Path() = %q, want %q", d.Path(), dst)
		}
		info, err := d.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range info.Checks {
			if !c.OK {
				t.Fatalf("%q: %s: %s (mode=rw in the URI must not make it writable)", p, c.Label, c.Problem)
			}
		}
		d.Close()
	}
}

func TestPoolBoundsAndConcurrency(t *testing.T) {
	d, err := sqlite.Open(context.Background(), testdb.Fixture(t), engine.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM customer", query.Options{})
			if err != nil || res.Rows[0][0] != int64(4) {
				t.Errorf("got %v %v", res, err)
			}
		}()
	}
	wg.Wait()
	d.Close()
	if _, err := query.Collect(context.Background(), d, "SELECT 1", query.Options{}); err == nil {
		t.Fatal("query after Close succeeded")
	}
}
