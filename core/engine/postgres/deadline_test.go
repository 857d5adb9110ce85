package postgres_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// running counts the statements other sessions are running whose text
// contains marker.
func running(t *testing.T, a *pgx.Conn, marker string) int {
	t.Helper()
	var n int
	err := a.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND state = 'active' AND strpos(query, $1) > 0`, marker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeadline: pg_sleep(30) under a 2 s deadline stops with the deadline
// error (exit 5) within 3 s, and the statement is gone from the server.
func TestDeadline(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	servers.StopsAtDeadline(t, "pg_sleep(30)", func(timeout time.Duration) error {
		_, err := query.Collect(context.Background(), e, "SELECT pg_sleep(30) AS deadline_marker", query.Options{Timeout: timeout})
		return err
	}, func() int { return running(t, a, "deadline_marker") })
	// The pooled connection is usable and its next statement has its own
	// deadline.
	res, err := query.Collect(context.Background(), e, "SELECT current_setting('statement_timeout')", query.Options{Timeout: 3 * time.Second})
	if err != nil || res.Rows[0][0] != "3s" {
		t.Errorf("next statement: %v %v", res, err)
	}
}

// TestCancelByClient: when the caller's context ends (no deadline of the
// engine's own), the client's cancel request ends the statement on the
// server.
func TestCancelByClient(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for range 100 {
			time.Sleep(50 * time.Millisecond)
			if running(t, a, "cancel_marker") == 1 {
				break
			}
		}
		cancel()
	}()
	_, err := query.Collect(ctx, e, "SELECT pg_sleep(30) AS cancel_marker", query.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want cancelled", err)
	}
	if n := running(t, a, "cancel_marker"); n != 0 {
		t.Errorf("%d statement(s) still running on the server", n)
	}
}

// streamSink watches a stream: the first row is seen while the statement
// is still running on the server, and the heap stays small.
type streamSink struct {
	t        *testing.T
	a        *pgx.Conn
	rows     int
	midQuery bool
	peakHeap uint64
}

func (s *streamSink) Begin([]query.Column) error { return nil }
func (s *streamSink) Row(c query.Cursor) error {
	if s.rows == 0 {
		s.midQuery = running(s.t, s.a, "stream_marker") == 1
	}
	if s.rows%50_000 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peakHeap = max(s.peakHeap, m.HeapInuse)
	}
	if c.Len() != 5 || c.Kind(0) != query.Integer || c.Kind(3) != query.Real {
		s.t.Fatalf("row %d: %d columns, kinds %v %v", s.rows, c.Len(), c.Kind(0), c.Kind(3))
	}
	s.rows++
	return nil
}

// TestStreamsMillionRows: 1,000,000 rows × 5 columns arrive while the
// statement runs, with the heap bounded (the RSS figure comes from
// data/testdata/compare-export-servers.sh).
func TestStreamsMillionRows(t *testing.T) {
	if testing.Short() {
		t.Skip("streams a million rows; skipped with -short")
	}
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	s := &streamSink{t: t, a: a}
	sum, err := e.Run(context.Background(), `SELECT g AS stream_marker, 'name ' || g, now() - g * interval '1 second', g / 7.0::float8, md5(g::text)
		FROM generate_series(1, 1000000) g`, query.Options{Timeout: time.Minute}, s)
	if err != nil {
		t.Fatal(err)
	}
	if s.rows != 1_000_000 || sum.RowCount != 1_000_000 || sum.Truncated {
		t.Fatalf("%d rows (summary %d, truncated %v)", s.rows, sum.RowCount, sum.Truncated)
	}
	if !s.midQuery {
		t.Error("the first row arrived after the statement ended: rows are not streamed")
	}
	if s.peakHeap > 64<<20 {
		t.Errorf("heap in use reached %d MiB", s.peakHeap>>20)
	}
}

// TestCapsStopTheStatement: a row cap ends the stream and the server's
// statement with it.
func TestCapsStopTheStatement(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	res, err := query.Collect(context.Background(), e, `SELECT g AS cap_marker, pg_sleep(CASE WHEN g > 5000 THEN 30 ELSE 0 END) FROM generate_series(1, 10000) g`,
		query.Options{MaxRows: 10, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 10 || !res.Truncated {
		t.Fatalf("%d rows, truncated %v", len(res.Rows), res.Truncated)
	}
	if n := running(t, a, "cap_marker"); n != 0 {
		t.Errorf("%d statement(s) still running on the server", n)
	}
	if !strings.Contains(e.Source().Display, "127.0.0.1") {
		t.Errorf("source %q", e.Source().Display)
	}
}

// A statement whose context has already ended does not run.
func TestContextEndedBeforeTheStatement(t *testing.T) {
	e := open(t, servers.Postgres(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 50 {
		if _, err := query.Collect(ctx, e, `SELECT count(*) FROM "Genre"`, query.Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: got %v, want context.Canceled", i, err)
		}
	}
}
