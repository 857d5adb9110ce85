package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

func openMemory(t *testing.T, heap int64, source string) *sqlite.Engine {
	t.Helper()
	m := sqlite.Memory{
		Source: engine.Source{Display: "/data/" + source, Label: source},
		Files:  []string{source},
		Load: func(ctx context.Context, l *sqlite.Loader) error {
			in, err := l.CreateTable("t", []sqlite.Column{{"i", "INTEGER"}, {"r", "REAL"}, {"s", "TEXT"}, {"b", "BLOB"}, {"n", "TEXT"}})
			if err != nil {
				return err
			}
			defer in.Close()
			var vals []sqlite.Value
			for i := range 100 { // more rows than one statement takes, and a remainder
				vals = append(vals,
					sqlite.Value{Kind: sqlite.Int, Int: int64(i)},
					sqlite.Value{Kind: sqlite.Float, Float: float64(i) / 4},
					sqlite.Value{Kind: sqlite.Text, Text: []byte("row")},
					sqlite.Value{Kind: sqlite.Blob, Text: []byte{1, 2}},
					sqlite.Value{})
			}
			return in.Insert(vals)
		},
	}
	e, err := sqlite.OpenMemory(context.Background(), m, engine.Options{HeapLimit: heap})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOpenMemory(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	os.WriteFile(src, nil, 0o644)
	e := openMemory(t, 0, src)
	defer e.Close()
	res, err := query.Collect(context.Background(), e, "SELECT count(*), sum(i), sum(r), min(s), hex(min(b)), count(n) FROM t", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := []any(res.Rows[0]), []any{int64(100), int64(4950), 1237.5, "row", "0102", int64(0)}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, sql := range []string{"DELETE FROM t", "CREATE TABLE u (x)", "ATTACH ':memory:' AS m"} {
		var rej *guard.Rejection
		if _, err := query.Collect(context.Background(), e, sql, query.Options{}); !errors.As(err, &rej) {
			t.Errorf("%s: %v, want a refusal", sql, err)
		}
	}
	testdb.DoctorOK(t, e)
	if e.Source().Label != src {
		t.Errorf("source %+v", e.Source())
	}
	if _, owned := e.Owns(src); !owned {
		t.Error("the source file is not owned: an export could replace it")
	}
}

// heapLabel is doctor's line about the heap limit.
func heapLabel(t *testing.T, e engine.Engine) string {
	t.Helper()
	info, err := e.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range info.Checks {
		if strings.HasPrefix(c.Label, "SQLite heap limit") {
			return c.Label
		}
	}
	t.Fatal("no heap limit check")
	return ""
}

func TestHeapLimitHeldWhileMemoryIsOpen(t *testing.T) {
	// Loaded under 1 GiB, the data's statements then run under what
	// SQLite holds (these 100 rows, and whatever other tests of the
	// package left open) plus sqlite.DefaultHeapLimit (256 MiB).
	mem := openMemory(t, 1<<30, "x.csv")
	memLabel := heapLabel(t, mem)
	var mb float64
	if _, err := fmt.Sscanf(memLabel[strings.Index(memLabel, "(")+1:], "%g MB)", &mb); err != nil || mb < 256 || mb > 512 {
		t.Errorf("after the load the in-memory database set %q, want 256 MiB and what SQLite holds", memLabel)
	}
	file, err := sqlite.Open(context.Background(), testdb.Fixture(t), engine.Options{HeapLimit: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if got := heapLabel(t, file); got != memLabel {
		t.Errorf("with the data open, a file's open at 64 MiB set %q, want %q", got, memLabel)
	}
	mem.Close()
	again, err := sqlite.Open(context.Background(), testdb.Fixture(t), engine.Options{HeapLimit: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := heapLabel(t, again); !strings.Contains(got, "(64 MB)") {
		t.Errorf("once the data is closed, a file's open at 64 MiB set %q", got)
	}
}
