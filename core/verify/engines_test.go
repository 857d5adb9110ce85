package verify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// engines runs fn on the sample in every engine this build opens: the
// SQLite file, and copies on PostgreSQL and MariaDB when db.Open takes
// their URLs (servers skips a server that is not running).
func engines(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, testdb.Sample(t)) })
	for _, e := range []struct {
		name, probe string
		url         func(testing.TB) string
	}{
		{"postgres", "postgres://127.0.0.1:1/none", servers.PostgresSample},
		{"mysql", "mysql://root@127.0.0.1:1/none", servers.MySQLSample},
	} {
		t.Run(e.name, func(t *testing.T) {
			if _, err := db.Open(context.Background(), e.probe, db.Options{}); errors.Is(err, engine.ErrBadPath) {
				t.Skipf("this build opens no %s URL", e.name)
			}
			if testing.Short() {
				t.Skip("copies the sample to a server; skipped with -short")
			}
			d := testdb.Open(t, e.url(t))
			fn(t, d)
		})
	}
}

// The checks say the same on every engine: they are written with the
// engine's Dialect and run through core/query.
func TestChecksOnEveryEngine(t *testing.T) {
	engines(t, func(t *testing.T, d *db.DB) {
		r := check(t, d, `SELECT count(*) AS n FROM customers c JOIN countries k ON k.country_id = c.country_id WHERE k.name IN ('U.K.', 'France') AND c.type LIKE 'busi%'`)
		if len(r.Literals) != 3 {
			t.Fatalf("literals %+v", r.Literals)
		}
		uk := r.Literals[0]
		if uk.Value != "U.K." || uk.Found || uk.Unchecked != "" || len(uk.Closest) == 0 || uk.Closest[0] != "United Kingdom" {
			t.Errorf("U.K.: %+v", uk)
		}
		if !r.Literals[1].Found || !r.Literals[2].Found {
			t.Errorf("France, busi%%: %+v %+v", r.Literals[1], r.Literals[2])
		}
		if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "the closest values are 'United Kingdom'") {
			t.Errorf("notes %q", r.Notes)
		}
		r = check(t, d, `SELECT count(*) AS n FROM orders WHERE ship_country = 'Atlantis'`)
		if len(r.Notes) != 2 || !strings.Contains(r.Notes[1], "the count is 0") {
			t.Errorf("count of zero: %q", r.Notes)
		}
		r = check(t, d, `SELECT sum(o.freight) AS f FROM orders o JOIN order_items i ON i.order_id = o.order_id`)
		if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "the joins repeat rows of orders") {
			t.Errorf("fan-out: %q", r.Notes)
		}
	})
}
