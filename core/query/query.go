// Package query holds what crosses the engine seam when one vetted
// statement runs: options (deadline, row cap, byte cap), result columns,
// rows whose values keep their types (NULL, int64, float64, text, blob), a
// Cursor over the current row, the Sink that receives a stream, the
// Summary of a run and the limit errors. Every engine (core/engine/...)
// implements Cursor and streams into a Sink; callers run SQL through a
// Runner (*db.DB is one). The SQL is never rewritten: what ran is exactly
// what the caller sent.
package query

import (
	"context"
	"errors"
	"fmt"
	"time"
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

// Runner vets one statement and streams its rows into sink: the engine's
// guard decides whether sql may run, the deadline interrupts it at any
// point of its life, and the row and byte caps end the stream early
// (Summary.Truncated). *db.DB implements it.
type Runner interface {
	Run(ctx context.Context, sql string, opt Options, sink Sink) (*Summary, error)
}

// Run vets sql and streams its rows into sink through r.
func Run(ctx context.Context, r Runner, sql string, opt Options, sink Sink) (*Summary, error) {
	return r.Run(ctx, sql, opt, sink)
}

// Sink receives a result as it streams. Begin is called once, before the
// first row; Row once per row, with a cursor valid only during the call.
type Sink interface {
	Begin(cols []Column) error
	Row(c Cursor) error
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
	// Lock is, for a deadline met while the statement waited for a lock
	// another session holds, what is locked (LockDeadlineError); "" for
	// any other limit.
	Lock string
}

func (e *LimitError) Error() string { return e.Msg + " — " + e.Hint }

// ErrDeadline is matched (errors.Is) by a *LimitError of kind deadline.
var ErrDeadline = errors.New("deadline exceeded")

// DeadlineError is the *LimitError of a statement stopped at its deadline
// of timeout.
func DeadlineError(timeout time.Duration) *LimitError {
	return &LimitError{Kind: "deadline", Msg: fmt.Sprintf("query stopped at the %s deadline", timeout), Hint: "add a WHERE clause or a LIMIT, or allow more time (--timeout)"}
}

// LockDeadlineError is the *LimitError of a statement stopped at its
// deadline of timeout while it waited for a lock another session holds
// on what it reads; lock names what is locked, and by whom, "" when that
// is not known.
func LockDeadlineError(timeout time.Duration, lock string) *LimitError {
	if lock == "" {
		lock = "a table the statement reads"
	}
	return &LimitError{Kind: "deadline", Lock: lock,
		Msg:  fmt.Sprintf("query stopped at the %s deadline: it waited all that time for a lock another session holds on %s", timeout, lock),
		Hint: "that session is changing the table (ALTER TABLE, LOCK TABLE, VACUUM FULL, TRUNCATE…): try again once its transaction ends, or allow more time (--timeout)"}
}

// Is makes errors.Is(err, ErrDeadline) work.
func (e *LimitError) Is(target error) bool { return target == ErrDeadline && e.Kind == "deadline" }

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

// TypeName is the column type a result shows for a value of kind k when
// no declared type is known: INTEGER, REAL, TEXT, BLOB, or "" for NULL.
func (k Kind) TypeName() string {
	switch k {
	case Integer:
		return "INTEGER"
	case Real:
		return "REAL"
	case Text:
		return "TEXT"
	case Blob:
		return "BLOB"
	}
	return ""
}

// Cursor reads the current row of a result as it streams. Each engine has
// its own implementation, reading the values where the driver keeps them.
// Byte slices from Bytes are valid only during the Sink.Row call; copy
// what you keep.
type Cursor interface {
	// Len is the number of columns.
	Len() int
	// Kind is the storage class of column i in this row.
	Kind(i int) Kind
	// Int64 reads column i as an integer.
	Int64(i int) int64
	// Float64 reads column i as a float.
	Float64(i int) float64
	// Bytes returns a TEXT or BLOB column's bytes without copying.
	Bytes(i int) []byte
	// Value reads column i as nil, int64, float64, string or []byte
	// (copied).
	Value(i int) any
	// Row copies the current row.
	Row() Row
}

// TextBytes is how many bytes the TEXT and BLOB values of cur's row
// hold: what a row adds to a CSV beyond its numbers, quotes and commas.
func TextBytes(cur Cursor) int {
	n := 0
	for i := range cur.Len() {
		if k := cur.Kind(i); k == Text || k == Blob {
			n += len(cur.Bytes(i))
		}
	}
	return n
}

// collector gathers rows into a Result.
type collector struct{ res *Result }

func (c *collector) Begin(cols []Column) error { c.res.Columns = cols; return nil }
func (c *collector) Row(cur Cursor) error {
	c.res.Rows = append(c.res.Rows, cur.Row())
	return nil
}

// Collect runs sql through r and returns the capped result in memory.
func Collect(ctx context.Context, r Runner, sql string, opt Options) (*Result, error) {
	res := &Result{SQL: sql}
	sum, err := r.Run(ctx, sql, opt, &collector{res: res})
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
			if k := KindOf(r[i]).TypeName(); k != "" {
				res.Columns[i].Type = k
				break
			}
		}
	}
	return res, nil
}

// KindOf is the storage class of a value as a Row holds it.
func KindOf(v any) Kind {
	switch v.(type) {
	case int64:
		return Integer
	case float64:
		return Real
	case string:
		return Text
	case []byte:
		return Blob
	}
	return Null
}
