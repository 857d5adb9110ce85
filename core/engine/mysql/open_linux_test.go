//go:build linux

package mysql_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/testdb"
)

// A dial cut by the caller's deadline while the context's own timer has
// not yet fired is reported as the caller's deadline (TestConcurrent saw
// "the server does not answer (dial tcp …: i/o timeout)" for a statement
// cancelled at 100 ms, about 1 run in 16 on a loaded machine).
func TestDialCutByDeadlineBeforeItsTimer(t *testing.T) {
	err := testdb.DialCutByDeadline(t, func(ctx context.Context, addr string) error {
		_, err := twmysql.Open(ctx, "mysql://root@"+addr+"/x", engine.Options{})
		return err
	})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Open: %v, want engine.ErrUnavailable too", err)
	}
}
