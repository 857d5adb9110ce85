package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// A statement whose vetting must read the database's own objects again
// (one was made since the guard read them) while another session holds a
// catalog locked is stopped at its deadline and said so: CI saw such a
// cut reported as "open database: canceling statement due to user
// request", which reads as a failure to open and names no deadline.
func TestCatalogReadCutAtTheDeadline(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	if _, err := query.Collect(context.Background(), e, `SELECT count(*) FROM "Genre"`, query.Options{Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	exec(t, a, `CREATE FUNCTION made_since(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1'`)
	lockTable(t, url, "pg_catalog.pg_depend")
	start := time.Now()
	_, err := query.Collect(context.Background(), e, `SELECT count(*) FROM "Genre"`, query.Options{Timeout: time.Second})
	took := time.Since(start)
	if !errors.Is(err, query.ErrDeadline) {
		t.Fatalf("with pg_depend locked: %v after %v, want the 1s deadline error", err, took.Round(time.Millisecond))
	}
	if took > 3*time.Second {
		t.Errorf("stopped after %v, want about 1s", took.Round(time.Millisecond))
	}
}
