package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/data"
)

// TestCatalogBudgetsAreWork: what the catalog counts and samples is
// decided by budgets of SQLite instructions, not by time: with the
// default budgets every table and view of the sample is counted exactly
// and sampled (a CI run on two busy cores once lost view counts, and the
// offline planner's answers with them); with a budget too small for the
// order_totals view, the view alone is uncounted and unsampled, on every
// run, while its tables are still counted.
func TestCatalogBudgetsAreWork(t *testing.T) {
	path, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	read := func() map[string][2]int64 {
		out := map[string][2]int64{}
		for _, tb := range CatalogOf(t, path).Tables {
			out[tb.Name] = [2]int64{tb.RowCount, int64(len(tb.Sample))}
		}
		return out
	}
	full := read()
	for name, v := range full {
		if v[0] < 0 || v[1] == 0 {
			t.Errorf("%s: count %d, %d sample rows with the default budgets", name, v[0], v[1])
		}
	}
	if full["order_totals"][0] != 11887 {
		t.Errorf("order_totals counted %d, want 11887", full["order_totals"][0])
	}
	saved := countStepsPerTable
	savedSample := sampleStepsPerTable
	countStepsPerTable, sampleStepsPerTable = 20_000, 20_000
	defer func() { countStepsPerTable, sampleStepsPerTable = saved, savedSample }()
	for range 2 {
		small := read()
		if v := small["order_totals"]; v[0] != -1 {
			t.Errorf("order_totals with a tiny budget: count %d, want -1 (uncounted)", v[0])
		}
		if v := small["order_items"]; v[0] != 28445 {
			t.Errorf("order_items with a tiny budget: count %d, want 28445", v[0])
		}
	}
}

// CatalogOf opens the database at path and reads its catalog (for this
// package's tests, inside and outside it).
func CatalogOf(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	d, err := Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cat, err := d.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// NoCatalogSteps lifts the catalog's budgets of instructions until the
// test ends, leaving its time bounds alone (as on a machine slow enough
// that the time bounds come first), and returns how long one count or
// sample may hold the catalog: its bound and the grace after it.
func NoCatalogSteps(t *testing.T) time.Duration {
	saved := [4]int64{countStepsPerTable, countStepsTotal, sampleStepsPerTable, sampleStepsTotal}
	countStepsPerTable, countStepsTotal, sampleStepsPerTable, sampleStepsTotal = 1<<40, 1<<50, 1<<40, 1<<50
	t.Cleanup(func() {
		countStepsPerTable, countStepsTotal, sampleStepsPerTable, sampleStepsTotal = saved[0], saved[1], saved[2], saved[3]
	})
	return max(countBudget.PerTable, sampleBudget.PerTable) + leaveGrace
}

// WaitStepping waits, when the test ends, for the statements it left
// stepping alone: they hold SQLite memory under the process-wide heap
// limit, which the next tests' opens would otherwise run out of.
func WaitStepping(t *testing.T) {
	t.Cleanup(stepping.Wait)
}
