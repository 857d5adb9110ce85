package engine

import "github.com/tablewise/tablewise/core/query"

// Caps holds a stream of rows to a statement's caps (query.Options
// MaxRows and MaxBytes; 0: none) and marks its summary truncated by the
// cap that ends it. An engine asks RowsFull before it reads each row and
// BytesOver once the row is read; when either says so, the engine stops
// the statement and ends the stream without an error.
type Caps struct {
	opt   query.Options
	sum   *query.Summary
	bytes int64
}

// NewCaps holds the rows counted in sum to opt's caps.
func NewCaps(opt query.Options, sum *query.Summary) Caps {
	return Caps{opt: opt, sum: sum}
}

// RowsFull reports whether sum already holds MaxRows rows, so that the
// next row is one too many.
func (c *Caps) RowsFull() bool {
	if c.opt.MaxRows > 0 && c.sum.RowCount >= c.opt.MaxRows {
		c.sum.Truncated, c.sum.TruncatedBy = true, "rows"
		return true
	}
	return false
}

// BytesOver adds the size of the row just read and reports whether the
// rows now pass MaxBytes. size is called only when there is a byte cap.
func (c *Caps) BytesOver(size func() int64) bool {
	if c.opt.MaxBytes <= 0 {
		return false
	}
	c.bytes += size()
	if c.bytes > c.opt.MaxBytes {
		c.BytesPassed()
		return true
	}
	return false
}

// BytesPassed marks the summary truncated by the byte cap: for a row an
// engine refused to read because it alone passes MaxBytes.
func (c *Caps) BytesPassed() {
	c.sum.Truncated, c.sum.TruncatedBy = true, "bytes"
}
