// Package testdb builds small SQLite files for tests. It writes only files
// it creates itself, in the test's temporary directory.
package testdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/data"
	"github.com/tablewise/tablewise/data/scaledb"
	_ "modernc.org/sqlite"
)

// Schema is the fixture: names with spaces and keywords, foreign keys, an
// index, a view, NULLs, non-Latin text, a blob, reals and integers.
const Schema = `
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, -- where they live
  created TEXT);
CREATE TABLE "order" (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL, status TEXT);
CREATE TABLE "Order Details" (order_id INTEGER REFERENCES "order"(id), product TEXT, qty INTEGER, price REAL,
  PRIMARY KEY (order_id, product));
CREATE TABLE Match (id INTEGER PRIMARY KEY, home TEXT, away TEXT, data BLOB);
CREATE TABLE t (a INTEGER, b TEXT);
CREATE INDEX order_customer ON "order"(customer_id);
CREATE VIEW big_orders AS SELECT * FROM "order" WHERE total > 100;
INSERT INTO customer VALUES (1, 'Zoë Brontë', 'France', '2023-01-05'), (2, '田中 太郎', 'Japan', '2023-02-11'),
  (3, 'José Álvarez', NULL, '2024-03-01'), (4, '=HYPERLINK("http://x")', 'Mexico', NULL);
INSERT INTO "order" VALUES (1, 1, 120.5, 'shipped'), (2, 1, 30, 'open'), (3, 2, 250.25, 'shipped'), (4, 3, NULL, 'cancelled');
INSERT INTO "Order Details" VALUES (1, 'lamp', 2, 60.25), (3, 'rug', 1, 250.25), (2, 'mug, "big"', 3, 10);
INSERT INTO Match VALUES (1, 'Lyon', 'Nantes', x'00ff10'), (2, 'Kraków', 'Łódź', NULL);
INSERT INTO t VALUES (1, 'one'), (2, 'two');
`

// Fixture writes a fresh fixture database and returns its path.
func Fixture(t testing.TB) string {
	t.Helper()
	return Build(t, "fixture.db", Schema)
}

// Build creates name in a temporary directory from the given SQL.
func Build(t testing.TB, name, schema string) string {
	t.Helper()
	return BuildAt(t, filepath.Join(t.TempDir(), name), schema)
}

// BuildAt creates the database file path (and its directory) from the
// given SQL, or runs it on the database already there. path must be somewhere the test owns, such as t.TempDir().
func BuildAt(t testing.TB, path, schema string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// One connection, which waits for a reader's lock (an explorer or a
	// server under test reading the file) instead of failing busy.
	d.SetMaxOpenConns(1)
	if _, err := d.Exec("PRAGMA busy_timeout = 10000"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(schema); err != nil {
		t.Fatalf("build %s: %v", filepath.Base(path), err)
	}
	return path
}

// Hold runs statements (such as "BEGIN EXCLUSIVE", or "BEGIN" and a
// read) on a connection of its own to the SQLite file path, keeping
// whatever lock they take until the returned release commits; the test's
// end releases it too.
func Hold(t testing.TB, path string, statements ...string) (release func()) {
	t.Helper()
	d, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	for _, s := range statements {
		if _, err := d.Exec(s); err != nil {
			d.Close()
			t.Fatalf("%s: %v", s, err)
		}
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			d.Exec("COMMIT")
			d.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// Within returns fn's result, failing the test if fn has not returned after
// limit: a call that should stop at a deadline fails instead of hanging the
// test binary (its goroutine is left behind).
func Within[T any](t testing.TB, limit time.Duration, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("still running after %v", limit)
	}
	var zero T
	return zero
}

// SharedData returns the path of a file under ../shared/data, or skips the
// test, saying so, when it is absent.
func SharedData(t testing.TB, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
	if v := os.Getenv("TABLEWISE_SHARED_DATA"); v != "" {
		root = v
	}
	p := filepath.Join(root, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s not found (the shared test data lives in ../shared/data beside the repository)", p)
	}
	return p
}

// Open opens the database at path (a file or a server URL) as tablewise
// does, failing the test when it cannot, and closes it when the test
// ends.
func Open(t testing.TB, path string) *db.DB {
	t.Helper()
	return OpenWith(t, path, db.Options{})
}

// OpenWith is Open with options.
func OpenWith(t testing.TB, path string, opt db.Options) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// DoctorOK fails the test, naming each, when one of e's doctor checks
// does not pass.
func DoctorOK(t testing.TB, e engine.Engine) {
	t.Helper()
	info, err := e.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range info.Checks {
		if !c.OK {
			t.Errorf("doctor check failed: %s: %s", c.Label, c.Problem)
		}
	}
}

// SilentServer listens on a loopback port, accepts connections and never
// writes to them: a server that does not answer. It returns the address;
// the listener and the connections it holds close when the test ends.
func SilentServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	return ln.Addr().String()
}

// FileHash is the SHA-256 of the file at path, failing the test when it
// cannot be read: two calls around an action show whether it changed the
// file.
func FileHash(t testing.TB, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// ManyTables writes a database whose schema holds n empty tables (t0 …
// t<n-1>, three columns each) in a directory of the test's own and returns
// its path. SQLite parses every CREATE statement when a connection first
// reads the schema, so a connection's first statement on it costs time
// that grows faster than n (about 0.5 s for 40,000 tables). The rows of the schema are written
// directly, in one statement, all naming t0's root page: that is what
// keeps it fast (creating the tables one by one allocates and journals a
// page each), and reading the schema costs the same.
func ManyTables(t testing.TB, n int) string {
	t.Helper()
	return Build(t, "many.db", fmt.Sprintf(`
PRAGMA journal_mode = OFF;
CREATE TABLE t0 (id INTEGER PRIMARY KEY, name TEXT, v REAL);
PRAGMA writable_schema = ON;
WITH RECURSIVE i(n) AS (SELECT 1 WHERE 1 < %[1]d UNION ALL SELECT n + 1 FROM i WHERE n + 1 < %[1]d)
INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql)
  SELECT 'table', 't' || n, 't' || n, (SELECT rootpage FROM sqlite_schema WHERE name = 't0'),
         'CREATE TABLE t' || n || ' (id INTEGER PRIMARY KEY, name TEXT, v REAL)' FROM i;
PRAGMA writable_schema = OFF;
`, n))
}

// Wide writes a generated schema of tables × columns, three rows each
// (scaledb.Wide), in a directory of the test's own and opens it with Open.
func Wide(t testing.TB, tables, columns int) *db.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wide.db")
	if err := (scaledb.Wide{Tables: tables, Columns: columns, Rows: 3}).Write(path); err != nil {
		t.Fatal(err)
	}
	return Open(t, path)
}

var (
	sampleOnce sync.Once
	sample     *db.DB
	sampleErr  error
)

// Sample is the built-in sample database, opened once per test binary and
// shared by its tests (it is read-only; the process's exit closes it).
func Sample(t testing.TB) *db.DB {
	t.Helper()
	sampleOnce.Do(func() {
		p, err := data.SamplePath()
		if err != nil {
			sampleErr = err
			return
		}
		sample, sampleErr = db.Open(context.Background(), p, db.Options{Label: data.SampleName})
	})
	if sampleErr != nil {
		t.Fatalf("open the sample database: %v", sampleErr)
	}
	return sample
}

// SampleCopy copies the built-in sample into a directory of the test's
// own, as shop.db (alone there), and returns its path and bytes: a test
// that must see the file unchanged compares them afterwards.
func SampleCopy(t testing.TB) (path string, original []byte) {
	t.Helper()
	src, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "shop.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// Buffer is a bytes.Buffer safe for a server goroutine (or its logger) to
// write while the test reads.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// SampleBytes is the length of the text and blob values of t's sample
// rows, to hold them to catalog.SampleMaxBytes.
func SampleBytes(t *catalog.Table) int {
	n := 0
	for _, r := range t.Sample {
		for _, x := range r {
			switch x := x.(type) {
			case string:
				n += len(x)
			case []byte:
				n += len(x)
			}
		}
	}
	return n
}

// RefusedUnshown checks the error of opening the URL raw, whose password
// holds a character its driver cannot read unencoded: a usage error
// (engine.ErrBadPath) that names the encoding to use ("in it as %2F") and
// shows none of secrets, the pieces of the password.
func RefusedUnshown(t testing.TB, raw string, err error, secrets ...string) {
	t.Helper()
	if err == nil || !errors.Is(err, engine.ErrBadPath) {
		t.Errorf("%s: %v, want a bad path", raw, err)
		return
	}
	msg := err.Error()
	for _, s := range secrets {
		if strings.Contains(msg, s) {
			t.Errorf("%s: the error shows %q, part of the password: %s", raw, s, msg)
		}
	}
	if !strings.Contains(msg, "in it as %") {
		t.Errorf("%s: the error does not say how to write the password: %s", raw, msg)
	}
}
