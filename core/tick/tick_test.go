package tick

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// f is called again and again until stop, and never after stop returns.
func TestEveryUntilStop(t *testing.T) {
	var calls, running atomic.Int32
	stop := Every(time.Millisecond, func() bool {
		running.Store(1)
		time.Sleep(2 * time.Millisecond)
		calls.Add(1)
		running.Store(0)
		return true
	})
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	if running.Load() != 0 {
		t.Fatal("f still running after stop returned")
	}
	n := calls.Load()
	if n < 3 {
		t.Fatalf("%d calls in 5 s at a 1 ms pace", n)
	}
	time.Sleep(20 * time.Millisecond)
	if calls.Load() != n {
		t.Fatalf("f called after stop: %d then %d", n, calls.Load())
	}
}

// f returning false ends the calls; stop after that still returns.
func TestEveryEndsWhenFSaysSo(t *testing.T) {
	var calls atomic.Int32
	stop := Every(time.Millisecond, func() bool { return calls.Add(1) < 2 })
	time.Sleep(50 * time.Millisecond)
	stop()
	if n := calls.Load(); n != 2 {
		t.Fatalf("f called %d times, want 2 (it said stop on the second)", n)
	}
}

// Sleep waits its duration, and ends early with the context's error when
// the context ends first.
func TestSleep(t *testing.T) {
	start := time.Now()
	if err := Sleep(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("Sleep(20ms) = %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start = time.Now()
	if err := Sleep(ctx, time.Minute); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("Sleep(1m) under a 10ms context = %v after %v", err, time.Since(start))
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep(0) on an ended context = %v", err)
	}
}
