package main

import (
	"context"

	"github.com/tablewise/tablewise/core/health"
)

func runHealth(ctx context.Context, args []string, s *streams) error {
	fs, rf := newReportFlags("health")
	sample := fs.Int64("sample", 100_000, "judge a table with more rows on its first N rows")
	names, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	if *sample <= 0 {
		return usagef("health: --sample %d: give a number of rows above 0", *sample)
	}
	d, err := s.openDB(ctx, rf.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	rep, err := health.Check(ctx, d, health.Options{Tables: names, SampleRows: *sample})
	if err != nil {
		return noSuchTable("health", err)
	}
	return rf.write(s, rep)
}
