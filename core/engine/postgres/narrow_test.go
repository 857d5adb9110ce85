package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestNarrowedReadsMissNothing: the guard's reads of what operators and
// views call first narrow the server's hundreds of operators and
// families to those that can reach the database's own code; on a
// database whose own code is reached every way the reads follow (its
// own operators with a commutator and a negator of its own, its operator
// made the commutator of one of the server's, an estimator and a support
// function of its own set on the server's operator and family, a class
// of its own, indexes, a partition key, views and a domain over them),
// they answer row for row what the reads without narrowing answer.
func TestNarrowedReadsMissNothing(t *testing.T) {
	url := servers.PostgresSample(t)
	a := admin(t, url)
	for _, sql := range []string{
		`CREATE FUNCTION swapped(int, int) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT $1 > $2'`,
		`CREATE FUNCTION mysel(internal, oid, internal, int4) RETURNS float8 LANGUAGE internal STABLE STRICT AS 'eqsel'`,
		`CREATE OPERATOR #@# (LEFTARG = int, RIGHTARG = int, FUNCTION = swapped)`,
		`CREATE OPERATOR #!# (LEFTARG = int, RIGHTARG = int, FUNCTION = swapped, RESTRICT = scalargesel)`,
		`CREATE OPERATOR ### (LEFTARG = int, RIGHTARG = int, FUNCTION = int4lt, COMMUTATOR = #@#, NEGATOR = #!#, RESTRICT = scalarltsel)`,
		`CREATE FUNCTION cat2(text, text) RETURNS text IMMUTABLE LANGUAGE sql AS 'SELECT $2 || $1'`,
		`CREATE OPERATOR @@@ (LEFTARG = text, RIGHTARG = text, FUNCTION = cat2, COMMUTATOR = OPERATOR(pg_catalog.||))`,
		`ALTER OPERATOR pg_catalog.< (int4, int4) SET (RESTRICT = mysel)`,
		`CREATE FUNCTION in_frame(int4, int4, numeric, bool, bool) RETURNS bool IMMUTABLE STRICT LANGUAGE sql AS 'SELECT true'`,
		`ALTER OPERATOR FAMILY integer_ops USING btree ADD FUNCTION 3 (int4, numeric) in_frame(int4, int4, numeric, bool, bool)`,
		`CREATE FUNCTION mycmp(int, int) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT btint4cmp($1, $2)'`,
		`CREATE OPERATOR CLASS my_int_ops FOR TYPE int USING btree AS OPERATOR 1 <, OPERATOR 3 =, FUNCTION 1 mycmp(int, int)`,
		`CREATE TABLE nt (a int, b text)`,
		`CREATE INDEX ON nt (a my_int_ops)`,
		`CREATE INDEX ON nt (a) WHERE a ### 3`,
		`CREATE INDEX ON nt ((b @@@ 'y'))`,
		`CREATE VIEW nv AS SELECT a FROM nt WHERE 5 ### a`,
		`CREATE VIEW nv2 AS SELECT a FROM nv WHERE a #@# 1`,
		`CREATE DOMAIN nd AS int CHECK (VALUE ### 100)`,
		`CREATE TABLE np (a int, b int) PARTITION BY RANGE (a my_int_ops)`,
		`CREATE TABLE np1 PARTITION OF np FOR VALUES FROM (1) TO (10)`,
	} {
		exec(t, a, sql)
	}
	// The path the guard's reads run with (pinnedPath).
	exec(t, a, "SET search_path = pg_catalog, pg_temp")
	rows := func(sql string) []string {
		t.Helper()
		res, err := a.Query(context.Background(), sql)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for res.Next() {
			vals, err := res.Values()
			if err != nil {
				t.Fatal(err)
			}
			var cells []string
			for _, v := range vals {
				cells = append(cells, v.(string))
			}
			out = append(out, strings.Join(cells, "|"))
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	narrowed, full := postgres.LocalReads()
	for i, name := range []string{"operators' and types' calls", "views' calls"} {
		if narrowed[i] == full[i] {
			t.Fatalf("%s: nothing narrowed to remove", name)
		}
		got, want := rows(narrowed[i]), rows(full[i])
		if !slices.Equal(got, want) {
			t.Errorf("%s: narrowed read %d rows, the full read %d\nonly full: %v", name, len(got), len(want), missing(want, got))
		}
		if len(want) == 0 {
			t.Errorf("%s: no rows: the fixture reaches nothing", name)
		}
	}
	// What the fixture is for: the rows the narrowing must keep.
	uses := strings.Join(rows(narrowed[0]), "\n")
	for _, row := range []string{"o|#@#|swapped", "o||||cat2", "o|<|mysel", "o|<|in_frame", "p|int4_ops|in_frame"} {
		if !strings.Contains(uses, row) {
			t.Errorf("operators' calls lack %s", row)
		}
	}
	views := strings.Join(rows(narrowed[1]), "\n")
	for _, row := range []string{"nv|swapped", "nv2|swapped", "nt|mycmp", "np1|mycmp"} {
		if !strings.Contains(views, row) {
			t.Errorf("views' calls lack %s", row)
		}
	}
}

// missing lists the rows of want that got lacks.
func missing(want, got []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, w)
		}
	}
	return out
}
