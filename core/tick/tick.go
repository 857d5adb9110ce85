// Package tick calls a function at a steady pace in the background: the
// progress lines of loads and exports, the explorer's flushes of rows;
// and waits a while unless a context ends first (Sleep).
package tick

import (
	"context"
	"time"
)

// Every calls f every d on a goroutine of its own until f returns false
// or stop is called. stop waits for that goroutine to end, so f is not
// running, and will not run again, once stop returns; call it once.
func Every(d time.Duration, f func() bool) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !f() {
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// Sleep waits d, or until ctx is done, when it returns ctx's error; a d
// of zero or less returns ctx's error at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
