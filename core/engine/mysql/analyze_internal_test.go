package mysql

import (
	"strings"
	"testing"
)

// TestMySQLAnalyzedTree: MySQL 8's EXPLAIN ANALYZE tree (no MySQL 8
// server runs here; the text is the format of its manual) becomes steps
// nested by indentation, with actual rows over all loops and the time to
// the last row; the root's rows are the statement's.
func TestMySQLAnalyzedTree(t *testing.T) {
	const tree = `-> Table scan on <temporary>  (actual time=2.104..2.109 rows=25 loops=1)
    -> Aggregate using temporary table  (actual time=2.102..2.102 rows=25 loops=1)
        -> Nested loop inner join  (cost=1.2e+3 rows=3503) (actual time=0.051..1.800 rows=3503 loops=1)
            -> Table scan on Track  (cost=356 rows=3503) (actual time=0.043..1.032 rows=3503 loops=1)
            -> Single-row index lookup on g using PRIMARY (GenreId=Track.GenreId)  (cost=0.25 rows=1) (actual time=0.0002..0.0002 rows=1 loops=3503)
`
	p, err := mysqlAnalyzed("SELECT …", tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 5 || p.Actual.Rows != 25 || p.Actual.MS != 2.109 {
		t.Fatalf("%d steps, actual %+v:\n%s", len(p.Steps), p.Actual, p.Text())
	}
	parents := []int64{0, 1, 2, 3, 3}
	for i, s := range p.Steps {
		if s.Parent != parents[i] || s.ActualRows == nil {
			t.Errorf("step %d %q: parent %d, actual %v", i+1, s.Detail, s.Parent, s.ActualRows)
		}
	}
	if s := p.Steps[3]; s.Scan != "Track" || s.Rows != 3503 || *s.ActualRows != 3503 {
		t.Errorf("the scan: %+v", s)
	}
	if s := p.Steps[0]; s.Scan != "" {
		t.Errorf("a temporary table is not a table scan: %+v", s)
	}
	if s := p.Steps[4]; *s.ActualRows != 3503 || s.Loops != 3503 || !strings.HasPrefix(s.Detail, "Single-row index lookup on g") {
		t.Errorf("the lookup, over its loops: %+v", s)
	}
}
