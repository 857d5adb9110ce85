package guard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/guard"
)

func TestCheckTextLimits(t *testing.T) {
	if err := guard.CheckText("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	big := "SELECT '" + strings.Repeat("x", guard.MaxSQLBytes) + "'"
	var rej *guard.Rejection
	if err := guard.CheckText(big); !errors.As(err, &rej) || !strings.Contains(rej.Reason, "over the 100 KB limit") {
		t.Fatalf("oversized: %v", err)
	}
	if err := guard.CheckText("SELECT '\xff'"); !errors.As(err, &rej) || rej.What != "invalid UTF-8" {
		t.Fatalf("bad utf8: %v", err)
	}
	if err := guard.CheckText("SELECT 1\x00"); !errors.As(err, &rej) || rej.What != "NUL byte" {
		t.Fatalf("nul: %v", err)
	}
}

type names map[string][]string

func (n names) TableNames() []string {
	var out []string
	for k := range n {
		out = append(out, k)
	}
	return out
}
func (n names) ColumnNames(t string) []string { return n[t] }

func TestAddHint(t *testing.T) {
	schema := names{"Track": {"TrackId", "Name", "Composer"}, "Album": {"AlbumId", "Title"}}
	cases := []struct {
		missing, kind, sql, want string
		noSchema                 bool
	}{
		{"Trak", "table", "SELECT * FROM Trak", "did you mean Track?", false},
		{"main.Albums", "table", "SELECT * FROM Albums", "did you mean Album?", false},
		{"Nmae", "column", "SELECT Nmae FROM Track", "did you mean Name?", false},
		{"T.Titel", "column", "SELECT T.Titel FROM Album AS T", "did you mean Title?", false},
		{"zzzzzz", "column", "SELECT zzzzzz FROM Track", "lists its columns", false},
		// Without a schema (the catalog could not be read) the hint says
		// where to look.
		{"Trak", "table", "SELECT * FROM Trak", "the schema lists every table", true},
		{"Nmae", "column", "SELECT Nmae FROM Track", "the table's description lists its columns", true},
	}
	for _, c := range cases {
		e := &guard.SQLError{Msg: "engine message", Missing: c.missing, MissingKind: c.kind}
		if c.noSchema {
			guard.AddHint(e, c.sql, nil)
		} else {
			guard.AddHint(e, c.sql, schema)
		}
		if !strings.Contains(e.Hint, c.want) {
			t.Errorf("%s %s: hint %q lacks %q", c.kind, c.missing, e.Hint, c.want)
		}
		if e.Msg != "engine message" {
			t.Errorf("message changed to %q", e.Msg)
		}
	}
	// An engine's own hint is kept.
	e := &guard.SQLError{Msg: "x", Hint: "engine advice", Missing: "Trak", MissingKind: "table"}
	if guard.AddHint(e, "SELECT * FROM Trak", schema); e.Hint != "engine advice" {
		t.Errorf("hint replaced by %q", e.Hint)
	}
}

// TestLooksLikeSQL: queries and statements that write run as SQL (the
// guard then says why a write is refused); questions, even ones that open
// with a SQL verb, go to the model.
func TestLooksLikeSQL(t *testing.T) {
	sql := []string{
		"SELECT 1", "  with x as (select 1) select * from x", "values (1)", "-- note\nSELECT 1", "/* x */ SELECT 1",
		"explain select 1", "PRAGMA table_info(t)", "select the best customers", // starts like SQL; the guard will say what is wrong
		"DELETE FROM customers", "delete from t where 1", "INSERT INTO t VALUES (1)", "UPDATE t SET a = 1",
		"update \"order\" set total = 0", "DROP TABLE t", "drop view v", "CREATE TABLE x (a)", "create index i on t(a)",
		"ALTER TABLE t ADD COLUMN c", "ATTACH 'x.db' AS y", "ATTACH DATABASE 'x' AS y", "DETACH x", "BEGIN", "COMMIT;",
		"ROLLBACK TO s", "VACUUM", "VACUUM INTO '/tmp/x'", "REPLACE INTO t VALUES (1)", "ANALYZE", "SAVEPOINT s",
	}
	questions := []string{
		"how many customers are there?", "Which country has the most orders",
		"which city buys the most?", "create a chart of sales by month", "analyze sales by region", "drop in sales last month?",
		"update me on revenue", "delete rows where", "Begin with the top customers", "how many orders were returned",
		"vacuum cleaners sold in 2024", "insert coin", "", "   ",
	}
	for _, s := range sql {
		if !guard.LooksLikeSQL(s) {
			t.Errorf("%q reads as a question", s)
		}
	}
	for _, q := range questions {
		if guard.LooksLikeSQL(q) {
			t.Errorf("%q reads as SQL", q)
		}
	}
}

func TestKeywords(t *testing.T) {
	got := guard.Keywords("/* x */ -- y\n 'str' WITH \"q\" [b] `c` RECURSIVE 12 c AS", 4)
	want := []string{"WITH", "RECURSIVE", "C", "AS"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Keywords = %v, want %v", got, want)
	}
}

func TestOrdersResult(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a", true},
		{"select a from t order\n  by a desc limit 3", true},
		{"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", true},
		{"SELECT a FROM t", false},
		{"SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3)", false},
		{"WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", false},
		{"SELECT a, row_number() OVER (ORDER BY a) FROM t", false},
		{"SELECT 'order by' FROM t", false},
		{`SELECT "order" FROM t -- ORDER BY a`, false},
		{`SELECT "order", by FROM t`, false},
		{"SELECT a FROM t WHERE b IN (SELECT b FROM u ORDER BY c LIMIT 1) ORDER BY a", true},
		{"SELECT (SELECT b FROM u ORDER BY b) FROM t", false},
		{"SELECT \"order\" FROM t GROUP BY 1", false},
		{"WITH c AS (SELECT 1 AS a) SELECT a FROM c ORDER BY a DESC", true},
	}
	for _, tt := range tests {
		if got := guard.OrdersResult(tt.sql); got != tt.want {
			t.Errorf("OrdersResult(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
}
