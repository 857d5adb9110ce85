package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestLineCommentEndsAtCarriageReturn: the server ends a -- comment at a
// carriage return as at a newline, so what follows it is code: the guard
// must read it as code too, or a call of the database's own IMMUTABLE
// function after "--\r" runs while the statement is planned. Here it ends
// another session.
func TestLineCommentEndsAtCarriageReturn(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, foldKiller)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "fold()",
		"SELECT 1 --\r, fold(1)",
		"SELECT 1 AS a -- a comment\r, fold(2) AS b",
		"EXPLAIN SELECT 1 --\r, fold(3)")
}

// TestExplainAnalyzeSpelledOtherwise: EXPLAIN ANALYZE runs the statement,
// and the guard plans only the statement it reads after EXPLAIN's
// options. The server reads a quoted "analyze" as the option, a ) inside
// a comment as a comment, and the word explain inside a comment as
// nothing: none of these may run an EXPLAIN ANALYZE, here of a file_fdw
// table whose program the plan check refuses, so that the program never
// runs.
func TestExplainAnalyzeSpelledOtherwise(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	_, ran := programTable(t, a)
	e := open(t, url)
	refused(t, e, "",
		`EXPLAIN ("analyze") SELECT * FROM ran`,
		`EXPLAIN (FORMAT JSON, "analyze" true) SELECT * FROM ran`,
		`EXPLAIN (FORMAT JSON /*) SELECT 1 --*/, ANALYZE) SELECT * FROM ran`,
		"/* explain select 1 -- */ EXPLAIN ANALYZE SELECT * FROM ran")
	for _, sql := range []string{`EXPLAIN ("analyze") SELECT 1`, `EXPLAIN (FORMAT JSON /*) SELECT 1 --*/, ANALYZE) SELECT 1`} {
		refused(t, e, "EXPLAIN ANALYZE", sql)
	}
	notCreated(t, ran, "the program ran")
}

// TestDomainCheckReachedThroughOtherTypes: a domain whose CHECK calls the
// database's own code runs it whenever a value is converted to it: also
// through a domain over it, an array of it, a composite type, table or
// view with a column of it (a literal, ROW(…), json_populate_record), a
// range over it, and when the CHECK calls that code through an operator.
// Here it ends another session.
func TestDomainCheckReachedThroughOtherTypes(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, foldKiller)
	exec(t, a, `CREATE FUNCTION positive(int, int) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN $1 > $2; END $$`)
	exec(t, a, `CREATE OPERATOR >>> (LEFTARG = int, RIGHTARG = int, FUNCTION = positive)`)
	exec(t, a, `CREATE DOMAIN checked AS int CHECK (fold(VALUE) > 0)`)
	exec(t, a, `CREATE DOMAIN over_checked AS checked`)
	exec(t, a, `CREATE DOMAIN op_checked AS int CHECK (VALUE >>> 0)`)
	exec(t, a, `CREATE TYPE holder AS (x checked)`)
	exec(t, a, `CREATE TABLE holds (x checked)`)
	exec(t, a, `CREATE VIEW holds_view AS SELECT x FROM holds`)
	exec(t, a, `CREATE TYPE checked_range AS RANGE (SUBTYPE = over_checked)`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "is not allowed",
		`SELECT 5::over_checked`,
		`SELECT '{5}'::_checked`,
		`SELECT 5::op_checked`,
		`SELECT '(5)'::holder`,
		`SELECT ROW(5)::holder`,
		`SELECT '(5)'::holds`,
		`SELECT json_populate_record(NULL::holds, '{"x": 5}')`,
		`SELECT '(5)'::holds_view`,
		`SELECT '[1,5)'::checked_range`)
}

// TestKeywordsNameOperators: LIKE, ILIKE, SIMILAR TO, IN, BETWEEN, IS
// DISTINCT FROM, NULLIF, CASE and != call operators (~~, ~~*, ~, =, >=,
// <=, <, >, <>) that the text never writes: an operator of the
// database's own with one of these names, over types the server has none
// for, runs its code while the statement is planned. Here it ends
// another session.
func TestKeywordsNameOperators(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION compares(int, text) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN false; END $$`)
	for _, op := range []string{"~~", "!~~", "~~*", "!~~*", "~", "!~", "=", "<>", ">=", "<=", "<", ">"} {
		exec(t, a, `CREATE OPERATOR `+op+` (LEFTARG = int, RIGHTARG = text, FUNCTION = compares)`)
	}
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "compares()",
		`SELECT 1 LIKE 'x'::text`,
		`SELECT 1 NOT LIKE 'x'::text`,
		`SELECT 1 ILIKE 'x'::text`,
		`SELECT 1 NOT ILIKE 'x'::text`,
		`SELECT 1 SIMILAR TO 'x'::text`,
		`SELECT 1 IN ('x'::text)`,
		`SELECT 1 NOT IN ('x'::text)`,
		`SELECT 1 BETWEEN 'a'::text AND 'b'::text`,
		`SELECT 1 NOT BETWEEN 'a'::text AND 'b'::text`,
		`SELECT 1 IS DISTINCT FROM 'x'::text`,
		`SELECT NULLIF(1, 'x'::text)`,
		`SELECT CASE 1 WHEN 'x'::text THEN 1 END`,
		`SELECT 1 != 'x'::text`)
}

// TestNotEqualsWrittenBang: != is the operator <>, and the text holds no
// <>: an operator <> of the database's own (and no = to give it away) is
// still found.
func TestNotEqualsWrittenBang(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION differs(int, text) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN true; END $$`)
	exec(t, a, `CREATE OPERATOR <> (LEFTARG = int, RIGHTARG = text, FUNCTION = differs)`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "differs()", `SELECT 1 != 'x'::text`, `SELECT 1 NOT IN ('x'::text)`)
}

// TestKeywordsNameFunctions: TRIM, AT TIME ZONE, OVERLAPS, IS NORMALIZED,
// COLLATION FOR, LIKE … ESCAPE and SIMILAR TO call pg_catalog's btrim,
// timezone, overlaps, is_normalized, pg_collation_for, like_escape and
// similar_to_escape, the text never writing their names: a function the
// database's owner made there by one of these names, over types the
// server has none for, runs while the statement is planned. Here it ends
// another session.
func TestKeywordsNameFunctions(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	body := `IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN ` + endVictim + ` END IF; RETURN NULL; END $$`
	for _, f := range []string{
		"btrim(int) RETURNS int", "timezone(int, int) RETURNS int", "overlaps(int, int, int, int) RETURNS bool",
		"is_normalized(int) RETURNS bool", "pg_collation_for(int) RETURNS text", "like_escape(int, int) RETURNS text",
		"similar_to_escape(int) RETURNS text",
	} {
		exec(t, a, "CREATE FUNCTION pg_catalog."+f+" "+body)
	}
	victim := victimSession(t, url)
	e := open(t, url)
	for fn, sql := range map[string]string{
		"btrim":             `SELECT trim(both from 5)`,
		"timezone":          `SELECT 1 AT TIME ZONE 2`,
		"overlaps":          `SELECT (1, 2) OVERLAPS ROW(3, 4)`,
		"is_normalized":     `SELECT 5 IS NORMALIZED`,
		"pg_collation_for":  `SELECT COLLATION FOR (5)`,
		"like_escape":       `SELECT 'a' LIKE 2 ESCAPE 3`,
		"similar_to_escape": `SELECT 'a' SIMILAR TO 5`,
	} {
		refusedNaming(t, e, victim, fn+"()", sql)
	}
}

// TestStableBuiltinInViewRunsNothing: the planner runs a STABLE function
// on constants when it estimates a condition's selectivity (col =
// f(…)), before any plan can be read. table_to_xml and its kind are
// STABLE and run a query, and a view's dependency on a function the
// server ships is not recorded in pg_depend: a view whose condition calls
// one ran that query (here reading a view that calls the database's own
// code, by a name built from text, and so every view of the database)
// while the statement was planned. The same for txid_current, which
// assigns a transaction id.
func TestStableBuiltinInViewRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, foldKiller)
	exec(t, a, `CREATE VIEW boom AS SELECT fold(1) AS f`)
	exec(t, a, `CREATE VIEW by_name AS SELECT * FROM "Genre" WHERE "Name" = table_to_xml(('bo' || 'om')::regclass, true, false, '')::text`)
	exec(t, a, `CREATE VIEW by_schema AS SELECT * FROM "Genre" WHERE "Name" = schema_to_xml('public', true, false, '')::text`)
	exec(t, a, `CREATE VIEW reads_by_name AS SELECT * FROM by_name`)
	exec(t, a, `CREATE TABLE guarded (id int)`)
	exec(t, a, `ALTER TABLE guarded ADD CONSTRAINT checked CHECK (id <> pg_catalog.txid_current())`)
	exec(t, a, `CREATE VIEW with_xid AS SELECT * FROM "Genre" WHERE "GenreId" = txid_current()`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "table_to_xml()", `SELECT * FROM by_name`, `SELECT count(*) FROM reads_by_name`)
	refusedNaming(t, e, victim, "schema_to_xml()", `SELECT * FROM by_schema`)
	refusedNaming(t, e, victim, "txid_current()", `SELECT * FROM with_xid`, `SELECT * FROM guarded WHERE id = 1`)
}

// TestTypeModifierRunsNothing: a base type's typmod_in function runs when
// a statement names the type with a modifier (mt(5)), while it is
// parsed; it takes cstring[], which PL/pgSQL accepts. A type whose input,
// output or modifier functions are the database's own code is refused.
// Here that code ends another session.
func TestTypeModifierRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION mt_typmod(cstring[]) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN 1; END $$`)
	baseType(t, a, "mt", "int4in", "int4out", "TYPMOD_IN = mt_typmod, INTERNALLENGTH = 4, PASSEDBYVALUE, ALIGNMENT = int4")
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "mt_typmod",
		`SELECT '1'::mt(5)`,
		`SELECT CAST('1' AS mt(5))`,
		`SELECT '{1}'::_mt(5)`)
}

// TestFieldNotationReachesMore: x.f calls f(x) when f takes x's type,
// also when f takes a domain over a composite type, a record or a
// polymorphic type, or a second argument with a default: f runs while the
// statement is planned, the text never writing f(. Here it ends another
// session.
func TestFieldNotationReachesMore(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE TYPE pair AS (a int, b int)`)
	exec(t, a, `CREATE DOMAIN pair_d AS pair`)
	body := ` RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
	IF current_setting('transaction_read_only') = 'on' THEN ` + endVictim + ` END IF; RETURN 1; END $$`
	exec(t, a, `CREATE FUNCTION on_domain(pair_d)`+body)
	exec(t, a, `CREATE FUNCTION on_record(record)`+body)
	exec(t, a, `CREATE FUNCTION on_any(anyelement)`+body)
	exec(t, a, `CREATE FUNCTION with_default(pair, int DEFAULT 0)`+body)
	victim := victimSession(t, url)
	e := open(t, url)
	for fn, sql := range map[string]string{
		"on_domain":    `SELECT ('(1,2)'::pair_d).on_domain`,
		"on_record":    `SELECT (ROW(1, 2)).on_record`,
		"on_any":       `SELECT ('(1,2)'::pair).on_any`,
		"with_default": `SELECT ('(1,2)'::pair).with_default`,
	} {
		refusedNaming(t, e, victim, fn, sql)
	}
}

// TestOutputFunctionReadsNoFile: a type's output function runs on every
// value of it a statement returns, the text never naming the type. The
// database's owner can declare pg_read_file's code (LANGUAGE internal
// 'pg_read_file_all') as a type's output function: reading a column of
// that type, or of an array or composite type holding it, read the file
// each value names. Such a table, and the views over it, are refused, and
// so is naming such a type. The file here does not exist: the server's
// error naming it showed that it was opened.
func TestOutputFunctionReadsNoFile(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	baseType(t, a, "fpath", "textin", "pg_read_file_all", "INTERNALLENGTH = VARIABLE")
	exec(t, a, `CREATE TYPE fpath_pair AS (a int, p fpath)`)
	exec(t, a, `CREATE TABLE files (p fpath)`)
	exec(t, a, `CREATE TABLE file_lists (ps fpath[], pair fpath_pair)`)
	exec(t, a, `INSERT INTO files VALUES ('/nonexistent/tablewise-output-probe')`)
	exec(t, a, `INSERT INTO file_lists VALUES ('{/nonexistent/tablewise-output-probe}', '(1,/nonexistent/tablewise-output-probe)')`)
	exec(t, a, `CREATE VIEW files_view AS SELECT p FROM files`)
	exec(t, a, `CREATE VIEW const_view AS SELECT "GenreId" FROM "Genre" WHERE ROW('/nonexistent/tablewise-output-probe'::fpath, "GenreId") IS DISTINCT FROM NULL`)
	e := open(t, url)
	for _, sql := range []string{
		`SELECT * FROM files`,
		`SELECT * FROM files_view`,
		`SELECT * FROM const_view`,
		`SELECT ps FROM file_lists`,
		`SELECT pair FROM file_lists`,
		`SELECT '{/nonexistent/tablewise-output-probe}'::_fpath`,
		`SELECT '(1,/nonexistent/tablewise-output-probe)'::fpath_pair`,
	} {
		_, err := collect(t, e, sql)
		if !refusalNames(err, "fpath_out") {
			t.Errorf("%s: not refused naming fpath_out: %v", sql, err)
		}
	}
}

// baseType makes the base type name whose input and output functions,
// name_in and name_out, are the server's code in and out (LANGUAGE
// internal), with more of its definition in extra.
func baseType(t *testing.T, a *pgx.Conn, name, in, out, extra string) {
	t.Helper()
	exec(t, a, "CREATE TYPE "+name)
	exec(t, a, "CREATE FUNCTION "+name+"_in(cstring) RETURNS "+name+" LANGUAGE internal IMMUTABLE STRICT AS '"+in+"'")
	exec(t, a, "CREATE FUNCTION "+name+"_out("+name+") RETURNS cstring LANGUAGE internal IMMUTABLE STRICT AS '"+out+"'")
	exec(t, a, "CREATE TYPE "+name+" (INPUT = "+name+"_in, OUTPUT = "+name+"_out, "+extra+")")
}

// TestOperatorEstimatorRunsNothing: the planner calls an operator's
// RESTRICT (and JOIN) estimator when it estimates a condition on it, a
// function the text never names: the database's owner can declare
// pg_stat_reset's code (LANGUAGE internal) as the estimator of an
// operator whose own function is the server's int4eq. A condition on
// that operator, also in a view, reset the database's statistics.
func TestOperatorEstimatorRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION resets(internal, oid, internal, int4) RETURNS float8 LANGUAGE internal STABLE STRICT AS 'pg_stat_reset'`)
	exec(t, a, `CREATE OPERATOR ### (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq, RESTRICT = resets)`)
	exec(t, a, `CREATE VIEW estimated AS SELECT * FROM "Genre" WHERE "GenreId" ### 5`)
	const resetAt = `SELECT coalesce(stats_reset::text, 'never') FROM pg_stat_database WHERE datname = current_database()`
	before := servers.PostgresColumn[string](t, a, resetAt)[0]
	e := open(t, url)
	refused(t, e, "resets()", `SELECT * FROM "Genre" WHERE "GenreId" ### 5`, `SELECT * FROM estimated`)
	if after := servers.PostgresColumn[string](t, a, resetAt)[0]; after != before {
		t.Errorf("the database's statistics were reset (at %s, before %s)", after, before)
	}
}
