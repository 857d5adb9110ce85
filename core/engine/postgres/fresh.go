package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// What the guard knows of the database's own objects (local) is read
// once and kept; the planner runs IMMUTABLE and STABLE functions on
// constants while it plans, so a view, index, policy or function made
// since then would run the database's own code when the statement is
// planned, before its plan could be read. So the statement is planned
// only after a check, in the same transaction and round trip, that what
// the guard knows is still what the database holds: after the
// statement's Parse (which takes the locks on what it reads until the
// transaction ends, and fixes which functions and operators it names),
// before its EXPLAIN. The same check comes before the Parse too: reading
// a literal as a type runs that type's code of the database's own there
// (a type modifier's function for '1'::mt(5), a range's bound comparison
// for '[a,b]'::span_t), which a type made since the guard read them
// would run unvetted. The check raises an error when it fails (the
// server then skips the rest up to the Sync); the guard reads the
// database's objects again and vets the statement anew.
//
// The check before the Parse also makes the rest of the transaction wait
// for no lock (noLockWait), the Parse's own first: a Parse that waited
// for a table another session holds (in ALTER TABLE) would, once that
// session committed, read the literals as the types it made, with their
// code, after the check had passed. A Parse that meets a lock fails
// within a millisecond (the least lock_timeout), having read no literal;
// the client waits until the locks are gone and vets the statement anew
// (lockwait.go). What waiting there is for a lock happens between those
// tries, in the client, where no code of the database's runs — but for
// the first try's millisecond, in which a lock released is still
// granted (lockwait.go says what that leaves open).
//
// The check compares, first, the server's state (stateSQL: no
// transaction has committed since the guard read them, so nothing
// changed); on a server where transactions commit all the time that
// fails, and the next try compares a print of the database's own
// objects instead (printSQL: every row of the catalogs the guard reads
// with an oid past initdb's, and every row of the server's functions,
// operators and types that names a function of the database's, counted
// and its xmin summed: a row added, changed or removed by a transaction
// that committed since changes them), and keeps the state it saw for the
// next checks.

// printSQL prints the database's own objects (see above). It names
// pg_catalog's functions and operators by their schema: it runs in the
// statement's session, with the database's search_path.
var printSQL = func() string {
	own := []string{"pg_proc oid", "pg_operator oid", "pg_cast oid", "pg_opclass oid", "pg_amop oid", "pg_amproc oid",
		"pg_aggregate aggfnoid", "pg_range rngtypid", "pg_type oid", "pg_constraint oid", "pg_class oid",
		"pg_attribute attrelid", "pg_rewrite oid", "pg_policy oid", "pg_index indexrelid", "pg_statistic_ext oid",
		"pg_inherits inhrelid", "pg_partitioned_table partrelid", "pg_foreign_table ftrelid", "pg_foreign_server oid",
		"pg_ts_template oid", "pg_ts_parser oid"}
	// The server's own rows that name a function of the database's: a
	// superuser may alter them (ALTER FUNCTION … SUPPORT, ALTER OPERATOR
	// … SET, ALTER TYPE … SET), and restoring them removes them here.
	altered := []string{"pg_proc prosupport", "pg_operator oprcode oprrest oprjoin oprcom oprnegate",
		"pg_type typinput typoutput typreceive typsend typmodin typmodout typanalyze typsubscript"}
	var parts []string
	for _, o := range own {
		table, key, _ := strings.Cut(o, " ")
		parts = append(parts, "SELECT pg_catalog.int8in(pg_catalog.xidout(xmin)) FROM pg_catalog."+table+
			" WHERE "+key+" OPERATOR(pg_catalog.>=) '16384'::pg_catalog.oid")
	}
	for _, o := range altered {
		cols := strings.Fields(o)
		conds := make([]string, len(cols)-1)
		for i, col := range cols[1:] {
			conds[i] = col + "::pg_catalog.oid OPERATOR(pg_catalog.>=) '16384'::pg_catalog.oid"
		}
		parts = append(parts, "SELECT pg_catalog.int8in(pg_catalog.xidout(xmin)) FROM pg_catalog."+cols[0]+
			" WHERE oid OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid AND ("+strings.Join(conds, " OR ")+")")
	}
	// The server's functions in a language other than internal (12) and
	// c (13): its SQL ones, and any a transaction replaced.
	parts = append(parts, "SELECT pg_catalog.int8in(pg_catalog.xidout(xmin)) FROM pg_catalog.pg_proc"+
		" WHERE oid OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid AND prolang OPERATOR(pg_catalog.<>) '12'::pg_catalog.oid"+
		" AND prolang OPERATOR(pg_catalog.<>) '13'::pg_catalog.oid")
	return "SELECT pg_catalog.concat_ws(' ', pg_catalog.count(*), pg_catalog.sum(x)) AS tablewise_print FROM (" +
		strings.Join(parts, " UNION ALL ") + ") AS own(x)"
}()

// freshColumn names the check's column: the server's state it saw.
const freshColumn = "tablewise_fresh"

// noLockWait makes the rest of the transaction wait for no lock (1 ms,
// the least lock_timeout there is), from the check before the
// statement's Parse on. The Parse locks what the statement names, the
// planner what the Parse did not (inheritance children, partitions): a
// statement found current, then waiting for one of them while another
// transaction changed it, would be parsed or planned with that change
// once it commits (a column's new type whose input runs the database's
// own code; a CHECK constraint calling it, run by constraint
// exclusion). It stops instead (55P03), with nothing parsed or planned,
// and is vetted again (lockwait.go). A server that cannot set it (a
// protocol-compatible engine) gets a column that does nothing
// (lockColumn).
const noLockWait = "pg_catalog.set_config('lock_timeout', '1ms', true) AS tablewise_lock"

// lockColumn is noLockWait where the server takes it, else a column that
// sets nothing: the setting the rest of the transaction runs with, as a
// column of the check that sets it. (JIT compilation, which no deadline
// stops, is off in every session: Open.)
func (e *Engine) lockColumn() string {
	if e.lockable {
		return noLockWait
	}
	return "NULL AS tablewise_lock"
}

// staleRaise raises the check's error (a text that is not a number read
// as one), with the state it saw as s; its type is text, as s's.
const staleRaise = "pg_catalog.textin(pg_catalog.int4out(pg_catalog.int4in(pg_catalog.textout(pg_catalog.textcat('the database''s own objects changed: ', s)))))"

// errStale says that the check failed: the statement was not planned.
var errStale = errors.New("the database's own objects changed while the statement was vetted")

// freshness says how a statement's vetting checks what the guard knows.
type freshness int

const (
	noCheck    freshness = iota // the server answers neither stateSQL nor printSQL
	stateCheck                  // the server's state, then the print on a retry
	printCheck                  // the server's state or, when it differs, the print
)

// freshSQL is the check of level f and its parameters for loc: it
// answers the state now (or the print, where the server has no state),
// raising staleRaise when loc is older than the database, with lock
// (lockColumn) as its second column.
func (e *Engine) freshSQL(f freshness, loc *local, lock string) (string, [][]byte, []uint32) {
	check := func(same, from string, args ...[]byte) (string, [][]byte, []uint32) {
		oids := make([]uint32, len(args))
		for i := range oids {
			oids[i] = pgtype.TextOID
		}
		return "SELECT CASE " + same + " ELSE " + staleRaise + " END AS " + freshColumn + ", " + lock + " FROM (" + from + ") AS now(s)", args, oids
	}
	state := []byte(*loc.state.Load())
	switch {
	case f == stateCheck:
		return check("WHEN pg_catalog.texteq(s, $1) THEN s", e.stateSQL, state)
	case e.stateSQL == "":
		return check("WHEN pg_catalog.texteq(s, $1) THEN s", printSQL, []byte(loc.print))
	}
	return check("WHEN pg_catalog.texteq(s, $1) THEN s WHEN pg_catalog.texteq(("+printSQL+"), $2) THEN s", e.stateSQL, state, []byte(loc.print))
}

// freshLiteral is the check that loc is what the database holds (the
// print when the state differs), its parameters written as literals, for
// a simple query; lock as in freshSQL.
func (e *Engine) freshLiteral(loc *local, lock string) string {
	sql, args, _ := e.freshSQL(printCheck, loc, lock)
	for i := len(args); i >= 1; i-- {
		sql = strings.ReplaceAll(sql, "$"+strconv.Itoa(i), quoteString(string(args[i-1])))
	}
	return sql
}

// expireLocal makes the next statement read the database's own objects
// again, unless one already did since loc was read.
func (e *Engine) expireLocal(loc *local) {
	e.localMu.Lock()
	if e.local == loc {
		e.localAt = time.Time{}
	}
	e.localMu.Unlock()
}

// firstFreshness is the check a statement's vetting starts with: the
// print when the server's state had changed at the last check (where
// transactions commit all the time, the state check would fail and cost
// a round trip).
func (e *Engine) firstFreshness() freshness {
	switch {
	case !e.printable:
		return noCheck
	case e.stateSQL == "" || e.busy.Load():
		return printCheck
	}
	return stateCheck
}

// maxReloads bounds how many times one statement's vetting reads the
// database's own objects again.
const maxReloads = 3

// vetFresh is vetOnServer with the check above, trying again when it
// fails: with the print, then after reading the database's objects again
// (loc is what vetLocal returned for st). A vetting whose Parse met a
// lock is tried again after a wait (awaitLock), until one passes or the
// deadline of timeout comes; each try's statement timeout is what is
// left of it, at least lockTryLeast.
func (e *Engine) vetFresh(ctx context.Context, c *pgconn.PgConn, st *statement, sql string, timeout time.Duration, loc *local, afterMiss bool) (*pgconn.StatementDescription, error) {
	f := e.firstFreshness()
	// A verdict is made the second time its key is seen; a statement
	// tried again is still seen once.
	key := e.verdictKey(sql, st)
	if key != "" && !e.verdicts.seen(c, key) {
		key = ""
	}
	left := timeout
	for reloads := 0; ; {
		desc, err := e.vetOnServer(ctx, c, st, sql, left, loc, afterMiss, key, f)
		if errors.Is(err, errParseLocked) {
			// c is left in the failed transaction; awaitLock ends it.
			afterMiss = true
			if err := e.awaitLock(ctx, c, timeout); err != nil {
				return nil, err
			}
			if end, ok := lockEnd(ctx, timeout); ok {
				left = max(time.Until(end), lockTryLeast)
			}
			continue
		}
		if !errors.Is(err, errStale) {
			return desc, err
		}
		// c is left in the failed transaction, the statement perhaps
		// prepared.
		afterMiss = true
		if f == stateCheck {
			e.busy.Store(true)
			f = printCheck
			continue
		}
		if reloads++; reloads > maxReloads {
			return nil, fmt.Errorf("%w: tried %d times; try again once the database's schema stops changing", errStale, maxReloads)
		}
		if _, err := c.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
			return nil, err
		}
		if loc, err = e.reloadLocal(ctx, c, loc); err != nil {
			return nil, err
		}
		if err := vetWith(loc, st, sql); err != nil {
			return nil, err
		}
		f = e.firstFreshness()
	}
}

// reloadLocal reads the database's own objects again on c, unless
// another statement already did since old was read.
func (e *Engine) reloadLocal(ctx context.Context, c *pgconn.PgConn, old *local) (*local, error) {
	e.localMu.Lock()
	defer e.localMu.Unlock()
	if e.local != old && e.local != nil {
		return e.local, nil
	}
	return e.readLocal(ctx, c)
}

// seen keeps the state a check that passed saw, so that the next checks
// compare with it, and reports whether it had changed.
func (l *local) seen(state string) bool {
	if state == "" || state == *l.state.Load() {
		return false
	}
	l.state.Store(&state)
	return true
}
