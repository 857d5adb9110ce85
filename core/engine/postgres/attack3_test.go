package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestMovingAggregateInverseRunsNothing: a moving aggregate's inverse
// transition function (MINVFUNC) runs when a window frame drops a row,
// the text naming only the aggregate. An aggregate whose every other
// support function is the server's (int4pl) and whose MINVFUNC is the
// database's own code ran it. Here it ends another session.
func TestMovingAggregateInverseRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION unstep(int, int) RETURNS int IMMUTABLE STRICT LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN $1 - $2; END $$`)
	exec(t, a, `CREATE AGGREGATE msum(int) (SFUNC = int4pl, STYPE = int, MSFUNC = int4pl, MINVFUNC = unstep, MSTYPE = int)`)
	exec(t, a, `CREATE VIEW moving AS SELECT msum("GenreId") OVER (ORDER BY "GenreId" ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM "Genre"`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "msum",
		`SELECT msum("GenreId") OVER (ORDER BY "GenreId" ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM "Genre"`,
		`SELECT * FROM moving`)
}

// TestLibraryFunctionRunsNothing: a function the database's owner
// declared in LANGUAGE C, outside any extension, runs a library's code
// under a name of the owner's choosing: tablefunc's connectby_text,
// declared as tree() in a database without tablefunc, builds a query
// from its arguments' text and runs it, here one that ends another
// session. Neither the function's name nor its symbol is denied; the
// guard cannot see into it.
func TestLibraryFunctionRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION tree(text, text, text, text, int) RETURNS SETOF record LANGUAGE C STABLE STRICT AS '$libdir/tablefunc', 'connectby_text'`)
	const relation = `'(SELECT 2 AS a, 1 AS b, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ''tablewise_victim'') s'`
	exec(t, a, `CREATE VIEW trees AS SELECT * FROM tree(`+relation+`, 'a', 'b', '1', 0) AS x(a int, b int, l int)`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "tree",
		`SELECT * FROM tree(`+relation+`, 'a', 'b', '1', 0) AS x(a int, b int, l int)`,
		`SELECT * FROM trees`)
}

// TestJITStopsAtDeadline: the server compiles a costly statement's
// expressions with LLVM (jit, on by default) without checking for a
// cancel or statement_timeout: a filter of 200 terms over 10 million
// rows went on compiling on the server long after its 2 s deadline.
func TestJITStopsAtDeadline(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	if !servers.PostgresColumn[bool](t, a, `SELECT pg_jit_available()`)[0] {
		t.Skip("the server has no JIT: nothing to prove")
	}
	terms := make([]string, 200)
	for i := range terms {
		terms[i] = fmt.Sprintf("((g+%d)*%d%%7+sqrt(g+%d))", i, i+1, i)
	}
	sql := `SELECT count(*) AS jit_marker FROM generate_series(1, 10000000) g WHERE ` + strings.Join(terms, "+") + ` < 0`
	e := open(t, url)
	defer func() {
		// A compilation left running ends on its own: wait for it.
		for range 60 {
			if running(t, a, "jit_marker") == 0 {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	// The second run makes a verdict, the third runs on it (vetted.go).
	for run := 1; run <= 3; run++ {
		servers.StopsAtDeadline(t, fmt.Sprintf("a JIT-compiled filter (run %d)", run), func(timeout time.Duration) error {
			_, err := query.Collect(context.Background(), e, sql, query.Options{Timeout: timeout})
			return err
		}, func() int { return running(t, a, "jit_marker") })
	}
}

// TestOperatorCommutatorRunsNothing: the planner estimates a condition
// whose column is on the right (5 ### a) with the operator's commutator,
// and rewrites NOT (a ### 5) with its negator, then estimates with it:
// scalarltsel and scalargesel call the operator's function on the
// column's histogram while the statement is planned (EXPLAIN too). An
// operator whose own function is the server's int4lt, with a commutator
// or negator of the database's own code, ran that code, the text never
// writing the commutator or the negator. Here it ends another session.
func TestOperatorCommutatorRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION swapped(int, int) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN $1 > $2; END $$`)
	exec(t, a, `CREATE OPERATOR #@# (LEFTARG = int, RIGHTARG = int, FUNCTION = swapped)`)
	exec(t, a, `CREATE OPERATOR #!# (LEFTARG = int, RIGHTARG = int, FUNCTION = swapped, RESTRICT = scalargesel)`)
	exec(t, a, `CREATE OPERATOR ### (LEFTARG = int, RIGHTARG = int, FUNCTION = int4lt, COMMUTATOR = #@#, NEGATOR = #!#, RESTRICT = scalarltsel)`)
	exec(t, a, `CREATE TABLE spread AS SELECT g AS a FROM generate_series(1, 1000) g`)
	exec(t, a, `ANALYZE spread`)
	exec(t, a, `CREATE VIEW below AS SELECT a FROM spread WHERE 5 ### a`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "swapped",
		`SELECT a FROM spread WHERE 5 ### a`,
		`SELECT a FROM spread WHERE NOT (a ### 5)`,
		`EXPLAIN SELECT a FROM spread WHERE 5 ### a`,
		`SELECT a FROM below`)
}

// TestSupportFunctionRunsNothing: the planner calls a function's planner
// support function (prosupport) to simplify or estimate every call of it
// with a non-constant argument, the text never naming it. The database's
// owner can declare pg_stat_reset's code (LANGUAGE internal) as the
// support function of a function of their own whose code is the
// server's int4pl, or set it on int4pl itself (ALTER FUNCTION … SUPPORT),
// which + calls: planning myadd("GenreId", 1), or "GenreId" + 1, reset
// the database's statistics.
func TestSupportFunctionRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION resets(internal) RETURNS internal LANGUAGE internal AS 'pg_stat_reset'`)
	exec(t, a, `CREATE FUNCTION myadd(int, int) RETURNS int LANGUAGE internal IMMUTABLE STRICT SUPPORT resets AS 'int4pl'`)
	exec(t, a, `CREATE VIEW added AS SELECT myadd("GenreId", 1) AS n FROM "Genre"`)
	const resetAt = `SELECT coalesce(stats_reset::text, 'never') FROM pg_stat_database WHERE datname = current_database()`
	before := servers.PostgresColumn[string](t, a, resetAt)[0]
	e := open(t, url)
	refused(t, e, "myadd()", `SELECT myadd("GenreId", 1) FROM "Genre"`, `SELECT n FROM added`)
	exec(t, a, `ALTER FUNCTION pg_catalog.int4pl(int, int) SUPPORT resets`)
	e = open(t, url)
	refused(t, e, "resets()", `SELECT "GenreId" + 1 FROM "Genre"`)
	if after := servers.PostgresColumn[string](t, a, resetAt)[0]; after != before {
		t.Errorf("the database's statistics were reset (at %s, before %s)", after, before)
	}
}

// TestPrintingStoredValuesReadsNoFile: a type's output function runs
// whenever a value of it is printed, also a constant inside a stored
// expression that the server's deparsing functions print (pg_get_expr,
// pg_get_viewdef, and the catalog views built on them, which the
// catalog reads for column defaults) and a value the statistics hold
// (pg_stats' most_common_vals). With pg_read_file's code as a type's
// output function, printing a column default, a view's definition, a
// domain's CHECK (which the guard itself read) or the statistics of a
// column of that type opened the file each value names. The file here
// does not exist: the server's error naming it shows that it was opened.
func TestPrintingStoredValuesReadsNoFile(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	const probe = "/nonexistent/tablewise-deparse-probe"
	baseType(t, a, "fpath", "textin", "pg_read_file_all", "INTERNALLENGTH = VARIABLE")
	exec(t, a, `CREATE FUNCTION fpath_eq(fpath, fpath) RETURNS bool LANGUAGE internal IMMUTABLE STRICT AS 'byteaeq'`)
	exec(t, a, `CREATE OPERATOR = (LEFTARG = fpath, RIGHTARG = fpath, FUNCTION = fpath_eq)`)
	// An equality of a default class lets ANALYZE keep the most common
	// values.
	exec(t, a, `CREATE FUNCTION fpath_hash(fpath) RETURNS int LANGUAGE internal IMMUTABLE STRICT AS 'hashvarlena'`)
	exec(t, a, `CREATE OPERATOR CLASS fpath_ops DEFAULT FOR TYPE fpath USING hash AS OPERATOR 1 =, FUNCTION 1 fpath_hash(fpath)`)
	exec(t, a, `CREATE TABLE defaults (p text DEFAULT ('`+probe+`'::fpath)::text)`)
	exec(t, a, `CREATE VIEW shows AS SELECT "GenreId" FROM "Genre" WHERE ('`+probe+`'::fpath)::text IS NOT NULL`)
	exec(t, a, `CREATE DOMAIN checked_path AS text CHECK (VALUE <> ('`+probe+`'::fpath)::text)`)
	exec(t, a, `CREATE TABLE paths AS SELECT '`+probe+`'::fpath AS p FROM generate_series(1, 100)`)
	exec(t, a, `ANALYZE paths`)
	e, err := postgres.Open(context.Background(), url, engine.Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer e.Close()
	for _, sql := range []string{
		`SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef`,
		`SELECT pg_get_viewdef('shows'::regclass)`,
		`SELECT pg_catalog.pg_get_constraintdef(oid) FROM pg_constraint WHERE contypid <> 0`,
		`SELECT column_default FROM information_schema.columns WHERE table_name = 'defaults'`,
		`SELECT definition FROM pg_views WHERE viewname = 'shows'`,
		`SELECT most_common_vals::text FROM pg_stats WHERE tablename = 'paths'`,
		`SELECT stavalues1::text FROM pg_statistic WHERE starelid = 'paths'::regclass`,
	} {
		_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 5e9})
		if !refusalNames(err, "fpath_out") {
			t.Errorf("%s: not refused naming fpath_out: %v", sql, err)
		}
	}
	if _, err := e.Catalog(context.Background()); err != nil && strings.Contains(err.Error(), "tablewise-deparse-probe") {
		t.Errorf("the catalog opened the file: %v", err)
	}
}

// TestServerObjectsAlteredRunNothing: a superuser can point the server's
// own operators and types at functions of the database's (ALTER OPERATOR
// … SET (RESTRICT = …), ALTER TYPE … SET (SEND = …)), keeping their
// oids: the estimator of int4's = reset the database's statistics while
// a condition on it was planned, and int4's send function, PL/pgSQL of
// the database's, ran for every int4 value a result sent (tablewise
// reads integers in binary), here ending another session.
func TestServerObjectsAlteredRunNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION resets(internal, oid, internal, int4) RETURNS float8 LANGUAGE internal STABLE STRICT AS 'pg_stat_reset'`)
	const resetAt = `SELECT coalesce(stats_reset::text, 'never') FROM pg_stat_database WHERE datname = current_database()`
	before := servers.PostgresColumn[string](t, a, resetAt)[0]
	// The engine knows the database before the server's objects are
	// altered: what it knows must be found out of date.
	e := open(t, url)
	if _, err := collect(t, e, `SELECT "Name" FROM "Genre" WHERE "GenreId" = 5`); err != nil {
		t.Fatal(err)
	}
	exec(t, a, `ALTER OPERATOR pg_catalog.= (int4, int4) SET (RESTRICT = resets)`)
	refused(t, e, "resets()", `SELECT "Name" FROM "Genre" WHERE "GenreId" = 5`)
	if after := servers.PostgresColumn[string](t, a, resetAt)[0]; after != before {
		t.Errorf("the database's statistics were reset (at %s, before %s)", after, before)
	}
	exec(t, a, `CREATE FUNCTION sends(int4) RETURNS bytea IMMUTABLE STRICT LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN int4send($1); END $$`)
	// Restored, so that only the type refuses what follows (a refusal
	// is kept while what the guard knows is young).
	exec(t, a, `ALTER OPERATOR pg_catalog.= (int4, int4) SET (RESTRICT = eqsel)`)
	postgres.ExpireLocal(e)
	victim := victimSession(t, url)
	exec(t, a, `ALTER TYPE pg_catalog.int4 SET (SEND = sends)`)
	refusedNaming(t, e, victim, "sends()", `SELECT "GenreId" FROM "Genre"`)
}

// TestOperatorFamilyAlteredRunsNothing: a superuser can add a function
// of the database's to the server's own operator family (ALTER OPERATOR
// FAMILY integer_ops USING btree ADD FUNCTION 3 …): a window frame
// RANGE BETWEEN 1.5 PRECEDING over an int4 ordering runs it as the
// family's in_range function for (int4, numeric), and the plan shows no
// call. Here it ends another session.
func TestOperatorFamilyAlteredRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	const sql = `SELECT count(*) OVER (ORDER BY "GenreId" RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM "Genre"`
	// The engine knows the database before the family is altered.
	e := open(t, url)
	if _, err := collect(t, e, `SELECT count(*) FROM "Genre"`); err != nil {
		t.Fatal(err)
	}
	exec(t, a, `CREATE FUNCTION in_frame(int4, int4, numeric, bool, bool) RETURNS bool IMMUTABLE STRICT LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN true; END $$`)
	exec(t, a, `ALTER OPERATOR FAMILY integer_ops USING btree ADD FUNCTION 3 (int4, numeric) in_frame(int4, int4, numeric, bool, bool)`)
	victim := victimSession(t, url)
	refusedNaming(t, e, victim, "in_frame()", sql)
}

// TestServerFunctionReplacedRunsNothing: a superuser can replace a
// function of the server's, keeping its oid (CREATE OR REPLACE FUNCTION
// pg_catalog.quote_nullable(text) … LANGUAGE sql): the planner inlines a
// SQL function's body, and folds the calls on constants in it, so that
// planning quote_nullable("Name") ran the database's own code, which the
// text never names. Here it ends another session.
func TestServerFunctionReplacedRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, foldKiller)
	// The engine knows the database before the function is replaced.
	e := open(t, url)
	if _, err := collect(t, e, `SELECT quote_nullable("Name") FROM "Genre"`); err != nil {
		t.Fatal(err)
	}
	exec(t, a, `CREATE OR REPLACE FUNCTION pg_catalog.quote_nullable(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT $1 || public.fold(1)::text'`)
	victim := victimSession(t, url)
	refusedNaming(t, e, victim, "quote_nullable()", `SELECT quote_nullable("Name") FROM "Genre"`)
}

// TestTextSearchTemplateRunsNothing: a text search dictionary runs its
// template's functions on every word it is given, the text naming only a
// configuration, by a string ('cfg') or not at all (the database's
// default_text_search_config, which to_tsvector(text) and text @@ text
// use). With pg_stat_reset's code as a template's LEXIZE function,
// planning to_tsvector('cfg', 'hello world') (EXPLAIN too: the planner
// folds it) reset the database's statistics.
func TestTextSearchTemplateRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION lexes(internal, internal, internal, internal) RETURNS internal LANGUAGE internal AS 'pg_stat_reset'`)
	exec(t, a, `CREATE TEXT SEARCH TEMPLATE resetting (LEXIZE = lexes)`)
	exec(t, a, `CREATE TEXT SEARCH DICTIONARY resetter (TEMPLATE = resetting)`)
	exec(t, a, `CREATE TEXT SEARCH CONFIGURATION cfg (COPY = simple)`)
	exec(t, a, `ALTER TEXT SEARCH CONFIGURATION cfg ALTER MAPPING FOR asciiword WITH resetter`)
	const resetAt = `SELECT coalesce(stats_reset::text, 'never') FROM pg_stat_database WHERE datname = current_database()`
	before := servers.PostgresColumn[string](t, a, resetAt)[0]
	e := open(t, url)
	refused(t, e, "lexes()", `SELECT to_tsvector('cfg', 'hello world')`, `EXPLAIN SELECT to_tsvector('cfg', 'hello world')`)
	if after := servers.PostgresColumn[string](t, a, resetAt)[0]; after != before {
		t.Errorf("the database's statistics were reset (at %s, before %s)", after, before)
	}
}

// TestErrorLargerThanByteCap: the server's error for a cast names the
// whole text it could not read, and under a byte cap the client refuses
// any message longer than the cap allows a row (setRowLimit). An error
// of 200 KB under a 1000-byte cap was reported as a result cut at the
// byte cap, with no rows and no error; it must be the error, clipped.
func TestErrorLargerThanByteCap(t *testing.T) {
	e := open(t, servers.Postgres(t))
	for _, q := range []string{
		// Computed while the statement runs, not while it is planned.
		`SELECT repeat('y', 200000 + g)::int AS n FROM generate_series(0, 0) g`,
		// After a row.
		`SELECT CASE WHEN g = 2 THEN repeat('y', 200000 + g)::int ELSE g END AS n FROM generate_series(1, 2) g`,
	} {
		// Twice: the second runs on the verdict of the first (vetted.go).
		for run := 1; run <= 2; run++ {
			res, err := query.Collect(context.Background(), e, q, query.Options{MaxBytes: 1000, Timeout: 10 * time.Second})
			var sqlErr *guard.SQLError
			if !errors.As(err, &sqlErr) || !strings.Contains(err.Error(), `invalid input syntax for type integer: "yyyy`) {
				t.Errorf("%s (run %d): %v, %+v; want the server's error", q, run, err, res)
				continue
			}
			if len(err.Error()) > 10000 {
				t.Errorf("%s (run %d): an error of %d bytes under a 1000-byte cap", q, run, len(err.Error()))
			}
		}
	}
	// A row as long as an error that is read is still cut at the cap as
	// it arrives, not read: no error, and little memory.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := query.Collect(context.Background(), e, `SELECT repeat('y', (12 << 20) + g) AS v FROM generate_series(0, 0) g`, query.Options{MaxBytes: 1000, Timeout: 10 * time.Second})
	runtime.ReadMemStats(&after)
	if err != nil || !res.Truncated || len(res.Rows) != 0 {
		t.Errorf("a row of 12 MB under a 1000-byte cap: %v %+v", err, res)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 6<<20 {
		t.Errorf("a row of 12 MB under a 1000-byte cap allocated %d MB", grew>>20)
	}
	// An error past what is read of one is a limit, not a cut result.
	_, err = query.Collect(context.Background(), e, `SELECT repeat('y', 17000000 + g)::int AS n FROM generate_series(0, 0) g`, query.Options{MaxBytes: 1000, Timeout: 10 * time.Second})
	var lim *query.LimitError
	if !errors.As(err, &lim) || lim.Kind != "memory" || !strings.Contains(err.Error(), "error message") {
		t.Errorf("an error of 17 MB under a 1000-byte cap: %v", err)
	}
	// The engine goes on serving.
	if res, err := query.Collect(context.Background(), e, `SELECT count(*) FROM "Genre"`, query.Options{MaxBytes: 1000}); err != nil || res.Rows[0][0] != int64(25) {
		t.Errorf("the next statement: %v %v", res, err)
	}
}

// TestEveryConnectionRunsWithoutJIT: statements on every pooled
// connection, also those opened while others were busy and those reused
// after DISCARD ALL, run with jit off, where the server has it.
func TestEveryConnectionRunsWithoutJIT(t *testing.T) {
	url := servers.Postgres(t)
	if !servers.PostgresColumn[bool](t, admin(t, url), `SELECT pg_jit_available()`)[0] {
		t.Skip("the server has no JIT: nothing to prove")
	}
	e := open(t, url)
	settings := make(chan string, 12)
	for range 12 {
		go func() {
			res, err := query.Collect(context.Background(), e, `SELECT current_setting('jit') AS jit, pg_sleep(0.05) IS NULL AS slept`, query.Options{Timeout: 10 * time.Second})
			if err != nil {
				settings <- err.Error()
				return
			}
			settings <- fmt.Sprint(res.Rows[0][0])
		}()
	}
	for range 12 {
		if got := <-settings; got != "off" {
			t.Errorf("jit in a statement: %s, want off", got)
		}
	}
}
