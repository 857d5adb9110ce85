package funcs_test

import (
	"fmt"
	"testing"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/testdb"
)

// benchDB builds a table of 200,000 names with an index on name COLLATE
// NOCASE (what LIKE's prefix optimisation needs) and one on name as it is
// (what GLOB's needs), and opens it twice: with SQLite's built-in LIKE and
// GLOB, and with the redefinitions, which lose the optimisation.
func benchDB(b *testing.B) (builtin, replaced *lite.Conn) {
	b.Helper()
	path := testdb.Build(b, "bench.db", `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 200000)
		INSERT INTO t(name) SELECT printf('%s%06d', char(97 + x % 26, 97 + x / 26 % 26, 97 + x / 676 % 26), x) FROM c;
		CREATE INDEX t_name_nocase ON t(name COLLATE NOCASE); CREATE INDEX t_name ON t(name);`)
	return openFile(b, "file:"+path+"?mode=ro")
}

func count(b *testing.B, c *lite.Conn, q string) int64 {
	st, _, err := c.Prepare(q)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Finalize()
	if _, err := st.Step(); err != nil {
		b.Fatal(err)
	}
	return st.Int64(0)
}

func plan(b *testing.B, c *lite.Conn, q string) string {
	st, _, err := c.Prepare("EXPLAIN QUERY PLAN " + q)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Finalize()
	out := ""
	for {
		more, err := st.Step()
		if err != nil || !more {
			return out
		}
		out += st.Text(3) + "; "
	}
}

// BenchmarkLikePrefix measures what redefining LIKE and GLOB costs: an
// indexed prefix search (SQLite's LIKE optimisation, lost) and a full scan
// (the per-row cost of a Go function against the C one).
// go test ./core/internal/lite/funcs -bench LikePrefix -run '^$'
func BenchmarkLikePrefix(b *testing.B) {
	builtin, replaced := benchDB(b)
	for _, q := range []string{
		"SELECT count(*) FROM t WHERE name LIKE 'abc%'",
		"SELECT count(*) FROM t WHERE name GLOB 'abc*'",
		"SELECT count(*) FROM t WHERE name LIKE '%zz%'",
		"SELECT count(*) FROM t WHERE instr(name, 'zz') > 0",
	} {
		for _, side := range []struct {
			name string
			c    *lite.Conn
		}{{"builtin", builtin}, {"replaced", replaced}} {
			b.Run(fmt.Sprintf("%s/%s", q[len("SELECT count(*) FROM t WHERE "):], side.name), func(b *testing.B) {
				want := count(b, builtin, q)
				if got := count(b, side.c, q); got != want {
					b.Fatalf("count %d, want %d", got, want)
				}
				b.Logf("plan: %s", plan(b, side.c, q))
				for b.Loop() {
					count(b, side.c, q)
				}
			})
		}
	}
}
