package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// pointSQL is the point query of bridge/mcp/testdata/e2e/latency.sh.
func pointSQL(i int) string {
	return fmt.Sprintf("SELECT * FROM customers WHERE customer_id = %d", 1+i%2400)
}

// BenchmarkPointQuery is one run_sql point query on the sample, back to
// back: the engine's whole cost per statement, the reset included (a
// statement cannot start before its connection is reset). cpu-ns/op is
// the CPU time this process spent per statement, which other work on
// the machine disturbs less than the wall time; hits/op the share run on
// a verdict (vetted.go).
func BenchmarkPointQuery(b *testing.B) {
	e := open(b, servers.PostgresSample(b))
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime(b)
	n := 0
	for i := 0; b.Loop(); i++ {
		res, err := query.Collect(ctx, e, pointSQL(i), query.Options{MaxRows: 100, Timeout: 10 * time.Second})
		if err != nil || len(res.Rows) != 1 {
			b.Fatalf("%v %v", err, res)
		}
		n++
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(n), "cpu-ns/op")
	b.ReportMetric(float64(postgres.VettedRuns(e))/float64(n), "hits/op")
}

// cpuTime is the CPU time (user and system) the process has spent.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPointQueryAnswer is the same with a pause between statements,
// as a client leaves one while it reads an answer and sends the next
// question: the figures are how long a caller waits for its rows, the
// median (answer-p50-ns) and the 90th percentile (answer-p90-ns), which
// other work on the machine disturbs less than a mean.
func BenchmarkPointQueryAnswer(b *testing.B) {
	e := open(b, servers.PostgresSample(b))
	ctx := context.Background()
	var waits []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		res, err := query.Collect(ctx, e, pointSQL(i), query.Options{MaxRows: 100, Timeout: 10 * time.Second})
		waits = append(waits, time.Since(start))
		if err != nil || len(res.Rows) != 1 {
			b.Fatalf("%v %v", err, res)
		}
		time.Sleep(300 * time.Microsecond)
	}
	slices.Sort(waits)
	b.ReportMetric(float64(waits[len(waits)/2]), "answer-p50-ns")
	b.ReportMetric(float64(waits[len(waits)*9/10]), "answer-p90-ns")
}

// BenchmarkPointQueryGuardReload is the point query when the guard reads
// again what the database made of its own (functions, casts, views,
// foreign tables), as the first statement after every localMaxAge does.
func BenchmarkPointQueryGuardReload(b *testing.B) {
	e := open(b, servers.PostgresSample(b))
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		postgres.ExpireLocal(e)
		res, err := query.Collect(ctx, e, pointSQL(i), query.Options{MaxRows: 100, Timeout: 10 * time.Second})
		if err != nil || len(res.Rows) != 1 {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkOpen is opening the sample's database, as every command does
// first: connecting, reading the types, probing what the server
// answers, and the guard's reads of the database's own objects in that
// new session, which are most of it.
func BenchmarkOpen(b *testing.B) {
	url := servers.PostgresSample(b)
	ctx := context.Background()
	for b.Loop() {
		e, err := postgres.Open(ctx, url, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if postgres.LocalLoads(e) != 1 {
			b.Fatalf("the guard read the database's objects %d times, want once", postgres.LocalLoads(e))
		}
		e.Close()
	}
}
