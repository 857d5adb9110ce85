package discord

import (
	"context"
	"sync"
)

// maxQueued bounds the questions waiting in one conversation (the one
// being answered included).
const maxQueued = 8

// workers run jobs one at a time per conversation, in the order they
// were submitted, and at most n at once across conversations.
type workers struct {
	run func(ctx context.Context, j *job)
	sem chan struct{}

	ctx    context.Context // ends when in-flight work is cut
	cancel context.CancelFunc

	mu     sync.Mutex
	queues map[string][]*job // a conversation is here while its loop runs
	closed bool
	wg     sync.WaitGroup
}

func newWorkers(n int, run func(ctx context.Context, j *job)) *workers {
	ctx, cancel := context.WithCancel(context.Background())
	return &workers{run: run, sem: make(chan struct{}, n), ctx: ctx, cancel: cancel, queues: map[string][]*job{}}
}

// submitResult says what became of a submitted job.
type submitResult int

const (
	submitted submitResult = iota
	queueFull
	shuttingDown
)

// submit queues j behind the other jobs of its conversation.
func (w *workers) submit(j *job) submitResult {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return shuttingDown
	}
	q, running := w.queues[j.conv]
	if len(q) >= maxQueued {
		return queueFull
	}
	w.queues[j.conv] = append(q, j)
	if !running {
		w.wg.Add(1)
		go w.loop(j.conv)
	}
	return submitted
}

// loop runs a conversation's jobs until its queue is empty.
func (w *workers) loop(conv string) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		q := w.queues[conv]
		if len(q) == 0 {
			delete(w.queues, conv)
			w.mu.Unlock()
			return
		}
		j := q[0]
		w.mu.Unlock()

		select {
		case w.sem <- struct{}{}:
			w.run(w.ctx, j)
			<-w.sem
		case <-w.ctx.Done():
			w.run(w.ctx, j) // it sees the cut and says so
		}

		w.mu.Lock()
		w.queues[conv] = w.queues[conv][1:]
		w.mu.Unlock()
	}
}

// close refuses further jobs.
func (w *workers) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
}

// wait returns when every job has run.
func (w *workers) wait() { w.wg.Wait() }
