package mysql

import (
	"context"
	"time"

	"github.com/tablewise/tablewise/core/query"
)

// ScanAll is scanAll, for the package's outside tests.
var ScanAll = scanAll

// Builtins are the functions the server's check (confirm.go) takes an
// unquoted call of as the server's own.
func Builtins() []string {
	var out []string
	for w := range builtins {
		out = append(out, w)
	}
	return out
}

// RunTimerLate is Run with the client's deadline timer disarmed as the
// statement starts, as when a busy machine runs it late: only the
// server's max_statement_time acts at the deadline.
func RunTimerLate(e *Engine, ctx context.Context, sqlText string, timeout time.Duration) error {
	return e.withTx(ctx, timeout, func(c *conn, s *stopper) error {
		s.timer.Stop()
		if err := e.vetOn(ctx, c, s, sqlText); err != nil {
			return err
		}
		return e.stream(c, s, sqlText, query.Options{}, discard{}, &query.Summary{})
	})
}

type discard struct{}

func (discard) Begin([]query.Column) error { return nil }
func (discard) Row(query.Cursor) error     { return nil }
