package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSQLDefaultsToCSVWhenPiped(t *testing.T) {
	code, out, errs := runCLI(t, "", "sql", "SELECT name FROM categories ORDER BY name LIMIT 2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][0] != "name" {
		t.Fatalf("not CSV with a header and 2 rows: %q (%v)", out, err)
	}
}

func TestSQLTableFormat(t *testing.T) {
	path := testdb.Fixture(t)
	code, out, _ := runCLI(t, "", "sql", "--db", path, "--format", "table", `SELECT id, name, country FROM customer ORDER BY id`)
	if code != 0 {
		t.Fatal(code)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "id  name") || !strings.Contains(lines[4], "NULL") || lines[6] != "(4 rows)" {
		t.Fatalf("table output:\n%s", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes written to a non-terminal")
	}
	// Wide characters align: the country column starts at the same display
	// column on every row.
	col := func(line, word string) int { return ansi.StringWidth(line[:strings.Index(line, word)]) }
	if a, b := col(lines[2], "France"), col(lines[3], "Japan"); a != b {
		t.Errorf("country column at %d and %d:\n%s", a, b, out)
	}
}

func TestSQLFromStdinAndRowCap(t *testing.T) {
	code, out, errs := runCLI(t, "SELECT customer_id FROM customers ORDER BY customer_id", "sql", "--max-rows", "5", "-")
	if code != 0 {
		t.Fatal(errs)
	}
	if n := strings.Count(out, "\n"); n != 6 {
		t.Errorf("%d lines, want header + 5", n)
	}
	if !strings.Contains(errs, "stopped at 5 rows") {
		t.Errorf("no truncation note on stderr: %q", errs)
	}
	code, out, _ = runCLI(t, "", "sql", "--max-rows", "5", "--format", "json", "SELECT customer_id FROM customers")
	var doc struct {
		RowCount  int  `json:"row_count"`
		Truncated bool `json:"truncated"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.RowCount != 5 || !doc.Truncated {
		t.Fatalf("json: %d %s", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	path := testdb.Fixture(t)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sql", "--db", path, "SELECT 1"}, 0, ""},
		{[]string{"sql", "--db", path}, 2, "give the SQL"},
		{[]string{"sql", "--db", path, "--format", "xml", "SELECT 1"}, 2, "unknown format"},
		{[]string{"sql", "--db", path, "--bogus", "SELECT 1"}, 2, "flag provided but not defined"},
		{[]string{"sql", "--db", filepath.Join(t.TempDir(), "missing.db"), "SELECT 1"}, 2, "never creates"},
		{[]string{"sql", "--db", path, "DELETE FROM t"}, 3, "read-only"},
		{[]string{"sql", "--db", path, "SELECT nope FROM t"}, 4, "no such column: nope"},
		{[]string{"sql", "--db", path, "SELECT * FROM custmer"}, 4, "did you mean customer?"},
		{[]string{"sql", "--db", path, "--timeout", "200ms", slowQuery}, 5, "deadline"},
		{[]string{"frobnicate"}, 2, "unknown command"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d %q, want %d containing %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

const slowQuery = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

func TestSchema(t *testing.T) {
	path := testdb.Fixture(t)
	code, out, _ := runCLI(t, "", "schema", "--db", path, "order", "Order Details")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"table order (4 rows)", "customer_id  INTEGER  FK → customer.id", "← Order Details.order_id", "index order_customer (customer_id)", "table Order Details (3 rows)", "order_id  INTEGER  PK, FK → order.id"} {
		if !strings.Contains(out, want) {
			t.Errorf("schema output lacks %q:\n%s", want, out)
		}
	}
	code, _, errs := runCLI(t, "", "schema", "--db", path, "ordr")
	if code != 2 || !strings.Contains(errs, "did you mean order") {
		t.Errorf("unknown table: %d %q", code, errs)
	}
	code, out, _ = runCLI(t, "", "schema", "--db", path, "--format", "json")
	var doc struct {
		Tables []struct {
			Name     string `json:"name"`
			RowCount int    `json:"row_count"`
		} `json:"tables"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Tables) != 6 {
		t.Fatalf("schema json: %d %s", code, out)
	}
}

func TestExport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "orders.csv")
	code, _, errs := runCLI(t, "", "export", "--sql", "SELECT * FROM orders", "--out", out)
	if code != 0 {
		t.Fatal(errs)
	}
	f, _ := os.Open(out)
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 11888 {
		t.Fatalf("%d records, %v; want 11,887 rows and a header", len(recs), err)
	}
	if !strings.Contains(errs, "exported 11,887 rows") {
		t.Errorf("stderr %q", errs)
	}
	// The extension picks the format; a failing export leaves no file.
	jl := filepath.Join(dir, "x.jsonl")
	if code, _, _ := runCLI(t, "", "export", "--sql", "SELECT 1 AS a", "--out", jl); code != 0 {
		t.Fatal(code)
	}
	if b, _ := os.ReadFile(jl); string(b) != "{\"a\":1}\n" {
		t.Errorf("jsonl: %q", b)
	}
	// The CLI and the explorer pick formats the same way (export.FormatFor):
	// .markdown is Markdown, not CSV.
	md := filepath.Join(dir, "x.markdown")
	if code, _, errs := runCLI(t, "", "export", "--sql", "SELECT 1 AS a", "--out", md); code != 0 {
		t.Fatal(code, errs)
	}
	if b, _ := os.ReadFile(md); string(b) != "| a |\n| ---: |\n| 1 |\n" {
		t.Errorf("markdown: %q", b)
	}
	bad := filepath.Join(dir, "bad.csv")
	if code, _, _ := runCLI(t, "", "export", "--sql", "DELETE FROM orders", "--out", bad); code != 3 {
		t.Errorf("refused export exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left behind: %v", entries)
	}
}

func TestDoctor(t *testing.T) {
	code, out, errs := runCLI(t, "", "doctor")
	if code != 0 || !strings.Contains(out, "all checks passed") || strings.Contains(out, "FAIL") {
		t.Fatalf("doctor: %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "database: "+data.SampleName) || !strings.Contains(out, "SQLite 3.") {
		t.Errorf("doctor output:\n%s", out)
	}
	if !regexp.MustCompile(`\n[\d,]+ schema objects, [\d,]+ tables and views, [\d,]+ rows in tables\n`).MatchString(out) {
		t.Errorf("doctor's catalog line:\n%s", out)
	}
}

func TestCatalogSummary(t *testing.T) {
	for _, c := range []struct {
		objects, rows int64
		tables        int
		want          string
	}{
		{1, 1, 1, "1 schema object, 1 table or view, 1 row in tables"},
		{3, 120000, 1, "3 schema objects, 1 table or view, 120,000 rows in tables"},
		{48, 0, 16, "48 schema objects, 16 tables and views, 0 rows in tables"},
	} {
		if got := catalogSummary(c.objects, c.tables, c.rows); got != c.want {
			t.Errorf("catalogSummary(%d, %d, %d) = %q, want %q", c.objects, c.tables, c.rows, got, c.want)
		}
	}
}

func TestDefaultRunShowsSampleTables(t *testing.T) {
	code, out, _ := runCLI(t, "")
	if code != 0 || !strings.Contains(out, "customers") || !strings.Contains(out, "Database: sample") {
		t.Fatalf("%d\n%s", code, out)
	}
}

func TestChart(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sales.png")
	code, _, errs := runCLI(t, "", "chart", "--sql", "SELECT month, revenue FROM monthly_sales", "--out", out, "--width", "800", "--height", "500")
	if code != 0 || !strings.Contains(errs, "line chart of revenue by month") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 800 || cfg.Height != 500 {
		t.Fatalf("png %+v %v", cfg, err)
	}
	code, _, errs = runCLI(t, "", "chart", "--sql", "SELECT name, unit_price FROM products", "--kind", "bar", "--x", "unit_price", "--y", "name", "--out", filepath.Join(dir, "bad.png"))
	if code != 2 || !strings.Contains(errs, `y column "name" is TEXT, not numeric`) {
		t.Fatalf("bad spec: exit %d %q", code, errs)
	}
	// A partial spec is completed as every front door completes it
	// (chartspec.Complete): the kind alone picks x and y.
	code, _, errs = runCLI(t, "", "chart", "--sql", "SELECT c.name AS category, count(*) AS products FROM products p JOIN categories c USING (category_id) GROUP BY 1", "--kind", "pie", "--out", filepath.Join(dir, "pie.png"))
	if code != 0 || !strings.Contains(errs, "pie chart of products by category") {
		t.Fatalf("kind only: exit %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "chart", "--sql", "SELECT 'a' AS x", "--out", filepath.Join(dir, "none.png"))
	if code != 2 || !strings.Contains(errs, "no chart suits this result on its own (1 row; columns x TEXT) — give the kind, x and y") {
		t.Fatalf("no chart: exit %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "chart", "--sql", "DELETE FROM products", "--out", filepath.Join(dir, "x.png"))
	if code != 3 {
		t.Fatalf("refused: exit %d %q", code, errs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files: %v", entries)
	}
}

func TestOutputNeverReplacesTheDatabase(t *testing.T) {
	path := testdb.Fixture(t)
	before := testdb.FileHash(t, path)
	for _, args := range [][]string{
		{"export", "--db", path, "--sql", "SELECT * FROM t", "--out", path},
		{"export", "--db", path, "--sql", "SELECT * FROM t", "--out", path + "-journal"},
		{"chart", "--db", path, "--sql", "SELECT a, a FROM t", "--kind", "bar", "--x", "a", "--y", "a", "--out", path},
	} {
		code, _, errs := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, "refusing to write to") || !strings.Contains(errs, "it is the database") {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
	if testdb.FileHash(t, path) != before {
		t.Fatal("the database file changed")
	}
	if _, err := os.Stat(path + "-journal"); err == nil {
		t.Fatal("a journal file was created")
	}
}

// TestTraceNeverWritesTheDatabase: --trace names a file tablewise appends
// to; naming the database (or a file SQLite keeps beside it) is refused
// before a model is asked, and the database keeps its bytes. Before, ask
// appended a JSON line to the database file itself.
func TestTraceNeverWritesTheDatabase(t *testing.T) {
	askEnv(t, nil)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // a model that is never reached
	path := testdb.Fixture(t)
	before := testdb.FileHash(t, path)
	suite := filepath.Join(t.TempDir(), "one.jsonl")
	if err := os.WriteFile(suite, []byte(`{"question": "How many rows are in t?", "shape": "count", "sql": "SELECT count(*) FROM t"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ask", "--db", path, "--trace", path, "how many rows are in t"},
		{"ask", "--db", path, "--trace", path + "-journal", "how many rows are in t"},
		{"mcp", "--db", path, "--trace", path + "-wal"},
		{"eval", "--db", path, "--trace", path, "--suite", suite, "--out", filepath.Join(t.TempDir(), "run")},
	} {
		code, _, errs := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, "--trace: refusing to write to "+args[4]) {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
	if testdb.FileHash(t, path) != before {
		t.Fatal("the database file changed")
	}
	for _, suffix := range []string{"-journal", "-wal"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("a %s file was created", suffix)
		}
	}
}

// TestEvalTraceNeverWritesADatabaseOfItsFolder: with --db-dir, the
// databases the questions name are as much eval's as the --db one: a
// --trace naming one of them (or a file SQLite keeps beside it) is
// refused before a model is asked. Before, eval appended its trace to
// that database file.
func TestEvalTraceNeverWritesADatabaseOfItsFolder(t *testing.T) {
	askEnv(t, nil)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // a model that is never reached
	dir := t.TempDir()
	path := filepath.Join(dir, "shop", "shop.sqlite")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(testdb.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	before := testdb.FileHash(t, path)
	suite := filepath.Join(t.TempDir(), "one.jsonl")
	if err := os.WriteFile(suite, []byte(`{"question": "How many rows are in t?", "db": "shop", "shape": "count", "sql": "SELECT count(*) FROM t"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, trace := range []string{path, path + "-wal"} {
		code, _, errs := runCLI(t, "", "eval", "--db-dir", dir, "--trace", trace, "--suite", suite, "--out", filepath.Join(t.TempDir(), "run"))
		if code != exitUsage || !strings.Contains(errs, "--trace: refusing to write to "+trace) {
			t.Errorf("--trace %s: exit %d %q", trace, code, errs)
		}
	}
	if testdb.FileHash(t, path) != before {
		t.Fatal("the database file changed")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("a -wal file was created")
	}
}

// TestOutputRefusedThroughSymlinkedDatabase: with the database given as a
// link, an export to the real file's journal is refused; before, it wrote a
// bogus hot journal that made every later read of the database fail.
func TestOutputRefusedThroughSymlinkedDatabase(t *testing.T) {
	real := testdb.Fixture(t)
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{real + "-journal", real + "-wal", real} {
		code, _, errs := runCLI(t, "", "export", "--db", link, "--sql", "SELECT 'x' AS a", "--out", out)
		if code != exitUsage || !strings.Contains(errs, "refusing to write to") {
			t.Errorf("--out %s: exit %d %q", out, code, errs)
		}
	}
	if _, err := os.Stat(real + "-journal"); err == nil {
		t.Fatal("a journal file was written")
	}
	if code, out, errs := runCLI(t, "", "sql", "--db", real, "SELECT count(*) FROM t"); code != exitOK || !strings.Contains(out, "2") {
		t.Fatalf("reading the database afterwards: exit %d %q %q", code, out, errs)
	}
}

// TestOpenErrorsHidePasswords: a --db that tablewise cannot open is named
// in the error without its password, however the password was written:
// unencoded / # ? and @ in a URL's password, or a server's key=value DSN
// given where a URL or a file belongs. None of these reaches a server.
func TestOpenErrorsHidePasswords(t *testing.T) {
	const pw = "cdPwZ"
	for _, db := range []string{
		"postgres://postgres:ab/" + pw + "@127.0.0.1:5432/postgres", "postgres://postgres:ab@" + pw + "@127.0.0.1:1/postgres",
		"mysql://doors:ab/" + pw + "@127.0.0.1:3306/shop", "mysql://doors:ab#" + pw + "@127.0.0.1:3306/shop",
		"mysql://doors:ab@:/?" + pw + "@127.0.0.1:3306/shop",
		"host=127.0.0.1 user=postgres password=ab." + pw + " dbname=postgres",
		"postgres://postgres@127.0.0.1:1/postgres?sslpassword=ab." + pw,
	} {
		for _, args := range [][]string{{"sql", "--db", db, "SELECT 1"}, {"schema", "--db", db}, {"doctor", "--db", db}} {
			code, out, errs := runCLI(t, "", args...)
			if code == 0 {
				t.Errorf("%s --db %q: exit 0, want an error", args[0], db)
			}
			if strings.Contains(out+errs, pw) {
				t.Errorf("%s --db %q shows the password:\n%s%s", args[0], db, out, errs)
			}
		}
	}
}

// Virtual tables (FTS5 here) are listed by schema and .tables, marked as
// virtual.
func TestSchemaListsVirtualTables(t *testing.T) {
	path := testdb.Build(t, "fts.db", `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
CREATE VIRTUAL TABLE docs USING fts5(title, body); INSERT INTO docs VALUES ('a', 'hello there');`)
	code, out, errs := runCLI(t, "", "schema", "--db", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "virtual table docs (1 row)\n  title\n  body\n"; !strings.Contains(out, want) {
		t.Errorf("schema output lacks %q:\n%s", want, out)
	}
	code, out, errs = runCLI(t, "", "sql", "--db", path, ".tables")
	if code != 0 || !strings.Contains(out, "docs\n") {
		t.Errorf(".tables: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestOutputToAPipeKeepsTheDeadline: --out a named pipe that nobody reads,
// or whose reader stops reading, ends at --timeout with an error naming
// the pipe, and leaves nothing beside it. Before, opening a pipe with no
// reader blocked for good: neither --timeout nor SIGTERM ended it.
func TestOutputToAPipeKeepsTheDeadline(t *testing.T) {
	dir := t.TempDir()
	pipe, chartPipe := filepath.Join(dir, "out.csv"), filepath.Join(dir, "out.png")
	for _, p := range []string{pipe, chartPipe} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	run := func(out string, args ...string) (int, string) {
		t.Helper()
		type result struct {
			code int
			errs string
		}
		done := make(chan result, 1)
		go func() {
			code, _, errs := runCLI(t, "", append(args, "--timeout", "1s", "--out", out)...)
			done <- result{code, errs}
		}()
		select {
		case r := <-done:
			return r.code, r.errs
		case <-time.After(15 * time.Second):
			// Unblock the command so the test binary can end.
			if r, err := os.OpenFile(out, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				go func() { io.Copy(io.Discard, r); r.Close() }()
			}
			t.Fatalf("%v to a pipe ran 15 s past its 1 s --timeout", args)
			return 0, ""
		}
	}
	for _, c := range []struct {
		out  string
		args []string
	}{
		{pipe, []string{"export", "--sql", "SELECT 1 AS n"}},
		{chartPipe, []string{"chart", "--sql", "SELECT name, count(*) AS n FROM categories GROUP BY name"}},
	} {
		start := time.Now()
		code, errs := run(c.out, c.args...)
		if code == exitOK || !strings.Contains(errs, c.out) || !strings.Contains(errs, "no reader opened it") || time.Since(start) > 5*time.Second {
			t.Errorf("%s, no reader: exit %d after %s: %q", c.args[0], code, time.Since(start), errs)
		}
	}
	// A reader that opens the pipe and never reads: the pipe fills.
	r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	code, errs := run(pipe, "export", "--sql", "SELECT * FROM order_items")
	if code == exitOK || !strings.Contains(errs, pipe) || !strings.Contains(errs, "stopped reading") || time.Since(start) > 5*time.Second {
		t.Errorf("stalled reader: exit %d after %s: %q", code, time.Since(start), errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files beside the pipes: %v", entries)
	}
}
