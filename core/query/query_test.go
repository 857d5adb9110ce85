package query_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestCollectTypesFromFirstValue: a computed column whose first value is
// NULL takes its type from the first non-NULL value below it; an all-NULL
// column stays untyped.
func TestCollectTypesFromFirstValue(t *testing.T) {
	d := testdb.Open(t, testdb.Fixture(t))
	res, err := query.Collect(context.Background(), d,
		"SELECT CASE WHEN id > 1 THEN id * 1.5 END, CASE WHEN id > 1 THEN home END, NULL FROM Match ORDER BY id", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"REAL", "TEXT", ""} {
		if got := res.Columns[i].Type; got != want {
			t.Errorf("column %d: type %q, want %q", i, got, want)
		}
	}
	if res.RowCount != 2 || res.Rows[0][0] != nil || res.Rows[1][0] != 3.0 {
		t.Errorf("rows %v", res.Rows)
	}
}

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		v    any
		kind query.Kind
		name string
	}{{nil, query.Null, ""}, {int64(1), query.Integer, "INTEGER"}, {1.5, query.Real, "REAL"}, {"x", query.Text, "TEXT"}, {[]byte{0}, query.Blob, "BLOB"}} {
		if k := query.KindOf(c.v); k != c.kind || k.TypeName() != c.name {
			t.Errorf("KindOf(%#v) = %v (%q), want %v (%q)", c.v, k, k.TypeName(), c.kind, c.name)
		}
	}
}

// TestColumnNames: the names in column order; no columns give an empty,
// non-nil list (it marshals to [], as results do).
func TestColumnNames(t *testing.T) {
	got := query.ColumnNames([]query.Column{{Name: "id", Type: "INTEGER"}, {Name: "home"}})
	if len(got) != 2 || got[0] != "id" || got[1] != "home" {
		t.Errorf("ColumnNames = %q, want [id home]", got)
	}
	if got := query.ColumnNames(nil); got == nil || len(got) != 0 {
		t.Errorf("ColumnNames(nil) = %#v, want an empty list", got)
	}
}
