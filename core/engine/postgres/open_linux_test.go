//go:build linux

package postgres_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb"
)

// A dial cut by the caller's deadline before the context's own timer
// fired is the caller's deadline, not "the server is not running".
func TestDialCutByDeadlineBeforeItsTimer(t *testing.T) {
	testdb.DialCutByDeadline(t, func(ctx context.Context, addr string) error {
		_, err := postgres.Open(ctx, "postgres://postgres@"+addr+"/x", engine.Options{})
		return err
	})
}
