// Package pool bounds the connections of a server engine: at most a fixed
// number open at once, idle ones kept for the next statement, each handed
// to one caller at a time. The idle connection released last serves
// first: one caller at a time keeps to one connection, whose server
// session stays warm and keeps what the engine learnt on it.
package pool

import (
	"context"
	"errors"
	"sync"
)

// Pool holds a server engine's connections of type C (a pointer).
type Pool[C comparable] struct {
	open  func(context.Context) (C, error)
	close func(C)
	stale func(C) bool

	sem chan struct{} // one token per connection in use or idle
	// idle holds a token per connection in stack, the idle ones, the
	// last released on top.
	idle  chan struct{}
	mu    sync.Mutex
	stack []C
	done  bool
}

// New is a pool of at most max connections: open makes one, close closes
// one for good, and stale (nil: none is) says whether an idle one may no
// longer serve; Acquire closes such a one and frees its slot. Acquire
// calls stale in its caller's goroutine, which it may keep while stale
// reads from the connection.
func New[C comparable](max int, open func(context.Context) (C, error), close func(C), stale func(C) bool) *Pool[C] {
	return &Pool[C]{open: open, close: close, stale: stale,
		sem: make(chan struct{}, max), idle: make(chan struct{}, max)}
}

// Acquire takes an idle connection or opens one, waiting for a free slot
// until ctx ends. It fails once the pool is closed, also for a caller that
// was waiting when Close came.
func (p *Pool[C]) Acquire(ctx context.Context) (C, error) {
	var zero C
	for {
		if p.closed() {
			return zero, errClosed
		}
		// An idle connection first: a select with a free slot ready too
		// would pick at random and open a connection needlessly.
		var c C
		select {
		case <-p.idle:
			c = p.pop()
		default:
			select {
			case <-p.idle:
				c = p.pop()
			case p.sem <- struct{}{}:
				if p.closed() {
					<-p.sem
					return zero, errClosed
				}
				c, err := p.open(ctx)
				if err != nil {
					<-p.sem
					return zero, err
				}
				return c, nil
			case <-ctx.Done():
				return zero, ctx.Err()
			}
		}
		if p.stale != nil && p.stale(c) {
			p.discard(c)
			continue
		}
		return c, nil
	}
}

var errClosed = errors.New("database is closed")

func (p *Pool[C]) closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Release returns c to the pool, or closes it when broken is set or the
// pool is closed.
func (p *Pool[C]) Release(c C, broken bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if broken || p.done {
		p.discard(c)
		return
	}
	p.stack = append(p.stack, c)
	p.idle <- struct{}{}
}

// pop takes the idle connection released last; the caller holds its
// token from idle.
func (p *Pool[C]) pop() C {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.stack[len(p.stack)-1]
	var zero C
	p.stack[len(p.stack)-1] = zero
	p.stack = p.stack[:len(p.stack)-1]
	return c
}

// discard closes c and frees its slot.
func (p *Pool[C]) discard(c C) {
	p.close(c)
	<-p.sem
}

// Close closes idle connections now and busy ones when they are
// released. It reports false when the pool was closed already.
func (p *Pool[C]) Close() bool {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return false
	}
	p.done = true
	p.mu.Unlock()
	for {
		select {
		case <-p.idle:
			p.discard(p.pop())
		default:
			return true
		}
	}
}
