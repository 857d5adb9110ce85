package eval

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

func rows(rs ...query.Row) []query.Row { return rs }

// v builds a verdict from "BIRD, strict, subset, ranking".
func v(set, strict, subset, ranking bool) Verdict {
	return Verdict{Correct: set, CorrectStrict: strict, CorrectSubset: subset, CorrectRanking: ranking}
}

const T, F = true, false

// TestJudge checks each rule against hand-computed cases. The BIRD column
// is what its evaluation_ex.py computes (set(pred) == set(gold) on Python
// tuples); the strict column is what Spider's test-suite exec_eval.py
// result_eq computes (bags, column permutations, order when the gold query
// orders), except where a comment says otherwise.
func TestJudge(t *testing.T) {
	ab := rows(query.Row{"a", int64(2)}, query.Row{"b", int64(1)})
	tests := []struct {
		name         string
		gold, pred   []query.Row
		goldC, predC int // column counts when a result is empty
		ordered, top bool
		want         Verdict
	}{
		{name: "same rows, same order", gold: ab, pred: ab, ordered: T, want: v(T, T, T, T)},
		{name: "rows in another order, unordered", gold: ab, pred: rows(query.Row{"b", int64(1)}, query.Row{"a", int64(2)}), want: v(T, T, T, T)},
		{name: "rows in another order where the order matters", gold: ab, pred: rows(query.Row{"b", int64(1)}, query.Row{"a", int64(2)}), ordered: T, want: v(T, F, F, F)},
		// BIRD compares tuples: (2,'a') is not ('a',2). Spider permutes columns.
		{name: "columns in another order", gold: ab, pred: rows(query.Row{int64(2), "a"}, query.Row{int64(1), "b"}), ordered: T, want: v(F, T, T, T)},
		{name: "an extra column", gold: ab, pred: rows(query.Row{int64(7), "a", int64(2)}, query.Row{int64(8), "b", int64(1)}), want: v(F, F, T, F)},
		{name: "a missing column", gold: ab, pred: rows(query.Row{"a"}, query.Row{"b"}), want: v(F, F, F, F)},
		{name: "values paired differently", gold: ab, pred: rows(query.Row{"a", int64(1)}, query.Row{"b", int64(2)}), want: v(F, F, F, F)},
		{name: "a missing row", gold: ab, pred: rows(query.Row{"a", int64(2)}), want: v(F, F, F, F)},
		{name: "an extra row", gold: ab, pred: rows(query.Row{"a", int64(2)}, query.Row{"b", int64(1)}, query.Row{"c", int64(0)}), want: v(F, F, F, F)},
		// Python: 2 == 2.0 and hash(2) == hash(2.0).
		{name: "a real equals the integer", gold: ab, pred: rows(query.Row{"a", 2.0}, query.Row{"b", 1.0}), want: v(T, T, T, T)},
		{name: "text is not a number", gold: ab, pred: rows(query.Row{"a", "2"}, query.Row{"b", "1"}), want: v(F, F, F, F)},

		// Duplicates: BIRD compares sets, so a missing DISTINCT (or a
		// duplicate too many) passes it; Spider compares bags.
		{name: "missing DISTINCT", gold: rows(query.Row{"a"}, query.Row{"b"}), pred: rows(query.Row{"a"}, query.Row{"a"}, query.Row{"b"}), want: v(T, F, F, F)},
		{name: "same set, other bag, same length", gold: rows(query.Row{"a"}, query.Row{"a"}, query.Row{"b"}), pred: rows(query.Row{"a"}, query.Row{"b"}, query.Row{"b"}), want: v(T, F, F, F)},
		{name: "same bag", gold: rows(query.Row{"a"}, query.Row{"a"}, query.Row{"b"}), pred: rows(query.Row{"b"}, query.Row{"a"}, query.Row{"a"}), want: v(T, T, T, T)},

		// NULL: None == None in Python; NULL is not 0, '' or 'NULL'.
		{name: "NULL equals NULL", gold: rows(query.Row{nil, int64(1)}), pred: rows(query.Row{nil, int64(1)}), want: v(T, T, T, T)},
		{name: "NULL is not 0", gold: rows(query.Row{nil}), pred: rows(query.Row{int64(0)}), want: v(F, F, F, F)},
		{name: "NULL is not empty text", gold: rows(query.Row{nil}), pred: rows(query.Row{""}), want: v(F, F, F, F)},
		{name: "NULL is not the text NULL", gold: rows(query.Row{nil}), pred: rows(query.Row{"NULL"}), want: v(F, F, F, F)},

		// Floats agree to 10 significant digits. (BIRD's and Spider's
		// scripts compare exactly, and would call the first case wrong.)
		{name: "0.1+0.2 equals 0.3", gold: rows(query.Row{0.3}), pred: rows(query.Row{0.1 + 0.2}), want: v(T, T, T, T)},
		{name: "a third to 11 digits", gold: rows(query.Row{1.0 / 3}), pred: rows(query.Row{0.33333333333}), want: v(T, T, T, T)},
		{name: "a rounded average is another value", gold: rows(query.Row{1.0 / 3}), pred: rows(query.Row{0.33}), want: v(F, F, F, F)},
		{name: "100.00001 is not 100", gold: rows(query.Row{int64(100)}), pred: rows(query.Row{100.00001}), want: v(F, F, F, F)},
		{name: "100 + 1e-9 is 100", gold: rows(query.Row{int64(100)}), pred: rows(query.Row{100.000000001}), want: v(T, T, T, T)},
		{name: "blobs by bytes", gold: rows(query.Row{[]byte{0, 255}}), pred: rows(query.Row{[]byte{0, 255}}), want: v(T, T, T, T)},
		{name: "a blob is not its text", gold: rows(query.Row{[]byte("ab")}), pred: rows(query.Row{"ab"}), want: v(F, F, F, F)},

		// Empty results: [] == [] whatever the columns (both scripts).
		{name: "both empty, other columns", goldC: 1, predC: 3, want: v(T, T, T, T)},
		{name: "gold empty, prediction not", goldC: 1, pred: rows(query.Row{"a"}), want: v(F, F, F, F)},
		{name: "prediction empty, gold not", gold: rows(query.Row{"a"}), predC: 1, want: v(F, F, F, F)},

		// Column permutations (Spider's result_eq).
		{name: "swapped columns with the same value sets, ordered", gold: rows(query.Row{int64(1), int64(2)}, query.Row{int64(2), int64(1)}), pred: rows(query.Row{int64(2), int64(1)}, query.Row{int64(1), int64(2)}), ordered: T,
			// Swapping the columns of pred gives gold's rows in gold's order.
			want: v(T, T, T, T)},
		{name: "columns swapped and pairs broken", gold: rows(query.Row{int64(1), "x"}, query.Row{int64(2), "y"}), pred: rows(query.Row{"y", int64(1)}, query.Row{"x", int64(2)}), want: v(F, F, F, F)},
		{name: "two equal gold columns need two predicted columns", gold: rows(query.Row{int64(1), int64(1)}), pred: rows(query.Row{int64(1)}), want: v(F, F, F, F)},
		{name: "one predicted column cannot stand for two", gold: rows(query.Row{int64(1), int64(1)}), pred: rows(query.Row{int64(1), int64(2)}), want: v(F, F, F, F)},
		{name: "many identical columns", gold: rows(query.Row{int64(1), int64(1), int64(1), int64(1), int64(1), int64(1), int64(1), int64(1), "z"}), pred: rows(query.Row{"z", int64(1), int64(1), int64(1), int64(1), int64(1), int64(1), int64(1), int64(1)}), want: v(F, T, T, T)},

		// Ties. A LIMIT that cuts a tie makes either row right; gold here
		// returns every tied row (as data/eval's golds do), so one row is
		// not the answer.
		{name: "top 1 of a tie, gold keeps both", gold: rows(query.Row{"x", int64(5)}, query.Row{"y", int64(5)}), pred: rows(query.Row{"x", int64(5)}), ordered: T, top: T, want: v(F, F, F, F)},
		// The ranking rule tolerates trailing rows, such as a tie past N.
		{name: "top 2 with a tied third row", gold: rows(query.Row{"a", int64(9)}, query.Row{"b", int64(8)}), pred: rows(query.Row{"a", int64(9)}, query.Row{"b", int64(8)}, query.Row{"c", int64(8)}), ordered: T, top: T, want: v(F, F, F, T)},
		{name: "trailing rows when the question is not a top", gold: rows(query.Row{"a", int64(9)}, query.Row{"b", int64(8)}), pred: rows(query.Row{"a", int64(9)}, query.Row{"b", int64(8)}, query.Row{"c", int64(8)}), ordered: T, want: v(F, F, F, F)},
		{name: "top 2 with the wrong first rows", gold: rows(query.Row{"a", int64(9)}, query.Row{"b", int64(8)}), pred: rows(query.Row{"b", int64(8)}, query.Row{"a", int64(9)}, query.Row{"c", int64(8)}), ordered: T, top: T, want: v(F, F, F, F)},
		// Tied rows in the other order: no rule knows the ORDER BY key,
		// so the order-sensitive ones call it wrong; BIRD's set rule does
		// not look at order.
		{name: "tied rows swapped in an ordered result", gold: rows(query.Row{"a", int64(5)}, query.Row{"b", int64(5)}, query.Row{"c", int64(1)}), pred: rows(query.Row{"b", int64(5)}, query.Row{"a", int64(5)}, query.Row{"c", int64(1)}), ordered: T, want: v(T, F, F, F)},
	}
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "c"
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gc, pc := tt.goldC, tt.predC
			if len(tt.gold) > 0 {
				gc = len(tt.gold[0])
			}
			if len(tt.pred) > 0 {
				pc = len(tt.pred[0])
			}
			got := Judge(res(names(gc), tt.gold...), res(names(pc), tt.pred...), tt.ordered, tt.top)
			if got != tt.want {
				t.Errorf("Judge = %+v\n          want %+v", got, tt.want)
			}
		})
	}
	if (Judge(nil, res([]string{"x"}), false, false) != Verdict{}) {
		t.Error("a nil gold result is not wrong")
	}
}

// Keys never collide across tuples: a separator inside a value does not
// make two different rows equal.
func TestRowKeysDoNotCollide(t *testing.T) {
	g := res([]string{"a", "b"}, query.Row{"x\x1fsy", "z"})
	p := res([]string{"a", "b"}, query.Row{"x", "y\x1fsz"})
	if got := Judge(g, p, false, false); got.Correct || got.CorrectStrict {
		t.Errorf("%+v", got)
	}
}

func TestOrderMattersAndTop(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		c       Case
		ordered bool
		top     bool
	}{
		{Case{Question: "Top 3 customers by orders", GoldSQL: "SELECT name FROM c ORDER BY n DESC LIMIT 3"}, true, true},
		{Case{Question: "Customers in the top tier", GoldSQL: "SELECT name FROM c WHERE tier = 'top'"}, false, true},
		{Case{Question: "Which customers bought", GoldSQL: "SELECT name FROM c WHERE id IN (SELECT c FROM o ORDER BY d LIMIT 3)"}, false, false},
		{Case{Question: "Stopping time", GoldSQL: "SELECT name FROM c ORDER BY n", Ordered: &no}, false, false},
		{Case{Question: "Count", GoldSQL: "SELECT count(*) FROM c", Ordered: &yes}, true, false},
	}
	for _, tt := range tests {
		if got := tt.c.OrderMatters(); got != tt.ordered {
			t.Errorf("%q: OrderMatters = %v", tt.c.GoldSQL, got)
		}
		if got := tt.c.AsksTop(); got != tt.top {
			t.Errorf("%q: AsksTop = %v", tt.c.Question, got)
		}
	}
}
