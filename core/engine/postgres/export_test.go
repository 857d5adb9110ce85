package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
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
