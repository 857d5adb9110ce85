package export

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tick"
)

// FormatFor picks the format for a file from its extension: .json, .jsonl
// or .ndjson, .md or .markdown; anything else is CSV.
func FormatFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return "json"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".md", ".markdown":
		return "markdown"
	}
	return "csv"
}

// Progress counts what an export has written so far. Its counters may be
// read from another goroutine while the export runs.
type Progress struct {
	Rows  atomic.Int64
	Bytes atomic.Int64
}

// Watch calls report with the counts every interval, from another
// goroutine, until stop is called; stop returns once report has returned
// for the last time.
func (p *Progress) Watch(every time.Duration, report func(rows, bytes int64)) (stop func()) {
	return tick.Every(every, func() bool {
		report(p.Rows.Load(), p.Bytes.Load())
		return true
	})
}

// RunOptions tune Run and ToFile.
type RunOptions struct {
	// Format is one of Formats; "" means FormatFor the path (CSV for Run).
	Format string
	Options
	// Query bounds the statement (deadline, caps); zero means no bound.
	Query query.Options
	// Progress, when set, is updated as rows are written.
	Progress *Progress
}

// Run runs sql on d and streams its whole result to w in opt.Format.
func Run(ctx context.Context, d *db.DB, sql string, w io.Writer, opt RunOptions) (*query.Summary, error) {
	format := opt.Format
	if format == "" {
		format = "csv"
	}
	p := opt.Progress
	if p == nil {
		p = new(Progress)
	}
	ew, err := New(format, &countingWriter{w: w, n: &p.Bytes}, opt.Options)
	if err != nil {
		return nil, err
	}
	sum, err := query.Run(ctx, d, sql, opt.Query, &countingSink{Writer: ew, n: &p.Rows})
	if ferr := ew.Finish(sum); err == nil {
		err = ferr
	}
	return sum, err
}

// ToFile runs sql on d and writes its whole result to path in opt.Format
// (FormatFor(path) when ""), atomically: the file appears, complete, only
// when every row is written, and a failed or cancelled export leaves
// nothing behind. A path that is the database itself is refused
// (db.CheckOutput); the directory must exist.
func ToFile(ctx context.Context, d *db.DB, sql, path string, opt RunOptions) (*query.Summary, error) {
	if err := d.CheckOutput(path); err != nil {
		return nil, err
	}
	if opt.Format == "" {
		opt.Format = FormatFor(path)
	}
	if _, err := New(opt.Format, io.Discard, opt.Options); err != nil {
		return nil, err
	}
	// The deadline also bounds waiting for a pipe's reader, and every
	// write to a pipe.
	wctx := ctx
	if opt.Query.Timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, opt.Query.Timeout)
		defer cancel()
	}
	f, err := atomicfile.CreateContext(wctx, path, 0o644)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer f.Abort()
	sum, err := Run(ctx, d, sql, f, opt)
	if err != nil {
		return sum, err
	}
	if err := f.Commit(); err != nil {
		return sum, fmt.Errorf("export: %w", err)
	}
	return sum, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// countingSink counts the rows written through it.
type countingSink struct {
	Writer
	n *atomic.Int64
}

func (c *countingSink) Row(cur query.Cursor) error {
	if err := c.Writer.Row(cur); err != nil {
		return err
	}
	c.n.Add(1)
	return nil
}
