//go:build linux

package testdb

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// lateTimer is a context whose deadline has a time but whose timer has not
// yet fired: Err stays nil and Done never closes, as for a context on a busy
// machine in the moment after its deadline passed.
type lateTimer struct {
	context.Context
	deadline time.Time
}

func (c lateTimer) Deadline() (time.Time, bool) { return c.deadline, true }

// fullQueue listens on a loopback port with a connection queue that is
// full: a dial to it waits (the server drops its SYN) until its deadline.
func fullQueue(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	// Fill the queue: the first dial that does not complete at once shows
	// it full.
	for range 8 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("the kernel kept accepting connections on a listener with backlog 0: no full queue to dial")
	return ""
}

// DialCutByDeadline runs open, an engine's Open of a URL that names addr,
// with a dial cut by the caller's deadline before the context's own timer
// fired, and fails the test unless the error wraps
// context.DeadlineExceeded: net reports such a dial as "i/o timeout",
// which is not context.DeadlineExceeded, and ctx.Err() is still nil, yet
// it is the caller's deadline, not "the server is not running". It
// returns the error.
func DialCutByDeadline(t *testing.T, open func(ctx context.Context, addr string) error) error {
	t.Helper()
	addr := fullQueue(t)
	ctx := lateTimer{Context: context.Background(), deadline: time.Now().Add(150 * time.Millisecond)}
	start := time.Now()
	err := open(ctx, addr)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open dialling a full queue with a deadline 150ms away: %v after %v, want it to wrap context.DeadlineExceeded", err, time.Since(start).Round(time.Millisecond))
	}
	return err
}
