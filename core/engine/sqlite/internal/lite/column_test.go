package lite

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

// apiColumn reads column i of st through the sqlite3_column_* functions
// alone, as Stmt's readers did before they read the current row in place.
type apiColumn struct{ st *Stmt }

func (a apiColumn) Type(i int) int {
	return int(sqlite3.Xsqlite3_column_type(a.st.c.tls, a.st.p, int32(i)))
}

func (a apiColumn) Int64(i int) int64 {
	return sqlite3.Xsqlite3_column_int64(a.st.c.tls, a.st.p, int32(i))
}

func (a apiColumn) Float64(i int) float64 {
	return sqlite3.Xsqlite3_column_double(a.st.c.tls, a.st.p, int32(i))
}

func (a apiColumn) RawText(i int) []byte {
	return a.st.raw(sqlite3.Xsqlite3_column_text(a.st.c.tls, a.st.p, int32(i)), i)
}

func (a apiColumn) RawBlob(i int) []byte {
	return a.st.raw(sqlite3.Xsqlite3_column_blob(a.st.c.tls, a.st.p, int32(i)), i)
}

// TestColumnReadsMatchTheAPI steps two copies of each statement side by
// side and reads every column of every row of one through Stmt and of the
// other through the sqlite3_column_* functions, in the same order (a read
// may convert a value in place and so change what later reads see): every
// storage class, REALs stored as integers, empty, long (overflowing,
// unterminated), multibyte and NUL-holding text, zeroblobs, a UTF-16
// database, columns out of range, and reads before the first row and after
// the last read the same.
func TestColumnReadsMatchTheAPI(t *testing.T) {
	for _, enc := range []string{"UTF-8", "UTF-16le"} {
		c, err := Open("file:"+filepath.Join(t.TempDir(), "c.db")+"?mode=rwc", OpenURI|OpenNoMutex|OpenReadWrite|OpenCreate)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, sql := range []string{
			"PRAGMA encoding = '" + enc + "'",
			"CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, a)",
			`INSERT INTO t VALUES
				(1, 2.5, 'plain', x'00ff', NULL),
				(-9223372036854775808, 3.0, '', x'', 7),
				(NULL, -0.0, 'é"ü' || char(0) || 'x', zeroblob(3), 1e308),
				(42, 1e-7, '12abc', 'text in a blob column', x'41'),
				(0, 0.1, printf('%.*c', 100000, 'q'), randomblob(70000), '3.5')`,
		} {
			if err := c.Exec(sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		for _, q := range []string{
			"SELECT i, r, s, b, a FROM t",
			"SELECT zeroblob(4), 1, 2.0, 'x' || i, CAST(r AS TEXT), upper(s) FROM t",
		} {
			// Text read first converts a zeroblob, blob read first marks
			// text as a blob too.
			compareColumns(t, c, enc, q, []read{readType, readInt, readFloat, readText, readType, readBlob, readText})
			compareColumns(t, c, enc, q, []read{readBlob, readType, readText, readFloat, readInt, readType})
		}
	}
}

func compareColumns(t *testing.T, c *Conn, enc, q string, order []read) {
	t.Helper()
	ours, _, err := c.Prepare(q)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Finalize()
	theirs, _, err := c.Prepare(q)
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Finalize()
	api := apiColumn{theirs}
	n := ours.ColumnCount()
	// Before the first row there is nothing to read in place.
	outside := func(when string) {
		for i := -1; i <= n; i++ {
			for _, read := range order {
				if got, want := read(ours, i), read(api, i); got != want {
					t.Errorf("%s %q column %d %s: %s, want %s", enc, q, i, when, got, want)
				}
			}
		}
	}
	outside("before a row")
	for row := 0; ; row++ {
		more, err := ours.Step()
		more2, err2 := theirs.Step()
		if err != nil || err2 != nil || more != more2 {
			t.Fatalf("%s %q: step %v %v / %v %v", enc, q, more, err, more2, err2)
		}
		if !more {
			if row == 0 {
				t.Fatalf("%s %q: no rows", enc, q)
			}
			outside("after the last row")
			return
		}
		for i := -1; i <= n; i++ {
			for k, read := range order {
				if got, want := read(ours, i), read(api, i); got != want {
					t.Errorf("%s %q row %d column %d, read %d of %v: %s, want %s", enc, q, row, i, k, order, got, want)
				}
			}
		}
	}
}

// column is what Stmt and apiColumn both read.
type column interface {
	Type(i int) int
	Int64(i int) int64
	Float64(i int) float64
	RawText(i int) []byte
	RawBlob(i int) []byte
}

// A read reads one column a way and describes what it read.
type read func(c column, i int) string

func readType(c column, i int) string { return fmt.Sprint("type ", c.Type(i)) }
func readInt(c column, i int) string  { return fmt.Sprint("int ", c.Int64(i)) }
func readFloat(c column, i int) string {
	return fmt.Sprintf("float %#x", math.Float64bits(c.Float64(i)))
}
func readText(c column, i int) string { return describe("text", c.RawText(i)) }
func readBlob(c column, i int) string { return describe("blob", c.RawBlob(i)) }

func describe(what string, b []byte) string {
	if b == nil {
		return what + " nil"
	}
	return fmt.Sprintf("%s %d bytes %q…", what, len(b), b[:min(len(b), 40)])
}

// BenchmarkColumns reads every cell of 100,000 rows of six columns (the
// export benchmark's table) by storage class, as an export does: through
// Stmt, which reads the row in place, and through the sqlite3_column_*
// functions.
func BenchmarkColumns(b *testing.B) {
	c, err := Open("file:"+filepath.Join(b.TempDir(), "b.db")+"?mode=rwc", OpenURI|OpenNoMutex|OpenReadWrite|OpenCreate)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for _, sql := range []string{
		"CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, day TEXT, note TEXT)",
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000)
INSERT INTO t SELECT x, 'item-'||(x%9973), (x%1000)/7.0, x%17, date('2022-01-01', '+'||(x%1000)||' days'),
  CASE WHEN x%10=0 THEN NULL WHEN x%7=0 THEN 'say "hi", ok' ELSE 'plain note '||x END FROM c`,
	} {
		if err := c.Exec(sql); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		cols func(*Stmt) column
	}{{"in-place", func(st *Stmt) column { return st }}, {"api", func(st *Stmt) column { return apiColumn{st} }}} {
		b.Run(bc.name, func(b *testing.B) {
			var sum int
			for b.Loop() {
				err := c.Each("SELECT * FROM t", func(st *Stmt) error {
					col := bc.cols(st)
					for i := range 6 {
						switch col.Type(i) {
						case Integer:
							sum += int(col.Int64(i))
						case Float:
							sum += int(col.Float64(i))
						case Text:
							sum += len(col.RawText(i))
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			if sum == 0 {
				b.Fatal("read nothing")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/row")
		})
	}
}
