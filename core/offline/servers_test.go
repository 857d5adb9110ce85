package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestEvalParityPostgres: the planner answers the gold questions of the
// sample, Chinook and the four blind sets on a PostgreSQL copy of each
// database as well as on the
// SQLite file: the same questions right, the gold SQL run on SQLite and
// the planner's SQL, written in PostgreSQL's dialect, on the server.
func TestEvalParityPostgres(t *testing.T) {
	evalParity(t, "PostgreSQL", servers.PostgresOf)
}

// TestEvalParityMySQL is TestEvalParityPostgres on a MariaDB/MySQL copy,
// the planner's SQL written in MySQL's dialect.
func TestEvalParityMySQL(t *testing.T) {
	evalParity(t, "MySQL", servers.MySQLOf)
}

// evalParity asks TestEval's gold questions (the sample's, Chinook's and
// the four blind sets', not the held-out ones) of the planner on the
// SQLite file and on the copy of it that copyOf makes on a server (engine
// names it), and fails on every question right on one and wrong on the
// other.
func evalParity(t *testing.T, engine string, copyOf func(testing.TB, string) string) {
	if testing.Short() {
		t.Skip("asks every gold question twice; skipped with -short")
	}
	for _, set := range evalSets() {
		if set.heldOut {
			continue
		}
		t.Run(set.name, func(t *testing.T) {
			lite := set.open(t)
			d, p := serverPlanner(t, copyOf(t, lite.d.Source()))
			cases := goldCases(t, set.file)
			base := evaluate(t, lite, cases)
			rep, err := eval.EvaluateAgainst(context.Background(), lite.d, d, p, cases)
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range rep.Outcomes {
				if b := base.Outcomes[i]; o.Correct != b.Correct {
					t.Errorf("%q: right on SQLite %v, on %s %v (%s)\n\tSQLite: %s\n\t%s: %s", o.Case.Question, b.Correct, engine, o.Correct, o.Note, b.SQL, engine, o.SQL)
				}
			}
			t.Logf("%s: execution accuracy SQLite %.1f%% (%d/%d), %s %.1f%% (%d/%d); precision %.1f%% and %.1f%%", set.name,
				100*base.Accuracy(), base.Correct, base.Gold, engine, 100*rep.Accuracy(), rep.Correct, rep.Gold, 100*base.Precision(), 100*rep.Precision())
		})
	}
}

// TestExactTextMySQL: Chinook's composers 'Bernardo Vilhena/Da Gama/Lazão'
// and '…/Lazao' are one value to MariaDB's default collation and two to
// SQLite. The planner's counts, groups and distinct lists on the MariaDB
// copy keep them apart, as SQLite does: the same rows on both engines.
func TestExactTextMySQL(t *testing.T) {
	if testing.Short() {
		t.Skip("copies Chinook to a server; skipped with -short")
	}
	lite := chinookPlanner(t)
	d, p := serverPlanner(t, servers.MySQLOf(t, testdb.SharedData(t, "chinook.sqlite")))
	for q, rows := range map[string]int{
		"How many distinct composers are there?": 1,
		"number of tracks per composer":          854, // 853 composers and NULL
		"list the distinct composers":            854,
	} {
		want := collectAnswer(t, lite.d, lite.p, q)
		got := collectAnswer(t, d, p, q)
		if len(want.Rows) != rows {
			t.Errorf("%q on SQLite: %d rows, want %d (%s)", q, len(want.Rows), rows, want.SQL)
		}
		if !eval.Judge(want, got, false, false).CorrectStrict {
			t.Errorf("%q: %d rows on SQLite, %d on MariaDB, not the same\n\tSQLite:  %s\n\tMariaDB: %s", q, len(want.Rows), len(got.Rows), want.SQL, got.SQL)
		}
	}
}

// collectAnswer asks p the question and runs the SQL of its answer on d
// for every row.
func collectAnswer(t *testing.T, d *db.DB, p *Planner, question string) *query.Result {
	t.Helper()
	b, err := p.Answer(context.Background(), question)
	if err != nil || b.SQL == "" {
		t.Fatalf("%q: no SQL (%v): %s", question, err, b.Answer)
	}
	res, err := query.Collect(context.Background(), d, b.SQL, query.Options{})
	if err != nil {
		t.Fatalf("%q: %s: %v", question, b.SQL, err)
	}
	return res
}

// TestValueScanServers: the value index reads a server's numbers as it
// reads SQLite's: integer years as a period, 0/1 columns and declared
// booleans as flags, Unix seconds (past 2038 too) as dates, and fractions
// in the years' range as plain numbers; questions on them get the rows
// they get on SQLite. PostgreSQL once refused these scans (no sum or MIN
// of a boolean, a 32-bit INTEGER), so its numbers stayed plain numbers
// and questions on flags and years went unanswered.
func TestValueScanServers(t *testing.T) {
	if testing.Short() {
		t.Skip("copies a database to the servers; skipped with -short")
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE gadget (gadget_id INTEGER PRIMARY KEY, model TEXT, launched INTEGER, recalled INTEGER, weight REAL, sent_at INTEGER, discontinued BOOLEAN, due_at INTEGER);\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO gadget VALUES (%d, 'Model %d', %d, %d, %d.5, %d, %d, %d);\n", i+1, i, 1990+i%30, i%3/2, 1990+i, 1700000000+i*86400, i%4/3, 2200000000+i*86400)
	}
	path := testdb.Build(t, "gadgets.db", b.String())
	lite := openPlanner(t, path)
	// kinds checks what the value index of tp made of the columns.
	kinds := func(t *testing.T, tp *testPlanner) {
		t.Helper()
		ix := testIndex(t, tp)
		for _, sk := range ix.values.skipped {
			t.Errorf("column skipped: %s", sk)
		}
		g := ix.s.byName["gadget"]
		if c := g.col("launched"); c.kind != kindDate || !c.intYear {
			t.Errorf("launched: kind %v intYear %v, want a year", c.kind, c.intYear)
		}
		if c := g.col("recalled"); c.kind != kindBool {
			t.Errorf("recalled: kind %v, want a flag", c.kind)
		}
		if c := g.col("sent_at"); c.kind != kindDate || !c.unixTime {
			t.Errorf("sent_at: kind %v unixTime %v, want Unix seconds", c.kind, c.unixTime)
		}
		// Past 2038: more than a 32-bit integer holds (a bigint on
		// PostgreSQL, where CAST AS INTEGER overflows).
		if c := g.col("due_at"); c.kind != kindDate || !c.unixTime {
			t.Errorf("due_at: kind %v unixTime %v, want Unix seconds", c.kind, c.unixTime)
		}
		if c := g.col("weight"); c.kind == kindDate || c.kind == kindBool {
			t.Errorf("weight (1990.5 and up): kind %v, want a number", c.kind)
		}
		if c := g.col("discontinued"); c.kind != kindBool {
			t.Errorf("discontinued: kind %v, want a flag", c.kind)
		}
	}
	t.Run("SQLite", func(t *testing.T) { kinds(t, lite) })
	for _, e := range []struct {
		name   string
		copyOf func(testing.TB, string) string
	}{{"PostgreSQL", servers.PostgresOf}, {"MySQL", servers.MySQLOf}} {
		t.Run(e.name, func(t *testing.T) {
			d, err := db.Open(context.Background(), e.copyOf(t, path), db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			tp := &testPlanner{d: d, p: New(d)}
			kinds(t, tp)
			// The same questions on flags and years, the same rows.
			for q, rows := range map[string]int{
				"How many gadgets were recalled?":            1,
				"How many gadgets were not recalled?":        1,
				"How many discontinued gadgets are there?":   1,
				"list the gadgets that are not discontinued": 30,
				"How many gadgets were launched in 2000?":    1,
				"How many gadgets were launched each year?":  30,
			} {
				want := collectAnswer(t, lite.d, lite.p, q)
				got := collectAnswer(t, d, tp.p, q)
				if len(want.Rows) != rows {
					t.Errorf("%q on SQLite: %d rows, want %d (%s)", q, len(want.Rows), rows, want.SQL)
				}
				if !eval.Judge(want, got, false, false).CorrectStrict {
					t.Errorf("%q: not the same rows on SQLite and %s\n\tSQLite: %s %v\n\t%s: %s %v", q, e.name, want.SQL, want.Rows, e.name, got.SQL, got.Rows)
				}
			}
		})
	}
}

// serverPlanner opens the database at url (closed when the test ends) and
// a planner on it with its indexes built.
func serverPlanner(t *testing.T, url string) (*db.DB, *Planner) {
	t.Helper()
	tp := freshPlanner(t, url)
	return tp.d, tp.p
}

// TestEvalParityMySQLReader is TestEvalParityMySQL as the user tablewise
// doctor recommends (SELECT, SHOW VIEW on the database), who cannot read
// mysql.func: the guard then refuses a call of any name that is not the
// server's own (it may be a loadable function), and the planner's SQL
// must still pass it.
func TestEvalParityMySQLReader(t *testing.T) {
	evalParity(t, "MySQL as a reader", func(t testing.TB, path string) string {
		u, _, _ := servers.MySQLReader(t, servers.MySQLOf(t, path))
		return u
	})
}
