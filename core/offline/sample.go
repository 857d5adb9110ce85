package offline

import "fmt"

// sampleRows bounds the rows one scan of the value index reads: a column
// of a bigger table is indexed from its first sampleRows rows, so the
// low-cardinality columns of big tables (the status of millions of
// orders) are indexed too, at a cost bounded by the question's needs
// rather than the data's size. A bound of rows, not of time: the same
// database gives the same index, and the same answers, on a loaded
// machine.
var sampleRows int64 = 250_000 // a variable for tests only

// scanFrom is the FROM clause of a scan of c: its table, or the first
// sampleRows rows of it when it has more (or an unknown number).
func scanFrom(c *colInfo) string {
	t := c.tab
	if t.rows >= 0 && t.rows <= sampleRows {
		return t.ident(t.name)
	}
	return fmt.Sprintf("(SELECT %s FROM %s LIMIT %d) AS sampled", t.ident(c.name), t.ident(t.name), sampleRows)
}

// sampledCount scales a count seen in a sample to the whole table.
func sampledCount(c *colInfo, n int64) int64 {
	if t := c.tab; t.rows > sampleRows {
		return n * t.rows / sampleRows
	}
	return n
}
