package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/query"
)

type exportOptions struct {
	dbPath  string
	sql     string
	out     string
	format  string
	raw     bool
	timeout time.Duration
}

func runExport(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("export")
	var o exportOptions
	fs.StringVar(&o.dbPath, "db", "", "SQLite database file or file: URI (default: the built-in sample)")
	fs.StringVar(&o.sql, "sql", "", "the statement to export (\"-\" reads stdin)")
	fs.StringVar(&o.out, "out", "", "output file, or - for stdout")
	fs.StringVar(&o.format, "format", "", "csv, json or jsonl (default: from the --out extension, else csv)")
	fs.BoolVar(&o.raw, "raw", false, "CSV: do not guard cells that start like a spreadsheet formula")
	fs.DurationVar(&o.timeout, "timeout", 0, "stop after this long (default: no limit)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if o.sql, err = sqlText(o.sql, pos, s); err != nil {
		return err
	}
	if o.sql == "" || o.out == "" {
		return usagef("export: give --sql and --out\n\n%s", flagHelp(fs))
	}
	if o.format == "" {
		o.format = "csv"
		switch strings.ToLower(filepath.Ext(o.out)) {
		case ".json":
			o.format = "json"
		case ".jsonl", ".ndjson":
			o.format = "jsonl"
		case ".md":
			o.format = "markdown"
		}
	}
	return exportCmd(ctx, o, s)
}

// countingWriter counts bytes for the progress line.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// progressSink counts rows for the progress line.
type progressSink struct {
	export.Writer
	rows atomic.Int64
}

func (p *progressSink) Row(c *query.Cursor) error {
	p.rows.Add(1)
	return p.Writer.Row(c)
}

func exportCmd(ctx context.Context, o exportOptions, s *streams) error {
	d, err := openDB(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.CheckOutput(o.out); err != nil {
		return usagef("%v", err)
	}

	// Write to a temporary file beside the target and rename at the end, so
	// a failed export never leaves a half-written file behind.
	var (
		dst     io.Writer = s.out
		tmp     *os.File
		tmpName string
	)
	if o.out != "-" {
		tmp, err = os.CreateTemp(filepath.Dir(o.out), "."+filepath.Base(o.out)+".*.tmp")
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		tmpName = tmp.Name()
		defer os.Remove(tmpName) // no-op after the rename
		dst = tmp
	}
	cw := &countingWriter{w: dst}
	w, err := export.New(o.format, cw, export.Options{Raw: o.raw})
	if err != nil {
		if tmp != nil {
			tmp.Close()
		}
		return usagef("export: %v", err)
	}
	ps := &progressSink{Writer: w}
	stopProgress := func() {}
	if s.errTTY {
		stopProgress = showProgress(s.err, ps, cw)
	}
	start := time.Now()
	sum, err := query.Run(ctx, d, o.sql, query.Options{Timeout: o.timeout}, ps)
	ferr := w.Finish(sum)
	stopProgress()
	if err == nil {
		err = ferr
	}
	if tmp != nil {
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if tmp != nil {
		if err := os.Rename(tmpName, o.out); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	if s.errTTY || o.out != "-" {
		fmt.Fprintf(s.err, "exported %s (%s) to %s in %s\n", plural(sum.RowCount, "row"), byteSize(cw.n.Load()), o.out, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// showProgress rewrites one stderr line four times a second until stopped.
func showProgress(w io.Writer, ps *progressSink, cw *countingWriter) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			case <-t.C:
				fmt.Fprintf(w, "\r\x1b[Kexporting… %s rows, %s", thousands(ps.rows.Load()), byteSize(cw.n.Load()))
				shown = true
			}
		}
	}()
	return func() { close(done); <-finished }
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
