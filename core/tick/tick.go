// Package tick calls a function at a steady pace in the background: the
// progress lines of loads and exports, the explorer's flushes of rows.
package tick

import "time"

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
