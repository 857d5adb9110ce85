package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

var _ query.Runner = (*Engine)(nil)

// Run vets sql with SQLite's compiler and the authorizer and streams its
// rows into sink: a deadline that interrupts the statement at any point of
// its life (sqlite3_interrupt from a timer, not only context
// cancellation), a row cap and a byte cap. An error that reading the
// database needed a write beside it is explained (ReadError).
//
// SQLite checks for an interrupt only between two instructions of its
// machine, and one instruction can run for seconds: an in-memory sort
// (ORDER BY, GROUP BY, a window's partitions) of millions of rows, or of
// keys that compare field by field, is one, and so is freeing its rows at
// the end (lite.Stmt.MayRunLong). A statement that holds such an
// instruction steps on a goroutine of its own, and Run waits for it no
// longer than the deadline (or ctx) and a grace. A statement still inside one when the grace ends is left to
// finish alone: it touches the sink and the summary no more, and its
// connection is closed, not pooled, once it ends.
func (d *Engine) Run(ctx context.Context, sql string, opt query.Options, sink query.Sink) (*query.Summary, error) {
	start := time.Now()
	sum := &query.Summary{SQL: sql}
	err := d.run(ctx, sql, opt, sink, sum)
	sum.Elapsed = time.Since(start)
	if err != nil {
		return sum, d.ReadError(err)
	}
	return sum, nil
}

// leaveGrace is how long past the deadline (or a cancellation) Run waits
// for an interrupted statement to stop before it answers without it.
const leaveGrace = 200 * time.Millisecond

// stepping counts the statements stepping on goroutines of their own,
// the ones left to finish alone included: they hold SQLite memory, which
// the process-wide heap limit counts, until they end.
var stepping sync.WaitGroup

func (d *Engine) run(ctx context.Context, sql string, opt query.Options, sink query.Sink, sum *query.Summary) error {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 1<<63 - 1
	}
	// The deadline covers preparing too: a connection's first statement
	// reads the whole schema, which takes seconds for tens of thousands
	// of tables.
	stop := c.InterruptAfter(timeout, ctx)
	stmt, err := Prepare(c.Conn, sql)
	if err != nil {
		if stop() {
			err = interrupted(ctx, err, timeout)
		}
		d.pool.Release(c, false)
		return err
	}
	if !stmt.MayRunLong() {
		// Every instruction of the statement ends soon after an
		// interrupt: it steps here, without a goroutine's hand-off (which
		// doubled a point query's 17 µs).
		defer d.pool.Release(c, false)
		defer stmt.Finalize()
		return run(ctx, c.Conn, stmt, stop, timeout, sink, sum, nil, opt)
	}
	err, left := stepAside(ctx.Done(), opt.Timeout, func(g *gate) error {
		return run(ctx, c.Conn, stmt, stop, timeout, sink, sum, g, opt)
	}, func(left bool) {
		stmt.Finalize()
		d.pool.Release(c, left)
	})
	switch {
	case !left:
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("query cancelled: %w", ctx.Err())
	}
	return query.DeadlineError(opt.Timeout)
}

// stepAside runs step on a goroutine of its own, counted in stepping, and
// waits for it no longer than limit (none when 0) and leaveGrace, or
// leaveGrace once cancel is closed. A step still running then is left to
// finish alone (left is set): it sees that from the gate it is given, and
// end, called once it returns, is told so too. Otherwise err is step's.
func stepAside(cancel <-chan struct{}, limit time.Duration, step func(g *gate) error, end func(left bool)) (err error, left bool) {
	g := &gate{}
	done := make(chan struct{})
	stepping.Add(1)
	go func() {
		defer stepping.Done()
		defer close(done)
		end(g.finish(step(g)))
	}()
	var wait <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit + leaveGrace)
		defer t.Stop()
		wait = t.C
	}
	for {
		select {
		case <-done:
			return g.err, false
		case <-cancel:
			cancel = nil
			t := time.NewTimer(leaveGrace)
			defer t.Stop()
			wait = t.C
		case <-wait:
			if err, ok := g.leave(); ok {
				return err, false
			}
			return nil, true
		}
	}
}

// gate is held by the goroutine that runs a statement whenever it touches
// the sink or the summary, that is always but while it steps; the caller
// takes it to leave. A nil gate is a statement that steps on the caller's
// goroutine.
type gate struct {
	mu       sync.Mutex
	left     bool  // the caller answered without the statement
	finished bool  // run returned err
	err      error // run's error, once finished
}

// finish records run's outcome and reports whether the caller had left.
func (g *gate) finish(err error) (left bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.finished, g.err = true, err
	return g.left
}

// leave stops the statement's goroutine from touching the sink or the
// summary again, unless run has returned: then ok is set and err is its
// outcome.
func (g *gate) leave() (err error, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished {
		return g.err, true
	}
	g.left = true
	return nil, false
}

// hold takes g and reports whether the caller has left.
func (g *gate) hold() (left bool) {
	if g == nil {
		return false
	}
	g.mu.Lock()
	return g.left
}

func (g *gate) release() {
	if g != nil {
		g.mu.Unlock()
	}
}

// errLeft ends a statement whose caller has left; nobody reads it.
var errLeft = errors.New("the caller stopped waiting")

// Check vets sql on a pooled connection without running it, stopping
// when ctx ends (a new connection reads the whole schema first).
func (d *Engine) Check(ctx context.Context, sql string) error {
	return d.Conn(ctx, func(c *lite.Conn) error {
		return untilDone(ctx, c, func() error { return Check(c, sql) })
	})
}

// run steps stmt, prepared on c under the deadline's interrupter (stop,
// which run ends) of timeout.
func run(ctx context.Context, c *lite.Conn, stmt *lite.Stmt, stop func() bool, timeout time.Duration, sink query.Sink, sum *query.Summary, g *gate, opt query.Options) error {
	defer stop()
	// An interrupt reaches a running statement only, and a cancellation's
	// arrives on its own goroutine: a short statement would finish first.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("query cancelled: %w", err)
	}
	n := stmt.ColumnCount()
	cols := make([]query.Column, n)
	for i := range cols {
		cols[i] = query.Column{Name: stmt.ColumnName(i), Type: stmt.DeclType(i)}
	}
	cur := &cursor{st: stmt, n: n}
	left := g.hold()
	defer g.release()
	if left {
		return errLeft
	}
	caps := engine.NewCaps(opt, sum)
	// A pragma function runs its PRAGMA as the statement steps, and the
	// authorizer sees it then: a denial is the refusal it records.
	auth := stateOf(c)
	auth.denied = nil
	began := false
	for {
		g.release()
		more, err := stmt.Step()
		if g.hold() {
			return errLeft
		}
		if err != nil {
			var le *lite.Error
			if errors.As(err, &le) && le.Code == lite.CodeAuth && auth.denied != nil {
				return auth.denied.rejection()
			}
			return stepError(ctx, err, stop(), timeout)
		}
		if !began {
			if more {
				for i := range cols {
					if cols[i].Type == "" {
						cols[i].Type = kindOf(stmt.Type(i)).TypeName()
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
		if caps.RowsFull() || caps.BytesOver(cur.size) {
			return nil
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
			return query.DeadlineError(timeout)
		}
	case lite.CodeNoMem:
		return &query.LimitError{Kind: "memory", Msg: "query stopped: it needed more memory than the limit allows", Hint: "aggregate or filter more, or add a LIMIT"}
	case lite.CodeTooBig:
		return &query.LimitError{Kind: "size", Msg: "query stopped: a value grew past the size limit (" + le.Msg + ")", Hint: "produce smaller values"}
	}
	return sqlError(le.Msg, le.Code)
}

// interrupted is the error of a statement whose preparation failed once
// its interrupter (of timeout) had fired: a cancellation or the deadline.
func interrupted(ctx context.Context, err error, timeout time.Duration) error {
	if ctx.Err() != nil {
		return fmt.Errorf("query cancelled: %w", ctx.Err())
	}
	var se *guard.SQLError
	if errors.As(err, &se) && se.Code == lite.CodeInterrupt {
		return query.DeadlineError(timeout)
	}
	return err
}

// kindOf maps SQLite's fundamental datatype to a storage class.
func kindOf(t int) query.Kind {
	switch t {
	case lite.Integer:
		return query.Integer
	case lite.Float:
		return query.Real
	case lite.Text:
		return query.Text
	case lite.Blob:
		return query.Blob
	}
	return query.Null
}

// cursor reads the current row of a prepared statement in place.
type cursor struct {
	st *lite.Stmt
	n  int
}

var _ query.Cursor = (*cursor)(nil)

func (c *cursor) Len() int              { return c.n }
func (c *cursor) Kind(i int) query.Kind { return kindOf(c.st.Type(i)) }
func (c *cursor) Int64(i int) int64     { return c.st.Int64(i) }
func (c *cursor) Float64(i int) float64 { return c.st.Float64(i) }
func (c *cursor) Value(i int) any       { return c.st.Value(i) }

func (c *cursor) Bytes(i int) []byte {
	if c.st.Type(i) == lite.Blob {
		return c.st.RawBlob(i)
	}
	return c.st.RawText(i)
}

func (c *cursor) Row() query.Row { return engine.RowOf(c.st, c.n) }

func (c *cursor) size() int64 {
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
