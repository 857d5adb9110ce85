package lite

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// imageTypes are declared types whose affinities cover SQLite's five.
var imageTypes = []string{"INTEGER", "REAL", "TEXT", "BLOB", "", "NUMERIC", "DATE", "DATETIME", "BOOLEAN",
	"VARCHAR(10)", "DOUBLE PRECISION", "FLOATING POINT", "CHARINT", "BLOBREAL"}

// imageValue is a random value of any kind, many of them edge cases.
func imageValue(r *rand.Rand) Datum {
	ints := []int64{0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32769, 8388607, 8388608, 2147483647, 2147483648,
		-2147483649, 0x7fffffffffff, 0x800000000000, -0x800000000001, math.MaxInt64, math.MinInt64}
	floats := []float64{0, math.Copysign(0, -1), 1, 1.5, -2.25, 1e300, math.NaN(), math.Inf(1), math.Inf(-1),
		9.2233720368547758e18, -9.2233720368547758e18, 1 << 53, 1<<53 + 2, 123456789.0, 0.1}
	texts := []string{"", "abc", "12", " 12 ", "1e5", "1.0", "007", "0x10", "2022-01-01", "2022-01-01T10:00:00",
		"1e", "-", ".", "1.5e+3", "+.5", "  ", "12abc", "١٢", "9223372036854775808", "-9223372036854775809",
		"1e400", "3.", "\t7\n", "true", "Zürich"}
	switch r.IntN(5) {
	case 0:
		return Datum{}
	case 1:
		if r.IntN(2) == 0 {
			return Datum{Kind: ValInt, Int: ints[r.IntN(len(ints))]}
		}
		return Datum{Kind: ValInt, Int: r.Int64() >> r.IntN(64)}
	case 2:
		if r.IntN(2) == 0 {
			return Datum{Kind: ValFloat, Float: floats[r.IntN(len(floats))]}
		}
		return Datum{Kind: ValFloat, Float: r.NormFloat64() * math.Pow(10, float64(r.IntN(30)))}
	case 3:
		if r.IntN(40) == 0 { // past a page: overflow pages
			return Datum{Kind: ValText, Text: bytes.Repeat([]byte("long text "), 1000*(1+r.IntN(20)))}
		}
		return Datum{Kind: ValText, Text: []byte(texts[r.IntN(len(texts))])}
	}
	b := make([]byte, r.IntN(40))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return Datum{Kind: ValBlob, Text: b}
}

// TestImageStoresWhatInsertStores writes random rows into an image and,
// through INSERT, into a database of SQLite's own, and compares every
// value read back (type and bytes), with PRAGMA integrity_check on the
// image; deep trees (small interior pages), overflow pages and a schema
// too big for page 1 included.
func TestImageStoresWhatInsertStores(t *testing.T) {
	defer func(n int) { innerRoom = n }(innerRoom)
	innerRoom = 100 // a handful of children per interior page: several levels
	r := rand.New(rand.NewPCG(1, 2))
	ref, err := Open(":memory:", OpenReadWrite|OpenCreate|OpenMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	w, err := Open("file:/lite-image?vfs=memdb", OpenReadWrite|OpenCreate|OpenURI)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	im, err := NewImage(1<<20, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Free()
	o, err := NewOracle()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	type table struct {
		name string
		cols int
		rows int
	}
	var tables []table
	pad := strings.Repeat("x", 40) // long column names: the schema overflows page 1
	for k, rows := range []int{0, 1, 3000, 20, 500} {
		name := fmt.Sprintf("t%d", k)
		cols := len(imageTypes)
		if k == 3 {
			cols = 1500
		}
		var sql strings.Builder
		aff := make([]byte, cols)
		fmt.Fprintf(&sql, "CREATE TABLE %s (", name)
		for i := range cols {
			if i > 0 {
				sql.WriteString(", ")
			}
			typ := imageTypes[i%len(imageTypes)]
			fmt.Fprintf(&sql, "c%d_%s %s", i, pad, typ)
			aff[i] = AffinityOf(typ)
		}
		sql.WriteString(")")
		if err := ref.Exec(sql.String()); err != nil {
			t.Fatal(err)
		}
		tw := im.Table(name, sql.String(), aff)
		ins, _, err := ref.Prepare(fmt.Sprintf("INSERT INTO %s VALUES (%s?)", name, strings.Repeat("?, ", cols-1)))
		if err != nil {
			t.Fatal(err)
		}
		b := ins.NewBinder()
		row := make([]Datum, cols)
		for range rows {
			for i := range row {
				row[i] = imageValue(r)
				v := row[i]
				switch v.Kind {
				case ValInt:
					b.Int(i+1, v.Int)
				case ValFloat:
					b.Float(i+1, v.Float)
				case ValText:
					b.Text(i+1, v.Text)
				case ValBlob:
					b.Blob(i+1, v.Text)
				default:
					b.Null(i + 1)
				}
				if err := o.Store(&row[i], aff[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Exec(); err != nil {
				t.Fatal(err)
			}
			if err := tw.Append(row); err != nil {
				t.Fatal(err)
			}
		}
		b.Close()
		ins.Finalize()
		if k != 4 { // the last is closed by Install
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		tables = append(tables, table{name, cols, rows})
	}
	if err := im.Install(w); err != nil {
		t.Fatal(err)
	}
	c, err := Open("file:/lite-image?vfs=memdb&mode=ro", OpenReadOnly|OpenURI)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	query := func(c *Conn, sql string) [][]string {
		t.Helper()
		var out [][]string
		err := c.Each(sql, func(st *Stmt) error {
			var row []string
			for i := range st.ColumnCount() {
				var s string
				switch st.Type(i) {
				case Integer:
					s = fmt.Sprint("int ", st.Int64(i))
				case Float:
					s = fmt.Sprint("real ", math.Float64bits(st.Float64(i)))
				case Text:
					s = "text " + st.Text(i)
				case Blob:
					s = fmt.Sprintf("blob %x", st.RawBlob(i))
				default:
					s = "null"
				}
				row = append(row, s)
			}
			out = append(out, row)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}
	if got := query(c, "PRAGMA integrity_check"); len(got) != 1 || got[0][0] != "text ok" {
		t.Fatalf("integrity_check: %v", got)
	}
	for _, tb := range tables {
		sql := "SELECT rowid, * FROM " + tb.name + " ORDER BY rowid"
		got, want := query(c, sql), query(ref, sql)
		if len(got) != tb.rows || len(want) != tb.rows {
			t.Fatalf("%s: %d rows, want %d (SQLite's: %d)", tb.name, len(got), tb.rows, len(want))
		}
		for i := range got {
			for j := range got[i] {
				if got[i][j] != want[i][j] {
					t.Fatalf("%s row %d column %d: %.80s, SQLite stores %.80s", tb.name, i+1, j, got[i][j], want[i][j])
				}
			}
		}
		// A lookup by rowid walks the interior pages.
		if tb.rows > 0 {
			q := fmt.Sprintf("SELECT rowid FROM %s WHERE rowid = %d", tb.name, tb.rows/2+1)
			if got := query(c, q); len(got) != 1 || got[0][0] != fmt.Sprint("int ", tb.rows/2+1) {
				t.Errorf("%s: %v", q, got)
			}
		}
	}
	if got, want := query(c, "SELECT type, name, tbl_name, sql FROM sqlite_schema"), query(ref, "SELECT type, name, tbl_name, sql FROM sqlite_schema"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("schema differs: %.200v", got)
	}
}

// TestImageFull is an image stopped by its size limit: the error is
// SQLITE_FULL, and what was written is freed.
func TestImageFull(t *testing.T) {
	im, err := NewImage(0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Free()
	w := im.Table("t", "CREATE TABLE t (s TEXT)", []byte{AffText})
	row := []Datum{{Kind: ValText, Text: bytes.Repeat([]byte("x"), 1000)}}
	for i := range 2000 {
		if err = w.Append(row); err != nil {
			if i < 900 {
				t.Errorf("full after %d rows of 1 kB in 1 MiB", i)
			}
			break
		}
	}
	var le *Error
	if !asError(err, &le) || le.Code != CodeFull {
		t.Fatalf("error %v, want SQLITE_FULL", err)
	}
}

func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<56 - 1, 1 << 56, math.MaxUint64} {
		var b [9]byte
		n := putVarint(b[:], v)
		if n != varintLen(v) {
			t.Errorf("%d: length %d, varintLen %d", v, n, varintLen(v))
		}
		// Decode as SQLite does (sqlite3GetVarint).
		var x uint64
		for i := range n {
			if i == 8 {
				x = x<<8 | uint64(b[i])
				break
			}
			x = x<<7 | uint64(b[i]&0x7f)
			if b[i]&0x80 == 0 && i != n-1 {
				t.Errorf("%d: ends early at byte %d", v, i)
			}
		}
		if x != v {
			t.Errorf("%d: decodes as %d", v, x)
		}
	}
}
