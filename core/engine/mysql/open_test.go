package mysql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// A server that accepts the connection and never greets: the caller's
// deadline must come back as the caller's deadline, not as a network
// error, so that callers who cancelled can tell (CI saw a statement
// cancelled while its connection was dialled reported as "the server
// does not answer").
func TestOpenReportsTheCallersDeadline(t *testing.T) {
	silent := testdb.SilentServer(t)
	// A deadline that passes in the handshake, and one already past when
	// the connection is dialled (net reports that as "i/o timeout").
	for _, d := range []time.Duration{200 * time.Millisecond, -time.Second} {
		for i := 0; i < 10; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			_, err := twmysql.Open(ctx, "mysql://root@"+silent+"/x", engine.Options{})
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Open with a deadline %v away: %v, want it to wrap context.DeadlineExceeded", d, err)
			}
			if !errors.Is(err, engine.ErrUnavailable) {
				t.Fatalf("Open with a deadline %v away: %v, want engine.ErrUnavailable too (the server did not answer)", d, err)
			}
			if d > 0 {
				break
			}
		}
	}
}

// A statement whose context has already ended does not run.
func TestContextEndedBeforeTheStatement(t *testing.T) {
	f := chinook(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 50 {
		if _, err := query.Collect(ctx, f.eng, "SELECT count(*) FROM Genre", query.Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: got %v, want context.Canceled", i, err)
		}
	}
}
