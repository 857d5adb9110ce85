package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

var update = flag.Bool("update", false, "rewrite golden files")

const fixtureSQL = `SELECT c.id, c.name, c.country, o.total, o.status, m.data
FROM customer c LEFT JOIN "order" o ON o.customer_id = c.id LEFT JOIN Match m ON m.id = c.id ORDER BY c.id, o.id`

func write(t *testing.T, format string, opt export.Options, sql string) string {
	t.Helper()
	d, err := db.Open(context.Background(), testdb.Fixture(t), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	w, err := export.New(format, &buf, opt)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := query.Run(context.Background(), d, sql, query.Options{}, w)
	if err != nil {
		t.Fatal(err)
	}
	sum.Elapsed = 0 // keep goldens stable
	if err := w.Finish(sum); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./core/export -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldens(t *testing.T) {
	for _, f := range []string{"csv", "json", "jsonl", "markdown"} {
		t.Run(f, func(t *testing.T) { golden(t, "fixture."+f, write(t, f, export.Options{}, fixtureSQL)) })
	}
	t.Run("csv-raw", func(t *testing.T) {
		golden(t, "fixture-raw.csv", write(t, "csv", export.Options{Raw: true}, fixtureSQL))
	})
}

func TestCSVIsRFC4180AndFormulaSafe(t *testing.T) {
	out := write(t, "csv", export.Options{}, `SELECT 'a,b' AS "x,y", 'say "hi"', 'line
break', '=1+1', '+1', '-1', '@SUM(A1)', char(9)||'tab', -1, 1.5, NULL, '', ' lead'`)
	if !strings.HasSuffix(out, "\r\n") || strings.Count(out, "\r\n") != 2 {
		t.Fatalf("want two CRLF-terminated records, got %q", out)
	}
	r := csv.NewReader(strings.NewReader(out))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv cannot read it back: %v\n%s", err, out)
	}
	want := []string{"a,b", `say "hi"`, "line\nbreak", "'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\ttab", "-1", "1.5", "", "", " lead"}
	if recs[0][0] != "x,y" {
		t.Errorf("header %q", recs[0][0])
	}
	for i, w := range want {
		if recs[1][i] != w {
			t.Errorf("cell %d = %q, want %q", i, recs[1][i], w)
		}
	}
	raw := write(t, "csv", export.Options{Raw: true}, "SELECT '=1+1', '-1'")
	if !strings.Contains(raw, "\r\n=1+1,-1\r\n") {
		t.Errorf("raw CSV changed cells: %q", raw)
	}
}

func TestJSONTypes(t *testing.T) {
	out := write(t, "json", export.Options{}, "SELECT 1 AS i, 2.5 AS r, 3.0 AS w, 'é\"\n' AS s, NULL AS n, x'00ff' AS b, 1e300*1e300 AS inf")
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var doc struct {
		Columns   []map[string]string `json:"columns"`
		Rows      [][]any             `json:"rows"`
		RowCount  int                 `json:"row_count"`
		Truncated bool                `json:"truncated"`
		SQL       string              `json:"sql"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	row := doc.Rows[0]
	if row[0] != json.Number("1") || row[1] != json.Number("2.5") || row[2] != json.Number("3.0") {
		t.Errorf("numbers: %#v", row[:3])
	}
	if row[3] != "é\"\n" || row[4] != nil || row[5] != "AP8=" || row[6] != nil {
		t.Errorf("values: %#v", row[3:])
	}
	if doc.RowCount != 1 || doc.Truncated || !strings.HasPrefix(doc.SQL, "SELECT 1 AS i") || doc.Columns[0]["name"] != "i" {
		t.Errorf("envelope: %+v", doc)
	}
}

func TestJSONLDuplicateNames(t *testing.T) {
	out := write(t, "jsonl", export.Options{}, "SELECT 1 AS a, 2 AS a, 'x' AS b")
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	if obj["a"] != 1.0 || obj["a:2"] != 2.0 || obj["b"] != "x" {
		t.Fatalf("got %v", obj)
	}
}

func TestAppendFloat(t *testing.T) {
	for f, want := range map[float64]string{1: "1.0", 0.1: "0.1", -2.5: "-2.5", 1e20: "1e+20", 1.5e-7: "1.5e-07", 123456789.125: "123456789.125", 0: "0.0"} {
		if got := string(export.AppendFloat(nil, f)); got != want {
			t.Errorf("AppendFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

// BenchmarkExportCSV streams 100,000 rows of six columns to CSV.
func BenchmarkExportCSV(b *testing.B) {
	path := testdb.Build(b, "bench.db", `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, day TEXT, note TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000)
INSERT INTO t SELECT x, 'item-'||(x%9973), (x%1000)/7.0, x%17, date('2022-01-01', '+'||(x%1000)||' days'),
  CASE WHEN x%10=0 THEN NULL WHEN x%7=0 THEN 'say "hi", ok' ELSE 'plain note '||x END FROM c;`)
	d, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.ResetTimer()
	for b.Loop() {
		w := export.NewCSV(io.Discard, false)
		sum, err := query.Run(context.Background(), d, "SELECT * FROM t", query.Options{}, w)
		if err != nil || sum.RowCount != 100000 {
			b.Fatal(err, sum)
		}
		w.Finish(sum)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/row")
}
