package eval

import (
	"encoding/hex"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/query"
)

// SignificantDigits is the float tolerance of every rule: two reals are
// equal when they agree to this many significant digits (a sum added up in
// another order differs in its last bits), and a real with no fractional
// part equals the integer of the same value (3.0 = 3). BIRD's and Spider's
// scripts compare Python floats exactly; this tolerance is the one
// deliberate difference.
const SignificantDigits = 10

// Verdict is how a predicted result compares with the gold one under each
// rule. Set and Strict are the two published rules; Subset and Ranking are
// lenient and always reported as such.
type Verdict struct {
	// Correct is BIRD's execution accuracy: set(pred rows) == set(gold rows).
	// Row order, duplicates and column names do not matter; column order
	// does (a row is a tuple).
	Correct bool `json:"correct"`
	// CorrectStrict is Spider's test-suite rule: the rows as a bag (duplicates
	// count), in gold's order when the order matters, under some
	// permutation of the columns (same number of columns).
	CorrectStrict bool `json:"correct_strict"`
	// CorrectSubset is lenient: CorrectStrict, except that the prediction may carry
	// extra columns (every gold column must be matched by a distinct
	// predicted column).
	CorrectSubset bool `json:"correct_subset"`
	// CorrectRanking is lenient: CorrectStrict on the first len(gold) predicted rows,
	// for questions that ask for "the top …" (extra trailing rows, such as
	// ties past the limit, are tolerated). For other questions it equals
	// CorrectStrict.
	CorrectRanking bool `json:"correct_ranking"`
}

// maxPermutations bounds the column assignments tried for one comparison;
// past it the comparison counts as unequal. Columns with identical values
// are tried once, so only pathological results (many columns holding the
// same values in different orders) come near it.
const maxPermutations = 100_000

// Judge compares pred with gold under every rule. ordered says whether the
// order of the rows matters (see OrderMatters); top says whether the
// question asks for "the top …" (see AsksTop).
func Judge(gold, pred *query.Result, ordered, top bool) Verdict {
	if gold == nil || pred == nil {
		return Verdict{}
	}
	g, p := canon(gold.Rows), canon(pred.Rows)
	v := Verdict{
		Correct:       setEqual(g, p),
		CorrectStrict: bagEqual(g, p, ordered, false),
		CorrectSubset: bagEqual(g, p, ordered, true),
	}
	v.CorrectRanking = v.CorrectStrict
	if top && !v.CorrectRanking && len(p.rows) > len(g.rows) {
		v.CorrectRanking = bagEqual(g, table{rows: p.rows[:len(g.rows)]}, ordered, false)
	}
	return v
}

// table is a result with every value turned into a comparable key.
type table struct{ rows [][]string }

func (t table) cols() int {
	if len(t.rows) == 0 {
		return 0
	}
	return len(t.rows[0])
}

func canon(rows []query.Row) table {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = valueKey(v)
		}
	}
	return table{rows: out}
}

// valueKey is v as a string that equals another value's key exactly when
// the two values are equal: NULL only equals NULL; numbers compare by value
// to SignificantDigits (an integral real equals the integer); text never
// equals a number ('3' is not 3, as in SQLite and in Python); blobs by
// bytes.
func valueKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "N"
	case int64:
		return "n" + strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "nNaN"
		case x == math.Trunc(x) && math.Abs(x) < 1<<53:
			return "n" + strconv.FormatInt(int64(x), 10)
		}
		return "n" + strconv.FormatFloat(x, 'g', SignificantDigits, 64)
	case string:
		if isoDateTime.MatchString(x) {
			// A date and time written with a space (SQLite's text) or
			// a T (ISO 8601, as the server engines write them) is the
			// same value.
			return "s" + x[:10] + "T" + x[11:]
		}
		return "s" + x
	case []byte:
		return "b" + hex.EncodeToString(x)
	}
	return "?"
}

var isoDateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}`)

// rowKey joins keys so that different tuples never join to the same
// string (each key is length-prefixed).
func rowKey(row []string, cols []int) string {
	var b strings.Builder
	for _, c := range cols {
		k := row[c]
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// setEqual is BIRD's rule: the sets of row tuples are equal.
func setEqual(g, p table) bool {
	if len(g.rows) == 0 || len(p.rows) == 0 {
		return len(g.rows) == len(p.rows)
	}
	if g.cols() != p.cols() {
		return false
	}
	gs, ps := map[string]bool{}, map[string]bool{}
	all := identity(g.cols())
	for _, r := range g.rows {
		gs[rowKey(r, all)] = true
	}
	for _, r := range p.rows {
		k := rowKey(r, all)
		if !gs[k] {
			return false
		}
		ps[k] = true
	}
	return len(ps) == len(gs)
}

// bagEqual is Spider's test-suite rule: same number of rows; some
// one-to-one choice of predicted columns, one per gold column, makes the
// rows equal as bags (or as sequences when ordered). With subset the
// prediction may have more columns than gold; without it the counts must
// match. Two empty results are equal whatever their columns.
func bagEqual(g, p table, ordered, subset bool) bool {
	if len(g.rows) != len(p.rows) {
		return false
	}
	if len(g.rows) == 0 {
		return true
	}
	gc, pc := g.cols(), p.cols()
	if pc < gc || (!subset && pc != gc) {
		return false
	}
	// Candidates for each gold column: predicted columns with the same
	// values (as a bag, or a sequence when ordered) — necessary for any
	// assignment that makes the rows equal.
	gsig := make([]string, gc)
	for j := range gc {
		gsig[j] = columnSig(g, j, ordered)
	}
	psig := make([]string, pc)
	for k := range pc {
		psig[k] = columnSig(p, k, ordered)
	}
	cands := make([][]int, gc)
	for j := range gc {
		for k := range pc {
			if psig[k] == gsig[j] {
				cands[j] = append(cands[j], k)
			}
		}
		if len(cands[j]) == 0 {
			return false
		}
	}
	want := tuples(g, identity(gc), ordered)
	// Columns whose whole sequence of values is the same are
	// interchangeable: only the first free one of each is tried.
	exact := make([]string, pc)
	for k := range pc {
		exact[k] = columnSig(p, k, true)
	}
	pick := make([]int, gc)
	taken := make([]bool, pc)
	tries := 0
	var try func(j int) bool
	try = func(j int) bool {
		if j == gc {
			tries++
			return slices.Equal(want, tuples(p, pick, ordered))
		}
		seen := map[string]bool{}
		for _, k := range cands[j] {
			if taken[k] || seen[exact[k]] || tries >= maxPermutations {
				continue
			}
			seen[exact[k]] = true
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

// columnSig is column j's values, sorted unless ordered, as one string.
func columnSig(t table, j int, ordered bool) string {
	return strings.Join(tuples(t, []int{j}, ordered), "\x00")
}

// tuples projects the rows onto cols, sorted unless ordered.
func tuples(t table, cols []int, ordered bool) []string {
	out := make([]string, len(t.rows))
	for i, r := range t.rows {
		out[i] = rowKey(r, cols)
	}
	if !ordered {
		slices.Sort(out)
	}
	return out
}
