package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/go-sql-driver/mysql"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

var _ query.Runner = (*Engine)(nil)

// functionsTTL is how long what the guard learnt of the database (its
// functions, views and remote tables) is kept before it is read again.
// Within it, a statement runs only once the server has confirmed that
// the views, tables and functions its vetting relied on are still as the
// guard read them (confirm); the catalog's reads rely on the remote
// tables it holds.
const functionsTTL = 10 * time.Second

// divScale is the session's div_precision_increment: the digits a
// division or AVG adds to the scale of its operands. The server truncates
// a quotient there; at 20 digits a float64 holds as much of it as it can
// (SQLite's AVG is a double), and a DECIMAL result with at least this
// scale is read as a quotient: a float64, never text. Exact decimals
// (columns, sums, products) keep the rule of every engine: a float64
// when 15 significant digits hold them, else their digits as text.
const divScale = 20

// killGrace is how long a statement may take to end after KILL QUERY
// before its connection is closed from the client.
const killGrace = time.Second

// Run vets sql and streams its rows into sink. The statement runs inside
// START TRANSACTION READ ONLY, always rolled back, with the session's
// settings re-established first; the deadline is the server's
// (max_statement_time / max_execution_time) and the client's (KILL QUERY
// from another connection at the deadline or when ctx ends), so that a
// statement stopped for either is gone from the server when Run returns.
func (e *Engine) Run(ctx context.Context, sqlText string, opt query.Options, sink query.Sink) (*query.Summary, error) {
	start := time.Now()
	sum := &query.Summary{SQL: sqlText}
	if err := vet(sqlText, e.cachedFunctions()); err != nil {
		return sum, err
	}
	err := e.withTx(ctx, opt.Timeout, func(c *conn, s *stopper) error {
		if err := e.vetOn(ctx, c, s, sqlText); err != nil {
			return err
		}
		return e.stream(c, s, sqlText, opt, sink, sum)
	})
	sum.Elapsed = time.Since(start)
	return sum, err
}

// Check vets sql without running it: the guard, then the server
// prepares it (COM_STMT_PREPARE, which reads names and syntax and runs
// nothing) inside the read-only transaction.
func (e *Engine) Check(ctx context.Context, sqlText string) error {
	if err := vet(sqlText, e.cachedFunctions()); err != nil {
		return err
	}
	return e.withTx(ctx, query.DefaultTimeout, func(c *conn, s *stopper) error {
		if err := e.vetOn(ctx, c, s, sqlText); err != nil {
			return err
		}
		s.sql = sqlText
		stmt, err := c.PrepareContext(s.qctx, sqlText)
		if err != nil {
			if number(err) == 1295 { // not preparable (some SHOW forms): vetted is all we can say
				return nil
			}
			return e.runError(s, err)
		}
		return stmt.Close()
	})
}

// number is the server's error number of err, 0 for none.
func number(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func (e *Engine) cachedFunctions() *known {
	e.fnMu.Lock()
	defer e.fnMu.Unlock()
	return e.fns
}

// vetOn vets sqlText again with what the guard knows of the database as
// read on c, the connection that is about to run it, and has the server
// confirm that what the vetting relied on is still what the database
// holds (confirm); when it is not, the guard learns the database again
// and vets the statement anew, up to maxLearn times. The statement must
// be the next thing c runs; s is its stopper, which stops the check too.
func (e *Engine) vetOn(ctx context.Context, c *conn, s *stopper, sqlText string) error {
	toks, _ := statementTokens(sqlText) // vet refuses what cannot be read
	for n := 1; ; n++ {
		k, err := e.known(ctx, c, n > 1)
		if err != nil {
			// Learning runs under the statement's deadline too: the
			// server's max_statement_time or the stopper may cut it.
			return e.runError(s, err)
		}
		if err := vet(sqlText, k); err != nil {
			return err
		}
		same, err := e.confirm(s.qctx, c, toks, k)
		if s.stopped() {
			// The stopper fired during the check: its KILL QUERY may
			// have cut the check short, or may yet reach the server
			// before the statement, which must not start.
			return s.err()
		}
		if err != nil {
			return e.runError(s, err)
		}
		if same {
			return nil
		}
		if n == maxLearn {
			return &guard.SQLError{Msg: fmt.Sprintf("the database's views, tables or functions that the statement reads kept changing while it was vetted (%d times)", n), Hint: "try again"}
		}
	}
}

// known returns what the guard knows of the database (functions, views),
// read again on c when it is older than functionsTTL or when fresh is
// set.
func (e *Engine) known(ctx context.Context, c *conn, fresh bool) (*known, error) {
	e.fnMu.Lock()
	fns, at := e.fns, e.fnAt
	e.fnMu.Unlock()
	if !fresh && fns != nil && time.Since(at) < functionsTTL {
		return fns, nil
	}
	fns, err := e.learn(ctx, c)
	if err != nil {
		return nil, err
	}
	e.fnMu.Lock()
	e.fns, e.fnAt = fns, time.Now()
	e.fnMu.Unlock()
	return fns, nil
}

// withTx runs fn on a pooled connection inside a read-only transaction
// under the deadline, and rolls it back. The connection goes back to the
// pool only when everything ended cleanly.
func (e *Engine) withTx(ctx context.Context, timeout time.Duration, fn func(c *conn, s *stopper) error) error {
	// The session: every setting the guard and the values rely on, the
	// statement's deadline on the server, and no named lock left over.
	set := "SET SESSION sql_mode = '" + sqlMode + "', time_zone = '+00:00', div_precision_increment = " + strconv.Itoa(divScale) + ", "
	if e.mariadb {
		secs := timeout.Seconds()
		if timeout > 0 && secs < 0.001 {
			secs = 0.001 // 0 would mean no limit
		}
		set += "max_statement_time = " + strconv.FormatFloat(secs, 'f', 3, 64)
	} else {
		ms := timeout.Milliseconds()
		if timeout > 0 && ms < 1 {
			ms = 1
		}
		set += "max_execution_time = " + strconv.FormatInt(ms, 10)
	}
	if e.releaseLocks {
		set += ", @tablewise_locks = RELEASE_ALL_LOCKS()"
	}
	bg := context.WithoutCancel(ctx)
	var c *conn
	for attempt := 0; ; attempt++ {
		var err error
		if c, err = e.pool.Acquire(ctx); err != nil {
			return err
		}
		_, err = c.ExecContext(ctx, set)
		if err == nil {
			break
		}
		e.pool.Release(c, true)
		// A pooled connection the server closed (wait_timeout, a
		// restart) fails its first statement: take a fresh one, once.
		if attempt > 0 || ctx.Err() != nil || !badConn(err) {
			return e.sqlError(endedError(ctx, err))
		}
	}
	broken := true
	defer func() { e.pool.Release(c, broken) }()
	if _, err := c.ExecContext(ctx, "START TRANSACTION READ ONLY"); err != nil {
		return e.sqlError(endedError(ctx, err))
	}
	s := e.stopper(ctx, c, timeout)
	ferr := fn(c, s)
	fired := s.stop()
	rctx, cancel := context.WithTimeout(bg, 5*time.Second)
	defer cancel()
	_, rerr := c.ExecContext(rctx, "ROLLBACK")
	if ferr != nil && rerr != nil && (fired == "deadline" || fired == "cancel") && !e.gone(rctx, c.id) {
		// KILL QUERY did not end the statement and the client closed
		// its connection: the server goes on computing it until it next
		// checks for KILL, which MariaDB does between rows, not inside
		// one value (REPLACE on a long text, measured on 10.11). It was
		// not stopped: say so, never "stopped at the deadline".
		ferr = engine.StillRuns(s.timeout, fired == "cancel", fmt.Sprintf("connection %d", c.id), "the server cannot interrupt one long computation (REPLACE or REGEXP_REPLACE on a long text, for one): compute on shorter values")
	}
	if ferr != nil && badConn(ferr) {
		// The connection failed because the statement was stopped or the
		// caller ended (the driver closes a connection whose query its
		// context cut, and reports the next use as a bad connection).
		if fired == "deadline" || fired == "cancel" {
			ferr = s.err()
		} else {
			ferr = endedError(ctx, ferr)
		}
	}
	if ferr != nil {
		var rej *guard.Rejection
		broken = fired != "" || !errors.As(ferr, &rej) && !errors.As(ferr, new(*guard.SQLError))
		if rerr != nil {
			broken = true
		}
		return ferr
	}
	// The rows were all read (or capped): a stopper that fired after
	// the last of them changes nothing but the connection's fate.
	broken = fired != "" || rerr != nil
	return nil
}

// gone reports whether the server has ended the statement of connection
// id, which the stopper killed and whose connection the client closed (or
// failed to roll back), within engine.GoneGrace. Until then it sends KILL
// QUERY again: the first may never have reached the server (no
// connection for it within killGrace), and the connection is closed or
// about to be, running nothing else.
func (e *Engine) gone(ctx context.Context, id int64) bool {
	who := strconv.FormatInt(id, 10)
	return engine.AwaitGone(ctx, func() (bool, error) {
		var n int
		if err := e.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Sleep' AND ID = "+who).Scan(&n); err != nil {
			return false, err
		}
		if n > 0 {
			e.db.ExecContext(ctx, "KILL QUERY "+who)
		}
		return n == 0, nil
	})
}

// endedError is err, or the caller's cancellation or deadline when ctx
// has ended and err is the connection failing (badConn): the driver
// closes a connection whose query the context cut, and reports its next
// use as a bad connection (TestConcurrent saw "driver: bad connection"
// for a call cancelled at 100 ms on a loaded machine).
func endedError(ctx context.Context, err error) error {
	if ended := engine.Ended(ctx); ended != nil && badConn(err) {
		return fmt.Errorf("query cancelled: %w", ended)
	}
	return err
}

// badConn reports whether err means the connection is gone.
func badConn(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) || errors.As(err, &ne)
}

// stopper ends a statement at the deadline or when ctx ends: KILL QUERY
// on another connection, then, if the statement has not ended within
// killGrace, the client closes the connection.
type stopper struct {
	e       *Engine
	ctx     context.Context
	timeout time.Duration
	start   time.Time       // when the deadline began
	qctx    context.Context // the statement's context: cancelled only as a last resort
	cancel  context.CancelFunc
	timer   *time.Timer
	unwatch func() bool
	fire    func(reason string)
	sql     string // the statement, for messages

	mu     sync.Mutex
	reason string        // "deadline", "cancel" or "abandon" once fired
	sent   chan struct{} // closed once KILL QUERY was sent (or failed)
	killed chan struct{} // closed when the KILL goroutine is done
	ended  chan struct{} // closed by stop: the statement is over
}

func (e *Engine) stopper(ctx context.Context, c *conn, timeout time.Duration) *stopper {
	s := &stopper{e: e, ctx: ctx, timeout: timeout, start: time.Now(), sent: make(chan struct{}), killed: make(chan struct{}), ended: make(chan struct{})}
	s.qctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	fire := func(reason string) {
		s.mu.Lock()
		if s.reason != "" {
			s.mu.Unlock()
			return
		}
		s.reason = reason
		s.mu.Unlock()
		go func() {
			defer close(s.killed)
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
			defer cancel()
			e.db.ExecContext(kctx, "KILL QUERY "+strconv.FormatInt(c.id, 10))
			close(s.sent)
			select {
			case <-s.ended:
			case <-kctx.Done():
				s.cancel() // the driver closes the connection
			}
		}()
	}
	if timeout > 0 {
		s.timer = time.AfterFunc(timeout, func() { fire("deadline") })
	}
	s.unwatch = context.AfterFunc(ctx, func() { fire("cancel") })
	s.fire = fire
	return s
}

// abandon stops a statement whose remaining rows are not wanted (a cap
// reached, a sink that failed): without it, closing the rows would read
// them all. The connection is then discarded.
func (s *stopper) abandon() {
	s.fire("abandon")
	s.mu.Lock()
	mine := s.reason == "abandon"
	s.mu.Unlock()
	if mine {
		<-s.sent
	}
}

// fired is "deadline" or "cancel" once the stopper acted, else "".
func (s *stopper) fired() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

// stop disarms the stopper and waits for a KILL it sent, so that it can
// never reach a later statement of the connection. It returns why it
// fired, if it did.
func (s *stopper) stop() string {
	if s.timer != nil {
		s.timer.Stop()
	}
	s.unwatch()
	s.mu.Lock()
	reason := s.reason
	s.reason = "stopped" // no firing from now on
	if reason == "" {
		s.mu.Unlock()
		s.cancel()
		return ""
	}
	s.mu.Unlock()
	close(s.ended)
	<-s.killed
	s.cancel()
	s.mu.Lock()
	s.reason = reason
	s.mu.Unlock()
	return reason
}

// overdue reports whether the deadline has passed, whether or not the
// timer has fired yet (on a busy machine it runs late). MariaDB ends some
// computations at its own max_statement_time with no error (BENCHMARK
// then returns 0 as if it had run its loops): a statement that ends past
// the deadline is taken as stopped by it, its result as cut short.
func (s *stopper) overdue() bool {
	return s.timeout > 0 && time.Since(s.start) >= s.timeout
}

// stopped reports whether the deadline or ctx ended the statement.
func (s *stopper) stopped() bool {
	f := s.fired()
	return f == "deadline" || f == "cancel"
}

// err is the error of a statement the stopper ended.
func (s *stopper) err() error {
	switch s.fired() {
	case "cancel":
		return fmt.Errorf("query cancelled: %w", s.ctx.Err())
	case "deadline":
		return query.DeadlineError(s.timeout)
	}
	return nil
}

// stream runs the vetted statement and feeds its rows to sink.
func (e *Engine) stream(c *conn, s *stopper, sqlText string, opt query.Options, sink query.Sink, sum *query.Summary) error {
	s.sql = sqlText
	// The driver reads a row whole: the bytes read for one are held to
	// what the byte cap allows (meter.go), the columns' descriptions to
	// maxRow.
	row := int64(maxRow)
	if opt.MaxBytes > 0 {
		row = min(opt.MaxBytes+rowSlack, maxRow)
	}
	c.m.bound(maxRow)
	defer c.m.bound(-1)
	rows, err := c.QueryContext(s.qctx, sqlText)
	if err != nil {
		return e.runError(s, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return e.runError(s, err)
	}
	cur := newCursor(types)
	sum.Columns = cur.cols
	if err := sink.Begin(cur.cols); err != nil {
		return err
	}
	caps := engine.NewCaps(opt, sum)
	for c.m.bound(row); rows.Next(); c.m.bound(row) {
		if s.stopped() {
			return s.err()
		}
		if caps.RowsFull() {
			drainOrAbandon(rows, s)
			return nil
		}
		if err := rows.Scan(cur.dest...); err != nil {
			return e.runError(s, err)
		}
		if caps.BytesOver(cur.size) {
			drainOrAbandon(rows, s)
			return nil
		}
		if err := sink.Row(cur); err != nil {
			s.abandon()
			return err
		}
		sum.RowCount++
	}
	if err := rows.Err(); err != nil {
		if c.m.refused() {
			// A row alone past the cap: the driver closed the
			// connection rather than read it.
			caps.BytesPassed()
			return nil
		}
		return e.runError(s, err)
	}
	if s.overdue() {
		return query.DeadlineError(s.timeout)
	}
	return nil
}

// Past a cap, the rows left are read and dropped when they end soon
// (the connection then stays in the pool); otherwise the statement is
// stopped.
const (
	drainRows = 20_000
	drainTime = 20 * time.Millisecond
)

func drainOrAbandon(rows *sql.Rows, s *stopper) {
	until := time.Now().Add(drainTime)
	for i := 0; i < drainRows; i++ {
		if !rows.Next() {
			if rows.Err() == nil {
				return
			}
			break
		}
		if i%256 == 255 && time.Now().After(until) {
			break
		}
	}
	s.abandon()
}

// runError explains an error of a running statement: stopped at the
// deadline (by the server or the client), cancelled, or the server's SQL
// error.
func (e *Engine) runError(s *stopper, err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1969, 3024: // max_statement_time (MariaDB), max_execution_time (MySQL)
			return query.DeadlineError(s.timeout)
		case 1317: // interrupted: by the stopper's KILL QUERY
			if s.stopped() {
				return s.err()
			}
		}
	}
	if s.stopped() {
		return s.err()
	}
	return e.sqlErrorIn(err, s.sql)
}

// sqlError is the *guard.SQLError for an error the server raised, with
// the unknown table or column named for hints.
func (e *Engine) sqlError(err error) error { return e.sqlErrorIn(err, "") }

// sqlErrorIn is sqlError for an error of the statement sqlText.
func (e *Engine) sqlErrorIn(err error, sqlText string) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return err
	}
	se := &guard.SQLError{Msg: me.Message, Code: int(me.Number)}
	switch me.Number {
	case 1146: // Table 'db.Trak' doesn't exist
		if name := quoted(me.Message); name != "" {
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			se.Missing, se.MissingKind = name, "table"
		}
	case 1054: // Unknown column 'T.Titel' in 'field list'
		if name := quoted(me.Message); name != "" {
			se.Missing, se.MissingKind = name, "column"
			if strings.Contains(sqlText, `"`+name+`"`) {
				// MySQL's habit of "strings": a name here.
				se.Missing = ""
				se.Hint = `double quotes quote a name here, as in standard SQL: write '` + name + `' for a string`
			}
		}
	case 1064:
		se.Hint = "this is " + e.Dialect().Name() + ": use double quotes or backticks for names (\"Order Details\"), single quotes for strings, and CONCAT() to join text"
	case 1792:
		se.Hint = readOnlyHint
	case 1305:
		se.Hint = "no such function on this server; see the MariaDB/MySQL manual for the built-in functions"
	case 1052:
		se.Hint = "qualify the column with its table name or alias"
	}
	return se
}

// quoted is the text between the first pair of single quotes in msg.
func quoted(msg string) string {
	i := strings.IndexByte(msg, '\'')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(msg[i+1:], '\'')
	if j < 0 {
		return ""
	}
	return msg[i+1 : i+1+j]
}

// class is how a result column's values are read.
type class int

const (
	cText class = iota
	cInt
	cUint
	cFloat
	cDecimal
	cQuotient // a DECIMAL with divScale digits or more: a division's result
	cDate     // DATE: as sent
	cDateTime // DATETIME: 'T' between date and time
	cStamp    // TIMESTAMP: as DATETIME, in UTC with Z
	cBit
	cBlob
	cNull
)

func classOf(t string) class {
	switch t {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR",
		"UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		return cInt
	case "UNSIGNED BIGINT":
		return cUint
	case "FLOAT", "DOUBLE":
		return cFloat
	case "DECIMAL":
		return cDecimal
	case "DATE":
		return cDate
	case "DATETIME":
		return cDateTime
	case "TIMESTAMP":
		return cStamp
	case "BIT":
		return cBit
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY", "VECTOR":
		return cBlob
	case "NULL":
		return cNull
	}
	return cText
}

// cursor reads the current row from the driver's buffers in place.
type cursor struct {
	cols    []query.Column
	classes []class
	raw     []sql.RawBytes
	dest    []any
	scratch [][]byte // per column: a converted value (dates)
}

var _ query.Cursor = (*cursor)(nil)

func newCursor(types []*sql.ColumnType) *cursor {
	c := &cursor{cols: make([]query.Column, len(types)), classes: make([]class, len(types)),
		raw: make([]sql.RawBytes, len(types)), dest: make([]any, len(types)), scratch: make([][]byte, len(types))}
	for i, t := range types {
		name := t.DatabaseTypeName()
		c.classes[i] = classOf(name)
		if p, s, ok := t.DecimalSize(); ok && c.classes[i] == cDecimal {
			name = fmt.Sprintf("DECIMAL(%d,%d)", p, s)
			if s >= divScale {
				c.classes[i] = cQuotient
			}
		}
		if c.classes[i] == cNull {
			name = ""
		}
		c.cols[i] = query.Column{Name: t.Name(), Type: name}
		c.dest[i] = &c.raw[i]
	}
	return c
}

func (c *cursor) Len() int { return len(c.raw) }

func (c *cursor) Kind(i int) query.Kind {
	b := c.raw[i]
	if b == nil {
		return query.Null
	}
	switch c.classes[i] {
	case cInt, cBit:
		return query.Integer
	case cUint:
		if _, err := strconv.ParseInt(str(b), 10, 64); err == nil {
			return query.Integer
		}
		return query.Text
	case cFloat, cQuotient:
		return query.Real
	case cDecimal:
		if exactFloat(b) {
			return query.Real
		}
		return query.Text
	case cBlob:
		return query.Blob
	case cNull:
		return query.Null
	}
	return query.Text
}

// exactFloat reports whether a decimal's text has at most 15 significant
// digits, so that a float64 holds it and prints it back exactly.
func exactFloat(b []byte) bool {
	n, lead := 0, true
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			continue
		}
		if lead && ch == '0' {
			continue
		}
		lead = false
		n++
	}
	// Trailing zeros after the point count: 1.500 has 4; still exact for
	// float64 when n <= 15.
	return n <= 15
}

func (c *cursor) Int64(i int) int64 {
	b := c.raw[i]
	if c.classes[i] == cBit {
		var v int64
		for _, x := range b {
			v = v<<8 | int64(x)
		}
		return v
	}
	v, err := strconv.ParseInt(str(b), 10, 64)
	if err != nil {
		f, _ := strconv.ParseFloat(str(b), 64)
		return int64(f)
	}
	return v
}

func (c *cursor) Float64(i int) float64 {
	b := c.raw[i]
	if c.classes[i] == cInt || c.classes[i] == cBit {
		return float64(c.Int64(i))
	}
	f, _ := strconv.ParseFloat(str(b), 64)
	return f
}

// Bytes is a TEXT or BLOB value's bytes; dates and times in ISO 8601.
func (c *cursor) Bytes(i int) []byte {
	b := c.raw[i]
	switch c.classes[i] {
	case cDateTime, cStamp:
		s := c.scratch[i][:0]
		s = append(s, b...)
		if len(s) > 10 && s[10] == ' ' {
			s[10] = 'T'
		}
		if c.classes[i] == cStamp {
			s = append(s, 'Z')
		}
		c.scratch[i] = s
		return s
	}
	return b
}

func (c *cursor) Value(i int) any {
	switch c.Kind(i) {
	case query.Null:
		return nil
	case query.Integer:
		return c.Int64(i)
	case query.Real:
		return c.Float64(i)
	case query.Blob:
		return append([]byte{}, c.raw[i]...)
	}
	return string(c.Bytes(i))
}

func (c *cursor) Row() query.Row { return engine.RowOf(c, len(c.raw)) }

func (c *cursor) size() int64 {
	var s int64
	for _, b := range c.raw {
		s += int64(len(b)) + 16
	}
	return s
}

// str views b as a string without copying, for parsing only.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
