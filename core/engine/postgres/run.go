package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

var _ query.Runner = (*Engine)(nil)

// clientSlack is how long after the server's statement_timeout the client
// sends a cancel request of its own: the server normally ends the
// statement first, with a clearer error.
const clientSlack = 150 * time.Millisecond

// rowSlack is more than a row message's own bytes beyond its values (2
// bytes, and 4 per column, of at most 1664): a row message longer than
// MaxBytes+rowSlack holds values past the byte cap.
const rowSlack = 64 << 10

// planMaxBytes bounds the plan the guard reads: an ordinary statement's
// (at most 100 KB of text) is far smaller.
const planMaxBytes = 16 << 20

// pgMaxMessage is pgproto3's default limit on a message (the server's
// own limit, about 1 GiB).
const pgMaxMessage = 0x3fffffff - 1

// Run vets sql (guard.go) and streams its rows into sink, inside BEGIN
// READ ONLY … ROLLBACK with SET LOCAL statement_timeout, the client
// cancelling too when the deadline passes. When a cap ends the stream
// early the server is told to stop the statement.
func (e *Engine) Run(ctx context.Context, sql string, opt query.Options, sink query.Sink) (*query.Summary, error) {
	start := time.Now()
	sum := &query.Summary{SQL: sql}
	st, err := vetText(sql)
	if err != nil {
		return sum, err
	}
	err = e.inTx(ctx, opt.Timeout, func(ctx context.Context, c *pgconn.PgConn) error {
		loc, err := e.vetLocal(ctx, c, st, sql)
		if err != nil {
			return err
		}
		afterMiss := false
		key := e.verdictKey(sql, st)
		if v, ok := e.verdicts.get(c, key, loc); ok {
			ran, err := e.runVetted(ctx, c, v, key, sql, st, opt, sink, sum)
			switch {
			case errors.Is(err, errParseLocked):
				// A miss: the vetting follows once the locks are gone.
				if err := e.awaitLock(ctx, c, opt.Timeout); err != nil {
					return err
				}
			case ran || err != nil:
				return err
			}
			afterMiss = true
		}
		desc, err := e.vetFresh(ctx, c, st, sql, opt.Timeout, loc, afterMiss)
		if err != nil {
			return err
		}
		setRowLimit(c, opt)
		return e.stream(ctx, c, desc, opt, sink, sum)
	})
	sum.Elapsed = time.Since(start)
	return sum, err
}

// setRowLimit bounds the messages c reads to what the byte cap allows.
// pgconn reads a whole row into memory before the byte cap can see it: a
// row that alone passes the cap is refused as it arrives (read ends the
// stream there), and the connection closed. The server's error is no
// row: it is read (up to errorMaxBytes) and reported.
func setRowLimit(c *pgconn.PgConn, opt query.Options) {
	if opt.MaxBytes > 0 {
		rows := int(min(opt.MaxBytes+rowSlack, pgMaxMessage))
		bound(c, max(rows, errorMaxBytes), rows)
	} else {
		bound(c, pgMaxMessage, 0)
	}
}

// Check vets sql as Run does, on the server, without running it.
func (e *Engine) Check(ctx context.Context, sql string) error {
	st, err := vetText(sql)
	if err != nil {
		return err
	}
	return e.inTx(ctx, query.DefaultTimeout, func(ctx context.Context, c *pgconn.PgConn) error {
		_, err := e.vetServer(ctx, c, st, sql, query.DefaultTimeout)
		return err
	})
}

// inTx runs fn on a pooled connection within the deadline and maps the
// errors it returns. fn opens the transaction (vetServer); the connection
// is rolled back and reset when it is released.
func (e *Engine) inTx(ctx context.Context, timeout time.Duration, fn func(ctx context.Context, c *pgconn.PgConn) error) error {
	runCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, timeout+clientSlack)
		defer cancel()
	}
	began := time.Now()
	var pid uint32
	abandoned := false
	err := e.withConn(runCtx, func(c *pgconn.PgConn) error {
		// vetServer and Run bound the size of a message; the connection
		// returns to the pool with pgproto3's own bound.
		defer bound(c, pgMaxMessage, 0)
		pid = c.PID()
		err := fn(runCtx, c)
		abandoned = err != nil && c.IsClosed()
		return err
	})
	if err == nil {
		return nil
	}
	err = mapError(ctx, err, timeout, time.Since(began))
	// The server answered the cancel request (the common case) or the
	// connection failed for another reason: nothing more to learn.
	if !abandoned {
		return err
	}
	cancelled := engine.Ended(ctx) != nil
	if !cancelled && !errors.Is(err, query.ErrDeadline) {
		return err
	}
	if !e.gone(ctx, pid, began) {
		return engine.StillRuns(timeout, cancelled, fmt.Sprintf("backend pid %d", pid), "the server cannot interrupt one long computation (strpos, position or replace on a long text, md5 of a large value, for some): compute on shorter values")
	}
	return err
}

// goneSQL cancels backend $1 again when it still runs a statement,
// returning a row if it does. Only a backend that started before the
// statement did ($2 seconds ago) is ours: a pid the server gave to a
// later session is not.
const goneSQL = `SELECT pg_catalog.pg_cancel_backend(pid) FROM pg_catalog.pg_stat_activity
WHERE pid = $1 AND state = 'active' AND backend_start < pg_catalog.statement_timestamp() - pg_catalog.make_interval(secs => $2::pg_catalog.float8)`

// gone reports whether backend pid, whose connection the client closed
// when the server did not answer the cancel request, has ended its
// statement within engine.GoneGrace. Until then it cancels it again, on
// another connection, with our own fixed text: the server checks for a
// cancel between rows, not while one function computes one value (strpos
// of a long text is quadratic), and the client gives up before. began is
// when the statement's connection was taken.
func (e *Engine) gone(ctx context.Context, pid uint32, began time.Time) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*engine.GoneGrace)
	defer cancel()
	args := [][]byte{[]byte(strconv.FormatUint(uint64(pid), 10)), nil}
	return engine.AwaitGone(ctx, func() (bool, error) {
		left := -1
		err := e.withConn(ctx, func(c *pgconn.PgConn) error {
			args[1] = []byte(strconv.FormatFloat(time.Since(began).Seconds(), 'f', 6, 64))
			res := c.ExecParams(ctx, goneSQL, args, nil, nil, nil).Read()
			left = len(res.Rows)
			return res.Err
		})
		return left == 0, err
	})
}

// preparedName names the statement vetted and run. A query's plan is read
// with EXPLAIN EXECUTE: the server plans it once and keeps that plan for
// the statement's own run (a statement with no parameters has no other),
// planning it again only if something it depends on changed meanwhile.
// DISCARD ALL drops it.
const preparedName = "tablewise"

// vetLocal applies the checks that need what the guard knows of the
// database's own objects (read on c when it is old), and returns that.
func (e *Engine) vetLocal(ctx context.Context, c *pgconn.PgConn, st *statement, sql string) (*local, error) {
	loc, err := e.localFor(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := vetWith(loc, st, sql); err != nil {
		return nil, err
	}
	return loc, nil
}

// vetWith applies the checks that need loc, what the guard knows of the
// database's own objects. Before anything is planned: the planner runs
// IMMUTABLE and STABLE functions on constants, so the plan cannot be the
// first check of the database's own functions.
func vetWith(loc *local, st *statement, sql string) error {
	if err := deniedCall(st.toks, "the statement", loc); err != nil {
		return err
	}
	return loc.vet(sql, st.toks, "the statement")
}

// vetServer vets sql on c (vetLocal, then vetFresh), leaving it
// prepared as preparedName, not yet run.
func (e *Engine) vetServer(ctx context.Context, c *pgconn.PgConn, st *statement, sql string, timeout time.Duration) (*pgconn.StatementDescription, error) {
	loc, err := e.vetLocal(ctx, c, st, sql)
	if err != nil {
		return nil, err
	}
	return e.vetFresh(ctx, c, st, sql, timeout, loc, false)
}

// vetOnServer opens the read-only transaction with the statement timeout
// set and asks the server, in one round trip (a pipeline: nothing after
// an error runs): the plan must hold nothing that writes, locks or calls
// a denied function, and the statement must be one that returns columns.
// It leaves the statement prepared as preparedName, not yet run. Before
// the statement's Parse, and after it before it is planned, the check of
// level f (fresh.go) raises errStale when loc is older than the database;
// from the first check on nothing waits for a lock (noLockWait): a Parse
// that meets one fails with errParseLocked, no literal of the statement
// read, and vetFresh tries it again (lockwait.go). loc is
// what vetLocal returned; afterMiss says that c is in the failed
// transaction runVetted left, with the statement perhaps prepared (rolled
// back and deallocated first, in the same round trip).
// A SELECT that passes is remembered for c under key (its verdictKey,
// "" for none) when the server's state read before and after it is the
// same.
func (e *Engine) vetOnServer(ctx context.Context, c *pgconn.PgConn, st *statement, sql string, timeout time.Duration, loc *local, afterMiss bool, key string, f freshness) (*pgconn.StatementDescription, error) {
	// The plan holds the constants the planner folded (repeat('x',
	// 400000000) is one): it is read whole and parsed, so its size is
	// bounded whatever the caps of the run.
	bound(c, planMaxBytes, 0)
	remember := key != ""
	var shape *shaped
	if remember && key != sql {
		shape = st.shape(sql)
	}
	// Segments of the pipeline, each ended by a Sync: with a shape, the
	// opening and the statement's Parse, the shape's vetting (whose
	// errors are its own: a savepoint before it is rolled back to after
	// it) and the statement's plan.
	shapeSeg := -1
	p := c.StartPipeline(ctx)
	// Before the statement's Parse, which runs the code of the types
	// its literals are read as, and again before it is planned: the
	// check of what the guard knows (fresh.go), which also stops the
	// Parse and the planner from waiting for a lock.
	sendFresh := func() { p.SendQueryParams("SELECT "+e.lockColumn(), nil, nil, nil, nil) }
	if f != noCheck {
		check, args, oids := e.freshSQL(f, loc, e.lockColumn())
		sendFresh = func() { p.SendQueryParams(check, args, oids, nil, nil) }
	}
	if afterMiss {
		// The miss left the statement prepared (a prepared statement
		// outlives its transaction).
		p.SendQueryParams("ROLLBACK", nil, nil, nil, nil)
		p.SendQueryParams("DEALLOCATE ALL", nil, nil, nil, nil)
		unprepared(c)
	}
	// Our own fixed texts first, then the statement's.
	e.sendBegin(p, timeout)
	if remember && shape == nil {
		p.SendQueryParams(e.stateSQL, nil, nil, nil, nil)
	}
	// Prepared first (parsed, described, nothing planned or run), so that
	// a statement with parameters is described before anything fails
	// for want of their values; its locks are held from then on.
	sendFresh()
	p.SendPrepare(preparedName, sql, nil)
	if shape != nil {
		shapeSeg = 1
		p.SendPipelineSync()
		p.SendQueryParams("SAVEPOINT "+shapeName, nil, nil, nil, nil)
		p.SendQueryParams("SET LOCAL plan_cache_mode = force_generic_plan", nil, nil, nil, nil)
		p.SendQueryParams(e.stateSQL, nil, nil, nil, nil)
		p.SendPrepare(shapeName, shape.sql, shape.oids())
		sendFresh()
		p.SendQueryParams("EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE "+shapeName+"("+strings.Join(shape.values, ", ")+")", nil, nil, nil, nil)
		p.SendQueryParams(e.stateSQL, nil, nil, nil, nil)
		p.SendPipelineSync()
		p.SendQueryParams("ROLLBACK TO SAVEPOINT "+shapeName, nil, nil, nil, nil)
	}
	sendFresh()
	switch {
	case st.kind == "select" && st.planned == sql:
		p.SendQueryParams("EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE "+preparedName, nil, nil, nil, nil)
	case st.kind == "select":
		p.SendQueryParams("EXPLAIN (VERBOSE, FORMAT JSON) "+st.planned, nil, nil, nil, nil)
	}
	if remember && shape == nil {
		p.SendQueryParams(e.stateSQL, nil, nil, nil, nil)
	}
	if err := p.Sync(); err != nil {
		p.Close()
		return nil, err
	}
	var plan, shapePlan []byte
	var states, shapeStates []string
	var shapeErr error
	var desc *pgconn.StatementDescription
	var first error
	seg := 0
	// fail records err: the shape's own errors only end its vetting.
	fail := func(err error) {
		var pe *pgconn.PgError
		if seg == shapeSeg && errors.As(err, &pe) {
			shapeErr = err
		} else {
			first = err
		}
	}
	for first == nil {
		res, err := p.GetResults()
		if err != nil {
			fail(err)
			continue
		}
		switch r := res.(type) {
		case *pgconn.ResultReader:
			// The plan's text is appended as it is read, not copied
			// into a result first.
			fields := r.FieldDescriptions()
			isPlan := len(fields) == 1 && fields[0].Name == "QUERY PLAN"
			isState := len(fields) == 1 && fields[0].Name == stateColumn
			isFresh := len(fields) >= 2 && fields[0].Name == freshColumn && seg != shapeSeg
			for r.NextRow() {
				switch {
				case isFresh && e.stateSQL != "":
					// The state the same as at the last check: the
					// server is quiet again.
					if !loc.seen(string(r.Values()[0])) {
						e.busy.Store(false)
					}
				case isPlan && seg == shapeSeg:
					shapePlan = append(shapePlan, r.Values()[0]...)
				case isPlan:
					plan = append(plan, r.Values()[0]...)
				case isState && seg == shapeSeg:
					shapeStates = append(shapeStates, string(r.Values()[0]))
				case isState:
					states = append(states, string(r.Values()[0]))
				}
			}
			if _, err := r.Close(); err != nil {
				var pe *pgconn.PgError
				if isFresh && errors.As(err, &pe) && pe.Code == "22P02" {
					err = errStale
				}
				fail(err)
			}
		case *pgconn.StatementDescription:
			if seg == 0 {
				desc = r
			}
		case *pgconn.PipelineSync:
			seg++
		case nil:
			if desc == nil {
				first = errors.New("the server did not describe the statement")
			}
		}
		if res == nil {
			break
		}
	}
	if err := p.Close(); first == nil {
		first = err
	}
	if isTooBig(first) {
		return nil, &query.LimitError{Kind: "memory", Msg: fmt.Sprintf("query stopped: its plan is larger than %s", format.Bytes(planMaxBytes)), Hint: "produce smaller values (the planner computes constant expressions such as repeat() into the plan)"}
	}
	// A query with parameters is described before its EXPLAIN EXECUTE
	// fails for want of their values.
	if desc != nil && len(desc.ParamOIDs) > 0 {
		return nil, paramsError(len(desc.ParamOIDs))
	}
	if first != nil {
		if desc == nil && isLockWait(first) {
			return nil, fmt.Errorf("%w: %w", errParseLocked, first)
		}
		return nil, first
	}
	if st.kind == "select" {
		if err := vetPlan(plan, sql, loc); err != nil {
			return nil, err
		}
		// Reading a large plan is work of the client's that no cancel
		// request stops: the deadline is checked once it is done.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if len(desc.Fields) == 0 {
		return nil, refuse(sql)
	}
	if len(desc.ParamOIDs) > 0 {
		return nil, paramsError(len(desc.ParamOIDs))
	}
	if remember {
		v := verdict{loc: loc, formats: resultFormats(desc.Fields)}
		switch {
		case shape == nil && len(states) == 2 && states[0] == states[1] && keepable(plan):
			v.state = states[0]
			e.verdicts.put(c, sql, v)
		case shape != nil && shapeErr == nil && shape.holds(shapePlan, shapeStates, sql, loc):
			v.state = shapeStates[0]
			e.verdicts.put(c, shape.sql, v)
		}
	}
	return desc, nil
}

// isTooBig reports whether err is a message longer than the bound set
// on the connection.
func isTooBig(err error) bool {
	var tooBig *pgproto3.ExceededMaxBodyLenErr
	return errors.As(err, &tooBig)
}

// sendBegin queues the transaction's opening on p: BEGIN READ ONLY, the
// role, the statement timeout.
func (e *Engine) sendBegin(p *pgconn.Pipeline, timeout time.Duration) {
	e.sendRole(p)
	p.SendQueryParams("SET LOCAL statement_timeout = "+timeoutMS(timeout), nil, nil, nil, nil)
}

// sendRole queues BEGIN READ ONLY and the role on p, the opening without
// the statement timeout: one result, or two with a role.
func (e *Engine) sendRole(p *pgconn.Pipeline) {
	p.SendQueryParams("BEGIN TRANSACTION READ ONLY", nil, nil, nil, nil)
	if e.role != "" {
		p.SendQueryParams("SET LOCAL ROLE "+quoteIdent(e.role), nil, nil, nil, nil)
	}
}

// timeoutMS is timeout as statement_timeout's milliseconds: at least 1
// for a positive timeout (0 would mean no limit).
func timeoutMS(timeout time.Duration) string {
	ms := timeout.Milliseconds()
	if timeout > 0 && ms == 0 {
		ms = 1
	}
	return strconv.FormatInt(ms, 10)
}

// paramsError refuses a statement with n parameters ($1…).
func paramsError(n int) error {
	return &guard.SQLError{Msg: fmt.Sprintf("the statement has %d parameter(s) ($1…) and none can be given", n), Hint: "write the values into the statement"}
}

// stream runs the prepared statement and streams its rows into sink, with
// ROLLBACK and DISCARD ALL after it in the same round trip (thenReset).
func (e *Engine) stream(ctx context.Context, c *pgconn.PgConn, desc *pgconn.StatementDescription, opt query.Options, sink query.Sink, sum *query.Summary) error {
	cols := make([]query.Column, len(desc.Fields))
	for i, f := range desc.Fields {
		cols[i] = query.Column{Name: f.Name, Type: e.types.name(f.DataTypeOID)}
	}
	return e.thenReset(ctx, c, func(p *pgconn.Pipeline) {
		p.SendQueryPrepared(preparedName, nil, nil, resultFormats(desc.Fields))
	}, "the server sent no rows", func(rr *pgconn.ResultReader) error {
		return e.read(c, rr, cols, opt, sink, sum)
	})
}

// thenReset sends a statement (send), then ROLLBACK and DISCARD ALL, in
// one pipeline under one Sync: read gets the statement's result (noResult
// is the error when there is none), and the connection comes back reset
// without another round trip, marked clean for release. ROLLBACK ends the
// transaction block, so DISCARD ALL starts a transaction of its own, as it
// must. One Sync, not one after each, makes the server answer all three
// in one reply, which the client waits for once. When the statement fails
// the server skips the rest up to the Sync: the session is left in its
// failed transaction, not marked clean, and release resets it (reset) in
// a round trip of its own.
func (e *Engine) thenReset(ctx context.Context, c *pgconn.PgConn, send func(p *pgconn.Pipeline), noResult string, read func(rr *pgconn.ResultReader) error) error {
	unprepared(c)
	p := c.StartPipeline(ctx)
	send(p)
	p.SendQueryParams("ROLLBACK", nil, nil, nil, nil)
	p.SendQueryParams("DISCARD ALL", nil, nil, nil, nil)
	if err := p.Sync(); err != nil {
		p.Close()
		return err
	}
	res, err := p.GetResults()
	if err != nil {
		e.drain(c, p)
		return err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		e.drain(c, p)
		return errors.New(noResult)
	}
	err = read(rr)
	e.drain(c, p)
	return err
}

// read streams rr into sink until the end or a cap.
func (e *Engine) read(c *pgconn.PgConn, rr *pgconn.ResultReader, cols []query.Column, opt query.Options, sink query.Sink, sum *query.Summary) error {
	sum.Columns = cols
	if err := sink.Begin(cols); err != nil {
		stop(c, rr)
		return err
	}
	cur := newCursor(e.types, rr.FieldDescriptions())
	caps := engine.NewCaps(opt, sum)
	for rr.NextRow() {
		if caps.RowsFull() {
			stop(c, rr)
			return nil
		}
		cur.set(rr.Values())
		if caps.BytesOver(cur.size) {
			stop(c, rr)
			return nil
		}
		if err := sink.Row(cur); err != nil {
			stop(c, rr)
			return err
		}
		sum.RowCount++
	}
	_, err := rr.Close()
	if isTooBig(err) {
		caps.BytesPassed()
		return nil
	}
	return err
}

// drain reads the rest of a pipeline (ROLLBACK and DISCARD ALL) and marks
// c clean when both ran and the session is out of any transaction.
func (e *Engine) drain(c *pgconn.PgConn, p *pgconn.Pipeline) {
	if finish(c, p) == nil {
		e.clean.Store(c, true)
	}
}

// stop ends a statement whose rows are no longer wanted: a cancel request,
// then the rest of the stream is read and dropped.
func stop(c *pgconn.PgConn, rr *pgconn.ResultReader) {
	ctx, cancel := context.WithTimeout(context.Background(), resetTimeout)
	defer cancel()
	c.CancelRequest(ctx)
	rr.Close()
}

// mapError turns what the server or pgconn said into the shared typed
// errors.
func mapError(ctx context.Context, err error, timeout, elapsed time.Duration) error {
	var rej *guard.Rejection
	var sqlErr *guard.SQLError
	if errors.As(err, &rej) || errors.As(err, &sqlErr) || errors.Is(err, guard.ErrEmpty) || errors.Is(err, engine.ErrUnavailable) {
		return err
	}
	if ended := engine.Ended(ctx); ended != nil {
		return fmt.Errorf("query cancelled: %w", ended)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		if timeout > 0 && elapsed >= timeout && (errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)) {
			return query.DeadlineError(timeout)
		}
		return err
	}
	switch pe.Code {
	case "57014": // query_canceled: statement_timeout or our cancel request
		if timeout > 0 {
			return query.DeadlineError(timeout)
		}
		return fmt.Errorf("query cancelled: %s", pe.Message)
	case "55P03": // lock_not_available: noLockWait
		return &guard.SQLError{Msg: "a table the statement reads is locked by another session, which is changing it (" + pe.Message + ")", Hint: "try again once that change ends"}
	case "25006": // read_only_sql_transaction
		return &guard.Rejection{What: "a write", Reason: "the server refused a write: " + pe.Message, Hint: readOnlyHint}
	case "42601":
		if strings.Contains(pe.Message, "multiple commands") {
			return &guard.Rejection{What: "several statements", Reason: "more than one statement", Hint: "send one statement at a time"}
		}
	case "53200", "54000", "54001":
		return &query.LimitError{Kind: "memory", Msg: "query stopped: " + pe.Message, Hint: "aggregate or filter more, or add a LIMIT"}
	}
	return sqlError(pe)
}

// shownErrorBytes bounds the server's error message and hint as
// reported: a cast's error names the whole text it could not read.
const shownErrorBytes = 4 << 10

var (
	missingRelation = regexp.MustCompile(`^relation "([^"]+)" does not exist`)
	missingColumn   = regexp.MustCompile(`^column "?([^" ]+)"? does not exist`)
)

// sqlError is the *guard.SQLError for an error the server raised.
func sqlError(pe *pgconn.PgError) *guard.SQLError {
	e := &guard.SQLError{Msg: format.ClipBytes(pe.Message, shownErrorBytes), Hint: format.ClipBytes(pe.Hint, shownErrorBytes)}
	switch pe.Code {
	case "42P01":
		if m := missingRelation.FindStringSubmatch(pe.Message); m != nil {
			e.Missing, e.MissingKind = m[1], "table"
		}
	case "42703":
		if m := missingColumn.FindStringSubmatch(pe.Message); m != nil {
			name := m[1]
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			e.Missing, e.MissingKind = name, "column"
		}
	case "42601":
		if e.Hint == "" {
			e.Hint = `this is PostgreSQL: use double quotes for names with capitals or spaces ("Track"), single quotes for strings, and || to join text`
		}
	case "42883":
		if e.Hint == "" {
			e.Hint = "PostgreSQL has no such function for these argument types; cast the arguments (x::numeric) or see postgresql.org/docs/current/functions.html"
		}
	case "42501":
		if e.Hint == "" {
			e.Hint = "the database role tablewise connects as may not read this; ask for SELECT on it (tablewise doctor prints the grants)"
		}
	}
	return e
}

// quoteIdent quotes a name for PostgreSQL.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// quoteString quotes a string literal for PostgreSQL (standard conforming
// strings).
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// pgOpenError explains an error met while reading what the guard needs
// (at open, and again during a statement's vetting). The server's error
// stays underneath: mapError reads a cancel there as the deadline.
func pgOpenError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &openError{kind: pe, msg: "open database: " + pe.Message}
	}
	return fmt.Errorf("open database: %w", err)
}
