package db_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
)

func TestCheckOutput(t *testing.T) {
	path := testdb.Fixture(t)
	d := testdb.Open(t, path)
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-journal", path + "-wal", link} {
		if err := d.CheckOutput(p); !errors.Is(err, db.ErrOutputIsDatabase) || !strings.Contains(err.Error(), "refusing to write to") {
			t.Errorf("CheckOutput(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"", "-", filepath.Join(t.TempDir(), "out.csv")} {
		if err := d.CheckOutput(p); err != nil {
			t.Errorf("CheckOutput(%q) = %v", p, err)
		}
	}
}

// TestCheckOutputThroughSymlink: with the database opened through a link,
// an output path naming the real file's journal (or the real file, or its
// -wal) is refused; so is an output that is itself a link to them.
func TestCheckOutputThroughSymlink(t *testing.T) {
	realDir := t.TempDir()
	b, _ := os.ReadFile(testdb.Fixture(t))
	real := filepath.Join(realDir, "r.db")
	if err := os.WriteFile(real, b, 0o644); err != nil {
		t.Fatal(err)
	}
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "link.db")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(linkDir, "dir")
	if err := os.Symlink(realDir, dirLink); err != nil {
		t.Fatal(err)
	}
	outLink := filepath.Join(linkDir, "out.csv")
	if err := os.Symlink(real+"-wal", outLink); err != nil {
		t.Fatal(err)
	}
	d := testdb.Open(t, link)
	for _, p := range []string{real, real + "-journal", real + "-wal", real + "-shm", link + "-journal",
		filepath.Join(dirLink, "r.db-journal"), filepath.Join(dirLink, "r.db"), outLink} {
		if err := d.CheckOutput(p); !errors.Is(err, db.ErrOutputIsDatabase) {
			t.Errorf("CheckOutput(%q) = %v", p, err)
		}
	}
	if err := d.CheckOutput(filepath.Join(realDir, "r.db.csv")); err != nil {
		t.Errorf("a neighbour file was refused: %v", err)
	}
}

type catOutcome struct {
	err     error
	elapsed time.Duration
}

func readCatalog(ctx context.Context, d *db.DB) catOutcome {
	start := time.Now()
	_, err := d.Catalog(ctx)
	return catOutcome{err, time.Since(start)}
}

// TestCatalogDeadline: the caller's deadline bounds the whole read, and a
// caller waiting for another caller's read gives up at its own deadline.
func TestCatalogDeadline(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "CREATE VIEW slow%02d AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c;", i)
	}
	d := testdb.Open(t, testdb.Build(t, "slow30.db", b.String()))
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	first := make(chan catOutcome, 1)
	go func() { first <- readCatalog(ctx, d) }()
	time.Sleep(100 * time.Millisecond)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	second := testdb.Within(t, 10*time.Second, func() catOutcome { return readCatalog(ctx2, d) })
	if second.err == nil || second.elapsed > 400*time.Millisecond {
		t.Errorf("waiting caller: %v after %v", second.err, second.elapsed)
	}
	out := testdb.Within(t, 20*time.Second, func() catOutcome { return <-first })
	if !errors.Is(out.err, context.DeadlineExceeded) || out.elapsed > 1600*time.Millisecond {
		t.Errorf("reader with a 600ms deadline: %v after %v", out.err, out.elapsed)
	}
}

// TestFileStamp: a SQLite file's stamp stays while nothing writes it and
// changes with a write (here, one that keeps the file's size); a database
// loaded from a data file has none, so its catalog is always read.
func TestFileStamp(t *testing.T) {
	ctx := context.Background()
	path := testdb.Fixture(t)
	d, err := db.Open(ctx, path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s1, ok := d.FileStamp()
	if !ok || s1 == "" {
		t.Fatalf("FileStamp of a SQLite file: %q, %v", s1, ok)
	}
	if _, err := d.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if s2, _ := d.FileStamp(); s2 != s1 {
		t.Fatalf("reading changed the stamp: %q, then %q", s1, s2)
	}
	// The same bytes written again: the size is the same, the time not.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if s3, _ := d.FileStamp(); s3 == s1 {
		t.Fatalf("a write left the stamp %q", s3)
	}

	csv := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(csv, []byte("name,age\nada,36\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := db.Open(ctx, csv, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if s, ok := m.FileStamp(); ok {
		t.Fatalf("FileStamp of a loaded CSV file: %q, want none", s)
	}

	// Adopt keeps the first catalog.
	cat, _ := d.Catalog(ctx)
	if got := d.Adopt(nil); got != cat {
		t.Fatalf("Adopt replaced a cached catalog")
	}
}
