package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// WithConn lends tests a pooled connection, around the guard.
func (e *Engine) WithConn(ctx context.Context, fn func(c *pgconn.PgConn) error) error {
	return e.withConn(ctx, fn)
}

// ExpireLocal makes the guard read the database's own functions again at
// the next statement, as it does once they are localMaxAge old.
func ExpireLocal(e *Engine) {
	e.localMu.Lock()
	e.localAt = time.Time{}
	e.localMu.Unlock()
}

// Denied reports whether the guard refuses a call of the function name.
func Denied(name string) bool {
	_, ok := denied(name)
	return ok
}

// VettedRuns counts the statements run on a verdict, in one round trip.
func VettedRuns(e *Engine) int64 { return e.hits.Load() }

// LockWaits counts the vettings tried again after one met a lock.
func LockWaits(e *Engine) int64 { return e.lockWaits.Load() }

// LocalLoads counts the times the guard read the database's own objects.
func LocalLoads(e *Engine) int64 { return e.loads.Load() }

// AfterTrialExplain runs f between an index trial's Explain and its
// session, until the test ends.
func AfterTrialExplain(t interface{ Cleanup(func()) }, f func()) {
	afterTrialExplain = f
	t.Cleanup(func() { afterTrialExplain = nil })
}

// RefusedSetting is refusedSetting.
var RefusedSetting = refusedSetting

// ResetSession rolls c back and resets it as a verdict's run does
// (resetQuery), and reads the answer.
func ResetSession(ctx context.Context, c *pgconn.PgConn) error {
	p := c.StartPipeline(ctx)
	queueReset(c, p)
	if err := p.Flush(); err != nil {
		p.Close()
		return err
	}
	if err := eachResult(p, nil); err != nil {
		return err
	}
	return settle(c)
}

// Owe sends sql on c as a Query whose answer is owed, as a verdict's
// run sends its reset, and marks c clean: release returns it to the pool
// as is, and the next Acquire reads the answer (settle).
func Owe(e *Engine, c *pgconn.PgConn, sql string) error {
	c.Frontend().Send(&pgproto3.Query{String: sql})
	if err := c.Frontend().Flush(); err != nil {
		return err
	}
	sessionOf(c).owed = true
	e.clean.Store(c, true)
	return nil
}

// LoadedState reads the database's own objects on a pooled connection as
// the guard does before a statement, and returns the server's state it
// read with them.
func LoadedState(ctx context.Context, e *Engine) (string, error) {
	var state string
	err := e.withConn(ctx, func(c *pgconn.PgConn) error {
		loc, err := e.loadLocal(ctx, c)
		if err != nil {
			return err
		}
		state = *loc.state.Load()
		return nil
	})
	return state, err
}

// LocalReads are the guard's reads of the operators' and the views'
// calls (localUsesSQL, localViewsSQL) as it sends them, and the same
// without first narrowing the operators and families to those that can
// reach the database's own code (reachingOwnCode, ownFamilies).
func LocalReads() (narrowed, full []string) {
	unnarrow := strings.NewReplacer(
		"o.oid IN "+reachingOwnCode+" AND ", "",
		" WHERE amprocfamily IN "+ownFamilies, "",
		"\n\tWHERE a.amopfamily IN "+ownFamilies, "",
	)
	narrowed = []string{localUsesSQL, localViewsSQL}
	for _, q := range narrowed {
		full = append(full, unnarrow.Replace(q))
	}
	return narrowed, full
}
