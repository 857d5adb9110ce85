package db_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestOpenPicksTheEngine: a path, a relative path with a colon in it and a
// file: URI open SQLite; a URL whose scheme no engine opens is a usage
// error that lists what is supported and never prints its password.
func TestOpenPicksTheEngine(t *testing.T) {
	src := testdb.Fixture(t)
	dir := t.TempDir()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a:b.db"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, dsn := range []string{src, "file:" + src, "a:b.db"} {
		d, err := db.Open(context.Background(), dsn, db.Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", dsn, err)
			continue
		}
		if d.Engine().Name() != "sqlite" || d.Dialect().Name() != "SQLite" {
			t.Errorf("Open(%q) picked %s", dsn, d.Engine().Name())
		}
		d.Close()
	}
	_, err = db.Open(context.Background(), "sqlserver://sa:hunter2@db.example.com/shop", db.Options{})
	if !errors.Is(err, engine.ErrBadPath) {
		t.Fatalf("unknown scheme: %v, want ErrBadPath", err)
	}
	for _, want := range []string{"sqlserver://", "a SQLite file path", "a file: URI", "sa:xxxxx@db.example.com"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("message %q shows the password", err)
	}
}

func TestLooksLikeDatabase(t *testing.T) {
	for _, arg := range []string{"shop.db", "x.sqlite", "dir/x.sqlite3", "file:x", "file:///tmp/x.db"} {
		if !db.LooksLikeDatabase(arg) {
			t.Errorf("%q does not look like a database", arg)
		}
	}
	for _, arg := range []string{"sql", "schema", "notes.txt", "gopher://localhost/shop", "C:", ""} {
		if db.LooksLikeDatabase(arg) {
			t.Errorf("%q looks like a database", arg)
		}
	}
}

// TestSourceAndLabel: the label defaults to the engine's (the file name);
// the source is the file's absolute path.
func TestSourceAndLabel(t *testing.T) {
	path := testdb.Fixture(t)
	d := testdb.Open(t, path)
	if d.Label() != "fixture.db" || d.Source() != path {
		t.Errorf("label %q, source %q", d.Label(), d.Source())
	}
	d2, err := db.Open(context.Background(), path, db.Options{Label: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if d2.Label() != "shop" {
		t.Errorf("label %q", d2.Label())
	}
}

// TestOpenPostgres: postgres:// and postgresql:// URLs open the PostgreSQL
// engine, labelled with the database's name; both look like databases on
// the command line.
func TestOpenPostgres(t *testing.T) {
	url := servers.Postgres(t)
	for _, dsn := range []string{url, "postgresql" + strings.TrimPrefix(url, "postgres")} {
		if !db.LooksLikeDatabase(dsn) {
			t.Errorf("%q does not look like a database", dsn)
		}
		d, err := db.Open(context.Background(), dsn, db.Options{})
		if err != nil {
			t.Fatalf("Open(%q): %v", dsn, err)
		}
		if d.Engine().Name() != "postgres" || !strings.HasPrefix(d.Dialect().Name(), "PostgreSQL") || !strings.HasPrefix(d.Label(), "tw_") {
			t.Errorf("Open(%q): engine %s, dialect %s, label %s", dsn, d.Engine().Name(), d.Dialect().Name(), d.Label())
		}
		d.Close()
	}
}
