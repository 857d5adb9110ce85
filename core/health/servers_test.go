package health

import (
	"context"
	"slices"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// serverCodes are the findings plantedOnServers plants on every engine,
// with the object each must name.
var serverCodes = map[string]string{
	NoPrimaryKey:     "log_lines",
	UnindexedFK:      "notes.parent_id",
	DuplicateIndex:   "index cities_name_again",
	RedundantIndex:   "index visits_city",
	NotNullCandidate: "people.nickname",
	WideTable:        "survey",
}

// plantedOnServers is planted.sql without the tables a server would refuse
// to hold: orphan rows (tags), text in an integer column (stock) and dates
// that are not dates (events).
func plantedOnServers(t *testing.T) string {
	t.Helper()
	return testdb.BuildAt(t, build(t, "planted"), "DROP TABLE tags; DROP TABLE stock; DROP TABLE events;")
}

func checkURL(t *testing.T, url string) *Report {
	t.Helper()
	d := testdb.Open(t, url)
	rep, err := Check(context.Background(), d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// expect requires exactly the findings of want (code → object), one each.
func expect(t *testing.T, rep *Report, want map[string]string) {
	t.Helper()
	got := map[string][]Finding{}
	for _, f := range rep.Findings {
		got[f.Code] = append(got[f.Code], f)
	}
	for code, obj := range want {
		if fs := got[code]; len(fs) != 1 || !slices.Contains(fs[0].Objects, obj) {
			t.Errorf("%s: %+v, want one naming %s", code, fs, obj)
		}
	}
	for code, fs := range got {
		if _, ok := want[code]; !ok {
			t.Errorf("unexpected %s: %+v", code, fs)
		}
	}
	if len(rep.Notes) > 0 {
		t.Errorf("notes: %v", rep.Notes)
	}
}

func TestPlantedOnMariaDB(t *testing.T) {
	url := servers.MySQLOf(t, plantedOnServers(t))
	raw := servers.MySQLClient(t, url, "")
	for _, q := range []string{
		"ALTER TABLE log_lines ENGINE = MyISAM",
		"ALTER TABLE people CONVERT TO CHARACTER SET latin1",
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want := maps(serverCodes, map[string]string{NotInnoDB: "log_lines", NotUTF8MB4: "people"})
	// InnoDB makes an index for every foreign key itself.
	delete(want, UnindexedFK)
	expect(t, checkURL(t, url), want)
	expect(t, checkURL(t, servers.MySQLOf(t, build(t, "clean"))), nil)
}

func TestPlantedOnPostgres(t *testing.T) {
	url := servers.PostgresOf(t, plantedOnServers(t))
	ctx := context.Background()
	conn := servers.PostgresClient(t, url)
	// A unique index made concurrently over duplicates fails and stays,
	// invalid; a sequence near its end; a big table never analyzed.
	for _, q := range []string{
		"CREATE TABLE codes (id integer PRIMARY KEY, code varchar(10) NOT NULL)",
		"INSERT INTO codes VALUES (1, 'A'), (2, 'A')",
		"CREATE SEQUENCE ticket_no AS integer",
		"SELECT setval('ticket_no', 2000000000)",
		"CREATE TABLE events (id integer PRIMARY KEY, kind text NOT NULL) WITH (autovacuum_enabled = false)",
		"INSERT INTO events SELECT i, 'k' FROM generate_series(1, 2000) i",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := conn.Exec(ctx, "CREATE UNIQUE INDEX CONCURRENTLY codes_code_u ON codes (code)"); err == nil {
		t.Fatal("the unique index over duplicates was built")
	}
	want := maps(serverCodes, map[string]string{InvalidIndex: "index codes_code_u", SequenceLimit: "sequence ticket_no", NeverAnalyzed: "events"})
	// A session hands its statistics (the live rows just inserted) to the
	// server when it ends, or within seconds.
	conn.Close(ctx)
	var rep *Report
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		rep = checkURL(t, url)
		if slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Code == NeverAnalyzed }) || time.Now().After(deadline) {
			break
		}
	}
	expect(t, rep, want)
	expect(t, checkURL(t, servers.PostgresOf(t, build(t, "clean"))), nil)
}

func maps(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
