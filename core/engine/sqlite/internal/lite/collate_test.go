package lite

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCaseMatchesSQLite: the redefined NOCASE orders and compares text
// exactly as SQLite's own, on random texts rich in letters of both cases,
// the characters between the two alphabets, NUL bytes, UTF-8 and shared
// prefixes longer than eight bytes.
func TestNoCaseMatchesSQLite(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabet := []byte("aAzZbB@[`{ 09\x00\xc3\xa9\xff_")
	var values []string
	prefixes := []string{strings.Repeat("aBcD", 5), "aBc\x00dEfGhIjK\x00lMn"} // a NUL ends the comparison
	for i := range 300 {
		var b []byte
		if i%3 == 0 {
			p := prefixes[i%2]
			b = append(b, p[:rng.IntN(len(p))]...)
		}
		for range rng.IntN(14) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		values = append(values, fmt.Sprintf("(%d, CAST(x'%x' AS TEXT))", i, b))
	}
	load := []string{"CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT)", "INSERT INTO t VALUES " + strings.Join(values, ", ")}
	const (
		order = "SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY s COLLATE NOCASE, id)"
		pairs = "SELECT group_concat(v, '') FROM (SELECT (a.s COLLATE NOCASE > b.s) - (a.s COLLATE NOCASE < b.s) + 1 AS v FROM t a, t b ORDER BY a.id, b.id)"
	)
	answers := func(redefine bool) [2]string {
		c, err := Open("file:"+filepath.Join(t.TempDir(), "n.db")+"?mode=rwc", OpenURI|OpenNoMutex|0x2|0x4)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if redefine {
			if err := c.RedefineNoCase(); err != nil {
				t.Fatal(err)
			}
		}
		for _, sql := range load {
			if err := c.Exec(sql); err != nil {
				t.Fatal(err)
			}
		}
		var out [2]string
		for i, q := range []string{order, pairs} {
			st, _, err := c.Prepare(q)
			if err != nil {
				t.Fatal(err)
			}
			if more, err := st.Step(); err != nil || !more {
				t.Fatal(err)
			}
			out[i] = st.Text(0)
			st.Finalize()
		}
		return out
	}
	want, got := answers(false), answers(true)
	if got[0] != want[0] {
		t.Errorf("ORDER BY s COLLATE NOCASE differs:\nSQLite's:   %s\nredefined: %s", want[0], got[0])
	}
	if got[1] != want[1] {
		n := 0
		for i := range got[1] {
			if got[1][i] != want[1][i] {
				n++
			}
		}
		t.Errorf("%d of %d comparisons differ", n, len(want[1]))
	}
	if len(want[1]) != 300*300 || !strings.Contains(want[1], "0") || !strings.Contains(want[1], "1") || !strings.Contains(want[1], "2") {
		t.Fatalf("the comparisons are not what the test means them to be: %d of them", len(want[1]))
	}
}
