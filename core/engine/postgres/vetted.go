package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/tablewise/tablewise/core/query"
)

// A statement the guard passed on a connection is run again on that
// connection in one round trip instead of two, while nothing it was
// vetted against can have changed. What a statement's text plans to (the
// functions it calls, what its views and policies expand to) depends on
// the text, the session's settings and the catalog. On one connection,
// reset after every statement (DISCARD ALL, or resetQuery after a
// verdict's run: the same but for prepared statements), the settings change only
// when the server reloads its configuration files; the catalog only when
// a transaction commits. So the verdict is kept with the server's state
// read in the vetting transaction, before and after the plan (the same
// both times): the committed transactions (pg_current_snapshot: its xmin,
// xmax and running transactions are the same only while none has
// committed or aborted since), when the session read the configuration
// files, and the search_path. The run sends, in one pipeline, the opening
// of the transaction, a check that raises an error when that state is no
// longer the same (the server then skips the rest up to the Sync) and
// sets the statement timeout and the lock timeout in the same statement,
// the statement's Parse, the check again and the statement's run, then
// the reset after the Sync (resetQuery, postgres.go): the checks are
// statements prepared on the connection, bound and run.
// The first check keeps the Parse from running a type's code of the
// database's own that was not there when the verdict was made (reading a
// literal as a type runs it: fresh.go). From it on, the transaction
// waits for no lock (noLockWait). The Parse takes the locks on what the
// statement reads, until the transaction ends; one that waited for a
// table another session holds would, once that session committed, read
// the literals as the types it made (a column changed to a range whose
// bounds compare with the database's own code), running that code
// before any check after it. A Parse that meets a lock fails within a
// millisecond (55P03) and reads no literal: that is a miss, and the
// vetting that follows waits for the lock client-side, between tries
// where no code runs (lockwait.go; a lock released within the first
// try's millisecond is still granted). The second check
// comes after the Parse: a change that committed between the two
// (the checks and the Parse follow one another at once, with no wait)
// shows in the state, and the statement is not planned, since the
// planner runs IMMUTABLE and STABLE functions on constants (a view may
// now call the database's own code); nor does the planner, which locks
// what only planning finds (partitions, inheritance children), wait for
// a change to commit and then plan with it. A miss costs that round
// trip; the statement is then vetted as if never seen.
//
// The state is read and compared by pg_catalog's functions named with
// their schema and their exact argument types, never by an operator or a
// cast: a database whose search_path puts a schema of its own before
// pg_catalog could otherwise make = or || say that a changed state is the
// same.
//
// What the catalog does not hold is not in the state: the guard refuses a
// file_fdw table whose file is not a regular one (a FIFO blocks the
// server's session past any deadline), and a file can be replaced by a
// FIFO with no commit. No verdict is kept for a plan that reads a foreign
// table's file.
//
// A verdict is also kept for a statement's shape: the statement with the
// integer literals that follow a comparison (= < >) or LIMIT/OFFSET
// written as int4 parameters, so that the same point query with another
// id runs in one round trip too. The shape is vetted beside the
// statement, in the same round trip, on its generic plan
// (plan_cache_mode = force_generic_plan): a parameter is never a
// constant while it is planned, so that plan keeps every branch, scan and
// call that constant folding, constraint exclusion or partition pruning
// removes for some values. Any statement of that shape plans to a subset
// of it: an integer literal is an int4 constant, and an int4 parameter
// resolves operators and functions as it does. A shape whose generic
// plan prunes partitions at startup (the plan shows "Subplans Removed")
// is not kept: those partitions were not seen.
//
// The guard's text checks run every time, with what the guard currently
// knows of the database's own objects; a verdict made with older
// knowledge is not used.

// stateColumn names the column of the state read while vetting.
const stateColumn = "tablewise_state"

// stateSQL reads the server's state (see above) for major version major,
// "" where the server has no snapshot function (before 9.4 none has
// this form; servers that speak the protocol without it fail the probe
// at open).
func stateSQL(major string) string {
	return "SELECT " + stateExpr(major) + " AS " + stateColumn
}

// stateExpr is the expression stateSQL reads.
func stateExpr(major string) string {
	snapshot := "pg_catalog.pg_snapshot_out(pg_catalog.pg_current_snapshot())"
	switch major {
	case "9", "10", "11", "12":
		snapshot = "pg_catalog.txid_snapshot_out(pg_catalog.txid_current_snapshot())"
	}
	cat := func(a, b string) string { return "pg_catalog.textcat(" + a + ", " + b + ")" }
	return cat(cat(cat(cat("pg_catalog.textin("+snapshot+")", "' '"),
		"pg_catalog.textin(pg_catalog.timestamptz_out(pg_catalog.pg_conf_load_time()))"), "' '"),
		"pg_catalog.current_setting('search_path')")
}

// checkSQL raises an error (a division by zero) when the state is no
// longer $1, and from then on lets the transaction wait for no lock
// (lockColumn). The state is not a constant (its functions are STABLE),
// so the division is not folded while the check is planned. One
// expression, no subquery: the check is parsed and planned on every
// run, and that is most of what it costs.
func checkSQL(major, lock string) string {
	return "SELECT pg_catalog.int4div(1, pg_catalog.int4(pg_catalog.texteq(" + stateExpr(major) + ", $1))) AS tablewise_check, " + lock
}

// setTimeout is the column of the check before a verdict's Parse that
// sets the statement timeout ($2, in milliseconds) as SET LOCAL would,
// in place of a statement of its own. The check sets the lock timeout
// too (lockColumn): the Parse waits for no lock.
const setTimeout = "pg_catalog.set_config('statement_timeout', $2, true) AS tablewise_timeout"

// keepable reports whether a verdict may be kept for plan: not when it
// reads a foreign table's file (see above).
func keepable(plan []byte) bool { return !bytes.Contains(plan, []byte(`"Foreign File"`)) }

// verdict is a statement the guard passed on one connection.
type verdict struct {
	state   string  // the server's state while it was vetted
	loc     *local  // what the guard knew of the database's own objects
	formats []int16 // the result formats asked for its columns
}

// shapeName names the shape's prepared statement and its savepoint.
const shapeName = "tablewise_shape"

// shaped is a statement's shape.
type shaped struct {
	sql    string   // the text with $1… for the literals
	values []string // the literals, in order
}

// shapeOf returns the shape of sql (toks, its tokens), nil when no
// literal is replaced: integer literals of at most 9 digits (int4 values)
// right after =, <, > or LIMIT/OFFSET. Elsewhere an integer may not be an
// expression (ORDER BY 1, varchar(10)).
func shapeOf(sql string, toks []token) *shaped {
	var b strings.Builder
	var values []string
	last := 0
	for i := 1; i < len(toks); i++ {
		t, prev := toks[i], toks[i-1]
		if t.kind != 'n' || len(t.text) > 9 || strings.Trim(t.text, "0123456789") != "" {
			continue
		}
		after := prev.kind == 'p' && (prev.text == "=" || prev.text == "<" || prev.text == ">") ||
			prev.kind == 'w' && (prev.text == "limit" || prev.text == "offset")
		if !after {
			continue
		}
		start := t.end - len(t.text)
		values = append(values, t.text)
		b.WriteString(sql[last:start])
		b.WriteString("$" + strconv.Itoa(len(values)))
		last = t.end
	}
	if len(values) == 0 {
		return nil
	}
	b.WriteString(sql[last:])
	return &shaped{sql: b.String(), values: values}
}

// oids are the parameters' types: int4, as the literals'.
func (sh *shaped) oids() []uint32 {
	out := make([]uint32, len(sh.values))
	for i := range out {
		out[i] = pgtype.Int4OID
	}
	return out
}

// holds reports whether the shape's vetting lets a verdict be kept: its
// generic plan passes the guard and shows every partition, and the
// server's state was the same before and after it.
func (sh *shaped) holds(plan []byte, states []string, sql string, loc *local) bool {
	return len(states) == 2 && states[0] == states[1] && len(plan) > 0 && keepable(plan) &&
		!bytes.Contains(plan, []byte(`"Subplans Removed"`)) && vetPlan(plan, sql, loc) == nil
}

// verdictKey is what a verdict for sql is kept under: its shape's text
// when it has one, else sql.
func (e *Engine) verdictKey(sql string, st *statement) string {
	if e.stateSQL == "" || st.kind != "select" || st.planned != sql {
		return ""
	}
	if e.shapes {
		if sh := st.shape(sql); sh != nil {
			return sh.sql
		}
	}
	return sql
}

// maxVerdicts bounds the statements and shapes remembered per connection.
const maxVerdicts = 256

// verdicts holds, per connection, the statements it passed. A connection
// is used by one caller at a time, so its map needs no lock of its own.
type verdicts struct {
	m sync.Map // *pgconn.PgConn → map[string]verdict
}

// get returns the verdict c holds for key, when it holds one made with
// what the guard knows now (loc).
func (vs *verdicts) get(c *pgconn.PgConn, key string, loc *local) (verdict, bool) {
	m, ok := vs.m.Load(c)
	if !ok {
		return verdict{}, false
	}
	v, ok := m.(map[string]verdict)[key]
	return v, ok && v.state != "" && v.loc == loc
}

// seen reports whether key was met on c before, and marks it met: a
// verdict is made the second time a statement or shape comes, so that one
// that comes once costs no more than its own vetting.
func (vs *verdicts) seen(c *pgconn.PgConn, key string) bool {
	m, _ := vs.m.LoadOrStore(c, map[string]verdict{})
	byText := m.(map[string]verdict)
	if _, ok := byText[key]; ok {
		return true
	}
	vs.put(c, key, verdict{})
	return false
}

func (vs *verdicts) put(c *pgconn.PgConn, key string, v verdict) {
	m, _ := vs.m.LoadOrStore(c, map[string]verdict{})
	byText := m.(map[string]verdict)
	if _, ok := byText[key]; !ok && len(byText) >= maxVerdicts {
		clear(byText)
	}
	byText[key] = v
}

// drop ends key's verdict on c, keeping it seen: the vetting that
// follows a miss makes the verdict anew.
func (vs *verdicts) drop(c *pgconn.PgConn, key string) { vs.put(c, key, verdict{}) }

// forget drops what c passed (c is closed).
func (vs *verdicts) forget(c *pgconn.PgConn) { vs.m.Delete(c) }

// probeState sets e.stateSQL when the server answers it, so that
// verdicts are kept; servers that cannot (a protocol-compatible engine
// without these functions) vet every statement on the server. Shapes
// need plan_cache_mode (PostgreSQL 12). e.printable says that the
// server answers printSQL, which the check of what the guard knows of
// the database's own objects needs (fresh.go).
func (e *Engine) probeState(ctx context.Context, c *pgconn.PgConn) {
	if _, err := c.Exec(ctx, "SELECT "+noLockWait).ReadAll(); err == nil {
		e.lockable = true
	}
	if _, err := c.Exec(ctx, printSQL).ReadAll(); err == nil {
		e.printable = true
	}
	sql := stateSQL(e.major)
	if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
		return
	}
	e.stateSQL = sql
	e.checkSQL = checkSQL(e.major, e.lockColumn())
	e.precheck = checkSQL(e.major, setTimeout+", "+e.lockColumn())
	if _, err := c.Exec(ctx, "SHOW plan_cache_mode").ReadAll(); err == nil {
		e.shapes = true
	}
}

// The two checks of a verdict's run are prepared on a connection once,
// by the first run that needs them, and from then on only bound and
// executed: parsing and planning them was most of what they cost. So is
// the statement: the text a verdict is kept under (the shape's, with its
// literals as parameters, or the statement's own) is prepared on the
// connection by the first run (named in its session's stmts), and later runs bind
// that statement with the literals as its parameters, planned once
// (after five runs, the server keeps the generic plan the shape's vetting
// read, when it is no costlier). Each run still sends a Parse of that
// text, unnamed and never run, after the first check: it takes the
// locks on what the statement reads, and reads its literals, as the
// statement's own Parse did, before the second check; the prepared
// statement is then bound after that check, on relations no change can
// commit to meanwhile, and planned again by the server (after the check)
// only if something it depends on changed. A
// verdict's run ends with resetQuery (postgres.go), which keeps them; the other
// pipelines end with DISCARD ALL (or, after a miss, DEALLOCATE ALL),
// which drops them, and call unprepared first. The checks' text names only
// pg_catalog's functions, with no literal of a type of the database's,
// so preparing them runs no code of the database's; their plans hold no
// constant of the state, which is a parameter.
const (
	precheckName = "tablewise_precheck"
	checkName    = "tablewise_check"
)

// checksPrepared reports whether c holds the verdict's checks prepared.
func checksPrepared(c *pgconn.PgConn) bool { return sessionOf(c).checks }

// unprepared forgets that c holds the checks and the verdicts'
// statements: called before a pipeline that may drop them is sent.
func unprepared(c *pgconn.PgConn) {
	s := sessionOf(c)
	s.checks, s.stmts = false, nil
}

// verdictStmt names the statement prepared on c for a verdict's text
// key: kept says it is there already; name is "" (the unnamed statement,
// parsed and run by this run alone) when c holds maxVerdicts of them.
func verdictStmt(c *pgconn.PgConn, key string) (name string, kept bool) {
	stmts := sessionOf(c).stmts
	if name, ok := stmts[key]; ok {
		return name, true
	}
	if len(stmts) >= maxVerdicts {
		return "", false
	}
	return "tablewise_v" + strconv.Itoa(len(stmts)+1), false
}

// keepStmt records that c holds name, prepared with the text key.
func keepStmt(c *pgconn.PgConn, key, name string) {
	s := sessionOf(c)
	if s.stmts == nil {
		s.stmts = map[string]string{}
	}
	s.stmts[key] = name
}

// runVetted runs sql (st, its statement), which v says passed the guard
// on c under key, checking in the same round trip, after the statement's
// Parse and before it is planned, that the server's state is still v's.
// ran is false on a miss: nothing of the statement ran, the verdict is
// dropped and c is left rolled back and reset (the reset after the Sync
// runs after an error too); err is errParseLocked when the miss is the
// statement's Parse meeting a lock.
func (e *Engine) runVetted(ctx context.Context, c *pgconn.PgConn, v verdict, key, sql string, st *statement, opt query.Options, sink query.Sink, sum *query.Summary) (ran bool, err error) {
	setRowLimit(c, opt)
	// The statement is key's text (verdictKey): the shape's, with the
	// literals as its parameters, or sql itself.
	var args [][]byte
	var oids []uint32
	if key != sql {
		sh := st.shape(sql)
		for _, v := range sh.values {
			args = append(args, []byte(v))
		}
		oids = sh.oids()
	}
	prepare := !checksPrepared(c)
	name, kept := verdictStmt(c, key)
	p := c.StartPipeline(ctx)
	e.sendRole(p)
	if prepare {
		p.SendPrepare(precheckName, e.precheck, []uint32{pgtype.TextOID, pgtype.TextOID})
		p.SendPrepare(checkName, e.checkSQL, []uint32{pgtype.TextOID})
	}
	state := []byte(v.state)
	p.SendQueryPrepared(precheckName, [][]byte{state, []byte(timeoutMS(opt.Timeout))}, nil, nil)
	// The Parse that takes the statement's locks and reads its literals:
	// the statement's own when it is not kept yet, else an unnamed one
	// that is never run.
	parsed := ""
	if !kept {
		parsed = name
	}
	p.SendPrepare(parsed, key, oids)
	p.SendQueryPrepared(checkName, [][]byte{state}, nil, nil)
	// The columns are the server's own description of the statement;
	// they are those the verdict's formats were chosen for while the
	// state is the same.
	p.SendQueryPrepared(name, args, nil, v.formats)
	queueReset(c, p)
	if err := p.Flush(); err != nil {
		p.Close()
		return false, err
	}
	// The opening (1 or 2 results), the checks' Parses when sent, the
	// check that sets the timeout, the statement's Parse, then the check.
	first := 1
	if e.role != "" {
		first = 2
	}
	opening := first
	if prepare {
		first += 2
	}
	var desc *pgconn.StatementDescription
	for i := 0; i < first+3; i++ {
		res, err := p.GetResults()
		if err == nil {
			switch r := res.(type) {
			case *pgconn.StatementDescription:
				if i == first+1 {
					desc = r
				}
			case *pgconn.ResultReader:
				_, err = r.Close()
			default:
				err = errors.New("the server answered the statement's vetting out of order")
			}
		}
		// A prepared statement outlives the transaction.
		if i == opening+1 && prepare && err == nil {
			sessionOf(c).checks = true
		}
		if i == first+1 && parsed != "" && err == nil {
			keepStmt(c, key, parsed)
		}
		if err != nil {
			p.Close()
			// The reset rolled back the failed transaction; its answer is
			// read before anything else is sent on c.
			if serr := settle(c); serr != nil && !errors.As(serr, new(*pgconn.PgError)) {
				return false, serr
			}
			var pe *pgconn.PgError
			if i < first || ctx.Err() != nil || errors.As(err, &pe) && pe.Code == "57014" {
				return false, err
			}
			e.verdicts.drop(c, key)
			if i == first+1 && isLockWait(err) {
				return false, fmt.Errorf("%w: %w", errParseLocked, err)
			}
			return false, nil
		}
	}
	if desc == nil {
		eachResult(p, nil)
		return true, errors.New("the server did not describe the statement")
	}
	e.hits.Add(1)
	res, err := p.GetResults()
	rr, ok := res.(*pgconn.ResultReader)
	if err != nil || !ok {
		eachResult(p, nil)
		if err == nil {
			err = errors.New("the server sent no rows")
		}
		return true, err
	}
	cols := make([]query.Column, len(desc.Fields))
	for i, f := range desc.Fields {
		cols[i] = query.Column{Name: f.Name, Type: e.types.name(f.DataTypeOID)}
	}
	err = e.read(c, rr, cols, opt, sink, sum)
	// A run whose rows a cap stopped sent a cancel request, which may
	// have met the reset: release reads the reset's answer and resets
	// the session again. Else the connection goes back to the pool with
	// the reset's answer owed, read when it next serves (settle).
	if eachResult(p, nil) == nil && err == nil && !sum.Truncated {
		e.clean.Store(c, true)
	}
	return true, err
}
