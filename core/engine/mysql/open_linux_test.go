//go:build linux

package mysql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/testdb"
)

// A dial cut by the caller's deadline while the context's own timer has
// not yet fired comes back from net as "i/o timeout" that is not
// context.DeadlineExceeded, and ctx.Err() is still nil: it must still be
// reported as the caller's deadline (TestConcurrent saw "the server does
// not answer (dial tcp …: i/o timeout)" for a statement cancelled at
// 100 ms, about 1 run in 16 on a loaded machine).
func TestDialCutByDeadlineBeforeItsTimer(t *testing.T) {
	addr := testdb.FullQueue(t)
	ctx := testdb.LateTimer(time.Now().Add(150 * time.Millisecond))
	start := time.Now()
	_, err := twmysql.Open(ctx, "mysql://root@"+addr+"/x", engine.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open dialling a full queue with a deadline 150ms away: %v after %v, want it to wrap context.DeadlineExceeded", err, time.Since(start).Round(time.Millisecond))
	}
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Open: %v, want engine.ErrUnavailable too", err)
	}
}
