package ddl

import (
	"reflect"
	"testing"
)

func TestTableComment(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"CREATE TABLE x ( -- people who bought\n a INT)", "people who bought"},
		{"CREATE TABLE x (a INT, -- a column comment\n b INT)", ""},
		{"CREATE TABLE x /* the  ledger */ (a INT)", "the ledger"},
		{"CREATE TABLE x -- before\n(a INT)", "before"},
		{"CREATE TABLE x (a INT)", ""},
		{"CREATE VIEW v /* monthly totals */ AS SELECT 1 AS a -- not this", "monthly totals"},
		{"CREATE VIEW v AS SELECT substr(x, 1) AS m, -- not this\n 2", ""},
	} {
		if got := TableComment(tc.sql); got != tc.want {
			t.Errorf("TableComment(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

func TestColumnComments(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want map[string]string
	}{
		{"CREATE TABLE t (\n  id INTEGER PRIMARY KEY, -- the key\n  -- where they live\n  Country TEXT,\n  \"Unit Price\" REAL -- in euros\n)",
			map[string]string{"id": "the key", "country": "where they live", "unit price": "in euros"}},
		{"CREATE TABLE t (a INT, b INT, -- both on one line\n c INT)", map[string]string{"b": "both on one line"}},
		{"CREATE TABLE t (\n  a INT, -- Stats: skipped\n  PRIMARY KEY (a) -- not a column\n)", map[string]string{}},
		{"CREATE TABLE t (\n  [x y] TEXT, -- bracketed\n  `z` TEXT CHECK (z IN ('a,b')) -- with a comma in a check\n)",
			map[string]string{"x y": "bracketed", "z": "with a comma in a check"}},
		{"CREATE VIEW v AS SELECT 1", map[string]string{}},
	} {
		if got := ColumnComments(tc.sql); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ColumnComments(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

func TestChecks(t *testing.T) {
	got := Checks(`CREATE TABLE x (
  a TEXT CHECK (a IN ('x', 'it''s', 'y')),
  "b c" INTEGER CHECK ("b c" IN (0, 1)),
  d TEXT CHECK (length(d) > 2),
  e TEXT CHECK (e IN (SELECT 1)))`)
	want := []Check{{"a", []string{"x", "it's", "y"}}, {"b c", []string{"0", "1"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Checks = %v, want %v", got, want)
	}
}
