package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/format"
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
	dbFlag(fs, &o.dbPath)
	fs.StringVar(&o.sql, "sql", "", "the statement to export (\"-\" reads stdin)")
	fs.StringVar(&o.out, "out", "", "output file, or - for stdout")
	fs.StringVar(&o.format, "format", "", "csv, json, jsonl or markdown (default: from the --out extension — .json, .jsonl, .md — else csv)")
	fs.BoolVar(&o.raw, "raw", false, "CSV: do not guard cells that start like a spreadsheet formula")
	fs.DurationVar(&o.timeout, "timeout", 0, "stop after this long, opening the database included (default: no limit)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := sqlAndOut(fs, &o.sql, pos, o.out, s); err != nil {
		return err
	}
	if err := checkOut("export", o.out); err != nil {
		return err
	}
	return exportCmd(ctx, o, s)
}

func exportCmd(ctx context.Context, o exportOptions, s *streams) error {
	d, q, err := s.openWithin(ctx, o.dbPath, o.timeout)
	if err != nil {
		return err
	}
	defer d.Close()
	var p export.Progress
	opt := export.RunOptions{Format: o.format, Options: export.Options{Raw: o.raw}, Query: q, Progress: &p}
	stopProgress := func() {}
	if s.errTTY {
		stopProgress = showProgress(s.err, &p)
	}
	start := time.Now()
	var sum *query.Summary
	if o.out == "-" {
		sum, err = export.Run(ctx, d, o.sql, s.out, opt)
	} else {
		sum, err = export.ToFile(ctx, d, o.sql, o.out, opt)
		err = outError("export", o.out, err)
	}
	stopProgress()
	if err != nil {
		return overdue(ctx, err, o.timeout)
	}
	if s.errTTY || o.out != "-" {
		fmt.Fprintf(s.err, "exported %s (%s) to %s in %s\n", format.Plural(int64(sum.RowCount), "row"), format.Bytes(p.Bytes.Load()), o.out, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// showProgress rewrites one stderr line four times a second until stopped,
// and clears it then.
func showProgress(w io.Writer, p *export.Progress) (stop func()) {
	shown := false
	stopWatch := p.Watch(250*time.Millisecond, func(rows, bytes int64) {
		fmt.Fprintf(w, "\r\x1b[Kexporting… %s rows, %s", format.Count(rows), format.Bytes(bytes))
		shown = true
	})
	return func() {
		stopWatch()
		if shown {
			fmt.Fprint(w, "\r\x1b[K")
		}
	}
}
