package lite

import "testing"

// TestMayRunLong: statements with a sorter or a virtual table's filter
// are told apart from those whose every instruction ends soon after an
// interrupt; the program is read where SQLite keeps it, so a change of
// the library's layout fails here.
func TestMayRunLong(t *testing.T) {
	c, err := Open(":memory:", OpenReadWrite|OpenCreate|OpenMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec("CREATE TABLE t(a INTEGER PRIMARY KEY, b, c)"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql  string
		long bool
	}{
		{"SELECT b FROM t WHERE a = 1", false},
		{"SELECT count(*) FROM t", false},
		{"SELECT * FROM t ORDER BY a", false}, // the primary key's order: no sort
		{"SELECT DISTINCT b FROM t", false},   // an index built row by row
		{"SELECT * FROM t ORDER BY b", true},
		{"SELECT b, count(*) FROM t GROUP BY b", true},
		{"SELECT a, row_number() OVER (PARTITION BY c ORDER BY b) FROM t", true},
		{"SELECT (SELECT b FROM t ORDER BY c LIMIT 1 OFFSET 5)", false}, // the top rows in an index built row by row
		{"SELECT a, (SELECT max(b) FROM t GROUP BY c) FROM t", true},
		{"SELECT * FROM json_each('[1, 2]')", true},
		{"SELECT * FROM t WHERE b IN (SELECT value FROM json_each('[1]'))", true},
	} {
		st, _, err := c.Prepare(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := st.MayRunLong(); got != tc.long {
			t.Errorf("%s: MayRunLong = %v, want %v", tc.sql, got, tc.long)
		}
		st.Finalize()
	}
}
