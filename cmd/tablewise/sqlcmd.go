package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/dotcmd"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/format"
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
	dbFlag(fs, &o.dbPath)
	fs.StringVar(&o.format, "format", "", "output format: table, csv, json, jsonl, markdown (default: table on a terminal, csv otherwise)")
	fs.IntVar(&o.maxRows, "max-rows", query.DefaultMaxRows, "stop after this many rows (0: no limit)")
	fs.DurationVar(&o.timeout, "timeout", query.DefaultTimeout, "stop after this long, opening the database included")
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
	if o.timeout <= 0 {
		return usagef("sql: --timeout %s: give a deadline of more than 0, such as 30s (the statement runs under it)", o.timeout)
	}
	if c, ok := dotcmd.Parse(o.sql); ok {
		return dotCommand(ctx, c, o, s)
	}
	return sqlCmd(ctx, o, s)
}

// dotCommand answers a sqlite3 shell dot-command given as the SQL: the
// ones that read the schema run, the others say what to use instead.
func dotCommand(ctx context.Context, c dotcmd.Command, o sqlOptions, s *streams) error {
	name := "." + c.Name
	switch c.Kind {
	case dotcmd.Tables:
		return listTables(ctx, o.dbPath, c.Args, s)
	case dotcmd.Schema, dotcmd.Indexes:
		return runSchema(ctx, append([]string{"--db", o.dbPath, "--"}, c.Args...), s)
	case dotcmd.Help:
		fmt.Fprintf(s.out, "tablewise sql runs one SQL statement. Of the sqlite3 shell's dot-commands it accepts %s;\n"+
			"output is chosen with --format (table, csv, json, jsonl, markdown) and the database with --db.\n", dotcmd.Supported)
		return nil
	case dotcmd.Output:
		if c.Name == "mode" && len(c.Args) > 0 {
			f := strings.ToLower(c.Args[0])
			switch f {
			case "markdown", "json", "csv", "table":
			case "box", "column", "list", "line", "tabs":
				f = "table"
			default:
				f = "csv"
			}
			return usagef("sql: %s %s is a sqlite3 shell setting; here the output is a flag: tablewise sql --format %s \"SELECT …\" (table, csv, json, jsonl or markdown)", name, c.Args[0], f)
		}
		return usagef("sql: %s is a sqlite3 shell setting; tablewise sql prints a header row and NULL as empty (CSV) or NULL (table): choose the output with --format (table, csv, json, jsonl or markdown)", name)
	case dotcmd.Quit:
		return usagef("sql: %s: nothing to quit — tablewise sql runs one statement and exits", name)
	case dotcmd.Open:
		return usagef("sql: %s: choose the database with --db PATH", name)
	case dotcmd.Read:
		return usagef("sql: %s: run a file of SQL with tablewise sql - < FILE (one statement)", name)
	case dotcmd.Write:
		return usagef("sql: %s writes a file or the database; tablewise is read-only (tablewise export --sql SQL --out FILE writes a result)", name)
	}
	return usagef("sql: %s is not SQL, and not a dot-command tablewise knows; it accepts %s", name, dotcmd.Supported)
}

// listTables prints the names of the tables and views, one a line, those
// matching pattern (LIKE, as sqlite3's .tables) when one is given.
func listTables(ctx context.Context, dbPath string, patterns []string, s *streams) error {
	d, cat, err := s.openCatalog(ctx, dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	for _, name := range cat.TableNames() {
		if len(patterns) == 0 || slices.ContainsFunc(patterns, func(p string) bool { return like(p, name) }) {
			fmt.Fprintln(s.out, format.PrintableLine(name))
		}
	}
	return nil
}

// like reports whether name matches a LIKE pattern (% and _, case folded).
func like(pattern, name string) bool {
	p, n := []rune(strings.ToLower(pattern)), []rune(strings.ToLower(name))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch p[i] {
			case '%':
				for k := j; k <= len(n); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case '_':
				if j == len(n) {
					return false
				}
			default:
				if j == len(n) || n[j] != p[i] {
					return false
				}
			}
			i, j = i+1, j+1
		}
		return j == len(n)
	}
	return match(0, 0)
}

func sqlCmd(ctx context.Context, o sqlOptions, s *streams) error {
	var w export.Writer
	if o.format != "table" {
		var err error
		if w, err = export.New(o.format, s.out, export.Options{Raw: o.raw}); err != nil {
			return usagef("sql: %v", err)
		}
	}
	d, opt, err := s.openWithin(ctx, o.dbPath, o.timeout)
	if err != nil {
		return err
	}
	defer d.Close()
	opt.MaxRows, opt.MaxBytes = o.maxRows, query.DefaultMaxBytes
	if w == nil {
		// The table streams too: its work per row is bounded by the
		// terminal's width, and the statement's deadline covers it.
		t := newTableWriter(s.out, tableStyle{color: s.outTTY && s.getenv("NO_COLOR") == "", width: terminalWidth(s.out)})
		sum, err := query.Run(ctx, d, o.sql, opt, t)
		if err != nil {
			return overdue(ctx, err, o.timeout)
		}
		if err := t.Finish(sum); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		if sum.Truncated {
			fmt.Fprintf(s.err, "note: showing the first %d rows; more exist (raise --max-rows, or use tablewise export for the whole result)\n", sum.RowCount)
		}
		return nil
	}
	sum, err := query.Run(ctx, d, o.sql, opt, w)
	if ferr := w.Finish(sum); err == nil && ferr != nil {
		return fmt.Errorf("write output: %w", ferr)
	}
	if err != nil {
		return overdue(ctx, err, o.timeout)
	}
	if sum.Truncated && o.format != "json" {
		fmt.Fprintf(s.err, "note: stopped at %d rows (%s limit); more exist (raise --max-rows, or use tablewise export)\n", sum.RowCount, sum.TruncatedBy)
	}
	return nil
}
