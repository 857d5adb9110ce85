// Package query runs one statement the guard has vetted and streams its
// rows: faithful types, a deadline that interrupts the statement at any
// point of its life, a row cap and a byte cap. The SQL is never rewritten:
// what ran is exactly what the caller sent.
package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/internal/lite"
)

// Options bound one run. Zero values mean no limit.
type Options struct {
	MaxRows  int
	MaxBytes int64
	Timeout  time.Duration
}

// Defaults for interactive use.
const (
	DefaultMaxRows  = 1000
	DefaultMaxBytes = 64 << 20
	DefaultTimeout  = 5 * time.Second
)

// Sink receives a result as it streams. Begin is called once, before the
// first row; Row once per row, with a cursor valid only during the call.
type Sink interface {
	Begin(cols []Column) error
	Row(c *Cursor) error
}

// Summary tells how a run went.
type Summary struct {
	Columns   []Column
	RowCount  int
	Truncated bool
	// TruncatedBy is "rows" or "bytes" when Truncated.
	TruncatedBy string
	Elapsed     time.Duration
	SQL         string
}

// LimitError means a deadline or resource limit stopped the statement.
type LimitError struct {
	Kind string // "deadline", "memory", "size"
	Msg  string
	Hint string
}

func (e *LimitError) Error() string { return e.Msg + " — " + e.Hint }

// ErrDeadline is matched (errors.Is) by a *LimitError of kind deadline.
var ErrDeadline = errors.New("deadline exceeded")

// Is makes errors.Is(err, ErrDeadline) work.
func (e *LimitError) Is(target error) bool { return target == ErrDeadline && e.Kind == "deadline" }

// Run vets sql with the guard and streams its rows into sink.
func Run(ctx context.Context, d *db.DB, sql string, opt Options, sink Sink) (*Summary, error) {
	start := time.Now()
	sum := &Summary{SQL: sql}
	err := d.Conn(ctx, func(c *lite.Conn) error {
		stmt, err := guard.Prepare(c, sql)
		if err != nil {
			var se *guard.SQLError
			if errors.As(err, &se) {
				if cat, cerr := d.Catalog(ctx); cerr == nil {
					guard.AddHint(se, sql, cat)
				} else {
					guard.AddHint(se, sql, nil)
				}
			}
			return err
		}
		defer stmt.Finalize()
		return run(ctx, c, stmt, opt, sink, sum, start)
	})
	sum.Elapsed = time.Since(start)
	if err != nil {
		return sum, err
	}
	return sum, nil
}

func run(ctx context.Context, c *lite.Conn, stmt *lite.Stmt, opt Options, sink Sink, sum *Summary, start time.Time) error {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 1<<63 - 1
	}
	stop := c.InterruptAfter(timeout, ctx.Done())
	defer stop()
	n := stmt.ColumnCount()
	cols := make([]Column, n)
	for i := range cols {
		cols[i] = Column{Name: stmt.ColumnName(i), Type: stmt.DeclType(i)}
	}
	cur := &Cursor{st: stmt, n: n}
	var bytes int64
	began := false
	for {
		more, err := stmt.Step()
		if err != nil {
			return stepError(ctx, err, stop(), timeout)
		}
		if !began {
			if more {
				for i := range cols {
					if cols[i].Type == "" {
						cols[i].Type = storageName(stmt.Type(i))
					}
				}
			}
			sum.Columns = cols
			if err := sink.Begin(cols); err != nil {
				return err
			}
			began = true
		}
		if !more {
			return nil
		}
		if opt.MaxRows > 0 && sum.RowCount >= opt.MaxRows {
			sum.Truncated, sum.TruncatedBy = true, "rows"
			return nil
		}
		if opt.MaxBytes > 0 {
			bytes += cur.size()
			if bytes > opt.MaxBytes {
				sum.Truncated, sum.TruncatedBy = true, "bytes"
				return nil
			}
		}
		if err := sink.Row(cur); err != nil {
			return err
		}
		sum.RowCount++
	}
}

func stepError(ctx context.Context, err error, fired bool, timeout time.Duration) error {
	var le *lite.Error
	if !errors.As(err, &le) {
		return err
	}
	switch le.Code {
	case lite.CodeInterrupt:
		if ctx.Err() != nil {
			return fmt.Errorf("query cancelled: %w", ctx.Err())
		}
		if fired {
			return &LimitError{Kind: "deadline", Msg: fmt.Sprintf("query stopped at the %s deadline", timeout), Hint: "add a WHERE clause or a LIMIT, or allow more time (--timeout)"}
		}
	case lite.CodeNoMem:
		return &LimitError{Kind: "memory", Msg: "query stopped: it needed more memory than the limit allows", Hint: "aggregate or filter more, or add a LIMIT"}
	case lite.CodeTooBig:
		return &LimitError{Kind: "size", Msg: "query stopped: a value grew past the size limit (" + le.Msg + ")", Hint: "produce smaller values"}
	}
	return &guard.SQLError{Msg: le.Msg, Code: le.Code}
}

func storageName(t int) string {
	switch t {
	case lite.Integer:
		return "INTEGER"
	case lite.Float:
		return "REAL"
	case lite.Text:
		return "TEXT"
	case lite.Blob:
		return "BLOB"
	}
	return ""
}

// Kind is a value's storage class.
type Kind int

// Storage classes.
const (
	Null Kind = iota
	Integer
	Real
	Text
	Blob
)

// Cursor reads the current row. Its byte slices are valid only during the
// Sink.Row call; copy what you keep.
type Cursor struct {
	st *lite.Stmt
	n  int
}

// Len is the number of columns.
func (c *Cursor) Len() int { return c.n }

// Kind is the storage class of column i.
func (c *Cursor) Kind(i int) Kind {
	switch c.st.Type(i) {
	case lite.Integer:
		return Integer
	case lite.Float:
		return Real
	case lite.Text:
		return Text
	case lite.Blob:
		return Blob
	}
	return Null
}

// Int64 reads column i as an integer.
func (c *Cursor) Int64(i int) int64 { return c.st.Int64(i) }

// Float64 reads column i as a float.
func (c *Cursor) Float64(i int) float64 { return c.st.Float64(i) }

// Bytes returns a TEXT or BLOB column's bytes without copying.
func (c *Cursor) Bytes(i int) []byte {
	if c.st.Type(i) == lite.Blob {
		return c.st.RawBlob(i)
	}
	return c.st.RawText(i)
}

// Value reads column i as nil, int64, float64, string or []byte (copied).
func (c *Cursor) Value(i int) any { return c.st.Value(i) }

// Row copies the current row.
func (c *Cursor) Row() Row {
	r := make(Row, c.n)
	for i := range r {
		r[i] = c.st.Value(i)
	}
	return r
}

func (c *Cursor) size() int64 {
	var s int64
	for i := 0; i < c.n; i++ {
		switch c.st.Type(i) {
		case lite.Text, lite.Blob:
			s += int64(len(c.Bytes(i))) + 16
		default:
			s += 16
		}
	}
	return s
}

// collector gathers rows into a Result.
type collector struct{ res *Result }

func (c *collector) Begin(cols []Column) error { c.res.Columns = cols; return nil }
func (c *collector) Row(cur *Cursor) error {
	c.res.Rows = append(c.res.Rows, cur.Row())
	return nil
}

// Collect runs sql and returns the capped result in memory.
func Collect(ctx context.Context, d *db.DB, sql string, opt Options) (*Result, error) {
	res := &Result{SQL: sql}
	sum, err := Run(ctx, d, sql, opt, &collector{res: res})
	if err != nil {
		return nil, err
	}
	res.RowCount, res.Truncated, res.Elapsed = sum.RowCount, sum.Truncated, sum.Elapsed
	// A column typed from a NULL in the first row takes its type from the
	// first non-NULL value.
	for i := range res.Columns {
		if res.Columns[i].Type != "" {
			continue
		}
		for _, r := range res.Rows {
			if k := kindOf(r[i]); k != "" {
				res.Columns[i].Type = k
				break
			}
		}
	}
	return res, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case int64:
		return "INTEGER"
	case float64:
		return "REAL"
	case string:
		return "TEXT"
	case []byte:
		return "BLOB"
	}
	return ""
}
