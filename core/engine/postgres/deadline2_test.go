package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestUnstoppableIsNotCalledStopped: the server checks for a cancel
// between rows, not inside one function's computation of a value, and
// strpos of a needle that matches far into it at every place of a long
// text is quadratic (about 8 s here, uncancelled; larger inputs run for
// hours). Under a 2 s deadline the client's cancel request cannot land,
// the client gives up on the connection, and the engine said "stopped at
// the 2s deadline" at 4.15 s while the server went on computing. A
// statement the engine calls stopped at the deadline (exit 5), or
// cancelled, must be gone from the server; one that is not must be
// reported as still running, naming its backend.
func TestUnstoppableIsNotCalledStopped(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	for _, c := range []struct {
		name string
		run  func(q string) error
		// stopped is the error of a statement that stopped.
		stopped func(err error) bool
	}{
		{"deadline", func(q string) error {
			_, err := query.Collect(context.Background(), e, q, query.Options{Timeout: 2 * time.Second})
			return err
		}, func(err error) bool { return errors.Is(err, query.ErrDeadline) }},
		{"cancel", func(q string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := query.Collect(ctx, e, q, query.Options{})
			return err
		}, func(err error) bool { return strings.Contains(err.Error(), "query cancelled") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := "unstoppable_marker_" + c.name
			// generate_series keeps the planner from computing the value
			// while the statement is vetted: it is computed while the
			// statement runs.
			q := "SELECT strpos(repeat('a', 1300000 + g), 'b' || repeat('a', 10000)) AS " + marker + " FROM generate_series(0, 0) g"
			// However it ends, nothing is left on the shared server.
			defer func() {
				for end := time.Now().Add(time.Minute); running(t, a, marker) > 0 && time.Now().Before(end); {
					time.Sleep(200 * time.Millisecond)
				}
			}()
			// The backend that runs it, seen from another session.
			watcher := admin(t, url)
			pids := make(chan int, 1)
			stop := make(chan struct{})
			go func() {
				defer close(pids)
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					var pid int
					err := watcher.QueryRow(context.Background(), `SELECT pid FROM pg_stat_activity
						WHERE pid <> pg_backend_pid() AND state = 'active' AND strpos(query, $1) > 0`, marker).Scan(&pid)
					if err == nil {
						pids <- pid
						return
					}
				}
			}()
			start := time.Now()
			err := c.run(q)
			took := time.Since(start)
			left := running(t, a, marker)
			close(stop)
			pid := <-pids
			t.Logf("%v after %v; %d left on the server (backend pid %d)", err, took, left, pid)
			var sqlErr *guard.SQLError
			switch {
			case err == nil:
				t.Errorf("the statement ran to its end in %v, stopped at 2 s", took)
			case c.stopped(err) && left != 0:
				t.Errorf("reported stopped (%v) while the server still runs it (%d sessions)", err, left)
			case c.stopped(err):
			case !errors.As(err, &sqlErr) || !strings.Contains(err.Error(), "still runs it"):
				t.Errorf("%v: neither stopped nor a statement that still runs", err)
			case pid == 0 || !strings.Contains(err.Error(), fmt.Sprintf("(backend pid %d)", pid)):
				t.Errorf("%v: does not name the backend that runs the statement (%d)", err, pid)
			}
			if took > 7*time.Second {
				t.Errorf("the call took %v, stopped at 2 s", took)
			}
			// The engine goes on serving.
			if res, err := query.Collect(context.Background(), e, `SELECT count(*) FROM "Genre"`, query.Options{Timeout: 5 * time.Second}); err != nil || res.Rows[0][0] != int64(25) {
				t.Errorf("the next statement: %v %v", res, err)
			}
		})
	}
}
