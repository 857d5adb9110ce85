package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/query"
)

type sqlOptions struct {
	dbPath  string
	format  string
	maxRows int
	timeout time.Duration
	raw     bool
	sql     string
}

func runSQL(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("sql")
	var o sqlOptions
	fs.StringVar(&o.dbPath, "db", "", "SQLite database file or file: URI (default: the built-in sample)")
	fs.StringVar(&o.format, "format", "", "output format: table, csv, json, jsonl, markdown (default: table on a terminal, csv otherwise)")
	fs.IntVar(&o.maxRows, "max-rows", query.DefaultMaxRows, "stop after this many rows (0: no limit)")
	fs.DurationVar(&o.timeout, "timeout", query.DefaultTimeout, "stop the statement after this long")
	fs.BoolVar(&o.raw, "raw", false, "CSV: do not guard cells that start like a spreadsheet formula")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("sql: give the SQL to run, or - to read it from stdin\n\n%s", flagHelp(fs))
	}
	if o.sql, err = sqlText("", pos, s); err != nil {
		return err
	}
	if o.format == "" {
		o.format = "csv"
		if s.outTTY {
			o.format = "table"
		}
	}
	if o.maxRows < 0 {
		return usagef("sql: --max-rows must be 0 or more")
	}
	return sqlCmd(ctx, o, s)
}

func sqlCmd(ctx context.Context, o sqlOptions, s *streams) error {
	var w export.Writer
	if o.format != "table" {
		var err error
		if w, err = export.New(o.format, s.out, export.Options{Raw: o.raw}); err != nil {
			return usagef("sql: %v", err)
		}
	}
	d, err := openDB(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	opt := query.Options{MaxRows: o.maxRows, MaxBytes: query.DefaultMaxBytes, Timeout: o.timeout}
	if w == nil {
		res, err := query.Collect(ctx, d, o.sql, opt)
		if err != nil {
			return err
		}
		renderTable(s.out, res, tableStyle{color: s.outTTY && s.getenv("NO_COLOR") == "", width: terminalWidth(s.out)})
		if res.Truncated {
			fmt.Fprintf(s.err, "note: showing the first %d rows; more exist (raise --max-rows, or use tablewise export for the whole result)\n", res.RowCount)
		}
		return nil
	}
	sum, err := query.Run(ctx, d, o.sql, opt, w)
	if ferr := w.Finish(sum); err == nil && ferr != nil {
		return fmt.Errorf("write output: %w", ferr)
	}
	if err != nil {
		return err
	}
	if sum.Truncated && o.format != "json" {
		fmt.Fprintf(s.err, "note: stopped at %d rows (%s limit); more exist (raise --max-rows, or use tablewise export)\n", sum.RowCount, sum.TruncatedBy)
	}
	return nil
}
