package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tick"
)

// A statement's vetting waits for no lock on the server (noLockWait,
// from the check before its Parse on): a Parse that waited for a table
// another session holds would read the literals as the types that
// session committed meanwhile, running their code before the check
// after the Parse could see the change (vetted.go, fresh.go). A Parse
// that meets a lock fails (55P03, lock_not_available) having read no
// literal; the client waits, where no code of the database's runs, and
// vets the statement anew in a fresh transaction, with a fresh check
// before its Parse, until a vetting passes or the deadline comes. (The
// planner that meets a lock ends the statement, as it did: the lock the
// Parse did not take is on an inheritance child or a partition.)
//
// The least lock_timeout is a millisecond, not none: a lock released
// within that millisecond is granted, and the Parse reads what its
// holder committed. That millisecond of each try is left open: a session
// that watches pg_locks and commits the moment it sees the statement
// wait lands in it often enough (a quarter of the tries, on one
// machine). Closing it needs the Parse's locks taken before the check
// (by a statement that runs no code of the database's), so that the
// Parse waits for none.

// errParseLocked says that the statement's Parse met a lock another
// session holds: nothing of the statement was read.
var errParseLocked = errors.New("the statement's Parse met a lock another session holds")

const (
	lockWaitFirst = time.Millisecond      // the first wait after a vetting met a lock
	lockWaitMost  = 50 * time.Millisecond // the longest, doubling up to it
	// lockTryLeast is the least statement timeout of a try after a wait:
	// time for the server to refuse the lock again (about a
	// millisecond), and for the deadline's error to name the lock, before
	// the client's own cancel (clientSlack).
	lockTryLeast = 100 * time.Millisecond
)

// isLockWait reports whether err is the server's refusal to wait for a
// lock (noLockWait): 55P03, lock_not_available.
func isLockWait(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
}

// lockEnd is the deadline of a statement of timeout run under ctx
// (inTx's, which ends clientSlack after it), when it stops waiting for a
// lock; ok is false for a statement with no deadline of its own, whose
// waiting only ctx ends.
func lockEnd(ctx context.Context, timeout time.Duration) (end time.Time, ok bool) {
	end, ok = ctx.Deadline()
	return end.Add(-clientSlack), ok && timeout > 0
}

// awaitLock waits before the n-th vetting tried again after a lock
// (lockWaitFirst, doubling, at most lockWaitMost), and returns the
// deadline's error (LockDeadlineError) once the deadline of timeout has
// come, or ctx's error when ctx ends first. c is in the failed
// transaction of the vetting that met the lock.
func (e *Engine) awaitLock(ctx context.Context, c *pgconn.PgConn, timeout time.Duration, n int) error {
	end, bounded := lockEnd(ctx, timeout)
	if bounded && !time.Now().Before(end) {
		return query.LockDeadlineError(timeout, e.heldLocks(ctx, c))
	}
	e.lockWaits.Add(1)
	pause := min(lockWaitFirst<<min(n, 8), lockWaitMost)
	if bounded {
		pause = min(pause, time.Until(end))
	}
	return tick.Sleep(ctx, pause)
}

// heldSQL names the tables (and views, indexes…) of the database that
// other sessions hold locked against any reader, with the backend that
// holds each. It names pg_catalog's operators: it runs with the
// database's search_path.
const heldSQL = `SELECT pg_catalog.textin(pg_catalog.regclassout(l.relation)), pg_catalog.textin(pg_catalog.int4out(l.pid))
FROM pg_catalog.pg_locks l
WHERE l.locktype OPERATOR(pg_catalog.=) 'relation' AND l.mode OPERATOR(pg_catalog.=) 'AccessExclusiveLock' AND l.granted
	AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
	AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
LIMIT 3`

// heldLocks names what heldSQL finds, for the error of a statement that
// waited for a lock until its deadline: "" when it finds nothing or
// cannot tell. c is in a failed transaction; it is rolled back first,
// and the reading waits for no lock.
func (e *Engine) heldLocks(ctx context.Context, c *pgconn.PgConn) string {
	p := c.StartPipeline(ctx)
	p.SendQueryParams("ROLLBACK", nil, nil, nil, nil)
	e.sendRole(p)
	p.SendQueryParams("SELECT "+e.lockColumn(), nil, nil, nil, nil)
	p.SendQueryParams(heldSQL, nil, nil, nil, nil)
	if err := p.Sync(); err != nil {
		p.Close()
		return ""
	}
	var held []string
	for {
		res, err := p.GetResults()
		if err != nil || res == nil {
			break
		}
		r, ok := res.(*pgconn.ResultReader)
		if !ok {
			continue
		}
		isHeld := len(r.FieldDescriptions()) == 2
		for r.NextRow() {
			if isHeld {
				held = append(held, string(r.Values()[0])+" (backend pid "+string(r.Values()[1])+")")
			}
		}
		if _, err := r.Close(); err != nil {
			break
		}
	}
	if err := p.Close(); err != nil {
		return ""
	}
	return strings.Join(held, ", ")
}
