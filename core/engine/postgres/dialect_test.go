package postgres_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "Track": `"Track"`, "Order Details": `"Order Details"`, "order": `"order"`, `we"ird`: `"we""ird"`, "x1": "x1", "1x": `"1x"`} {
		if got := (postgres.Dialect{}).QuoteIdentIfNeeded(in); got != want {
			t.Errorf("QuoteIdentIfNeeded(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDateBucketsMatchSQLite: every period, from a date, a timestamp and
// ISO text, and Unix seconds, is the same text on PostgreSQL as SQLite's
// strftime gives (weeks from the first Monday, as %W).
func TestDateBucketsMatchSQLite(t *testing.T) {
	pg := open(t, servers.Postgres(t))
	lite, err := sqlite.Open(context.Background(), testdb.Fixture(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	dates := []string{"2024-01-01", "2024-01-07", "2024-01-08", "2023-01-01", "2023-01-02", "2021-12-31", "2024-12-30", "2020-02-29", "2024-03-31"}
	units := []engine.TimeUnit{engine.Year, engine.Quarter, engine.Month, engine.Week, engine.Day}
	one := func(e query.Runner, sql string) string {
		t.Helper()
		res, err := query.Collect(context.Background(), e, sql, query.Options{})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		s, _ := res.Rows[0][0].(string)
		return s
	}
	for _, d := range dates {
		for _, u := range units {
			want := one(lite, "SELECT "+(sqlite.Dialect{}).DateBucket("'"+d+" 10:30:00'", u))
			for _, expr := range []string{"DATE '" + d + "'", "TIMESTAMP '" + d + " 10:30:00'", "'" + d + " 10:30:00'"} {
				if got := one(pg, "SELECT "+pg.Dialect().DateBucket(expr, u)); got != want {
					t.Errorf("%s of %s: PostgreSQL %q, SQLite %q", u, expr, got, want)
				}
			}
			secs := one(lite, "SELECT CAST(strftime('%s', '"+d+" 10:30:00') AS TEXT)")
			if got := one(pg, "SELECT "+pg.Dialect().DateBucket(pg.Dialect().FromUnixSeconds(secs), u)); got != want {
				t.Errorf("%s of %s seconds: PostgreSQL %q, SQLite %q", u, secs, got, want)
			}
		}
	}
	if got := one(pg, `SELECT CASE WHEN `+pg.Dialect().Like("'Hello World'", `%o w%`)+` THEN 'yes' ELSE 'no' END`); got != "yes" {
		t.Errorf("Like ignores case: %q", got)
	}
}
