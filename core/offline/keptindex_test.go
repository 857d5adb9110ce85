package offline

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

// describeIndex writes out what the value index holds and what it taught
// about every column, in a stable order.
func describeIndex(ix *index) string {
	var lines []string
	for key, refs := range ix.values.byKey {
		for i, r := range refs {
			lines = append(lines, fmt.Sprintf("%s #%d %s %#v %q %d %q", key, i, r.col, r.value, r.text, r.count, r.words))
		}
	}
	for _, t := range ix.s.tables {
		for _, c := range t.cols {
			lines = append(lines, fmt.Sprintf("col %s kind %d distinct %d zero %v year %v unix %v nulls %d sentinel %q max %q flag %#v/%#v",
				c, c.kind, c.distinct, c.hasZero, c.intYear, c.unixTime, c.nulls, c.sentinel, c.maxDate, c.trueVal, c.falseVal))
		}
		lines = append(lines, fmt.Sprintf("table %s main %v label %v", t.name, t.mainDate, t.label))
	}
	sort.Strings(lines)
	lines = append(lines, fmt.Sprintf("longest %d columns %d values %d skipped %q periods %v",
		ix.values.longest, ix.values.columns, ix.values.values, ix.values.skipped, ix.hasPeriods))
	return fmt.Sprint(lines)
}

// TestKeptIndexIsTheBuiltOne: the value index a planner reads from the
// state directory is the one a planner building it from the data gets —
// the same values, columns and plans for every gold question — on the
// sample, Chinook and the blind sets' databases.
func TestKeptIndexIsTheBuiltOne(t *testing.T) {
	sample, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]string{"sample": sample, "chinook": testdb.SharedData(t, "chinook.sqlite")}
	for _, n := range []string{"hr", "airlines", "health", "campus"} {
		evalDBPlanner(t, n) // builds the databases
		sets[n] = evalDBPaths[n]
	}
	ctx := context.Background()
	for name, path := range sets {
		t.Run(name, func(t *testing.T) {
			keep := t.TempDir()
			tp := freshPlanner(t, path)
			d := tp.d
			built, err := tp.p.index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			first, err := NewKept(d, keep).index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if first.keptIndex {
				t.Fatal("a first planner read a kept index")
			}
			// A database opened again, its catalog not read yet.
			d2, err := db.Open(ctx, path, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d2.Close()
			second, err := NewKept(d2, keep).index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !second.keptIndex || !second.keptCatalog {
				t.Fatalf("the second planner: kept index %v, kept catalog %v; want both", second.keptIndex, second.keptCatalog)
			}
			for i, tb := range second.s.tables {
				if want := first.s.tables[i].t; !reflect.DeepEqual(tb.t.Sample, want.Sample) || tb.t.RowCount != want.RowCount {
					t.Fatalf("kept catalog: %s sample %v (%d rows), want %v (%d rows)", tb.name, tb.t.Sample, tb.t.RowCount, want.Sample, want.RowCount)
				}
			}
			if got, want := describeIndex(second), describeIndex(built); got != want {
				t.Fatalf("kept index differs from the built one:\n%s\nwant\n%s", got, want)
			}
			cases := goldCases(t, name+".jsonl")
			for _, c := range cases {
				a, b := built.plan(c.Question), second.plan(c.Question)
				if a.sql != b.sql || a.refusal != b.refusal {
					t.Fatalf("%q: built index %q %q, kept %q %q", c.Question, a.sql, a.refusal, b.sql, b.refusal)
				}
			}
		})
	}
}

// TestKeptIndexIsStaleAfterAWrite: the kept index serves the next
// planner on an unchanged database, is rebuilt (and kept again) once the
// database is written, and nothing is written beside the database.
func TestKeptIndexIsStaleAfterAWrite(t *testing.T) {
	ctx := context.Background()
	dbDir, keep, path, d := keptOrders(t)
	warm := func(d *db.DB) *index {
		t.Helper()
		ix, err := NewKept(d, keep).index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	if warm(d).keptIndex {
		t.Fatal("a first planner read a kept index")
	}
	second := warm(d)
	if !second.keptIndex {
		t.Fatal("the second planner built its index again")
	}
	if _, ok := second.values.byKey[textKey("shipped")]; !ok {
		t.Fatal("the kept index lost the value shipped")
	}
	// The status column's kind and count come back with it.
	if c := second.s.byName["orders"].col("status"); c.distinct != 6 {
		t.Fatalf("orders.status from the kept index: %d distinct values, want 6", c.distinct)
	}

	d2 := rewrite(t, d, path, "UPDATE orders SET status = 'lost' WHERE order_id = 1")
	after := warm(d2)
	if after.keptIndex || after.keptCatalog {
		t.Fatalf("after a write: kept index %v, kept catalog %v; want neither", after.keptIndex, after.keptCatalog)
	}
	if again := warm(d2); !again.keptIndex {
		t.Fatal("the index rebuilt after the write was not kept")
	}
	beside, _ := os.ReadDir(dbDir)
	if len(beside) != 1 {
		t.Fatalf("files beside the database: %v", beside)
	}
	kept, _ := os.ReadDir(keep)
	if len(kept) != 1 {
		t.Fatalf("kept files: %v", kept)
	}
}

// TestKeptIndexDamaged: a kept index cut short or altered is not read
// (the index is built again), and the schema is left as it was.
func TestKeptIndexDamaged(t *testing.T) {
	tp := samplePlanner(t)
	ix, err := tp.p.index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	enc := encodeValues(ix.s, ix.values, 1)
	if enc == nil {
		t.Fatal("the sample's index could not be encoded")
	}
	cat, err := tp.d.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fresh := newSchema(cat, tp.d.Dialect())
	before := fmt.Sprint(columnStates(fresh))
	for _, cut := range []int{1, len(enc) / 3, len(enc) / 2, len(enc) - 1} {
		if vi, _ := decodeValues(string(enc[:cut]), fresh); vi != nil {
			t.Fatalf("an index cut at %d of %d bytes was read", cut, len(enc))
		}
	}
	if fmt.Sprint(columnStates(fresh)) != before {
		t.Fatal("a damaged index changed the schema")
	}
	if vi, _ := decodeValues(string(enc)+"\x00", fresh); vi != nil {
		t.Fatal("an index with bytes after its end was read")
	}
	vi, scans := decodeValues(string(enc), fresh)
	if vi == nil || scans != 1 || len(vi.byKey) != len(ix.values.byKey) {
		t.Fatalf("the whole index: %v, %d scans", vi != nil, scans)
	}
}

func columnStates(s *schema) []string {
	var out []string
	for _, t := range s.tables {
		for _, c := range t.cols {
			out = append(out, fmt.Sprintf("%s %d %d %v %v", c, c.kind, c.distinct, c.trueVal, c.maxDate))
		}
	}
	return out
}
