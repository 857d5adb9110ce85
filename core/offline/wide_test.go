package offline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablewise/tablewise/core/db"
)

// wideDB is the generated 2,000-table schema (data/testdata/scale.sh
// writes it); benchmarks on it are skipped when it is absent.
func wideDB(b testing.TB) string {
	dir := os.Getenv("TABLEWISE_SCALE_DIR")
	if dir == "" {
		dir = "/tmp/tablewise-scale"
	}
	path := filepath.Join(dir, "wide.db")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no %s: write it with go run ./data/scaledb/cmd/scaledb -kind wide -out %s", path, path)
	}
	return path
}

// BenchmarkWideSecondRun measures what a second `tablewise ask --provider
// offline` on the 2,000-table schema does: open the database, build the
// planner from what the state directory keeps, answer one question.
//
//	go test ./core/offline -run '^$' -bench WideSecondRun -benchtime 3x -cpuprofile cpu.out -memprofile mem.out
func BenchmarkWideSecondRun(b *testing.B) {
	path := wideDB(b)
	keep := os.Getenv("TABLEWISE_KEEP_DIR") // to profile later runs alone
	if keep == "" {
		keep = b.TempDir()
	}
	ctx := context.Background()
	ask := func() {
		d, err := db.Open(ctx, path, db.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		res, err := NewKept(d, keep).Answer(ctx, "how many rows are in billing_invoices")
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != "answered" {
			b.Fatalf("status %s: %s", res.Status, res.Answer)
		}
	}
	ask() // the first run, which scans and keeps
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ask()
	}
}
