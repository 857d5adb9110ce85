package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/guard"
)

// TestOverdueNamesTheGivenDeadline: a statement the server still runs
// after the client gave up is reported with the --timeout the user gave,
// not with what was left of it after the database opened (the engine's
// own deadline), and still as the server's error with its hint.
func TestOverdueNamesTheGivenDeadline(t *testing.T) {
	still := engine.StillRuns(1773786077*time.Nanosecond, false, "backend pid 7", "compute on shorter values")
	err := overdue(context.Background(), still, 2*time.Second)
	msg := err.Error()
	if !strings.Contains(msg, "did not stop at the 2s deadline") || strings.Contains(msg, "1.77") {
		t.Errorf("overdue: %q, want the 2s deadline the user gave", msg)
	}
	if !strings.Contains(msg, "backend pid 7") || !strings.Contains(msg, "compute on shorter values") {
		t.Errorf("overdue lost the session or the hint: %q", msg)
	}
	var se *guard.SQLError
	if !errors.As(err, &se) {
		t.Errorf("overdue: %T is not a *guard.SQLError", err)
	}
	kind, _, hint := fault.Explain(err)
	if want, _, _ := fault.Explain(still); kind != want || hint != "compute on shorter values" {
		t.Errorf("overdue: kind %v hint %q, want kind %v and the engine's hint", kind, hint, want)
	}
	// A cancellation is reported as one, whatever the deadline.
	cancelled := engine.StillRuns(time.Second, true, "backend pid 7", "")
	if got := overdue(context.Background(), cancelled, 2*time.Second).Error(); !strings.Contains(got, "did not stop at cancellation") {
		t.Errorf("overdue of a cancellation: %q", got)
	}
}
