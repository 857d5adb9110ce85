package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tick"
)

// jobKind is what a job does.
type jobKind int

const (
	jobQuery jobKind = iota
	jobAsk
	jobExport
)

func (k jobKind) String() string {
	return [...]string{"query", "question", "export"}[k]
}

// job is the background work in progress: one at a time.
type job struct {
	id         int
	kind       jobKind
	cancel     context.CancelFunc
	start      time.Time
	ch         <-chan tea.Msg
	cancelling bool
	rows       int64  // export progress
	path       string // export target
	fromAnswer bool   // a question's SQL re-run for its whole result
	preview    bool   // a table preview: no chart
}

// next waits for the job's next message.
func (j *job) next() tea.Cmd {
	ch := j.ch
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// Messages from background work. Each carries the id of its job
// (jobMsg); messages of a job that is no longer current are dropped.
type (
	queryBeginMsg struct {
		jobMsg
		cols []query.Column
	}
	queryRowsMsg struct {
		jobMsg
		rows []query.Row
	}
	queryDoneMsg struct {
		jobMsg
		sum *query.Summary
		err error
	}
	askTextMsg struct {
		jobMsg
		delta string
	}
	askDoneMsg struct {
		jobMsg
		b   *answer.Bundle
		err error
	}
	exportProgressMsg struct {
		jobMsg
		rows int64
	}
	exportDoneMsg struct {
		jobMsg
		path string
		rows int64
		err  error
	}
)

// jobMsg names the job a background message belongs to.
type jobMsg struct{ id int }

func (m jobMsg) jobID() int { return m.id }

// Batch sizes: the first batch is small so the first page shows at once.
const (
	firstBatch = 200
	batchSize  = 4096
	flushEvery = 80 * time.Millisecond
)

// streamSink sends rows to the UI in batches. A ticker flushes a partial
// batch so a slow query's rows still show while it runs. Sends block when
// the UI is behind (so memory stays bounded) until the job is cancelled.
type streamSink struct {
	ctx   context.Context
	ch    chan<- tea.Msg
	id    int
	mu    sync.Mutex
	batch []query.Row
	sent  bool
	limit int // rows to keep; the rest are not copied
	kept  int
}

func (s *streamSink) send(m tea.Msg) error {
	select {
	case s.ch <- m:
		return nil
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

func (s *streamSink) Begin(cols []query.Column) error {
	return s.send(queryBeginMsg{jobMsg: jobMsg{s.id}, cols: cols})
}

func (s *streamSink) Row(c query.Cursor) error {
	if s.kept >= s.limit {
		return nil // never reached: query.Run stops at MaxRows
	}
	s.kept++
	r := c.Row()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batch = append(s.batch, r)
	n := batchSize
	if !s.sent {
		n = firstBatch
	}
	if len(s.batch) >= n {
		return s.flushLocked()
	}
	return nil
}

func (s *streamSink) flushLocked() error {
	if len(s.batch) == 0 {
		return nil
	}
	b := s.batch
	s.batch = make([]query.Row, 0, len(b))
	s.sent = true
	return s.send(queryRowsMsg{jobMsg: jobMsg{s.id}, rows: b})
}

func (s *streamSink) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

// newJob makes a new job of kind the current one and returns it, with the
// context its cancel ends and the channel (buffering buf messages) its
// work reports on.
func (a *App) newJob(kind jobKind, buf int) (*job, context.Context, chan tea.Msg) {
	a.seq++
	ctx, cancel := context.WithCancel(a.ctx)
	ch := make(chan tea.Msg, buf)
	a.job = &job{id: a.seq, kind: kind, cancel: cancel, start: a.now(), ch: ch}
	return a.job, ctx, ch
}

// startQuery runs sql in the background, streaming its rows into the grid.
func (a *App) startQuery(sql string, fromAnswer bool) tea.Cmd {
	a.cancelJob()
	j, ctx, ch := a.newJob(jobQuery, 4)
	j.fromAnswer = fromAnswer
	a.log.Info("query start", "id", j.id, "sql", format.ClipBytes(sql, 500), "from_answer", fromAnswer)
	d, opt := a.d, query.Options{MaxRows: a.opts.MaxRows, MaxBytes: a.opts.MaxBytes, Timeout: a.opts.Timeout}
	sink := &streamSink{ctx: ctx, ch: ch, id: j.id, limit: a.opts.MaxRows}
	go func() {
		defer close(ch)
		stop := tick.Every(flushEvery, func() bool { return sink.flush() == nil })
		sum, err := query.Run(ctx, d, sql, opt, sink)
		stop()
		if ferr := sink.flush(); err == nil && ferr != nil {
			err = ferr
		}
		finish(ch, queryDoneMsg{jobMsg: jobMsg{j.id}, sum: sum, err: err})
	}()
	return tea.Batch(j.next(), a.spin.Tick)
}

// startAsk asks the asker in the background.
func (a *App) startAsk(question string) tea.Cmd {
	a.cancelJob()
	j, ctx, ch := a.newJob(jobAsk, 16)
	a.log.Info("question start", "id", j.id, "question", format.ClipBytes(question, 500))
	asker, conv := a.opts.Asker, ask.Conversation{DB: a.d, Key: conversationKey}
	go func() {
		defer close(ch)
		onText := func(delta string) {
			if delta == "" {
				return
			}
			select {
			case ch <- askTextMsg{jobMsg: jobMsg{j.id}, delta: delta}:
			case <-ctx.Done():
			}
		}
		b, err := safeAsk(ctx, asker, question, conv, onText)
		finish(ch, askDoneMsg{jobMsg: jobMsg{j.id}, b: b, err: err})
	}()
	return tea.Batch(j.next(), a.spin.Tick)
}

// safeAsk turns an asker's panic into an error: a bug in a provider must
// not take the terminal down with it.
func safeAsk(ctx context.Context, asker Asker, q string, conv ask.Conversation, onText func(string)) (b *answer.Bundle, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("the asker failed: %v", p)
		}
	}()
	return asker.Ask(ctx, q, conv, onText)
}

// startExport re-runs sql and streams every row to path.
func (a *App) startExport(sql, path string) tea.Cmd {
	if err := a.d.CheckOutput(path); err != nil {
		return a.fail(err)
	}
	j, ctx, ch := a.newJob(jobExport, 4)
	j.path = path
	format := export.FormatFor(path)
	a.log.Info("export start", "id", j.id, "path", path, "format", format)
	d := a.d
	go func() {
		defer close(ch)
		rows, err := exportTo(ctx, d, sql, path, format, func(n int64) {
			select {
			case ch <- exportProgressMsg{jobMsg: jobMsg{j.id}, rows: n}:
			default: // the UI is busy; the next tick will tell
			}
		})
		finish(ch, exportDoneMsg{jobMsg: jobMsg{j.id}, path: path, rows: rows, err: err})
	}()
	return tea.Batch(j.next(), a.spin.Tick)
}

// exportTo writes the whole result of sql to path (export.ToFile: atomic,
// so a cancelled export leaves nothing behind), reporting the rows written
// every 100 ms. A missing directory is created.
func exportTo(ctx context.Context, d *db.DB, sql, path, format string, progress func(int64)) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	var p export.Progress
	stop := p.Watch(100*time.Millisecond, func(rows, _ int64) { progress(rows) })
	_, err := export.ToFile(ctx, d, sql, path, export.RunOptions{Format: format, Progress: &p})
	stop()
	return p.Rows.Load(), err
}

// finish sends a job's last message. The UI reads it unless the job was
// abandoned (replaced or the app quit); then the goroutine gives up.
func finish(ch chan<- tea.Msg, m tea.Msg) {
	select {
	case ch <- m:
	case <-time.After(5 * time.Second):
	}
}

// cancelJob stops the running job, if any, and forgets it.
func (a *App) cancelJob() {
	if a.job != nil {
		a.job.cancel()
		a.job = nil
	}
}

// isCancel reports whether err is a cancellation.
func isCancel(err error) bool { return errors.Is(err, context.Canceled) }
