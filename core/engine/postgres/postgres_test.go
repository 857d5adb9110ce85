package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// open opens url with the engine and closes it when the test ends.
func open(t testing.TB, url string) *postgres.Engine {
	t.Helper()
	e, err := postgres.Open(context.Background(), url, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// admin connects to url directly, as the superuser, outside the engine:
// to set up fixtures and to check what the server holds.
func admin(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	return servers.PostgresClient(t, url)
}

// lockTable holds table, on a session of its own at url, in ACCESS
// EXCLUSIVE mode, until the test ends (or the session rolls back, which
// it returns for).
func lockTable(t testing.TB, url, table string) *pgx.Conn {
	t.Helper()
	locker := admin(t, url)
	exec(t, locker, "BEGIN")
	exec(t, locker, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE")
	t.Cleanup(func() { locker.Exec(context.Background(), "ROLLBACK") })
	return locker
}

func exec(t testing.TB, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestChinookQuery(t *testing.T) {
	url := servers.Postgres(t)
	e := open(t, url)
	res, err := query.Collect(context.Background(), e, `SELECT "Name", "Milliseconds", "UnitPrice" FROM "Track" WHERE "TrackId" = 1`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != "For Those About To Rock (We Salute You)" || res.Rows[0][1] != int64(343719) || res.Rows[0][2] != 0.99 {
		t.Fatalf("rows %#v", res.Rows)
	}
	if got := []string{res.Columns[0].Type, res.Columns[1].Type, res.Columns[2].Type}; strings.Join(got, ",") != "varchar,int4,numeric" {
		t.Errorf("column types %v", got)
	}
	if e.Source().Display != url || e.Source().Label == "" {
		t.Errorf("source %+v", e.Source())
	}
}

// TestValues: each type maps onto the storage classes as decided for
// every server engine.
func TestValues(t *testing.T) {
	e := open(t, servers.Postgres(t))
	res, err := query.Collect(context.Background(), e, `SELECT 1::int2, 9223372036854775807::int8, 2.5::float8, 'NaN'::float8,
		12.50::numeric(10,2), 1234567890.12345::numeric, 12345678901234567890.5::numeric, true, false,
		'2024-03-01'::date, '2024-03-01 10:00:00'::timestamp, '2024-03-01 10:00:00.25+02'::timestamptz,
		'{"a": [1, 2]}'::jsonb, ARRAY[1, NULL, 3], ARRAY['a b', 'c"d', NULL], ARRAY[[1, 2], [3, 4]],
		'00000000-0000-0000-0000-000000000001'::uuid, interval '1 day 2 hours', '\x00ff10'::bytea, NULL::text, 'é', 0.1::float4, (-32768)::int2, 0.1::float8`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(1), int64(9223372036854775807), 2.5, nil, 12.5, 1234567890.12345, "12345678901234567890.5", int64(1), int64(0),
		"2024-03-01", "2024-03-01T10:00:00", "2024-03-01T08:00:00.25Z",
		`{"a": [1, 2]}`, "[1,null,3]", `["a b","c\"d",null]`, "[[1,2],[3,4]]",
		"00000000-0000-0000-0000-000000000001", "1 day 02:00:00", []byte{0, 0xff, 0x10}, nil, "é", 0.1, int64(-32768), 0.1}
	r := res.Rows[0]
	for i, w := range want {
		if i == 3 {
			if f, ok := r[i].(float64); !ok || f == f {
				t.Errorf("col %d = %#v, want NaN", i, r[i])
			}
			continue
		}
		if b, ok := w.([]byte); ok {
			if g, ok := r[i].([]byte); !ok || string(g) != string(b) {
				t.Errorf("col %d = %#v, want %#v", i, r[i], w)
			}
			continue
		}
		if r[i] != w {
			t.Errorf("col %d = %#v (%T), want %#v (%T)", i, r[i], r[i], w, w)
		}
	}
	for i, ty := range map[int]string{0: "int2", 4: "numeric", 7: "bool", 11: "timestamptz", 13: "int4[]", 18: "bytea"} {
		if res.Columns[i].Type != ty {
			t.Errorf("column %d type %q, want %q", i, res.Columns[i].Type, ty)
		}
	}
}

func TestSQLErrorsNameWhatIsMissing(t *testing.T) {
	e := open(t, servers.Postgres(t))
	for sql, missing := range map[string]string{
		`SELECT * FROM "Trak"`:             "Trak",
		`SELECT "Nme" FROM "Track"`:        "Nme",
		`SELECT t."Nme" FROM "Track" AS t`: "Nme",
		`SELECT * FROM Track`:              "track",
	} {
		_, err := query.Collect(context.Background(), e, sql, query.Options{})
		var se *guard.SQLError
		if !errors.As(err, &se) || se.Missing != missing {
			t.Errorf("%s: %v, want a SQL error missing %q", sql, err, missing)
		}
	}
}

// TestParameters: a statement with $1… is refused saying so, whatever
// the server would say when it met the missing value first; and the
// session serves the next statement (the vetted statement's name is free
// again).
func TestParameters(t *testing.T) {
	e, err := postgres.Open(context.Background(), servers.Postgres(t), engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, sql := range []string{`SELECT * FROM "Genre" WHERE "GenreId" = $1`, `SELECT $1 || $2`, `EXPLAIN SELECT * FROM "Genre" WHERE "GenreId" = $1`} {
		_, err := query.Collect(context.Background(), e, sql, query.Options{})
		var se *guard.SQLError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "parameter(s) ($1…) and none can be given") {
			t.Errorf("%s: %v, want the parameters refused", sql, err)
		}
		res, err := query.Collect(context.Background(), e, `SELECT "Name" FROM "Genre" WHERE "GenreId" = 1`, query.Options{})
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "Rock" {
			t.Fatalf("after %s: %v %v", sql, res, err)
		}
	}
}

func TestCatalog(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE TABLE "Pair" (a int, b int, note text, PRIMARY KEY (a, b))`)
	exec(t, a, `CREATE TABLE "PairRef" (id int PRIMARY KEY, a int, b int, FOREIGN KEY (a, b) REFERENCES "Pair" (a, b))`)
	exec(t, a, `INSERT INTO "Pair" VALUES (1, 2, 'x'), (1, 3, 'y')`)
	exec(t, a, `COMMENT ON TABLE "Pair" IS 'pairs of things'`)
	exec(t, a, `COMMENT ON COLUMN "Pair".note IS 'what the pair is'`)
	exec(t, a, `CREATE VIEW "BigInvoices" AS SELECT * FROM "Invoice" WHERE "Total" > 10`)
	exec(t, a, `CREATE MATERIALIZED VIEW genre_counts AS SELECT "GenreId", count(*) AS n FROM "Track" GROUP BY 1`)
	e := open(t, url)
	cat, err := e.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	track := cat.Table("Track")
	if track == nil || track.Schema != "public" || track.Kind != "table" || track.RowCount != 3503 || track.RowCountEstimated {
		t.Fatalf("Track: %+v", track)
	}
	if strings.Join(track.PrimaryKey, ",") != "TrackId" || len(track.Sample) != 3 {
		t.Errorf("Track key %v, %d sample rows", track.PrimaryKey, len(track.Sample))
	}
	var fkAlbum bool
	for _, fk := range track.ForeignKeys {
		if fk.RefTable == "Album" && strings.Join(fk.Columns, ",") == "AlbumId" && strings.Join(fk.RefColumns, ",") == "AlbumId" {
			fkAlbum = true
		}
	}
	if !fkAlbum {
		t.Errorf("Track foreign keys %+v", track.ForeignKeys)
	}
	pair := cat.Table("Pair")
	if pair == nil || strings.Join(pair.PrimaryKey, ",") != "a,b" || pair.Comment != "pairs of things" || pair.Columns[2].Comment != "what the pair is" || pair.Columns[1].PK != 2 {
		t.Fatalf("Pair: %+v", pair)
	}
	ref := cat.Table("PairRef")
	if ref == nil || len(ref.ForeignKeys) != 1 || strings.Join(ref.ForeignKeys[0].Columns, ",") != "a,b" || strings.Join(ref.ForeignKeys[0].RefColumns, ",") != "a,b" || ref.ForeignKeys[0].RefTable != "Pair" {
		t.Fatalf("PairRef: %+v", ref)
	}
	var pk bool
	for _, ix := range pair.Indexes {
		pk = pk || ix.Origin == "pk" && ix.Unique && strings.Join(ix.Columns, ",") == "a,b"
	}
	if !pk {
		t.Errorf("Pair indexes %+v", pair.Indexes)
	}
	if v := cat.Table("BigInvoices"); v == nil || v.Kind != "view" || v.RowCount <= 0 || len(v.Columns) != 9 {
		t.Errorf("view: %+v", v)
	}
	if m := cat.Table("genre_counts"); m == nil || m.Kind != "materialized view" || m.RowCount != 25 {
		t.Errorf("materialized view: %+v", m)
	}
	names, err := e.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(names.Tables) != len(cat.Tables) || len(names.ColumnNames("Track")) != 9 {
		t.Errorf("names: %d tables, Track %v", len(names.Tables), names.ColumnNames("Track"))
	}
}

func TestExplain(t *testing.T) {
	e := open(t, servers.Postgres(t))
	p, err := e.Explain(context.Background(), `EXPLAIN SELECT * FROM "Track" ORDER BY "Name"`)
	if err != nil {
		t.Fatal(err)
	}
	text := p.Text()
	if !strings.Contains(text, "Seq Scan on Track") || !strings.Contains(text, "Sort") || p.SQL != `SELECT * FROM "Track" ORDER BY "Name"` {
		t.Errorf("plan %q\n%s", p.SQL, text)
	}
	if _, err := e.Explain(context.Background(), "DELETE FROM \"Track\""); !errors.Is(err, guard.ErrRefused) {
		t.Errorf("explain of a delete: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://tw:s3cret@127.0.0.1:1/nowhere?connect_timeout=2", engine.Options{})
	if !errors.Is(err, engine.ErrUnavailable) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("unreachable server: %v", err)
	}
}

// TestOpenErrorSaidOnce: under sslmode=prefer pgx tries the server twice
// (with TLS, then without) and reports both attempts; a database that
// accepts no connections is named once, not twice in the same words.
func TestOpenErrorSaidOnce(t *testing.T) {
	u, err := url.Parse(servers.PostgresSample(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path, u.RawQuery = "/template0", "sslmode=prefer"
	_, err = postgres.Open(context.Background(), u.String(), engine.Options{})
	const refusal = `database "template0" is not currently accepting connections`
	if err == nil || strings.Count(err.Error(), refusal) != 1 {
		t.Errorf("opening template0, the server's refusal once: %v", err)
	}
}

// TestConcurrentRuns: more callers than pooled connections, reads and
// refusals mixed, each with its right answer.
func TestConcurrentRuns(t *testing.T) {
	e := open(t, servers.Postgres(t))
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if (g+i)%3 == 0 {
					_, err := query.Collect(context.Background(), e, "SELECT pg_advisory_lock(1)", query.Options{})
					if !errors.Is(err, guard.ErrRefused) {
						errs <- fmt.Errorf("advisory lock: %v", err)
					}
					continue
				}
				res, err := query.Collect(context.Background(), e, fmt.Sprintf(`SELECT count(*) FROM "Track" WHERE "TrackId" <= %d`, i+1), query.Options{Timeout: time.Minute})
				if err != nil || res.Rows[0][0] != int64(i+1) {
					errs <- fmt.Errorf("count %d: %v %v", i+1, res, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
