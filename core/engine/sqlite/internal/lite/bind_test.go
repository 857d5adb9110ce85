package lite

import (
	"fmt"
	"testing"
)

// fill inserts about n bytes of rows through a Binder, several rows per
// statement, and returns the rows inserted.
func fill(t *testing.T, c *Conn, n int) int {
	t.Helper()
	if err := c.Exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, z)"); err != nil {
		t.Fatal(err)
	}
	st, _, err := c.Prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Finalize()
	b := st.NewBinder()
	defer b.Close()
	text := make([]byte, 100_000) // past the arena's first size: it grows within a row
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	rows := 0
	for size := 0; size < n; size += 2 * (len(text) + 20) {
		for r := range 2 {
			k := r * 5
			if err := b.Int(k+1, int64(rows)); err != nil {
				t.Fatal(err)
			}
			b.Float(k+2, float64(rows)/2)
			b.Text(k+3, text)
			b.Blob(k+4, []byte{0, 1, 2})
			b.Null(k + 5)
			rows++
		}
		if err := b.Exec(); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

func TestBinderInsertsEveryKind(t *testing.T) {
	c, err := Open("file:/lite-binder?vfs=memdb", OpenReadWrite|OpenCreate|OpenURI)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows := fill(t, c, 1<<20)
	st, _, err := c.Prepare("SELECT count(*), sum(i), sum(r), min(length(s)), max(length(s)), min(hex(b)), count(z), min(substr(s, 1, 3)) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Finalize()
	st.Step()
	got := fmt.Sprint(st.Int64(0), st.Int64(1), st.Float64(2), st.Int64(3), st.Int64(4), st.Text(5), st.Int64(6), st.Text(7))
	want := fmt.Sprint(rows, rows*(rows-1)/2, float64(rows*(rows-1)/2)/2, 100_000, 100_000, "000102", 0, "abc")
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
