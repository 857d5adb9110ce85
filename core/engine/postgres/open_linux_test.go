//go:build linux

package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb"
)

// A dial cut by the caller's deadline before the context's own timer
// fired is the caller's deadline, not "the server is not running" (net
// reports it as "i/o timeout", and ctx.Err() is still nil).
func TestDialCutByDeadlineBeforeItsTimer(t *testing.T) {
	addr := testdb.FullQueue(t)
	ctx := testdb.LateTimer(time.Now().Add(150 * time.Millisecond))
	start := time.Now()
	_, err := postgres.Open(ctx, "postgres://postgres@"+addr+"/x", engine.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open dialling a full queue with a deadline 150ms away: %v after %v, want it to wrap context.DeadlineExceeded", err, time.Since(start).Round(time.Millisecond))
	}
}
