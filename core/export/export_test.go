package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

var update = flag.Bool("update", false, "rewrite golden files")

const fixtureSQL = `SELECT c.id, c.name, c.country, o.total, o.status, m.data
FROM customer c LEFT JOIN "order" o ON o.customer_id = c.id LEFT JOIN Match m ON m.id = c.id ORDER BY c.id, o.id`

func write(t *testing.T, format string, opt export.Options, sql string) string {
	t.Helper()
	d := testdb.Open(t, testdb.Fixture(t))
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

// BenchmarkExportCSV streams 100,000 rows of six columns to CSV.
func BenchmarkExportCSV(b *testing.B) {
	path := testdb.Build(b, "bench.db", `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, day TEXT, note TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000)
INSERT INTO t SELECT x, 'item-'||(x%9973), (x%1000)/7.0, x%17, date('2022-01-01', '+'||(x%1000)||' days'),
  CASE WHEN x%10=0 THEN NULL WHEN x%7=0 THEN 'say "hi", ok' ELSE 'plain note '||x END FROM c;`)
	d := testdb.Open(b, path)
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

// Every way a spreadsheet may start reading a cell as a formula is
// guarded: the trigger characters, leading whitespace before them (Google
// Sheets, and LibreOffice with "trim spaces", drop it), their full-width
// forms, and a leading tab, CR or LF (OWASP).
func TestCSVFormulaGuard(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"=1+1", "'=1+1"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{" =1", "' =1"},
		{"   +cmd", "'   +cmd"},
		{"\u00a0=1", "'\u00a0=1"}, // no-break space
		{"\u3000@x", "'\u3000@x"}, // ideographic space
		{"\ufeff=1", "'\ufeff=1"}, // byte-order mark
		{"\u200b-1", "'\u200b-1"}, // zero-width space
		{"＝1+1", "'＝1+1"},         // full-width equals sign
		{"＋1", "'＋1"},
		{"－1", "'－1"},
		{"＠x", "'＠x"},
		{"\tx", "'\tx"},
		{" x = 1", " x = 1"}, // a formula character later on is text
		{"a=1", "a=1"},
		{"   ", "   "},
		{"", ""},
	} {
		sql := "SELECT " + sqlString(c.value) + " AS v"
		got := strings.TrimSuffix(strings.TrimPrefix(write(t, "csv", export.Options{}, sql), "v\r\n"), "\r\n")
		if got != c.want && got != `"`+c.want+`"` {
			t.Errorf("%q: got %q, want %q", c.value, got, c.want)
		}
		raw := strings.TrimSuffix(strings.TrimPrefix(write(t, "csv", export.Options{Raw: true}, sql), "v\r\n"), "\r\n")
		if strings.Trim(raw, `"`) != c.value {
			t.Errorf("%q raw: got %q", c.value, raw)
		}
	}
}

// A text cell whose first character is ASCII is guarded exactly when that
// character is a trigger, or a tab, CR or LF, or whitespace that a
// spreadsheet skips before the "=" that follows it.
func TestCSVFormulaGuardFirstCharacter(t *testing.T) {
	var cols []string
	for ch := range utf8.RuneSelf {
		cols = append(cols, sqlString(string(rune(ch))+"=1")+" AS c"+strconv.Itoa(ch))
	}
	rows, err := csv.NewReader(strings.NewReader(write(t, "csv", export.Options{}, "SELECT "+strings.Join(cols, ", ")))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	for ch, got := range rows[1] {
		value := string(rune(ch)) + "=1"
		if ch == 0 {
			value = "\ufffd=1" // CSV cannot hold NUL
		}
		want := value
		if strings.ContainsRune("=+-@\t\r\n", rune(ch)) || unicode.IsSpace(rune(ch)) {
			want = "'" + value
		}
		if got != want {
			t.Errorf("first character %#x: got %q, want %q", ch, got, want)
		}
	}
}

// sqlString quotes s as an SQL string literal built from char() for the
// characters SQL text cannot hold as they are.
func sqlString(s string) string {
	var parts []string
	for _, r := range s {
		if r < 0x20 {
			parts = append(parts, "char("+strconv.Itoa(int(r))+")")
			continue
		}
		parts = append(parts, "'"+strings.ReplaceAll(string(r), "'", "''")+"'")
	}
	if len(parts) == 0 {
		return "''"
	}
	return strings.Join(parts, "||")
}

// CSV and Markdown write valid UTF-8 as JSON does: an invalid byte becomes
// U+FFFD; NUL, which CSV and Markdown cannot hold, becomes U+FFFD in CSV
// and ␀ in Markdown (JSON keeps it as \u0000). Markdown, written for
// reading, shows other control characters as symbols too; CSV keeps them.
func TestTextIsValidUTF8InEveryFormat(t *testing.T) {
	const sql = `SELECT CAST(x'61ff62' AS TEXT) AS bad, 'a'||char(0)||'b' AS nul, char(27)||'[2J' AS esc`
	csvOut := write(t, "csv", export.Options{}, sql)
	if want := "bad,nul,esc\r\na\ufffdb,a\ufffdb,\x1b[2J\r\n"; csvOut != want {
		t.Errorf("csv: %q, want %q", csvOut, want)
	}
	md := write(t, "markdown", export.Options{}, sql)
	if want := "| a\ufffdb | a␀b | ␛[2J |\n"; !strings.HasSuffix(md, want) {
		t.Errorf("markdown: %q, want it to end %q", md, want)
	}
	js := write(t, "json", export.Options{}, sql)
	if !strings.Contains(js, `["a\ufffdb","a\u0000b","\u001b[2J"]`) {
		t.Errorf("json: %s", js)
	}
	for name, out := range map[string]string{"csv": csvOut, "markdown": md, "json": js} {
		if !utf8.ValidString(out) || strings.ContainsRune(out, 0) {
			t.Errorf("%s: invalid UTF-8 or a NUL byte in %q", name, out)
		}
	}
}

func TestFormatFor(t *testing.T) {
	for path, want := range map[string]string{
		"a.csv": "csv", "a.JSON": "json", "a.jsonl": "jsonl", "a.ndjson": "jsonl",
		"a.md": "markdown", "a.markdown": "markdown", "a.txt": "csv", "noext": "csv",
	} {
		if got := export.FormatFor(path); got != want {
			t.Errorf("FormatFor(%q) = %q, want %q", path, got, want)
		}
	}
}

// ToFile writes the whole result in the format its name asks for, counts
// what it wrote, and leaves nothing behind when it fails or would write
// over the database.
func TestToFile(t *testing.T) {
	dbPath := testdb.Fixture(t)
	d := testdb.Open(t, dbPath)
	dir := t.TempDir()
	ctx := context.Background()

	out := filepath.Join(dir, "names.markdown")
	var p export.Progress
	sum, err := export.ToFile(ctx, d, "SELECT name FROM customer ORDER BY id LIMIT 2", out, export.RunOptions{Progress: &p})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if want := "| name |\n| --- |\n| Zoë Brontë |\n| 田中 太郎 |\n"; string(b) != want {
		t.Errorf("wrote %q, want %q", b, want)
	}
	if sum.RowCount != 2 || p.Rows.Load() != 2 || p.Bytes.Load() != int64(len(b)) {
		t.Errorf("rows %d, progress %d rows %d bytes; file %d bytes", sum.RowCount, p.Rows.Load(), p.Bytes.Load(), len(b))
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}

	// The format flag wins over the extension.
	js := filepath.Join(dir, "forced.csv")
	if _, err := export.ToFile(ctx, d, "SELECT 1 AS a", js, export.RunOptions{Format: "jsonl"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(js); string(b) != "{\"a\":1}\n" {
		t.Errorf("forced jsonl: %q", b)
	}

	// Failures leave no file: a refusal, an unknown format, the database.
	if _, err := export.ToFile(ctx, d, "DELETE FROM customer", filepath.Join(dir, "bad.csv"), export.RunOptions{}); !errors.Is(err, guard.ErrRefused) {
		t.Errorf("refused export: %v", err)
	}
	var fe *export.FormatError
	if _, err := export.ToFile(ctx, d, "SELECT 1", filepath.Join(dir, "x.csv"), export.RunOptions{Format: "xml"}); !errors.As(err, &fe) || fe.Format != "xml" {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := export.ToFile(ctx, d, "SELECT 1", dbPath, export.RunOptions{}); !errors.Is(err, db.ErrOutputIsDatabase) {
		t.Errorf("export over the database: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %v, want the two exports", entries)
	}
}

// Watch reports the counters until stopped, and not after.
func TestProgressWatch(t *testing.T) {
	var p export.Progress
	p.Rows.Store(5)
	p.Bytes.Store(70)
	var mu sync.Mutex
	calls := 0
	seen := make(chan [2]int64, 1)
	stop := p.Watch(time.Millisecond, func(rows, bytes int64) {
		mu.Lock()
		calls++
		mu.Unlock()
		select {
		case seen <- [2]int64{rows, bytes}:
		default:
		}
	})
	if got := <-seen; got != [2]int64{5, 70} {
		t.Errorf("reported %v, want [5 70]", got)
	}
	stop()
	mu.Lock()
	after := calls
	mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if calls != after {
		t.Errorf("reported %d times after stop", calls-after)
	}
}
