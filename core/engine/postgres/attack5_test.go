package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestRangeSubtypeOpclassRunsNothing: a range type compares its bounds
// with the comparison function of its subtype_opclass, which need not be
// the subtype's default operator class: reading the literal '[a,b]' as
// the range (at Parse, before any plan), building one with its
// constructor, and comparing or sorting a column of it run that function.
// A range over text whose operator class's FUNCTION 1 was the database's
// own code ran it for SELECT '[a,b]'::span_t, and for a comparison with
// a column of that type that never names it (the literal takes the
// column's type). Here it ends another session.
func TestRangeSubtypeOpclassRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	killerClass(t, a, "span_ops", "span_cmp", "text", "bttextcmp", endVictim)
	// Made before the function ends anything: the table's values are
	// built with it.
	exec(t, a, `CREATE TYPE span_t AS RANGE (subtype = text, subtype_opclass = span_ops, multirange_type_name = spans_t)`)
	exec(t, a, `CREATE TABLE text_spans AS SELECT span_t(g::text, g::text || 'z') AS r FROM generate_series(1, 20) g`)
	exec(t, a, `CREATE VIEW over_text_spans AS SELECT r FROM text_spans`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "span_cmp",
		`SELECT '[a,b]'::span_t AS r`,
		`SELECT span_t('a', 'b') AS r`,
		`SELECT '{[a,b]}'::spans_t AS r`,
		`SELECT count(*) FROM text_spans WHERE r = '[1,1z)'`,
		`SELECT r FROM text_spans ORDER BY r`,
		`SELECT count(*) FROM over_text_spans WHERE r = '[1,1z)'`)
}

// TestOperatorFamilyOfAnOperatorRunsNothing: sorting by an operator
// (ORDER BY x USING <<<) compares with the comparison function of the
// btree operator family that holds it, not with the operator's own
// function, and a hash join on an operator hashes with its hash
// family's function. An operator of the database's own whose function
// was the server's text_lt, in an operator class (not a default one)
// whose FUNCTION 1 was the database's own code, ran that code for
// SELECT … ORDER BY n USING <<<. Here it ends another session.
func TestOperatorFamilyOfAnOperatorRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION name_cmp(text, text) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN bttextcmp($1, $2); END $$`)
	exec(t, a, `CREATE FUNCTION name_hash(text) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN hashtext($1); END $$`)
	exec(t, a, `CREATE OPERATOR <<< (LEFTARG = text, RIGHTARG = text, FUNCTION = text_lt)`)
	exec(t, a, `CREATE OPERATOR >>> (LEFTARG = text, RIGHTARG = text, FUNCTION = text_gt)`)
	exec(t, a, `CREATE OPERATOR === (LEFTARG = text, RIGHTARG = text, FUNCTION = texteq, HASHES)`)
	exec(t, a, `CREATE OPERATOR CLASS name_ops FOR TYPE text USING btree AS
		OPERATOR 1 <<<, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >>>, FUNCTION 1 name_cmp(text, text)`)
	exec(t, a, `CREATE OPERATOR CLASS name_hash_ops FOR TYPE text USING hash AS OPERATOR 1 ===, FUNCTION 1 name_hash(text)`)
	exec(t, a, `CREATE VIEW sorted_names AS SELECT "Name" FROM "Genre" ORDER BY "Name" USING <<<`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "name_cmp",
		`SELECT "Name" FROM "Genre" ORDER BY "Name" USING <<<`,
		`SELECT "Name" FROM "Genre" ORDER BY "Name" USING >>>`,
		`SELECT * FROM sorted_names`)
	refusedNaming(t, e, victim, "name_hash",
		`SELECT count(*) FROM "Genre" g JOIN "Genre" h ON g."Name" === h."Name"`)
	// The server's own operators in that class still sort and compare
	// with the server's text_ops.
	res, err := query.Collect(context.Background(), e, `SELECT "Name" FROM "Genre" WHERE "Name" >= 'R' ORDER BY "Name" USING < LIMIT 1`, query.Options{MaxRows: 5, Timeout: 5e9})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "R&B/Soul" {
		t.Errorf("ORDER BY … USING <: %v %v", res, err)
	}
	if err := sessionErr(victim); err != nil {
		t.Fatalf("the other session was ended: %v", err)
	}
}

// TestParseRunsNothingNewerThanGuard: reading a literal as a type
// happens at the statement's Parse, before the check that what the guard
// knows is what the database holds (which comes before the statement is
// planned): a type modifier's function ('1'::mt(5)) and a range's bound
// comparison ('[a,b]'::span_t) run there. Made after the guard read the
// database's objects, either ran the database's own code for a statement
// the guard passed with what it knew; so did a type modifier's function
// replaced (ALTER TYPE … SET) after a verdict was made for the statement.
// Here it ends another session.
func TestParseRunsNothingNewerThanGuard(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		verdict   bool // mt is made first, and a verdict for sql
		change    func(a *pgx.Conn)
	}{
		{"type modifier", `SELECT '1'::mt(5) AS v`, false, func(a *pgx.Conn) {
			exec(t, a, `CREATE FUNCTION mt_typmod(cstring[]) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
				IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN 1; END $$`)
			baseType(t, a, "mt", "int4in", "int4out", "TYPMOD_IN = mt_typmod, INTERNALLENGTH = 4, PASSEDBYVALUE, ALIGNMENT = int4")
		}},
		{"range", `SELECT '[a,b]'::span_t AS v`, false, func(a *pgx.Conn) {
			killerClass(t, a, "span_ops", "span_cmp", "text", "bttextcmp", "IF current_setting('transaction_read_only') = 'on' THEN "+endVictim+" END IF;")
			exec(t, a, `CREATE TYPE span_t AS RANGE (subtype = text, subtype_opclass = span_ops)`)
		}},
		{"type modifier after a verdict", `SELECT '1'::mt(5) AS v`, true, func(a *pgx.Conn) {
			exec(t, a, `CREATE FUNCTION mt_typmod(cstring[]) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
				IF current_setting('transaction_read_only') = 'on' THEN `+endVictim+` END IF; RETURN 1; END $$`)
			exec(t, a, `ALTER TYPE mt SET (TYPMOD_IN = mt_typmod)`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := servers.Postgres(t)
			a := admin(t, url)
			if tc.verdict {
				exec(t, a, `CREATE FUNCTION mt_plain(cstring[]) RETURNS int IMMUTABLE STRICT LANGUAGE internal AS 'bittypmodin'`)
				baseType(t, a, "mt", "int4in", "int4out", "TYPMOD_IN = mt_plain, INTERNALLENGTH = 4, PASSEDBYVALUE, ALIGNMENT = int4")
			}
			victim := victimSession(t, url)
			e := openOne(t, url)
			if tc.verdict {
				verdictMade(t, e, tc.sql)
			} else if _, err := collect(t, e, `SELECT 1 AS v`); err != nil {
				t.Fatal(err)
			}
			tc.change(a)
			alive(t, victim, "before the statement")
			_, err := collect(t, e, tc.sql)
			var rej *guard.Rejection
			if !errors.As(err, &rej) || rej.Hint == "" {
				t.Errorf("%s: %v, want a refusal with a hint", tc.sql, err)
			}
			alive(t, victim, tc.sql)
		})
	}
}

// killerClass makes class, a btree operator class for typ with the
// server's operators, whose FUNCTION 1 is fn: the database's own code
// that runs body (ending the victimSession, for one), then answers as
// the server's cmp does.
func killerClass(t *testing.T, a *pgx.Conn, class, fn, typ, cmp, body string) {
	t.Helper()
	exec(t, a, fmt.Sprintf(`CREATE FUNCTION %s(%s, %s) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		%s RETURN %s($1, $2); END $$`, fn, typ, typ, body, cmp))
	exec(t, a, fmt.Sprintf(`CREATE OPERATOR CLASS %s FOR TYPE %s USING btree AS
		OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 %s(%s, %s)`, class, typ, fn, typ, typ))
}
