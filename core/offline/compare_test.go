package offline

import (
	"testing"

	"github.com/tablewise/tablewise/core/query"
)

func res(cols []string, rows ...query.Row) *query.Result {
	r := &query.Result{Rows: rows, RowCount: len(rows)}
	for _, c := range cols {
		r.Columns = append(r.Columns, query.Column{Name: c})
	}
	return r
}

func TestCompare(t *testing.T) {
	gold := res([]string{"name", "n"}, query.Row{"a", int64(2)}, query.Row{"b", int64(1)})
	tests := []struct {
		name    string
		pred    *query.Result
		want    bool
		ordered bool
	}{
		{"same", res([]string{"x", "y"}, query.Row{"a", int64(2)}, query.Row{"b", int64(1)}), true, true},
		{"rows in another order", res([]string{"x", "y"}, query.Row{"b", int64(1)}, query.Row{"a", int64(2)}), true, false},
		{"columns in another order", res([]string{"y", "x"}, query.Row{int64(2), "a"}, query.Row{int64(1), "b"}), true, true},
		{"extra column", res([]string{"id", "x", "y"}, query.Row{int64(7), "a", int64(2)}, query.Row{int64(8), "b", int64(1)}), true, true},
		{"float equals int", res([]string{"x", "y"}, query.Row{"a", 2.0}, query.Row{"b", 1.0}), true, true},
		{"values paired differently", res([]string{"x", "y"}, query.Row{"a", int64(1)}, query.Row{"b", int64(2)}), false, false},
		{"missing row", res([]string{"x", "y"}, query.Row{"a", int64(2)}), false, false},
		{"missing column", res([]string{"x"}, query.Row{"a"}, query.Row{"b"}), false, false},
		{"text is not a number", res([]string{"x", "y"}, query.Row{"a", "2"}, query.Row{"b", "1"}), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compare(gold, tt.pred); got != tt.want {
				t.Errorf("Compare = %v, want %v", got, tt.want)
			}
			if tt.want {
				if got := CompareOrdered(gold, tt.pred); got != tt.ordered {
					t.Errorf("CompareOrdered = %v, want %v", got, tt.ordered)
				}
			}
		})
	}
}

func TestCompareEdgeCases(t *testing.T) {
	// Duplicates are a multiset: two a's are not one a and one b.
	gold := res([]string{"c"}, query.Row{"a"}, query.Row{"a"})
	if Compare(gold, res([]string{"c"}, query.Row{"a"}, query.Row{"b"})) {
		t.Error("a,a matched a,b")
	}
	// NULL matches NULL only.
	g := res([]string{"c"}, query.Row{nil})
	if !Compare(g, res([]string{"c"}, query.Row{nil})) || Compare(g, res([]string{"c"}, query.Row{int64(0)})) {
		t.Error("NULL comparison")
	}
	// Two gold columns with equal values need two pred columns, not one
	// reused.
	g2 := res([]string{"a", "b"}, query.Row{int64(1), int64(1)})
	if Compare(g2, res([]string{"a"}, query.Row{int64(1)})) {
		t.Error("one pred column stood in for two gold columns")
	}
	if !Compare(g2, res([]string{"a", "b"}, query.Row{int64(1), int64(1)})) {
		t.Error("equal columns did not match")
	}
	// Reals agree to 10 significant digits (sums added in another order).
	if !Compare(res([]string{"x"}, query.Row{0.1 + 0.2}), res([]string{"x"}, query.Row{0.3})) {
		t.Error("0.1+0.2 vs 0.3")
	}
	// Empty results agree.
	if !Compare(res([]string{"x"}), res([]string{"y", "z"})) {
		t.Error("empty results")
	}
	if Compare(nil, res([]string{"x"})) {
		t.Error("nil gold")
	}
}
