package mysql_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// BenchmarkPointQuery is one point query on the sample, back to back:
// the engine's whole cost per statement (the session's settings, the
// read-only transaction, the guard and its checks, the rollback).
func BenchmarkPointQuery(b *testing.B) {
	f := open(b, servers.MySQLSample(b))
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q := fmt.Sprintf("SELECT * FROM customers WHERE customer_id = %d", 1+i%2400)
		res, err := query.Collect(ctx, f.eng, q, query.Options{MaxRows: 100, Timeout: 10 * time.Second})
		if err != nil || len(res.Rows) != 1 {
			b.Fatalf("%v %v", err, res)
		}
	}
}
