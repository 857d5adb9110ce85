package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// runDoctor checks that the database opens read-only and that the guard
// refuses writes, and reports versions: the checks and probes are the
// engine's (engine.Info). Any failed check exits 1.
func runDoctor(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("doctor")
	var dbPath string
	dbFlag(fs, &dbPath)
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "tablewise %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	d, err := s.openDB(ctx, dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	info, ierr := d.Info(ctx)
	if ierr == nil {
		fmt.Fprintln(s.out, info.Version)
	}
	fmt.Fprintf(s.out, "database: %s (%s)\n\n", format.PrintableLine(d.Label()), format.PrintableLine(d.Source()))

	failed := 0
	check := func(name string, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(s.out, "  FAIL  %s: %s\n", name, format.PrintableLine(err.Error()))
			return
		}
		fmt.Fprintf(s.out, "  ok    %s\n", name)
	}
	if ierr != nil {
		check("engine checks", ierr)
		return fmt.Errorf("doctor: %d check(s) failed", failed)
	}
	for _, c := range info.Checks {
		check(c.Label, boolErr(c.OK, nil, c.Problem))
	}
	for _, probe := range info.Refused {
		_, err := query.Collect(ctx, d, probe, query.Options{MaxRows: 1})
		var rej *guard.Rejection
		check(fmt.Sprintf("guard refuses %q", probe), boolErr(errors.As(err, &rej), nil, fmt.Sprintf("not refused (%v)", err)))
	}
	res, err := query.Collect(ctx, d, info.Read, query.Options{MaxRows: 1})
	check("guard runs a read", err)
	cat, cerr := d.Catalog(ctx)
	check("catalog readable", cerr)
	if cerr == nil && err == nil {
		var rows int64
		for _, t := range cat.Tables {
			if t.Kind == "table" && t.RowCount > 0 {
				rows += t.RowCount
			}
		}
		fmt.Fprintf(s.out, "\n%s\n", catalogSummary(engine.Int64(res.Rows[0][0]), len(cat.Tables), rows))
	}
	if failed > 0 {
		return fmt.Errorf("doctor: %d check(s) failed", failed)
	}
	fmt.Fprintln(s.out, "\nall checks passed")
	return nil
}

func boolErr(ok bool, err error, msg string) error {
	if err != nil {
		return err
	}
	if !ok {
		return errors.New(msg)
	}
	return nil
}

// catalogSummary is doctor's last line: "12 schema objects, 9 tables and
// views, 11,887 rows in tables" (objects: what the engine's read probe
// counts in the catalog).
func catalogSummary(objects int64, tables int, rows int64) string {
	tv := format.Count(int64(tables)) + " tables and views"
	if tables == 1 {
		tv = "1 table or view"
	}
	return fmt.Sprintf("%s, %s, %s in tables", format.Plural(objects, "schema object"), tv, format.Plural(rows, "row"))
}
