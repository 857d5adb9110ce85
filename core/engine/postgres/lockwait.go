package postgres

import (
	"context"
	"errors"
	"slices"
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
// literal; the client waits, where no code of the database's runs, until
// the locks that kept it are gone (awaitLock), and vets the statement
// anew in a fresh transaction, with a fresh check before its Parse,
// until a vetting passes or the deadline comes. (The planner that meets
// a lock ends the statement, as it did: the lock the Parse did not take
// is on an inheritance child or a partition.)
//
// The least lock_timeout is a millisecond, not none: a lock released
// within that millisecond is granted, and the Parse reads what its
// holder committed. Tried again at once, every try's millisecond was a
// window: a session that watched pg_locks and committed the moment it
// saw the statement wait ran its code in 3 of 12 tries on one machine.
// So the tries after the first send no Parse while the locks that
// stopped the first are held (0 of 48 then). The first try's
// millisecond is still open in principle; closing it needs the Parse's
// locks taken before the check by a statement that runs no code of the
// database's (LOCK TABLE … IN ACCESS SHARE MODE on what the statement
// reads), so that the Parse waits for none.

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

// awaitLock waits, after a vetting's Parse met a lock, until the locks
// that other sessions then held or awaited against any reader
// (otherExclusive) are gone, looking again after lockWaitFirst, doubling
// up to lockWaitMost: the client waits, and sends no Parse meanwhile,
// for a lock released during a Parse's millisecond is granted to it. It
// returns the deadline's error (LockDeadlineError) once the deadline of
// timeout has come, or ctx's error when ctx ends first. c is in the
// failed transaction of the vetting that met the lock (or out of it, a
// verdict's run having reset it); it is left out of any transaction. The locks waited for are those of the whole database:
// the server does not say which one the Parse met.
func (e *Engine) awaitLock(ctx context.Context, c *pgconn.PgConn, timeout time.Duration) error {
	end, bounded := lockEnd(ctx, timeout)
	blockers, readErr := e.exclusiveLocks(ctx, c)
	for n := 0; ; n++ {
		if bounded && !time.Now().Before(end) {
			return query.LockDeadlineError(timeout, heldNames(blockers))
		}
		e.lockWaits.Add(1)
		pause := min(lockWaitFirst<<min(n, 8), lockWaitMost)
		if bounded {
			pause = min(pause, time.Until(end))
		}
		if err := tick.Sleep(ctx, pause); err != nil {
			return err
		}
		// Locks that could not be read are waited for once, as are none.
		if readErr != nil || len(blockers) == 0 {
			return nil
		}
		var now []exclusiveLock
		if now, readErr = e.exclusiveLocks(ctx, c); readErr != nil {
			return nil
		}
		if blockers = stillHeld(blockers, now); len(blockers) == 0 {
			return nil
		}
	}
}

// exclusiveLock is a lock another session holds, or awaits, on a
// relation of the database, that no reader may share.
type exclusiveLock struct {
	oid, name, pid string
	granted        bool
}

// otherExclusiveSQL lists the exclusiveLocks: oid, name, backend pid and
// whether the lock is granted. It names pg_catalog's operators: it runs
// with the database's search_path.
const otherExclusiveSQL = `SELECT pg_catalog.textin(pg_catalog.oidout(l.relation)), pg_catalog.textin(pg_catalog.regclassout(l.relation)),
	pg_catalog.textin(pg_catalog.int4out(l.pid)), pg_catalog.textin(pg_catalog.boolout(l.granted))
FROM pg_catalog.pg_locks l
WHERE l.locktype OPERATOR(pg_catalog.=) 'relation' AND l.mode OPERATOR(pg_catalog.=) 'AccessExclusiveLock'
	AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
	AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())`

// exclusiveLocks reads the exclusiveLocks on c, rolling back the
// transaction c is in first, in one round trip.
func (e *Engine) exclusiveLocks(ctx context.Context, c *pgconn.PgConn) ([]exclusiveLock, error) {
	p := c.StartPipeline(ctx)
	p.SendQueryParams("ROLLBACK", nil, nil, nil, nil)
	p.SendQueryParams(otherExclusiveSQL, nil, nil, nil, nil)
	if err := p.Sync(); err != nil {
		p.Close()
		return nil, err
	}
	var locks []exclusiveLock
	err := eachResult(p, func(rr *pgconn.ResultReader) {
		if len(rr.FieldDescriptions()) != 4 {
			return
		}
		for rr.NextRow() {
			v := rr.Values()
			locks = append(locks, exclusiveLock{oid: string(v[0]), name: string(v[1]), pid: string(v[2]), granted: string(v[3]) == "t"})
		}
	})
	return locks, err
}

// stillHeld is the locks of now on a relation of was.
func stillHeld(was, now []exclusiveLock) []exclusiveLock {
	var out []exclusiveLock
	for _, l := range now {
		if slices.ContainsFunc(was, func(w exclusiveLock) bool { return w.oid == l.oid }) {
			out = append(out, l)
		}
	}
	return out
}

// heldNames names the granted locks (three at most), for the error of a
// statement that waited for a lock until its deadline: "" for none.
func heldNames(locks []exclusiveLock) string {
	var names []string
	for _, l := range locks {
		if l.granted && len(names) < 3 {
			names = append(names, l.name+" (backend pid "+l.pid+")")
		}
	}
	return strings.Join(names, ", ")
}
