package offline

import (
	"encoding/hex"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/query"
)

// Compare reports whether pred answers what gold answers, the way BIRD's
// execution accuracy compares results: rows as a multiset of tuples, in any
// order. Extra columns in pred are tolerated when every gold column is
// present: there must be a one-to-one choice of pred columns, one per gold
// column, whose rows equal gold's rows. Numbers compare by value (3 equals
// 3.0; reals to 10 significant digits); NULL equals NULL.
func Compare(gold, pred *query.Result) bool {
	return compare(gold, pred, false)
}

// CompareOrdered is Compare for questions that ask for an order: the rows
// must also come in gold's order.
func CompareOrdered(gold, pred *query.Result) bool {
	return compare(gold, pred, true)
}

func compare(gold, pred *query.Result, ordered bool) bool {
	if gold == nil || pred == nil {
		return false
	}
	if len(gold.Rows) != len(pred.Rows) {
		return false
	}
	if len(gold.Rows) == 0 {
		return true
	}
	gc, pc := len(gold.Rows[0]), len(pred.Rows[0])
	if pc < gc {
		return false
	}
	g := normRows(gold.Rows)
	p := normRows(pred.Rows)
	// Candidate pred columns for each gold column: equal value multisets.
	cands := make([][]int, gc)
	for j := 0; j < gc; j++ {
		gcol := column(g, j)
		for k := 0; k < pc; k++ {
			if equalMultiset(gcol, column(p, k)) {
				cands[j] = append(cands[j], k)
			}
		}
		if len(cands[j]) == 0 {
			return false
		}
	}
	want := tuples(g, identity(gc), ordered)
	pick := make([]int, gc)
	taken := make([]bool, pc)
	var try func(j int) bool
	try = func(j int) bool {
		if j == gc {
			return equalStrings(want, tuples(p, pick, ordered))
		}
		for _, k := range cands[j] {
			if taken[k] {
				continue
			}
			taken[k] = true
			pick[j] = k
			if try(j + 1) {
				return true
			}
			taken[k] = false
		}
		return false
	}
	return try(0)
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// normRows turns every value into a comparable string.
func normRows(rows []query.Row) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = normValue(v)
		}
	}
	return out
}

func normValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00null"
	case int64:
		return "n" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return "n" + strconv.FormatInt(int64(x), 10)
		}
		return "n" + strconv.FormatFloat(x, 'g', 10, 64)
	case string:
		return "s" + x
	case []byte:
		return "b" + hex.EncodeToString(x)
	}
	return "?"
}

func column(rows [][]string, j int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[j]
	}
	return out
}

func equalMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a = append([]string(nil), a...)
	b = append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return equalStrings(a, b)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tuples projects rows onto cols and joins each row into one string,
// sorted unless ordered.
func tuples(rows [][]string, cols []int, ordered bool) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(cols))
		for k, c := range cols {
			parts[k] = r[c]
		}
		out[i] = strings.Join(parts, "\x1f")
	}
	if !ordered {
		sort.Strings(out)
	}
	return out
}
