package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
)

// dataFiles writes orders.csv (semicolon-separated, with a UTF-8 byte
// order mark) and customers.json into a fresh directory, makes it the
// working directory, and returns it.
func dataFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("\xEF\xBB\xBForder_id;customer_id;ordered_on;city;amount;paid\n")
	cities := []string{"Lisbon", "Zürich", "Osaka"}
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "%d;%d;2024-%02d-%02d;%s;%d.50;%v\n", i, 1+i%3, 1+i%6, 1+i%28, cities[i%3], i, i%2 == 0)
	}
	os.WriteFile(filepath.Join(dir, "orders.csv"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "customers.json"), []byte(`[{"customer_id":1,"name":"Ana"},{"customer_id":2,"name":"Bo"},{"customer_id":3,"name":"Zoë"}]`), 0o644)
	t.Chdir(dir)
	return dir
}

func TestDataFilesCLI(t *testing.T) {
	dir := dataFiles(t)
	before := dirState(t, dir)
	t.Setenv("TABLEWISE_PROVIDER", "offline")
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}

	code, out, errs := runCLI(t, "", "sql", "--db", "orders.csv", "--db", "customers.json",
		"SELECT c.name, count(*) AS orders, sum(o.amount) AS amount FROM orders o JOIN customers c USING (customer_id) GROUP BY c.name ORDER BY c.name")
	if code != 0 {
		t.Fatalf("sql: exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 4 || strings.Join(recs[1], ",") != "Ana,20,640.0" || strings.Join(recs[3], ",") != "Zoë,20,620.0" {
		t.Fatalf("sql over two files: %q (%v)", out, err)
	}

	// tablewise a.csv b.json: the summary when piped, a table per file.
	code, out, errs = runCLI(t, "", "orders.csv", "customers.json")
	if code != 0 || !strings.Contains(out, "Database: orders.csv, customers.json") ||
		!regexpMatch(`(?m)^\s+customers\s+table\s+2 columns\s+3 rows$`, out) || !regexpMatch(`(?m)^\s+orders\s+table\s+6 columns\s+60 rows$`, out) ||
		!strings.Contains(out, `Try:  tablewise sql --db orders.csv,customers.json "SELECT * FROM customers LIMIT 5"`) {
		t.Fatalf("tablewise orders.csv customers.json: exit %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = runCLI(t, "", "schema", "--db", "orders.csv")
	for _, want := range []string{"order_id", "INTEGER", "ordered_on", "DATE", "amount", "REAL", "paid", "BOOLEAN"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("schema lacks %q: exit %d\n%s\n%s", want, code, out, errs)
		}
	}

	code, out, errs = runCLI(t, "", "ask", "--db", "orders.csv", "total amount by city")
	if code != 0 || !strings.Contains(out, "SUM(amount)") || !strings.Contains(out, "Zürich") {
		t.Fatalf("ask (offline): exit %d\n%s\n%s", code, out, errs)
	}

	code, _, errs = runCLI(t, "", "chart", "--db", "orders.csv", "--out", "cities.png", "--sql", "SELECT city, sum(amount) AS amount FROM orders GROUP BY city")
	if fi, err := os.Stat(filepath.Join(dir, "cities.png")); code != 0 || err != nil || fi.Size() < 1000 {
		t.Fatalf("chart: exit %d: %s (%v)", code, errs, err)
	}
	os.Remove(filepath.Join(dir, "cities.png"))

	code, _, errs = runCLI(t, "", "export", "--db", "orders.csv", "--sql", "SELECT 1", "--out", "orders.csv")
	if code != exitUsage || !strings.Contains(errs, "refusing to write to orders.csv: it is a data file the database was loaded from") {
		t.Fatalf("export over the data file: exit %d: %s", code, errs)
	}
	code, _, errs = runCLI(t, "", "sql", "--db", "orders.csv", "DELETE FROM orders")
	if code != exitRefused {
		t.Fatalf("DELETE: exit %d: %s", code, errs)
	}
	sameState(t, dir, before) // nothing created, changed or removed

}

func TestDataFilesCLIErrors(t *testing.T) {
	dir := dataFiles(t)
	os.WriteFile(filepath.Join(dir, "broken.csv"), []byte("a,b\n1,2\n3,\"4\n5,6\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sql", "--db", "broken.csv", "SELECT 1"}, exitUsage, "broken.csv line 3: extraneous or missing \" in quoted-field"},
		{[]string{"sql", "--db", "missing.csv", "SELECT 1"}, exitUsage, "data file not found: missing.csv"},
		{[]string{"missing.jsonl"}, exitUsage, "data file not found: missing.jsonl"},
		{[]string{"sql", "--db", "orders.csv", "--db", "shop.db", "SELECT 1"}, exitUsage, "only data files such as .csv may be given with several --db"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("tablewise %s: exit %d, want %d with %q: %s", strings.Join(c.args, " "), code, c.code, c.want, errs)
		}
	}
}

func TestDataFilesMCP(t *testing.T) {
	dataFiles(t)
	c, _, hangUp := stdioMCP(t, []string{"--db", "orders.csv"}, nil)
	mcpSQL(t, c, map[string]any{"sql": "SELECT count(*) AS n, sum(paid) AS paid FROM orders"}, false, "n | paid\n60 | 30\n")
	mcpSQL(t, c, map[string]any{"sql": "DROP TABLE orders"}, true, "read-only")
	hangUp()
}

func TestDataFilesExplorer(t *testing.T) {
	dataFiles(t)
	e := startExplorer(t, "orders.csv")
	e.waitOut("orders")
	io.WriteString(e.in, "SELECT max(amount) AS top_amount FROM orders\r")
	e.waitOut("top_amount")
	e.waitOut("60.5")
	e.quit()
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"orders.csv":          "orders.csv",
		"/data/a.csv,b.jsonl": "/data/a.csv,b.jsonl",
		"my data.csv":         "'my data.csv'",
		"it's.csv":            `'it'\''s.csv'`,
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadLine(t *testing.T) {
	var p engine.LoadProgress
	name := "/data/orders.csv"
	p.File.Store(&name)
	p.Bytes.Store(256 << 20)
	p.Total.Store(1 << 30)
	p.Rows.Store(3_000_000)
	if got, want := loadLine(&p), "loading orders.csv… 256 MB of 1 GB (25%), 3,000,000 rows"; got != want {
		t.Errorf("loadLine = %q, want %q", got, want)
	}
}
