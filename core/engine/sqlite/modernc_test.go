package sqlite_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	_ "modernc.org/sqlite"
)

// boundedSlow returns its first row at once and then scans for a while
// (about a second here) before it ends by itself.
const boundedSlow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 4000000) SELECT x FROM c WHERE x = 1 OR x = -1"

// TestModerncContextStopsOnlyBeforeFirstRow records the measured fact this
// package works around: database/sql with modernc.org/sqlite does not stop
// a statement whose context expires after its first row, while query.Run
// does. If this test starts failing on the first assertion, modernc has
// fixed it and the workaround can be revisited.
func TestModerncContextStopsOnlyBeforeFirstRow(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping a timing measurement under -short")
	}
	path := testdb.Fixture(t)
	sdb, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	const timeout = 100 * time.Millisecond

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	rows, err := sdb.QueryContext(ctx, boundedSlow)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	rows.Close()
	driverTime := time.Since(start)

	d := open(t)
	start = time.Now()
	_, err = query.Run(context.Background(), d, boundedSlow, query.Options{Timeout: timeout}, sinkFunc(func(query.Cursor) {}))
	oursTime := time.Since(start)
	if err == nil {
		t.Fatal("query.Run finished without hitting the deadline")
	}
	t.Logf("context deadline %v: database/sql+modernc ran %v; query.Run stopped after %v", timeout, driverTime, oursTime)
	if driverTime < 3*timeout {
		t.Errorf("modernc stopped after %v: context cancellation now works after the first row", driverTime)
	}
	if oursTime > 3*timeout {
		t.Errorf("query.Run took %v for a %v deadline", oursTime, timeout)
	}
}
