package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// runDoctor checks that the database opens read-only and that the guard
// refuses writes, and reports versions. Any failed check exits 1.
func runDoctor(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("doctor")
	dbPath := fs.String("db", "", "SQLite database file or file: URI (default: the built-in sample)")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "tablewise %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(s.out, "SQLite %s (modernc.org/sqlite, pure Go)\n", db.SQLiteVersion())
	d, err := openDB(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Fprintf(s.out, "database: %s (%s)\n\n", d.Label(), d.Path())

	failed := 0
	check := func(name string, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(s.out, "  FAIL  %s: %v\n", name, err)
			return
		}
		fmt.Fprintf(s.out, "  ok    %s\n", name)
	}
	h, err := d.Health(ctx)
	check("opened read-only (mode=ro, SQLITE_OPEN_READONLY)", boolErr(err == nil && h.ReadOnly, err, "connection is writable"))
	check("defensive mode on, trusted_schema off", boolErr(err == nil && h.Defensive && !h.TrustedSchema, err, "hardening not in effect"))
	check(fmt.Sprintf("SQLite heap limit enforced (%s)", byteSize(h.HeapLimit)), boolErr(h.HeapLimitEnforced && h.HeapLimit > 0, nil, "memory statistics were off when SQLite started"))
	check("ATTACH disabled (limit 0)", boolErr(h.AttachLimit == 0, nil, fmt.Sprintf("attach limit is %d", h.AttachLimit)))

	for _, probe := range []string{
		"DELETE FROM sqlite_schema",
		"DROP VIEW IF EXISTS tablewise_doctor_missing",
		"SELECT 1; DELETE FROM sqlite_schema",
		"ATTACH 'doctor.db' AS x",
		"PRAGMA query_only = 0",
		"VACUUM",
	} {
		_, err := query.Collect(ctx, d, probe, query.Options{MaxRows: 1})
		var rej *guard.Rejection
		check(fmt.Sprintf("guard refuses %q", probe), boolErr(errors.As(err, &rej), nil, fmt.Sprintf("not refused (%v)", err)))
	}
	res, err := query.Collect(ctx, d, "SELECT count(*) FROM sqlite_schema", query.Options{MaxRows: 1})
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
		fmt.Fprintf(s.out, "\n%d schema entries, %d tables and views, %s rows in tables\n", res.Rows[0][0], len(cat.Tables), thousands(rows))
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
