package main

import (
	"context"
	"os"

	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/migrate"
)

func runMigrateCheck(ctx context.Context, args []string, s *streams) error {
	fs, rf := newReportFlags("migrate-check")
	upFile := fs.String("up", "", "the migration's SQL file")
	downFile := fs.String("down", "", "the SQL file that undoes it (optional)")
	scratch := fs.String("scratch", "", "PostgreSQL and MySQL: the URL of a separate database where the migration is rehearsed (never the --db one; on the --db's own PostgreSQL server, as a user that is not a superuser and does not own the --db database)")
	pos, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("migrate-check: unexpected argument %q: give the scripts as --up FILE [--down FILE]", pos[0])
	}
	if *upFile == "" {
		return usagef("migrate-check: give --up FILE (and --down FILE to check that it undoes the migration)")
	}
	read := func(flag, path string) (string, error) {
		if path == "" {
			return "", nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", usagef("migrate-check: --%s %s: %v", flag, path, err)
		}
		return string(b), nil
	}
	up, err := read("up", *upFile)
	if err != nil {
		return err
	}
	down, err := read("down", *downFile)
	if err != nil {
		return err
	}
	d, err := s.openDB(ctx, rf.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	rep, err := migrate.Check(ctx, d, up, down, migrate.Options{Scratch: *scratch})
	if err != nil {
		return err
	}
	if err := rf.write(s, rep); err != nil {
		return err
	}
	if !rep.Valid {
		return fault.New(fault.Database, "migrate-check: the migration fails on this schema", "the failing statement and the engine's error are shown above")
	}
	return nil
}
