package servers

import (
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/query"
)

// StopsAtDeadline calls run with a 2 s deadline for a statement that would
// run far longer (what names it) and fails the test unless run returns
// query.ErrDeadline within 3 s and running, which counts the sessions
// still running the statement on the server, then finds none.
func StopsAtDeadline(t testing.TB, what string, run func(timeout time.Duration) error, running func() int) {
	t.Helper()
	start := time.Now()
	err := run(2 * time.Second)
	took := time.Since(start)
	if !errors.Is(err, query.ErrDeadline) || took > 3*time.Second {
		t.Errorf("%s under a 2 s deadline: %v after %v, want the deadline error within 3 s", what, err, took)
	}
	if n := running(); n != 0 {
		t.Errorf("%s: still running on the server after the deadline (%d)", what, n)
	}
}
