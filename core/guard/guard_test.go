package guard_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/internal/lite"
	"github.com/tablewise/tablewise/core/testdb"
)

func withConn(t testing.TB, fn func(c *lite.Conn)) {
	t.Helper()
	d, err := db.Open(context.Background(), testdb.Fixture(t), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Conn(context.Background(), func(c *lite.Conn) error { fn(c); return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		sql  string
		what string // "" means allowed; "empty" means ErrEmpty; "sql" means *SQLError
	}{
		{"SELECT * FROM t", ""},
		{"  select a from t where b = 'x';  ", ""},
		{"WITH x AS (SELECT 1) SELECT * FROM x", ""},
		{"VALUES (1)", ""},
		{"PRAGMA table_info(t)", ""},
		{"SELECT * FROM pragma_index_list('order')", ""},
		{"EXPLAIN QUERY PLAN SELECT 1", ""},
		{"EXPLAIN SELECT 1", ""},
		{"DELETE FROM t", "DELETE"},
		{"drop view if exists nothing", "DROP VIEW"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
		{"PRAGMA query_only = 0", "PRAGMA query_only"},
		{"SELECT * FROM pragma_journal_mode", "PRAGMA journal_mode"},
		{"BEGIN", "BEGIN"},
		{"SAVEPOINT a", "SAVEPOINT"},
		{"ATTACH 'x' AS y", "ATTACH"},
		{"SELECT load_extension('x')", "function load_extension"},
		{"SELECT 1; SELECT 2", "several statements"},
		{"SELECT 1 -- ; DELETE FROM t", ""},
		{"", "empty"},
		{"/* nothing */ -- at all", "empty"},
		{"SELECT nope FROM t", "sql"},
		{"SELEKT 1", "sql"},
		{"DELETE FROM no_such_table", "DELETE"}, // refused early, though SQLite would call it a bad name
	}
	withConn(t, func(c *lite.Conn) {
		for _, tc := range cases {
			err := guard.Check(c, tc.sql)
			var rej *guard.Rejection
			var se *guard.SQLError
			switch tc.what {
			case "":
				if err != nil {
					t.Errorf("%q: refused: %v", tc.sql, err)
				}
			case "empty":
				if !errors.Is(err, guard.ErrEmpty) {
					t.Errorf("%q: got %v, want ErrEmpty", tc.sql, err)
				}
			case "sql":
				if !errors.As(err, &se) {
					t.Errorf("%q: got %T %v, want *SQLError", tc.sql, err, err)
				}
			default:
				if !errors.As(err, &rej) {
					t.Errorf("%q: got %T %v, want *Rejection", tc.sql, err, err)
					continue
				}
				if rej.What != tc.what {
					t.Errorf("%q: refused %q, want %q", tc.sql, rej.What, tc.what)
				}
				if !errors.Is(err, guard.ErrRefused) || rej.Hint == "" {
					t.Errorf("%q: rejection without ErrRefused or hint: %+v", tc.sql, rej)
				}
			}
		}
	})
}

func TestRejectionNamesTarget(t *testing.T) {
	withConn(t, func(c *lite.Conn) {
		err := guard.Check(c, `UPDATE "Order Details" SET qty = 0`)
		if err == nil || !strings.Contains(err.Error(), "UPDATE on Order Details is not allowed: the database is read-only") {
			t.Fatalf("got %v", err)
		}
		err = guard.Check(c, "SELECT 1;\n  DELETE FROM t")
		if err == nil || !strings.Contains(err.Error(), `found "DELETE FROM t" after the first`) || !strings.Contains(err.Error(), "send one statement at a time") {
			t.Fatalf("got %v", err)
		}
	})
}

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
	cases := []struct{ msg, sql, want string }{
		{"no such table: Trak", "SELECT * FROM Trak", "did you mean Track?"},
		{"no such table: main.Albums", "SELECT * FROM Albums", "did you mean Album?"},
		{"no such column: Nmae", "SELECT Nmae FROM Track", "did you mean Name?"},
		{"no such column: T.Titel", "SELECT T.Titel FROM Album AS T", "did you mean Title?"},
		{"no such column: zzzzzz", "SELECT zzzzzz FROM Track", "lists its columns"},
		{`near "FORM": syntax error`, "SELECT * FORM Track", "double quotes"},
	}
	for _, c := range cases {
		e := &guard.SQLError{Msg: c.msg}
		guard.AddHint(e, c.sql, schema)
		if !strings.Contains(e.Hint, c.want) {
			t.Errorf("%s: hint %q lacks %q", c.msg, e.Hint, c.want)
		}
		if e.Msg != c.msg {
			t.Errorf("message changed to %q", e.Msg)
		}
	}
}

func TestLooksLikeSQL(t *testing.T) {
	for text, want := range map[string]bool{
		"SELECT 1":                          true,
		"  with x as (select 1) select *":   true,
		"values (1)":                        true,
		"-- comment\nSELECT 1":              true,
		"explain select 1":                  true,
		"pragma table_info(t)":              true,
		"how many customers are there?":     false,
		"select the best customers":         true, // starts like SQL; the guard will say what is wrong
		"Which country has the most orders": false,
		"":                                  false,
	} {
		if got := guard.LooksLikeSQL(text); got != want {
			t.Errorf("LooksLikeSQL(%q) = %v, want %v", text, got, want)
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

// BenchmarkCheck measures vetting a typical query (target: under 200 µs).
func BenchmarkCheck(b *testing.B) {
	const sql = `SELECT c.name, count(o.id) AS orders, sum(o.total) AS total
FROM customer AS c JOIN "order" AS o ON o.customer_id = c.id
WHERE o.status = 'shipped' GROUP BY c.name ORDER BY total DESC LIMIT 10`
	withConn(b, func(c *lite.Conn) {
		b.ResetTimer()
		for b.Loop() {
			if err := guard.Check(c, sql); err != nil {
				b.Fatal(err)
			}
		}
	})
}
