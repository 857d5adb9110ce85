package files_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/files"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// write writes a file into a fresh directory and returns its path.
func write(t *testing.T, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func open(t *testing.T, dsn string) engine.Engine {
	t.Helper()
	e, err := files.Open(context.Background(), dsn, engine.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func rows(t *testing.T, e engine.Engine, sql string) [][]any {
	t.Helper()
	res, err := query.Collect(context.Background(), e, sql, query.Options{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	out := make([][]any, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = []any(r)
	}
	return out
}

// columns returns "name TYPE" for each column of table, in order.
func columns(t *testing.T, e engine.Engine, table string) []string {
	t.Helper()
	var out []string
	for _, r := range rows(t, e, fmt.Sprintf("SELECT name, type FROM pragma_table_info('%s')", table)) {
		out = append(out, fmt.Sprint(r[0], " ", r[1]))
	}
	return out
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

const people = "id,name,height,born,member,signed_up,zip,note\n" +
	"1,Ana,1.62,1990-02-03,true,2024-01-05T10:00:00Z,02134,\n" +
	"2,Bo,1.8,1985-12-31,false,2024-01-06 11:30,10001,\"says \"\"hi\"\", twice\"\n" +
	"3,Chloé,,2001-07-04,TRUE,2024-02-29T23:59:59.5+01:00,94110,\"multi\nline\"\n"

func TestCSVTypesAndValues(t *testing.T) {
	e := open(t, write(t, "people.csv", []byte(people)))
	same(t, "columns", columns(t, e, "people"), []string{
		"id INTEGER", "name TEXT", "height REAL", "born DATE", "member BOOLEAN",
		"signed_up DATETIME", "zip TEXT", "note TEXT"})
	got := rows(t, e, "SELECT id, name, height, born, member, signed_up, zip, note FROM people ORDER BY id")
	same(t, "rows", got, [][]any{
		{int64(1), "Ana", 1.62, "1990-02-03", int64(1), "2024-01-05T10:00:00Z", "02134", nil},
		{int64(2), "Bo", 1.8, "1985-12-31", int64(0), "2024-01-06 11:30", "10001", `says "hi", twice`},
		{int64(3), "Chloé", nil, "2001-07-04", int64(1), "2024-02-29T23:59:59.5+01:00", "94110", "multi\nline"},
	})
	same(t, "typeof", rows(t, e, "SELECT typeof(id), typeof(height), typeof(member) FROM people WHERE id = 1"),
		[][]any{{"integer", "real", "integer"}})
	if w := e.Warnings(); len(w) != 0 {
		t.Errorf("warnings for a clean file: %q", w)
	}
	if got := e.Source().Label; got != "people.csv" {
		t.Errorf("label %q, want people.csv", got)
	}
}

func TestValuesThatDoNotFitAreKeptAsTextWithANote(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,day\n")
	for i := range 10_050 { // past the sample that decides the types
		b.WriteString(fmt.Sprintf("%d,2024-01-%02d\n", i, 1+i%28))
	}
	b.WriteString("n/a,soon\n")
	e := open(t, write(t, "late.csv", []byte(b.String())))
	same(t, "columns", columns(t, e, "late"), []string{"n INTEGER", "day DATE"})
	same(t, "misfit", rows(t, e, "SELECT n, typeof(n), day FROM late WHERE n = 'n/a'"), [][]any{{"n/a", "text", "soon"}})
	same(t, "count", rows(t, e, "SELECT count(*), sum(n) FROM late"), [][]any{{int64(10_051), float64(10_050 * 10_049 / 2)}})
	w := strings.Join(e.Warnings(), "\n")
	for _, want := range []string{"column n is INTEGER but 1 value did not fit (the first on line 10052)", "column day is DATE"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

func TestDelimiterDetection(t *testing.T) {
	for _, c := range []struct{ name, sep string }{
		{"comma.csv", ","}, {"semicolon.csv", ";"}, {"tab.csv", "\t"}, {"pipe.csv", "|"}, {"tabs.tsv", "\t"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The quoted field holds every separator.
			text := strings.Join([]string{"a", "b", "c"}, c.sep) + "\n" +
				strings.Join([]string{"1", "\"x, y; z|\t\"", "2.5"}, c.sep) + "\n" +
				strings.Join([]string{"2", "w", "3"}, c.sep) + "\n"
			table := strings.TrimSuffix(c.name, filepath.Ext(c.name))
			e := open(t, write(t, c.name, []byte(text)))
			same(t, "columns", columns(t, e, table), []string{"a INTEGER", "b TEXT", "c REAL"})
			same(t, "rows", rows(t, e, "SELECT * FROM "+table+" ORDER BY a"), [][]any{{int64(1), "x, y; z|\t", 2.5}, {int64(2), "w", 3.0}})
		})
	}
}

func TestEncodings(t *testing.T) {
	text := "name,city\nZoë,Zürich\nJosé,São Paulo\n"
	utf16 := func(bigEndian bool) []byte {
		out := []byte{0xFF, 0xFE}
		if bigEndian {
			out = []byte{0xFE, 0xFF}
		}
		for _, r := range text { // all in the Basic Multilingual Plane
			if bigEndian {
				out = append(out, byte(r>>8), byte(r))
			} else {
				out = append(out, byte(r), byte(r>>8))
			}
		}
		return out
	}
	latin1 := []byte{}
	for _, r := range text {
		latin1 = append(latin1, byte(r))
	}
	for _, c := range []struct {
		name string
		data []byte
		note string
	}{
		{"utf8", []byte(text), ""},
		{"bom", append([]byte{0xEF, 0xBB, 0xBF}, text...), ""},
		{"utf16le", utf16(false), ""},
		{"utf16be", utf16(true), ""},
		{"latin1", latin1, "read as Latin-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := open(t, write(t, c.name+".csv", c.data))
			same(t, "columns", columns(t, e, c.name), []string{"name TEXT", "city TEXT"})
			same(t, "rows", rows(t, e, "SELECT * FROM "+c.name), [][]any{{"Zoë", "Zürich"}, {"José", "São Paulo"}})
			w := strings.Join(e.Warnings(), "\n")
			if c.note == "" && w != "" || c.note != "" && !strings.Contains(w, c.note) {
				t.Errorf("warnings %q, want a note containing %q", w, c.note)
			}
		})
	}
}

func TestHeaderlessCSV(t *testing.T) {
	e := open(t, write(t, "nums.csv", []byte("1,2.5,2024-01-01\n2,3.5,2024-01-02\n")))
	same(t, "columns", columns(t, e, "nums"), []string{"column_1 INTEGER", "column_2 REAL", "column_3 DATE"})
	same(t, "count", rows(t, e, "SELECT count(*) FROM nums"), [][]any{{int64(2)}})
}

func TestHeaderNames(t *testing.T) {
	e := open(t, write(t, "My Sales-2024.csv", []byte(" id ,,id,ID\n1,2,3,4\n")))
	same(t, "columns", columns(t, e, "My_Sales_2024"), []string{"id INTEGER", "column_2 INTEGER", "id_2 INTEGER", "ID_3 INTEGER"})
}

// TestJSONKeyNames: a blank key is named by its position, and keys that
// differ only in case are made distinct as header names are; a key keeps
// its spaces (a CSV header's are trimmed).
func TestJSONKeyNames(t *testing.T) {
	e := open(t, write(t, "keys.jsonl", []byte(`{"id": 1, "": 2, "ID": 3, " a ": 4, "Id": 5}`+"\n")))
	same(t, "columns", columns(t, e, "keys"), []string{"id INTEGER", "column_2 INTEGER", "ID_2 INTEGER", " a  INTEGER", "Id_3 INTEGER"})
}

func TestJSONAndJSONLines(t *testing.T) {
	array := `[
  {"id": 1, "name": "Ana", "score": 9.5, "ok": true, "day": "2024-03-01", "tags": ["a", "b"]},
  {"id": 2, "name": "Bo", "score": 7, "ok": false, "day": null, "extra": {"k": 1}}
]`
	lines := "{\"id\": 1, \"name\": \"Ana\", \"score\": 9.5, \"ok\": true, \"day\": \"2024-03-01\", \"tags\": [\"a\", \"b\"]}\n\n" +
		"{\"id\": 2, \"name\": \"Bo\", \"score\": 7, \"ok\": false, \"day\": null, \"extra\": {\"k\": 1}}\n"
	for _, c := range []struct{ name, data string }{{"people.json", array}, {"people.jsonl", lines}, {"people.ndjson", lines}} {
		t.Run(c.name, func(t *testing.T) {
			e := open(t, write(t, c.name, []byte(c.data)))
			same(t, "columns", columns(t, e, "people"), []string{"id INTEGER", "name TEXT", "score REAL", "ok BOOLEAN", "day DATE", "tags TEXT", "extra TEXT"})
			same(t, "rows", rows(t, e, "SELECT * FROM people ORDER BY id"), [][]any{
				{int64(1), "Ana", 9.5, int64(1), "2024-03-01", `["a","b"]`, nil},
				{int64(2), "Bo", 7.0, int64(0), nil, nil, `{"k":1}`},
			})
		})
	}
}

func TestJSONStringsThatLookLikeNumbersStayText(t *testing.T) {
	e := open(t, write(t, "codes.jsonl", []byte(`{"code": "42"}`+"\n"+`{"code": "7"}`+"\n")))
	same(t, "columns", columns(t, e, "codes"), []string{"code TEXT"})
}

type pqRow struct {
	ID    int64   `parquet:"id"`
	Name  string  `parquet:"name"`
	Price float64 `parquet:"price"`
	Paid  bool    `parquet:"paid"`
	Qty   *int32  `parquet:"qty,optional"`
	Day   int32   `parquet:"day,date"` // days since 1970-01-01

	At     time.Time `parquet:"at,timestamp(millisecond)"`
	Secret []byte    `parquet:"secret"`
}

func TestParquet(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sales.parquet")
	three := int32(3)
	day := time.Date(2024, 5, 17, 0, 0, 0, 0, time.UTC)
	in := []pqRow{
		{ID: 1, Name: "Ana", Price: 9.5, Paid: true, Qty: &three, Day: int32(day.Unix() / 86400), At: day.Add(90 * time.Minute), Secret: []byte{0xff, 0x00}},
		{ID: 2, Name: "Zoë", Price: 2.25, Day: int32(day.Unix()/86400) + 1, At: day.Add(25 * time.Hour), Secret: []byte("plain")},
	}
	if err := parquet.WriteFile(p, in); err != nil {
		t.Fatal(err)
	}
	e := open(t, p)
	same(t, "columns", columns(t, e, "sales"), []string{"id INTEGER", "name TEXT", "price REAL", "paid BOOLEAN", "qty INTEGER", "day DATE", "at DATETIME", "secret TEXT"})
	same(t, "rows", rows(t, e, "SELECT id, name, price, paid, qty, day, at, typeof(secret), hex(secret) FROM sales ORDER BY id"), [][]any{
		{int64(1), "Ana", 9.5, int64(1), int64(3), "2024-05-17", "2024-05-17 01:30:00", "blob", "FF00"},
		{int64(2), "Zoë", 2.25, int64(0), nil, "2024-05-18", "2024-05-18 01:00:00", "text", "706C61696E"},
	})
}

func TestSeveralFilesAreSeveralTables(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "orders.csv")
	b := filepath.Join(dir, "customers.jsonl")
	c := filepath.Join(dir, "sub", "orders.tsv")
	os.MkdirAll(filepath.Dir(c), 0o755)
	os.WriteFile(a, []byte("id,customer_id,amount\n1,10,5.5\n2,11,7\n3,10,1\n"), 0o644)
	os.WriteFile(b, []byte(`{"id":10,"name":"Ana"}`+"\n"+`{"id":11,"name":"Bo"}`+"\n"), 0o644)
	os.WriteFile(c, []byte("x\ty\n1\t2\n"), 0o644)
	e := open(t, a+","+b+","+c)
	same(t, "tables", rows(t, e, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"), [][]any{{"customers"}, {"orders"}, {"orders_2"}})
	same(t, "join", rows(t, e, "SELECT c.name, sum(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name ORDER BY c.name"),
		[][]any{{"Ana", 6.5}, {"Bo", 7.0}})
	if got := e.Source().Label; got != "orders.csv, customers.jsonl, orders.tsv" {
		t.Errorf("label %q", got)
	}
}

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	comma := filepath.Join(dir, "a,b.csv")
	os.WriteFile(comma, []byte("x\n1\n"), 0o644)
	for _, c := range []struct {
		dsn  string
		want []string
	}{
		{"data.csv", []string{"data.csv"}},
		{"DATA.CSV", []string{"DATA.CSV"}},
		{"a.csv,b.json", []string{"a.csv", "b.json"}},
		{"a.csv, b.parquet", []string{"a.csv", "b.parquet"}},
		{comma, []string{comma}},
		{"a.csv,b.db", nil},
		{"shop.db", nil},
		{"file:x.csv", nil},
		{"postgres://h/x.csv", nil},
		{"notes.txt", nil},
	} {
		if got := files.Paths(c.dsn); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Paths(%q) = %q, want %q", c.dsn, got, c.want)
		}
	}
}

func TestBadInputNamesTheFileAndLine(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"quote.csv", "a,b\n1,2\n3,\"open\n4,5\n", "quote.csv line 3"},
		{"quote.csv", "a,b\n1,2\n3,x\"y\n", "quote.csv line 3: bare \" in non-quoted-field"},
		{"wide.csv", "a,b\n1,2\n3,4\n5,6,7\n", "wide.csv line 4: 3 fields, but the header has 2"},
		{"empty.csv", "", "empty.csv: is empty"},
		{"bad.jsonl", "{\"a\":1}\n{\"a\":2\n", "bad.jsonl line 2: "},
		{"notobj.jsonl", "{\"a\":1}\n[1,2]\n", "notobj.jsonl line 2: a JSON object was expected"},
		{"bad.json", "[\n{\"a\":1},\n{\"a\":2,,}\n]", "bad.json line 3: invalid JSON"},
		{"obj.json", "{\"a\":1}", "obj.json line 1: is not a JSON array"},
		{"cut.json", "[{\"a\":1},", "cut.json line 1: the JSON ends too early"},
		{"junk.parquet", "this is not parquet at all", "junk.parquet: not a readable Parquet file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.name, []byte(c.data))
			_, err := files.Open(context.Background(), p, engine.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if !errors.Is(err, engine.ErrBadPath) {
				t.Errorf("error %v is not a usage error (engine.ErrBadPath)", err)
			}
			var ie *files.InputError
			if !errors.As(err, &ie) || ie.File != p {
				t.Errorf("error does not name the file %s: %#v", p, err)
			}
		})
	}
}

func TestMissingFileAndDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := files.Open(context.Background(), filepath.Join(dir, "nope.csv"), engine.Options{})
	if !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), "nope.csv") {
		t.Errorf("missing file: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "d.csv"), 0o755)
	_, err = files.Open(context.Background(), filepath.Join(dir, "d.csv"), engine.Options{})
	if !errors.Is(err, engine.ErrBadPath) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
}

// listing is a directory's names, sizes, modes and times.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprint(p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestNothingIsWrittenAndEveryWriteIsRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	os.WriteFile(p, []byte("a,b\n1,x\n2,y\n"), 0o644)
	os.Chmod(dir, 0o555) // a read-only directory: nothing could be created beside the file
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before := listing(t, dir)
	e, err := files.Open(context.Background(), p, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"DELETE FROM t", "INSERT INTO t VALUES (3, 'z')", "UPDATE t SET a = 0", "DROP TABLE t",
		"CREATE TABLE u (x)", "ATTACH 'x.db' AS x", "PRAGMA query_only = 0", "VACUUM",
	} {
		_, err := query.Collect(context.Background(), e, sql, query.Options{})
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%s: %v, want a refusal", sql, err)
		}
	}
	same(t, "rows after the refusals", rows(t, e, "SELECT * FROM t ORDER BY a"), [][]any{{int64(1), "x"}, {int64(2), "y"}})
	testdb.DoctorOK(t, e)
	if what, owned := e.Owns(p); !owned || !strings.Contains(what, "data file") {
		t.Errorf("Owns(%s) = %q, %v: an export over the data file must be refused", p, what, owned)
	}
	if _, owned := e.Owns(filepath.Join(dir, "out.csv")); owned {
		t.Error("Owns claims an unrelated path")
	}
	e.Close()
	same(t, "directory after open, queries and close", listing(t, dir), before)
}

func TestTooBigForTheHeapLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,text\n")
	for i := 0; b.Len() < 12<<20; i++ {
		fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("x", 200))
	}
	p := write(t, "big.csv", []byte(b.String()))
	_, err := files.Open(context.Background(), p, engine.Options{HeapLimit: 4 << 20})
	var le *query.LimitError
	if !errors.As(err, &le) || le.Kind != "memory" || !strings.Contains(err.Error(), "heap limit of 4 MB") || !strings.Contains(err.Error(), p+" does not fit in memory: at line ") {
		t.Fatalf("error %v, want a memory limit naming the file and the heap limit", err)
	}
	// The limit is process-wide: a later open sets its own.
	e := open(t, write(t, "small.csv", []byte("a\n1\n")))
	same(t, "small", rows(t, e, "SELECT a FROM small"), [][]any{{int64(1)}})
}

// numbersCSV writes n.csv, a column n holding 0…rows-1, and returns its
// path and size.
func numbersCSV(t *testing.T, rows int) (string, int64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("n\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return write(t, "n.csv", []byte(b.String())), int64(b.Len())
}

func TestProgressCountsTheLoad(t *testing.T) {
	p, size := numbersCSV(t, 5000)
	var prog engine.LoadProgress
	e, err := files.Open(context.Background(), p, engine.Options{Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if prog.Rows.Load() != 5000 || prog.Bytes.Load() != size || prog.Total.Load() != size || *prog.File.Load() != p {
		t.Errorf("progress rows %d bytes %d of %d file %q, want 5000 rows, %d bytes", prog.Rows.Load(), prog.Bytes.Load(), prog.Total.Load(), *prog.File.Load(), size)
	}
}

func TestCancelledLoadStops(t *testing.T) {
	p, _ := numbersCSV(t, 200_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := files.Open(ctx, p, engine.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestCorruptParquet(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sales.parquet")
	in := make([]pqRow, 2000)
	for i := range in {
		in[i] = pqRow{ID: int64(i), Name: fmt.Sprint("name ", i), Price: float64(i)}
	}
	if err := parquet.WriteFile(p, in); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	for i := 100; i < len(b)/2; i++ { // the data pages, not the footer
		b[i] ^= 0x5A
	}
	os.WriteFile(p, b, 0o644)
	_, err := files.Open(context.Background(), p, engine.Options{})
	var ie *files.InputError
	if !errors.As(err, &ie) || ie.File != p {
		t.Fatalf("error %v, want an input error naming %s", err, p)
	}
	// A later open works: nothing was left half done.
	e := open(t, write(t, "ok.csv", []byte("a\n1\n")))
	same(t, "ok", rows(t, e, "SELECT a FROM ok"), [][]any{{int64(1)}})
}
