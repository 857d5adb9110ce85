package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

func open(t testing.TB) *sqlite.Engine {
	t.Helper()
	return openAt(t, testdb.Fixture(t))
}

// openAt opens the database at path, closed when the test ends.
func openAt(t testing.TB, path string) *sqlite.Engine {
	t.Helper()
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestFaithfulTypes(t *testing.T) {
	d := open(t)
	res, err := query.Collect(context.Background(), d,
		"SELECT 1, 2.5, 'é', x'00ff', NULL, 9223372036854775807, 3.0, id, home, data FROM Match ORDER BY id", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	r := res.Rows[0]
	want := []any{int64(1), 2.5, "é", []byte{0, 0xff}, nil, int64(9223372036854775807), 3.0, int64(1), "Lyon", []byte{0, 0xff, 0x10}}
	for i, w := range want {
		switch wv := w.(type) {
		case []byte:
			g, ok := r[i].([]byte)
			if !ok || string(g) != string(wv) {
				t.Errorf("col %d = %#v, want %#v", i, r[i], w)
			}
		default:
			if r[i] != w {
				t.Errorf("col %d = %#v (%T), want %#v (%T)", i, r[i], r[i], w, w)
			}
		}
	}
	if res.Rows[1][9] != nil {
		t.Errorf("NULL blob came back as %#v", res.Rows[1][9])
	}
	types := []string{"INTEGER", "REAL", "TEXT", "BLOB", "", "INTEGER", "REAL", "INTEGER", "TEXT", "BLOB"}
	for i, ty := range types {
		if res.Columns[i].Type != ty {
			t.Errorf("column %d type %q, want %q", i, res.Columns[i].Type, ty)
		}
	}
}

func TestSQLIsNotRewritten(t *testing.T) {
	d := open(t)
	const sql = "  select  a -- keep me\n from t ;  "
	res, err := query.Collect(context.Background(), d, sql, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.SQL != sql {
		t.Fatalf("SQL %q, want %q exactly", res.SQL, sql)
	}
}

func TestRowCap(t *testing.T) {
	d := open(t)
	const sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50) SELECT x FROM c"
	for _, tc := range []struct {
		max       int
		rows      int
		truncated bool
	}{{10, 10, true}, {49, 49, true}, {50, 50, false}, {51, 50, false}, {0, 50, false}} {
		res, err := query.Collect(context.Background(), d, sql, query.Options{MaxRows: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != tc.rows || res.RowCount != tc.rows || res.Truncated != tc.truncated {
			t.Errorf("max %d: %d rows (count %d), truncated %v; want %d, %v", tc.max, len(res.Rows), res.RowCount, res.Truncated, tc.rows, tc.truncated)
		}
		if got := res.Rows[len(res.Rows)-1][0]; got != int64(tc.rows) {
			t.Errorf("max %d: last row %v", tc.max, got)
		}
	}
}

func TestByteCap(t *testing.T) {
	d := open(t)
	const sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000) SELECT x, hex(zeroblob(500)) FROM c"
	var sum *query.Summary
	var rows int
	sum, err := query.Run(context.Background(), d, sql, query.Options{MaxBytes: 100_000}, sinkFunc(func(query.Cursor) { rows++ }))
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Truncated || sum.TruncatedBy != "bytes" {
		t.Fatalf("truncated %v by %q", sum.Truncated, sum.TruncatedBy)
	}
	// Each row is about 1,000 bytes of text: the cap lands near 100 rows.
	if rows < 80 || rows > 100 || sum.RowCount != rows {
		t.Fatalf("%d rows delivered, summary says %d", rows, sum.RowCount)
	}
}

type sinkFunc func(query.Cursor)

func (f sinkFunc) Begin([]query.Column) error { return nil }
func (f sinkFunc) Row(c query.Cursor) error   { f(c); return nil }

// slowAfterFirstRow yields x = 1 at once and then searches forever.
const slowAfterFirstRow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 1 OR x = -1"

func TestDeadlineAfterFirstRow(t *testing.T) {
	d := open(t)
	start := time.Now()
	var rows int
	_, err := query.Run(context.Background(), d, slowAfterFirstRow, query.Options{Timeout: 300 * time.Millisecond}, sinkFunc(func(query.Cursor) { rows++ }))
	elapsed := time.Since(start)
	if !errors.Is(err, query.ErrDeadline) {
		t.Fatalf("got %v, want the deadline", err)
	}
	var le *query.LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Hint, "--timeout") {
		t.Fatalf("no hint: %v", err)
	}
	if rows != 1 {
		t.Errorf("%d rows before the deadline, want 1", rows)
	}
	if elapsed > 800*time.Millisecond {
		t.Errorf("stopped after %v, deadline was 300ms", elapsed)
	}
	// The connection is usable afterwards: no stale interrupt.
	res, err := query.Collect(context.Background(), d, "SELECT count(*) FROM t", query.Options{})
	if err != nil || res.Rows[0][0] != int64(2) {
		t.Fatalf("after deadline: %v %v", res, err)
	}
}

func TestContextCancel(t *testing.T) {
	d := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := query.Run(ctx, d, slowAfterFirstRow, query.Options{}, sinkFunc(func(query.Cursor) {}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Second {
		t.Fatalf("cancel took %v", time.Since(start))
	}
}

// A statement whose context has already ended does not run, however fast
// it would be: the interrupt that a cancellation sends arrives on its own
// goroutine, after a short statement may have finished, which once made an
// answer out of a statement nobody waited for.
func TestContextEndedBeforeTheStatement(t *testing.T) {
	d := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	for i := range 200 {
		if _, err := query.Collect(ctx, d, "SELECT count(*) FROM t", query.Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: got %v, want context.Canceled", i, err)
		}
		if _, err := query.Collect(past, d, "SELECT count(*) FROM t", query.Options{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("run %d: got %v, want context.DeadlineExceeded", i, err)
		}
	}
}

func TestConcurrentQueries(t *testing.T) {
	d := open(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opt := query.Options{}
			sql := "SELECT count(*) FROM customer"
			if i%4 == 0 {
				sql, opt = slowAfterFirstRow, query.Options{Timeout: 50 * time.Millisecond}
			}
			res, err := query.Collect(context.Background(), d, sql, opt)
			if i%4 == 0 {
				if !errors.Is(err, query.ErrDeadline) {
					errs <- err
				}
				return
			}
			if err != nil || res.Rows[0][0] != int64(4) {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent query: %v", err)
	}
}

// TestLookasideFreeForStatements: the connection's lookaside memory is not
// taken by its function definitions, so statements get it: none is held
// between statements and a point query never finds it full.
func TestLookasideFreeForStatements(t *testing.T) {
	d := open(t)
	for i := range 20 {
		if _, err := query.Collect(context.Background(), d, fmt.Sprintf("SELECT * FROM customer WHERE id = %d", i), query.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	err := d.Conn(context.Background(), func(c *lite.Conn) error {
		used, _ := c.DBStatus(lite.StatusLookasideUsed)
		_, full := c.DBStatus(lite.StatusLookasideMissFull)
		if used != 0 || full != 0 {
			t.Errorf("lookaside: %d slots held between statements, %d allocations found it full", used, full)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPointQuery is one point query on the built-in sample database
// through the engine: vetting, running and collecting its row, as run_sql
// does (latency.sh's workload without a transport).
func BenchmarkPointQuery(b *testing.B) {
	p, err := data.SamplePath()
	if err != nil {
		b.Fatal(err)
	}
	d, err := sqlite.Open(context.Background(), p, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		res, err := query.Collect(context.Background(), d, fmt.Sprintf("SELECT * FROM customers WHERE customer_id = %d", 1+i%2400), query.Options{MaxRows: 100, Timeout: query.DefaultTimeout})
		if err != nil || res.RowCount != 1 {
			b.Fatal(res, err)
		}
	}
}
