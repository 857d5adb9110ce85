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

// RunThenReset runs stmts, around the guard, on a pooled connection as a
// statement runs (one pipeline: the statements, then the reset), reading
// the first one's result: the deferred reset on its own.
func (e *Engine) RunThenReset(ctx context.Context, stmts ...string) error {
	return e.withConn(ctx, func(c *pgconn.PgConn) error {
		return e.thenReset(ctx, c, func(p *pgconn.Pipeline) {
			for _, s := range stmts {
				p.SendQueryParams(s, nil, nil, nil, nil)
			}
		}, "no result", func(rr *pgconn.ResultReader) (bool, error) {
			return false, rr.Read().Err
		})
	})
}
