package pool

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type fake struct {
	id     int
	closed bool
	stale  bool
}

// TestPool: at most max connections open, an idle one is reused, a broken
// or stale one is closed and its slot freed, Close closes the idle ones
// and those released afterwards, and Acquire then fails.
func TestPool(t *testing.T) {
	opened := 0
	p := New(2, func(context.Context) (*fake, error) {
		opened++
		return &fake{id: opened}, nil
	}, func(c *fake) { c.closed = true }, func(c *fake) bool { return c.stale })
	ctx := context.Background()
	a, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third connection past max 2: %v", err)
	}
	p.Release(a, false)
	if c, err := p.Acquire(ctx); err != nil || c != a || a.closed {
		t.Fatalf("the idle connection is not reused: %+v %v", c, err)
	}
	p.Release(a, true)
	if !a.closed {
		t.Error("a broken connection stays open")
	}
	b.stale = true
	p.Release(b, false)
	c, err := p.Acquire(ctx)
	if err != nil || c == b || !b.closed || c.id != 3 {
		t.Fatalf("a stale idle connection served: %+v %v (b closed %v)", c, err, b.closed)
	}
	d, err := p.Acquire(ctx) // the slots of a and b were freed
	if err != nil || d.id != 4 {
		t.Fatalf("freed slot: %+v %v", d, err)
	}
	p.Release(c, false)
	if !p.Close() || p.Close() {
		t.Error("Close reports true once, then false")
	}
	if !c.closed {
		t.Error("Close left an idle connection open")
	}
	p.Release(d, false)
	if !d.closed {
		t.Error("a connection released after Close stays open")
	}
	if _, err := p.Acquire(ctx); err == nil {
		t.Error("Acquire after Close succeeded")
	}
}

// counting is a pool of at most max fakes, numbered from 1 as opened
// counts them.
func counting(max int, opened *int) *Pool[*fake] {
	return New(max, func(context.Context) (*fake, error) {
		*opened++
		return &fake{id: *opened}, nil
	}, func(c *fake) { c.closed = true }, nil)
}

// An idle connection is taken before a free slot is used to open another:
// opening a server connection costs round trips.
func TestIdleBeforeOpen(t *testing.T) {
	opened := 0
	p := counting(4, &opened)
	ctx := context.Background()
	for i := range 200 {
		c, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p.Release(c, false)
		if opened != 1 {
			t.Fatalf("acquire %d: %d connections opened for one caller at a time", i, opened)
		}
	}
}

// A caller waiting for a slot when the pool closes gets an error, not a
// connection opened after Close (which nothing would ever close).
func TestWaiterAfterClose(t *testing.T) {
	var mu sync.Mutex
	opened := 0
	p := New(1, func(context.Context) (*fake, error) {
		mu.Lock()
		defer mu.Unlock()
		opened++
		return &fake{id: opened}, nil
	}, func(c *fake) { c.closed = true }, nil)
	ctx := context.Background()
	a, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := p.Acquire(ctx)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // the waiter blocks on the one slot
	p.Close()
	p.Release(a, false) // closed and its slot freed: the waiter wakes
	select {
	case err := <-got:
		mu.Lock()
		n := opened
		mu.Unlock()
		if err == nil || n != 1 {
			t.Fatalf("after Close: err %v, %d connections opened", err, n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken by Close and Release")
	}
}

// TestLastReleasedFirst: of the idle connections, the one released last
// serves next. One caller at a time then uses one connection, whose
// server session is warm and keeps what it learnt (a PostgreSQL
// connection keeps the statements the guard passed on it); before, idle
// connections took turns, each vetting every statement anew.
func TestLastReleasedFirst(t *testing.T) {
	opened := 0
	p := counting(4, &opened)
	ctx := context.Background()
	var held []*fake
	for range 3 {
		c, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	for _, c := range held {
		p.Release(c, false)
	}
	for i := range 10 {
		c, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.id != 3 {
			t.Fatalf("acquire %d after three released: connection %d, want 3 (the last released)", i, c.id)
		}
		p.Release(c, false)
	}
	a, _ := p.Acquire(ctx)
	b, _ := p.Acquire(ctx)
	if a.id != 3 || b.id != 2 {
		t.Errorf("two at once: %d and %d, want 3 then 2", a.id, b.id)
	}
}
