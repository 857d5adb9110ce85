package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// state is what a refused statement must leave as it was.
type state struct {
	checksum     string // every row of Track and Invoice
	largeObjects int64
	advisory     int64
	tables       int64
	settings     string
}

func snapshot(t *testing.T, a *pgx.Conn) state {
	t.Helper()
	var s state
	err := a.QueryRow(context.Background(), `SELECT
		(SELECT md5(string_agg(t::text, ',' ORDER BY "TrackId")) FROM "Track" t) || (SELECT md5(string_agg(i::text, ',' ORDER BY "InvoiceId")) FROM "Invoice" i),
		(SELECT count(*) FROM pg_largeobject_metadata),
		(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())),
		(SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace),
		(SELECT string_agg(name || '=' || setting, ',' ORDER BY name) FROM pg_settings WHERE source NOT IN ('default', 'override', 'client', 'session'))`).
		Scan(&s.checksum, &s.largeObjects, &s.advisory, &s.tables, &s.settings)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// unchanged fails t when the server's state is no longer before.
func unchanged(t *testing.T, a *pgx.Conn, before state) {
	t.Helper()
	if after := snapshot(t, a); after != before {
		t.Errorf("the server changed:\nbefore %+v\nafter  %+v", before, after)
	}
}

// TestAdversarial: every family that a READ ONLY transaction lets through
// as a superuser, and every kind of write, is refused by the guard, and
// the server is unchanged: table checksums, large objects, advisory locks,
// relations, configuration; no file written; the other session alive.
func TestAdversarial(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE VIEW leak AS SELECT pg_read_file('/etc/hostname') AS f`)
	exec(t, a, `CREATE FUNCTION leak_sql() RETURNS text LANGUAGE sql AS $$ SELECT pg_read_file('/etc/hostname') $$`)
	exec(t, a, `CREATE FUNCTION leak_pl() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN pg_read_file('/etc/hostname'); END $$`)
	exec(t, a, `CREATE VIEW leak_pl_view AS SELECT leak_pl() AS f`)
	exec(t, a, `CREATE FUNCTION leak_definer() RETURNS text LANGUAGE sql SECURITY DEFINER AS $$ SELECT pg_read_file('/etc/hostname') $$`)
	exec(t, a, `CREATE OPERATOR ### (FUNCTION = pg_read_file, RIGHTARG = text)`)
	exec(t, a, `CREATE DOMAIN locked AS int CHECK (pg_try_advisory_lock(VALUE::bigint))`)
	exec(t, a, `CREATE TYPE fname AS (f text)`)
	exec(t, a, `CREATE FUNCTION to_fname(text) RETURNS fname LANGUAGE sql AS $$ SELECT ROW($1)::fname $$`)
	exec(t, a, `CREATE CAST (text AS fname) WITH FUNCTION to_fname(text)`)
	exec(t, a, `CREATE FUNCTION lock_step(int, int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_lock($2); RETURN $1; END $$`)
	exec(t, a, `CREATE AGGREGATE lock_all(int) (SFUNC = lock_step, STYPE = int, INITCOND = '0')`)
	exec(t, a, `CREATE VIEW leak_op AS SELECT ### '/etc/hostname' AS f`)
	adminPID := servers.PostgresColumn[int](t, a, "SELECT pg_backend_pid()")[0]
	out := filepath.Join(os.TempDir(), fmt.Sprintf("tablewise-pg-adversarial-%d", os.Getpid()))
	os.Remove(out)
	before := snapshot(t, a)
	e := open(t, url)

	families := map[string][]string{
		"server files": {
			"COPY (SELECT 1) TO '" + out + "'",
			"SELECT pg_read_file('/etc/passwd')",
			"SELECT pg_catalog.pg_read_file('/etc/passwd')",
			`SELECT "pg_read_file"('/etc/passwd')`,
			"SELECT pg_read_file /* a comment */ ('/etc/passwd')",
			`SELECT U&"pg_\0072ead_file"('/etc/passwd')`,
			`SELECT 'a\', pg_read_file('/etc/passwd') --'`,
			`SELECT E'\'', pg_read_file('/etc/passwd')`,
			"SELECT PG_READ_BINARY_FILE('/etc/passwd')",
			"SELECT * FROM pg_ls_dir('.')",
			"SELECT pg_stat_file('/etc/passwd')",
			"SELECT lo_import('/etc/hostname')",
			"SELECT lo_export(1, '" + out + "')",
			"SELECT * FROM leak",
			"SELECT leak_sql()",
			"SELECT leak_pl()",
			"SELECT leak_definer()",
			"SELECT * FROM leak_definer()",
			"SELECT ### '/etc/hostname'",
			"SELECT * FROM leak_op",
			"SELECT '/etc/hostname'::fname",
			"SELECT CAST('/etc/hostname' AS fname)",
			"SELECT * FROM leak_pl_view",
		},
		"strings run as queries": {
			"SELECT query_to_xml('SELECT pg_read_file(''/etc/passwd'')', true, true, '')",
			"SELECT query_to_xml($$SELECT pg_advisory_lock(1)$$, true, true, '')",
			"SELECT table_to_xml('leak', true, true, '')",
		},
		"locks that outlive the transaction": {
			"SELECT pg_advisory_lock(42)",
			"SELECT pg_try_advisory_lock(42)",
			"SELECT pg_advisory_xact_lock(42)",
			"SELECT 42::locked",
			`SELECT lock_all("GenreId") FROM "Genre"`,
			`SELECT * FROM "Track" FOR UPDATE`,
			`SELECT * FROM "Track" FOR SHARE`,
			"LOCK TABLE \"Track\"",
		},
		"session poisoning": {
			"SELECT set_config('statement_timeout', '0', false)",
			"SELECT set_config('role', 'pg_read_server_files', false)",
			"SELECT set_config('default_transaction_read_only', 'off', false)",
			"SET statement_timeout = 0",
			"SET ROLE postgres",
			"RESET ALL",
			"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
		},
		"other sessions and the server": {
			fmt.Sprintf("SELECT pg_terminate_backend(%d)", adminPID),
			fmt.Sprintf("SELECT pg_cancel_backend(%d)", adminPID),
			"SELECT pg_reload_conf()",
			"SELECT pg_switch_wal()",
			"SELECT pg_create_restore_point('x')",
			"SELECT pg_logical_emit_message(false, 'x', 'y')",
			"SELECT pg_stat_reset()",
			"SELECT pg_notify('c', 'x')",
			"SELECT nextval('x')",
			"NOTIFY c",
			"LISTEN c",
			"CHECKPOINT",
			"VACUUM \"Track\"",
			"ANALYZE \"Track\"",
		},
		"writes": {
			`DELETE FROM "Track"`,
			`UPDATE "Track" SET "Name" = 'x'`,
			`INSERT INTO "Genre" VALUES (99, 'x')`,
			`TRUNCATE "Track"`,
			`DROP TABLE "Track"`,
			`CREATE TABLE x (a int)`,
			`ALTER TABLE "Track" ADD COLUMN x int`,
			`SELECT 1 AS a INTO made_by_select`,
			`WITH d AS (DELETE FROM "Track" RETURNING *) SELECT count(*) FROM d`,
			`WITH u AS (UPDATE "Track" SET "Name" = 'x' RETURNING 1) SELECT * FROM u`,
			`EXPLAIN ANALYZE DELETE FROM "Track"`,
			`EXPLAIN (ANALYZE, FORMAT JSON) SELECT 1`,
			`EXPLAIN DELETE FROM "Track"`,
			`CREATE TEMP TABLE t AS SELECT 1`,
			`COMMENT ON TABLE "Track" IS 'x'`,
			`GRANT SELECT ON "Track" TO PUBLIC`,
			`REFRESH MATERIALIZED VIEW x`,
		},
		"transactions and code": {
			"BEGIN",
			"COMMIT",
			"ROLLBACK",
			"DO $$ BEGIN PERFORM pg_sleep(0); END $$",
			"CALL p()",
			"PREPARE p AS SELECT 1",
			"EXECUTE p",
			"DECLARE c CURSOR FOR SELECT 1",
			"DISCARD ALL",
			"LOAD 'auto_explain'",
		},
		"several statements": {
			`SELECT 1; DELETE FROM "Track"`,
			`SELECT 1; SELECT 2`,
			`SELECT 'a\'; DELETE FROM "Track"; --'`,
		},
	}
	for family, stmts := range families {
		t.Run(family, func(t *testing.T) {
			for _, sql := range stmts {
				_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 5e9})
				var rej *guard.Rejection
				if !errors.As(err, &rej) {
					t.Errorf("%s: not refused: %v", sql, err)
				} else if rej.Reason == "" || rej.Hint == "" {
					t.Errorf("%s: refusal without reason or hint: %+v", sql, rej)
				}
				if err := e.Check(context.Background(), sql); !errors.As(err, &rej) {
					t.Errorf("Check(%s): not refused: %v", sql, err)
				}
			}
		})
	}
	unchanged(t, a, before)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was written (%v)", out, err)
		os.Remove(out)
	}
	var one int
	if err := a.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("the other session: %v", err)
	}
	// Reading still works, also through the same pooled connections.
	res, err := query.Collect(context.Background(), e, `SELECT count(*) FROM "Track"`, query.Options{})
	if err != nil || res.Rows[0][0] != int64(3503) {
		t.Errorf("read after the refusals: %v %v", res, err)
	}
}

// TestReadsAllowed: the statement kinds that read run, including the
// forms a lexer could mistake for denied calls.
func TestReadsAllowed(t *testing.T) {
	e := open(t, servers.Postgres(t))
	for _, sql := range []string{
		`SELECT 'pg_read_file(1)' AS s`,
		`SELECT $$ lo_import( $$ AS s`,
		`SELECT 1 AS "set_config"`,
		`SELECT 1 AS U&"d\0061t\\a"`,
		`WITH x AS (SELECT 1 AS a) SELECT * FROM x`,
		`VALUES (1), (2)`,
		`TABLE "Genre"`,
		`(SELECT 1)`,
		`SHOW statement_timeout`,
		`EXPLAIN SELECT * FROM "Track"`,
		`EXPLAIN (VERBOSE, COSTS false) SELECT 1`,
		`SELECT pg_sleep(0)`,
		`SELECT * FROM "Track" WHERE "Name" ILIKE 'lo%' LIMIT 1;`,
		"-- a comment\nSELECT 1 /* and another */ ;",
	} {
		if _, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 5}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	if _, err := query.Collect(context.Background(), e, " ; -- nothing", query.Options{}); !errors.Is(err, guard.ErrEmpty) {
		t.Errorf("empty text: %v", err)
	}
	if !strings.Contains(e.Dialect().Name(), "PostgreSQL 1") {
		t.Errorf("dialect name %q", e.Dialect().Name())
	}
}

// TestFunctionCreatedAfterOpen: a function created while the engine is
// open is known to the guard within its refresh interval.
func TestFunctionCreatedAfterOpen(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	e := open(t, url)
	if _, err := query.Collect(context.Background(), e, "SELECT 1", query.Options{}); err != nil {
		t.Fatal(err)
	}
	exec(t, a, `CREATE FUNCTION late_leak() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN pg_read_file('/etc/hostname'); END $$`)
	postgres.ExpireLocal(e)
	_, err := query.Collect(context.Background(), e, "SELECT late_leak()", query.Options{})
	var rej *guard.Rejection
	if !errors.As(err, &rej) {
		t.Errorf("a function created after open: %v", err)
	}
}

// TestPlannerRunsNothing: the planner runs an IMMUTABLE or STABLE function
// on constants while it plans (EXPLAIN included), so a call of such a
// function of the database's own (by name, in field notation, or inside a
// view) must be refused before anything is planned: the plan would show
// only the folded result, after the function had run. Here it ends
// another session.
func TestPlannerRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	victim := admin(t, url)
	exec(t, victim, "SET application_name = 'tablewise_victim'")
	for _, vol := range []string{"IMMUTABLE", "STABLE"} {
		fn := "kill_" + strings.ToLower(vol)
		exec(t, a, `CREATE FUNCTION `+fn+`(int) RETURNS int `+vol+` LANGUAGE plpgsql AS $$ BEGIN
			PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tablewise_victim'; RETURN $1; END $$`)
		exec(t, a, `CREATE VIEW view_`+fn+` AS SELECT "GenreId" FROM "Genre" WHERE "GenreId" = `+fn+`(1)`)
	}
	exec(t, a, `CREATE VIEW over_view AS SELECT * FROM view_kill_immutable`)
	exec(t, a, `CREATE FUNCTION kill_field("Genre") RETURNS int IMMUTABLE LANGUAGE sql AS $$
		SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity WHERE application_name = 'tablewise_victim' $$`)
	exec(t, a, `CREATE FUNCTION one() RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT 1'`)
	exec(t, a, `CREATE MATERIALIZED VIEW stored_one AS SELECT one() AS a`)
	e := open(t, url)
	// Reading a materialized view runs nothing of its definition.
	if res, err := query.Collect(context.Background(), e, "SELECT a FROM stored_one", query.Options{}); err != nil || len(res.Rows) != 1 {
		t.Errorf("a materialized view: %v %v", res, err)
	}
	for _, sql := range []string{
		"SELECT kill_immutable(1)",
		`SELECT U&"kill\005fimmutable"(1)`,
		`SELECT U&"kill!005fimmutable" UESCAPE '!' (1)`,
		`SELECT ('(1,x)'::"Genre").U&"kill\+00005ffield"`,
		"SELECT public.kill_stable(1)",
		`SELECT ('(1,x)'::"Genre").kill_field`,
		`SELECT ('(1,x)'::"Genre")."kill_field" AS k`,
		"SELECT * FROM view_kill_immutable",
		"SELECT * FROM view_kill_stable",
		`SELECT * FROM public."view_kill_immutable"`,
		"SELECT * FROM over_view",
		"EXPLAIN SELECT * FROM over_view",
	} {
		_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 5e9})
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%s: not refused: %v", sql, err)
		} else if !strings.Contains(rej.Reason, "kill_") && rej.What != "UESCAPE" || rej.Hint == "" {
			t.Errorf("%s: the refusal does not name the function (or UESCAPE) or has no hint: %+v", sql, rej)
		}
		if err := sessionErr(victim); err != nil {
			t.Fatalf("%s: the other session was ended: %v", sql, err)
		}
	}
}

// TestPolicyRunsNothing: a row security policy is planned with the
// statement, so one that calls a function of the database's is refused
// before anything is planned, for a role the policy applies to.
func TestPolicyRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	role := fmt.Sprintf("tablewise_policy_%d", os.Getpid())
	exec(t, a, "CREATE ROLE "+role+" NOLOGIN")
	t.Cleanup(func() {
		a.Exec(context.Background(), "DROP OWNED BY "+role)
		a.Exec(context.Background(), "DROP ROLE "+role)
	})
	exec(t, a, `CREATE FUNCTION count_calls(int) RETURNS int IMMUTABLE SECURITY DEFINER LANGUAGE plpgsql AS $$ BEGIN
		PERFORM set_config('tablewise.calls', '1', false); RETURN $1; END $$`)
	exec(t, a, `GRANT SELECT ON "Genre" TO `+role)
	exec(t, a, `ALTER TABLE "Genre" ENABLE ROW LEVEL SECURITY`)
	exec(t, a, `CREATE POLICY p ON "Genre" FOR SELECT USING ("GenreId" >= count_calls(1))`)
	exec(t, a, `CREATE VIEW genre_view AS SELECT * FROM "Genre"`)
	exec(t, a, "GRANT SELECT ON genre_view TO "+role)
	e := open(t, url+"&"+postgres.RoleParam+"="+role)
	refused(t, e, "count_calls", `SELECT * FROM "Genre"`, "SELECT * FROM genre_view")
}

// TestExtensionFunctions: functions of common contrib extensions that run
// a query given as text or write table pages directly are refused by name.
func TestExtensionFunctions(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, "CREATE EXTENSION tablefunc")
	exec(t, a, "CREATE EXTENSION pg_surgery")
	exec(t, a, "CREATE EXTENSION adminpack")
	exec(t, a, "CREATE EXTENSION pg_walinspect")
	before := snapshot(t, a)
	e := open(t, url)
	refused(t, e, "",
		`SELECT * FROM crosstab($$SELECT 'r'::text, 'c'::text, pg_advisory_lock(7)::text$$) AS ct(r text, c text)`,
		`SELECT * FROM crosstab3($$SELECT 'r'::text, 'c'::text, 'v'::text$$)`,
		`SELECT * FROM connectby('"Genre"', '"GenreId"', '"GenreId"', '1', 0) AS x(a int, b int, l int)`,
		`SELECT heap_force_kill('"Track"'::regclass, ARRAY['(0,1)']::tid[])`,
		`SELECT heap_force_freeze('"Track"'::regclass, ARRAY['(0,1)']::tid[])`,
		`SELECT * FROM pg_logdir_ls() AS l(f timestamp, n text)`,
		`SELECT record_type, description FROM pg_get_wal_records_info_till_end_of_wal(pg_current_wal_lsn() - 20000)`,
		`SELECT * FROM pg_get_wal_stats(pg_current_wal_lsn() - 20000, pg_current_wal_lsn())`)
	unchanged(t, a, before)
}

// TestExtensionCacheAndConnections: contrib functions that a READ ONLY
// transaction lets a superuser run although they act outside it are
// refused: pg_prewarm loads a table into the server's shared buffers (it
// ran through tablewise sql and 417 pages of a table VACUUM FULL had left
// out of the cache were in them after), postgres_fdw_disconnect* close the
// session's connections to other servers, pg_truncate_visibility_map
// truncates a table's visibility map. The table's pages stay out of the
// shared buffers and its visibility map is as it was.
func TestExtensionCacheAndConnections(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	for _, ext := range []string{"pg_prewarm", "pg_buffercache", "postgres_fdw", "pg_visibility"} {
		exec(t, a, "CREATE EXTENSION "+ext)
	}
	exec(t, a, `CREATE TABLE warm WITH (autovacuum_enabled = off) AS SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 20000) g`)
	exec(t, a, `CREATE VIEW warmed AS SELECT pg_prewarm('warm') AS pages`)
	// VACUUM FULL writes the table anew around the shared buffers, and
	// VACUUM marks its pages all-visible reading them through a small
	// ring of buffers: few of its pages are cached.
	exec(t, a, `VACUUM FULL warm`)
	exec(t, a, `VACUUM warm`)
	var pages int64
	if err := a.QueryRow(context.Background(), `SELECT pg_relation_size('warm') / current_setting('block_size')::int`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	cached := func() (n int64) {
		t.Helper()
		err := a.QueryRow(context.Background(), `SELECT count(*) FROM pg_buffercache
			WHERE relfilenode = pg_relation_filenode('warm') AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	visible := func() (n int64) {
		t.Helper()
		if err := a.QueryRow(context.Background(), `SELECT all_visible FROM pg_visibility_map_summary('warm')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	inCache := cached()
	if inCache >= pages/2 {
		t.Fatalf("the fixture: %d of the table's %d pages are cached before the test", inCache, pages)
	}
	allVisible := visible()
	if allVisible == 0 {
		t.Fatal("the fixture: VACUUM left no page of the table all-visible")
	}
	before := snapshot(t, a)
	e := open(t, url)
	refused(t, e, "shared buffers",
		`SELECT pg_prewarm('warm')`,
		`SELECT pg_prewarm('warm', 'buffer', 'main', 0, 10)`,
		`SELECT pg_prewarm('warm', 'read')`,
		`SELECT pg_prewarm('warm', 'prefetch')`,
		`SELECT public.pg_prewarm('warm'::regclass)`)
	refused(t, e, "pg_prewarm()", `SELECT * FROM warmed`)
	refused(t, e, "connections to other servers",
		`SELECT postgres_fdw_disconnect_all()`,
		`SELECT postgres_fdw_disconnect('files')`)
	refused(t, e, "visibility map", `SELECT pg_truncate_visibility_map('warm')`)
	if n := cached(); n != inCache {
		t.Errorf("the table's pages were loaded into the shared buffers: %d of %d cached, %d before", n, pages, inCache)
	}
	if n := visible(); n != allVisible {
		t.Errorf("the table's visibility map changed: %d pages all-visible, %d before", n, allVisible)
	}
	unchanged(t, a, before)
}

// TestXMLEntitiesReadNoFile: the XML the guard lets a statement read
// (xmlparse, xmlserialize) is parsed from a document whose DTD names a
// server file as an external entity, or as its external subset, without
// reading it: the server resolves external entities to nothing. The file
// is one the server can read (pg_read_file shows it), so a change there
// fails here. XPath and XSLT (xpath, xmltable, xml2's xpath_* and
// xslt_process), which also read such documents, are refused: libxml2
// and libxslt do not let the server interrupt them (TestXPathIsRefused).
func TestXMLEntitiesReadNoFile(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	const marker = "tablewise-xml-marker"
	secret := filepath.Join(serverDir(t, "tablewise-xml-"), "secret")
	if err := os.WriteFile(secret, []byte(marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var read string
	if err := a.QueryRow(context.Background(), "SELECT pg_read_file($1)", secret).Scan(&read); err != nil || !strings.Contains(read, marker) {
		t.Fatalf("the server cannot read %s (%q, %v): the test proves nothing", secret, read, err)
	}
	doc := fmt.Sprintf(`<!DOCTYPE foo [<!ENTITY x SYSTEM "file://%s">]><foo>&x;</foo>`, secret)
	allowed := []string{
		fmt.Sprintf(`SELECT xmlserialize(document xmlparse(document '%s') AS text)`, doc),
		fmt.Sprintf(`SELECT xmlserialize(document xmlparse(document '<!DOCTYPE foo SYSTEM "file://%s"><foo/>') AS text)`, secret),
		fmt.Sprintf(`SELECT xmlparse(document '%s')::text`, doc),
	}
	refused := []string{
		fmt.Sprintf(`SELECT xpath('string(/)', xmlparse(document '%s'))::text`, doc),
		fmt.Sprintf(`SELECT v FROM xmltable('/foo' PASSING xmlparse(document '%s') COLUMNS v text PATH '.')`, doc),
	}
	if _, err := a.Exec(context.Background(), "CREATE EXTENSION xml2"); err != nil {
		t.Logf("xml2 left out: %v", err)
	} else {
		refused = append(refused,
			fmt.Sprintf(`SELECT xpath_string('%s', '/foo')`, doc),
			fmt.Sprintf(`SELECT xslt_process('<foo/>', '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"><r><xsl:copy-of select="document(''%s'')"/></r></xsl:template></xsl:stylesheet>')`, secret))
	}
	e := open(t, url)
	for _, sql := range allowed {
		res, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 5})
		var rej *guard.Rejection
		if errors.As(err, &rej) {
			t.Errorf("%s: refused: %v", sql, err)
			continue
		}
		if err != nil && strings.Contains(err.Error(), marker) {
			t.Errorf("%s: the error holds the file's text: %v", sql, err)
		}
		if err == nil && strings.Contains(fmt.Sprint(res.Rows), marker) {
			t.Errorf("%s: the result holds the file's text: %v", sql, res.Rows)
		}
	}
	for _, sql := range refused {
		res, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 5})
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%s: %v (rows %v), want a refusal", sql, err, res)
		}
	}
}

// TestIndexAndSessionFunctions: built-in functions that a READ ONLY
// transaction lets a superuser run although they write an index's pages
// (GIN's pending list, BRIN's summaries), read the server's configuration
// files, or leave state in the session that DISCARD ALL does not clear
// (setseed, HypoPG's hypothetical indexes) are refused, called directly or
// through a view, and the indexes are left as they were: their pending
// entries and unsummarized ranges are still there for the owner to clean.
func TestIndexAndSessionFunctions(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE EXTENSION hypopg`)
	exec(t, a, `CREATE TABLE tags (id int, tag int[]) WITH (autovacuum_enabled = off)`)
	exec(t, a, `CREATE INDEX tags_gin ON tags USING gin (tag) WITH (fastupdate = on)`)
	exec(t, a, `CREATE INDEX tags_brin ON tags USING brin (id)`)
	exec(t, a, `INSERT INTO tags SELECT g, ARRAY[g % 10, g % 7] FROM generate_series(1, 20000) g`)
	exec(t, a, `CREATE VIEW tidy AS SELECT gin_clean_pending_list('tags_gin'::regclass) AS pages`)
	before := snapshot(t, a)
	e := open(t, url)
	refused(t, e, "writes the index",
		`SELECT gin_clean_pending_list('tags_gin'::regclass)`,
		`SELECT pg_catalog.gin_clean_pending_list('tags_gin')`,
		`SELECT * FROM tidy`)
	refused(t, e, "BRIN index",
		`SELECT brin_summarize_new_values('tags_brin'::regclass)`,
		`SELECT brin_summarize_range('tags_brin', 0)`,
		`SELECT brin_desummarize_range('tags_brin', 0)`)
	refused(t, e, "server's files",
		`SELECT * FROM pg_hba_file_rules`,
		`SELECT count(*) FROM pg_file_settings`,
		`SELECT * FROM pg_ident_file_mappings`,
		`SELECT * FROM pg_show_all_file_settings()`)
	refused(t, e, "random numbers", `SELECT setseed(0.5)`)
	refused(t, e, "rest of the session",
		`SELECT * FROM hypopg_create_index('CREATE INDEX ON "Track" ("Composer")')`,
		`SELECT hypopg_hide_index('tags_gin'::regclass)`)
	refused(t, e, "rotates", `SELECT pg_rotate_logfile_old()`)
	refused(t, e, "object id", `SELECT pg_nextoid('pg_class', 'oid', 'pg_class_oid_index')`)

	// The indexes still hold what the refused calls would have moved.
	var pending, ranges int64
	if err := a.QueryRow(context.Background(), `SELECT gin_clean_pending_list('tags_gin'::regclass)`).Scan(&pending); err != nil || pending == 0 {
		t.Errorf("the GIN index's pending list was emptied before its owner cleaned it (%d pages left, %v)", pending, err)
	}
	if err := a.QueryRow(context.Background(), `SELECT brin_summarize_new_values('tags_brin'::regclass)`).Scan(&ranges); err != nil || ranges == 0 {
		t.Errorf("the BRIN index was summarized before its owner did it (%d ranges left, %v)", ranges, err)
	}
	unchanged(t, a, before)
}

// TestForeignProgram: a file_fdw foreign table with a program runs it on
// the server each time it is read; it is refused (directly, through a
// view, in a join, by the catalog's samples and counts) and the program
// never runs. A file_fdw table over a file reads as any table.
func TestForeignProgram(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	dir, ran := programTable(t, a)
	csv := filepath.Join(dir, "genres.csv")
	if err := os.WriteFile(csv, []byte("1,Rock\n2,Jazz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exec(t, a, `CREATE VIEW ran_view AS SELECT upper(a) AS a FROM ran`)
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE genres_file (id int, name text) SERVER files OPTIONS (filename '%s', format 'csv')`, csv))
	e := open(t, url)
	refused(t, e, "runs a program on the server",
		`SELECT * FROM ran`,
		`SELECT a FROM ran_view`,
		`SELECT g."Name", r.a FROM "Genre" g JOIN ran r ON true WHERE g."GenreId" = 1`,
		`SELECT count(*) FROM ran`)
	noSample(t, e, "ran")
	notCreated(t, ran, "the program ran")
	res, err := query.Collect(context.Background(), e, `SELECT name FROM genres_file ORDER BY id`, query.Options{MaxRows: 10, Timeout: 5e9})
	if err != nil || len(res.Rows) != 2 || res.Rows[1][0] != "Jazz" {
		t.Errorf("a file's foreign table: %v %v", res, err)
	}
}

// TestHugeValue: a single value larger than the byte cap is not read into
// memory whole: a row holding one ends the stream truncated as it
// arrives; a plan holding one (the planner folds constant expressions)
// ends the statement with a memory limit error, with or without a byte
// cap; and the engine goes on working on a fresh connection.
func TestHugeValue(t *testing.T) {
	e := open(t, servers.Postgres(t))
	opt := query.Options{MaxBytes: 1 << 20, Timeout: 20e9}
	res, err := query.Collect(context.Background(), e, "SELECT length(repeat('x', 40 << 20)) AS n", opt)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("a small row: %v %v", res, err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err = query.Collect(context.Background(), e, `SELECT "Name" FROM "Genre" WHERE "GenreId" = 1 UNION ALL SELECT repeat("Name", 40 << 20) FROM "Genre" WHERE "GenreId" = 2`, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Rows) != 1 {
		t.Errorf("not truncated after the first row: truncated %v, %d rows", res.Truncated, len(res.Rows))
	}
	_, err = query.Collect(context.Background(), e, "SELECT repeat('x', 40 << 20) AS v", opt)
	var lim *query.LimitError
	if !errors.As(err, &lim) || lim.Kind != "memory" {
		t.Errorf("a folded constant past the cap: %v", err)
	}
	// Without a byte cap (EXPLAIN, export), the plan is bounded anyway.
	_, err = query.Collect(context.Background(), e, "SELECT repeat('x', 40 << 20) AS v", query.Options{Timeout: 20e9})
	if !errors.As(err, &lim) || lim.Kind != "memory" {
		t.Errorf("a folded constant with no byte cap: %v", err)
	}
	if _, err = e.Explain(context.Background(), "SELECT repeat('x', 40 << 20) AS v"); !errors.As(err, &lim) || lim.Kind != "memory" {
		t.Errorf("EXPLAIN of a folded constant: %v", err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 20<<20 {
		t.Errorf("reading values of 40 MB and more under a 1 MB cap allocated %d MB", grew>>20)
	}
	res, err = query.Collect(context.Background(), e, `SELECT count(*) FROM "Track"`, query.Options{})
	if err != nil || res.Rows[0][0] != int64(3503) {
		t.Errorf("read after: %v %v", res, err)
	}
}

// TestHugeValueSample: the catalog's sample rows are held to a byte cap:
// a table of huge values costs the catalog little memory.
func TestHugeValueSample(t *testing.T) {
	url := servers.Postgres(t)
	exec(t, admin(t, url), `CREATE TABLE huge AS SELECT repeat('x', 40 << 20) AS v`)
	e := open(t, url)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cat, err := e.Catalog(context.Background())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 20<<20 {
		t.Errorf("the catalog of a table holding a 40 MB value allocated %d MB", grew>>20)
	}
	if tb := cat.Table("huge"); tb == nil || len(tb.Sample) != 0 {
		t.Errorf("huge: %+v", tb)
	}
}

// TestForeignServer: a postgres_fdw foreign table is read by a query the
// wrapper sends on a connection of its own, in a transaction that is not
// read-only and a session that outlives the statement: reading one
// (directly, through a view, as a partition) is refused before it is
// planned, since planning with use_remote_estimate already runs the remote
// side's planner; the remote side's program and sequence never run, no
// connection is left open, and the catalog holds no sample of it.
func TestForeignServer(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	_, ran := programTable(t, a)
	exec(t, a, "CREATE EXTENSION postgres_fdw")
	// The same database, reached again through postgres_fdw.
	exec(t, a, `DO $$ BEGIN EXECUTE format('CREATE SERVER loop FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, port %L, dbname %L)',
		host(inet_server_addr()), inet_server_port()::text, current_database()); END $$`)
	exec(t, a, `CREATE USER MAPPING FOR CURRENT_USER SERVER loop OPTIONS (user 'postgres')`)
	exec(t, a, `CREATE FOREIGN TABLE ran_remote (a text) SERVER loop OPTIONS (table_name 'ran')`)
	exec(t, a, `CREATE VIEW ran_remote_view AS SELECT upper(a) AS a FROM ran_remote`)
	exec(t, a, `CREATE SEQUENCE planned`)
	exec(t, a, `CREATE FUNCTION plan_step(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM nextval('public.planned'); RETURN $1; END $$`)
	exec(t, a, `CREATE VIEW stepped AS SELECT "GenreId" AS id FROM "Genre" WHERE "GenreId" = plan_step(1)`)
	exec(t, a, `CREATE FOREIGN TABLE stepped_remote (id int) SERVER loop OPTIONS (table_name 'stepped', use_remote_estimate 'true')`)
	exec(t, a, `CREATE TABLE parts (id int) PARTITION BY RANGE (id)`)
	exec(t, a, `CREATE FOREIGN TABLE parts_remote PARTITION OF parts FOR VALUES FROM (0) TO (100) SERVER loop OPTIONS (table_name 'stepped', use_remote_estimate 'true')`)
	e := open(t, url)
	refused(t, e, "another connection",
		`SELECT * FROM ran_remote`,
		`SELECT a FROM ran_remote_view`,
		`SELECT * FROM stepped_remote`,
		`SELECT count(*) FROM parts`,
		`EXPLAIN SELECT * FROM stepped_remote`)
	if _, err := e.Explain(context.Background(), `SELECT * FROM stepped_remote`); err == nil {
		t.Errorf("explain of stepped_remote: not refused")
	}
	// Made after the guard learned the database: its plan shows the
	// remote query.
	exec(t, a, `CREATE FOREIGN TABLE late_remote (a text) SERVER loop OPTIONS (table_name 'ran')`)
	refused(t, e, "another connection", `SELECT * FROM late_remote`)
	noSample(t, e, "ran_remote")
	notCreated(t, ran, "the program ran")
	if n := servers.PostgresColumn[bool](t, a, `SELECT is_called FROM planned`); n[0] {
		t.Errorf("the remote side's planner advanced a sequence")
	}
	if n := servers.PostgresColumn[int64](t, a, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'postgres_fdw'`); n[0] != 0 {
		t.Errorf("%d postgres_fdw sessions left open", n[0])
	}
}

// TestBuiltinUnderAnotherName: a function the database's owner declared
// in LANGUAGE internal (or c) is a built-in function under another name:
// one that is a denied function is refused as it (called, through a view,
// through an operator), whatever its own name.
func TestBuiltinUnderAnotherName(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION hostname(text) RETURNS text LANGUAGE internal AS 'pg_read_file_all'`)
	exec(t, a, `CREATE VIEW host AS SELECT hostname('/etc/hostname') AS h`)
	exec(t, a, `CREATE FUNCTION hold(bigint) RETURNS void LANGUAGE internal AS 'pg_advisory_lock_int8'`)
	exec(t, a, `CREATE FUNCTION files(text) RETURNS SETOF text LANGUAGE internal AS 'pg_ls_dir_1arg'`)
	exec(t, a, `CREATE OPERATOR @@@ (FUNCTION = hostname, RIGHTARG = text)`)
	before := snapshot(t, a)
	e := open(t, url)
	refused(t, e, "",
		`SELECT hostname('/etc/hostname')`,
		`SELECT public.hostname('/etc/hostname')`,
		`SELECT h FROM host`,
		`SELECT hold(42)`,
		`SELECT * FROM files('.')`,
		`SELECT @@@ '/etc/hostname'`)
	unchanged(t, a, before)
}

// TestOwnObjectsInSystemSchemas: what the database's owner creates in
// pg_catalog or information_schema (a superuser may) is the database's
// own, not the server's: a procedural function there runs code the guard
// cannot see (COPY … TO PROGRAM is allowed in a read-only transaction),
// an internal one may be a denied function under another name, and a
// view or operator there reaches them.
func TestOwnObjectsInSystemSchemas(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	dir := serverDir(t, "tablewise-pgcat-")
	ran := filepath.Join(dir, "ran")
	exec(t, a, fmt.Sprintf(`CREATE FUNCTION pg_catalog.tw_run() RETURNS int LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch %s'''; RETURN 1; END $$`, ran))
	exec(t, a, `CREATE VIEW runs AS SELECT tw_run() AS x`)
	exec(t, a, `CREATE VIEW information_schema.tw_runs AS SELECT tw_run() AS x`)
	exec(t, a, `CREATE FUNCTION information_schema.tw_host(text) RETURNS text LANGUAGE internal AS 'pg_read_file_all'`)
	exec(t, a, `CREATE OPERATOR pg_catalog.@@@ (FUNCTION = information_schema.tw_host, RIGHTARG = text)`)
	e := open(t, url)
	refused(t, e, "",
		`SELECT tw_run()`,
		`SELECT pg_catalog.tw_run()`,
		`SELECT x FROM runs`,
		`SELECT x FROM information_schema.tw_runs`,
		`SELECT information_schema.tw_host('/etc/hostname')`,
		`SELECT @@@ '/etc/hostname'`)
	notCreated(t, ran, "the program ran")
}

// TestSearchPathShadow: a database whose search_path puts a schema before
// pg_catalog (ALTER DATABASE … SET search_path) makes that schema's
// functions replace the server's in unqualified calls: the guard's own
// queries about the database still call only the server's, so opening
// the database and reading it runs none of the owner's code.
func TestSearchPathShadow(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	dir := serverDir(t, "tablewise-path-")
	ran := filepath.Join(dir, "ran")
	exec(t, a, `CREATE SCHEMA shadow`)
	exec(t, a, fmt.Sprintf(`CREATE FUNCTION shadow.lower(name) RETURNS text LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch %s'''; RETURN pg_catalog.lower($1::text); END $$`, ran))
	exec(t, a, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET search_path = shadow, pg_catalog, public', current_database()); END $$`)
	e := open(t, url)
	res, err := query.Collect(context.Background(), e, `SELECT "Name" FROM "Genre" WHERE "GenreId" = 1`, query.Options{MaxRows: 10, Timeout: 5e9})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "Rock" {
		t.Errorf("a read: %v %v", res, err)
	}
	if _, err := query.Collect(context.Background(), e, `SELECT lower("Name") FROM "Genre"`, query.Options{MaxRows: 10, Timeout: 5e9}); err == nil {
		t.Errorf("a call of the shadowing lower: not refused")
	}
	// The catalog's own queries call lower(): refused, since one of the
	// database's functions has that name.
	var rej *guard.Rejection
	if _, err := e.Catalog(context.Background()); err != nil && !errors.As(err, &rej) {
		t.Errorf("the catalog: %v", err)
	}
	notCreated(t, ran, "the owner's function ran")
}

// TestIndexTrialRunsNothing: trying an index calls HypoPG's functions by
// name; when the database's owner replaced one with code of their own
// (CREATE OR REPLACE FUNCTION hypopg_reset() … plpgsql), the trial is
// refused and that code never runs.
func TestIndexTrialRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE EXTENSION hypopg`)
	dir := serverDir(t, "tablewise-hypo-")
	ran := filepath.Join(dir, "ran")
	exec(t, a, fmt.Sprintf(`CREATE OR REPLACE FUNCTION hypopg_reset() RETURNS void LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch %s'''; END $$`, ran))
	e := open(t, url)
	_, _, err := e.TryIndexes(context.Background(), `SELECT * FROM "Track" WHERE "Composer" = 'x'`, []engine.IndexSpec{{Table: "Track", Columns: []string{"Composer"}}})
	if !refusalNames(err, "hypopg_reset") {
		t.Errorf("an index trial with a replaced hypopg_reset: %v", err)
	}
	notCreated(t, ran, "the owner's function ran")
}

// TestPlannerLoadsNothing: the planner simplifies what it loads about a
// table it plans — index expressions and predicates, CHECK constraints
// (constraint exclusion), extended statistics' expressions — and the
// constants an implicit cast converts, running IMMUTABLE or STABLE
// functions on constants as it does: a table (or a view, or a
// partitioned parent, that reads one) whose definition calls such a
// function of the database's own, and a database with such an implicit
// cast, are refused before anything is planned. Here the function ends
// another session.
func TestPlannerLoadsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION cutoff(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN $1; END $$`)
	exec(t, a, `CREATE TABLE predicate (a int)`)
	exec(t, a, `CREATE INDEX ON predicate (a) WHERE a > cutoff(0)`)
	exec(t, a, `CREATE TABLE expression (a int)`)
	exec(t, a, `CREATE INDEX ON expression ((a + cutoff(0)))`)
	exec(t, a, `CREATE TABLE stats (a int, b int)`)
	exec(t, a, `CREATE STATISTICS stats_ab ON (a + cutoff(0)), b FROM stats`)
	exec(t, a, `CREATE TABLE parts (a int) PARTITION BY RANGE (a)`)
	exec(t, a, `CREATE TABLE parts_low PARTITION OF parts (CHECK (a < cutoff(10))) FOR VALUES FROM (0) TO (10)`)
	exec(t, a, `CREATE VIEW over_predicate AS SELECT a FROM predicate`)
	exec(t, a, `CREATE TABLE keyed (a int) PARTITION BY RANGE ((a + cutoff(0)))`)
	exec(t, a, `CREATE TABLE keyed_low PARTITION OF keyed FOR VALUES FROM (0) TO (100)`)
	// A partition read alone is checked against its partition key.
	exec(t, a, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET constraint_exclusion = on', current_database()); END $$`)
	// Made now: creating the index, the statistics and the partition ran
	// cutoff.
	victim := victimSession(t, url)
	e := open(t, url)
	statements := []string{
		"SELECT * FROM predicate",
		"SELECT * FROM expression",
		"SELECT * FROM stats",
		"SELECT * FROM parts",
		"SELECT * FROM parts_low",
		"SELECT * FROM over_predicate",
		"SELECT * FROM keyed WHERE a = 5",
		"SELECT * FROM keyed_low WHERE a = 5",
		"EXPLAIN SELECT * FROM predicate",
	}
	refusedNaming(t, e, victim, "cutoff", statements...)
	if _, err := e.Catalog(context.Background()); err != nil {
		t.Errorf("the catalog: %v", err)
	}
	if err := sessionErr(victim); err != nil {
		t.Fatalf("the catalog ended the other session: %v", err)
	}
	exec(t, a, `CREATE FUNCTION int4_text(int) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN $1::varchar; END $$`)
	exec(t, a, `CREATE CAST (int AS text) WITH FUNCTION int4_text(int) AS IMPLICIT`)
	e = open(t, url)
	refusedNaming(t, e, victim, "int4_text", "SELECT length(1)", `SELECT "Name" FROM "Genre" WHERE "GenreId" = 1`)
}

// TestOperatorClassRunsNothing: an index of an operator class of the
// database's own runs the class's functions when the planner estimates
// with it and when a scan reads it, and a default operator class runs
// when any statement sorts or compares a value of its type, named or
// not: a table with such an index is refused, and with such a default
// class every statement. Here the function ends another session.
func TestOperatorClassRunsNothing(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	killerClass(t, a, "ending_ops", "ends", "int4", "btint4cmp", endVictim)
	exec(t, a, `CREATE TABLE ordered (a int)`)
	exec(t, a, `CREATE INDEX ON ordered (a ending_ops)`)
	exec(t, a, `CREATE TABLE ranged (a int) PARTITION BY RANGE (a ending_ops)`)
	exec(t, a, `CREATE TABLE ranged_low PARTITION OF ranged FOR VALUES FROM (0) TO (100)`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "ends", `SELECT a FROM ordered WHERE a = 5`, `SELECT a FROM ranged WHERE a = 5`)
	if res, err := query.Collect(context.Background(), e, `SELECT "Name" FROM "Genre" ORDER BY "GenreId" LIMIT 1`, query.Options{}); err != nil || len(res.Rows) != 1 {
		t.Errorf("another table: %v %v", res, err)
	}
	exec(t, a, `CREATE TYPE pair AS (x int, y int)`)
	exec(t, a, `CREATE FUNCTION pair_cmp(pair, pair) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN btint4cmp($1.x, $2.x); END $$`)
	// The operators are the server's own code: only the class's
	// comparison function is the owner's.
	for op, fn := range map[string]string{"<": "lt", "=": "eq", ">": "gt"} {
		exec(t, a, fmt.Sprintf(`CREATE FUNCTION pair_%s(pair, pair) RETURNS bool IMMUTABLE LANGUAGE internal AS 'record_%s'`, fn, fn))
		exec(t, a, fmt.Sprintf(`CREATE OPERATOR %s (FUNCTION = pair_%s, LEFTARG = pair, RIGHTARG = pair)`, op, fn))
	}
	exec(t, a, `CREATE OPERATOR CLASS pair_ops DEFAULT FOR TYPE pair USING btree AS
		OPERATOR 1 <, OPERATOR 3 =, OPERATOR 5 >, FUNCTION 1 pair_cmp(pair, pair)`)
	exec(t, a, `CREATE TABLE pairs AS SELECT ROW(g, 4 - g)::pair AS p FROM generate_series(1, 3) g`)
	e = open(t, url)
	refusedNaming(t, e, victim, "pair_cmp", `SELECT * FROM pairs ORDER BY p`)
}

// TestForeignFileNotRegular: file_fdw opens a foreign table's file on the
// server with no deadline: a FIFO with no writer blocks the session in
// open() past the statement's deadline and its cancel, holding its lock,
// until someone writes. A file the plan shows as empty (a FIFO, a device,
// or an empty file, which holds no rows anyway) is refused; a file with
// rows reads as any table.
func TestForeignFileNotRegular(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, "CREATE EXTENSION file_fdw")
	exec(t, a, "CREATE SERVER files FOREIGN DATA WRAPPER file_fdw")
	dir := serverDir(t, "tablewise-fifo-")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	// A session left blocked opening the FIFO is released by a writer.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	empty := filepath.Join(dir, "empty.csv")
	csv := filepath.Join(dir, "genres.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, []byte("1,Rock\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE piped (a text) SERVER files OPTIONS (filename '%s')`, fifo))
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE nothing (a text) SERVER files OPTIONS (filename '%s')`, empty))
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE genres_file (id int, name text) SERVER files OPTIONS (filename '%s', format 'csv')`, csv))
	exec(t, a, `CREATE FOREIGN TABLE zeros (a text) SERVER files OPTIONS (filename '/dev/zero')`)
	e := open(t, url)
	for _, sql := range []string{`SELECT count(*) FROM piped`, `SELECT * FROM nothing`, `SELECT * FROM zeros`} {
		_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 1e9})
		if !refusalNames(err, "not a regular file") {
			t.Errorf("%s: not refused as not a regular file: %v", sql, err)
		}
	}
	if n := servers.PostgresColumn[int64](t, a, `SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%FROM piped%' AND pid <> pg_backend_pid()`); n[0] != 0 {
		t.Errorf("%d sessions left reading the FIFO", n[0])
	}
	res, err := query.Collect(context.Background(), e, `SELECT name FROM genres_file`, query.Options{MaxRows: 10, Timeout: 5e9})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "Rock" {
		t.Errorf("a file's foreign table: %v %v", res, err)
	}
}

// TestRangeSubtypeDiff: the planner estimates a range operator's
// selectivity with the range type's subtype_diff function: a table with
// a column of a range type whose subtype_diff is the database's own code
// is refused, and so is naming the type. Here the function ends another
// session.
func TestRangeSubtypeDiff(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE FUNCTION span_diff(int, int) RETURNS float8 IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN ($1 - $2)::float8; END $$`)
	exec(t, a, `CREATE TYPE span AS RANGE (subtype = int4, subtype_diff = span_diff)`)
	exec(t, a, `CREATE TABLE spans AS SELECT span(g, g + 10) AS r FROM generate_series(1, 2000) g`)
	exec(t, a, `ANALYZE spans`)
	exec(t, a, `CREATE VIEW over_spans AS SELECT r FROM spans`)
	exec(t, a, `CREATE DOMAIN short_span AS span CHECK (upper(VALUE) - lower(VALUE) < 100)`)
	exec(t, a, `CREATE TABLE short_spans AS SELECT r::short_span AS r FROM spans`)
	exec(t, a, `ANALYZE short_spans`)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "span_diff",
		`SELECT count(*) FROM spans WHERE r <@ '[1,500)'`,
		`SELECT count(*) FROM over_spans WHERE r && '[5,7)'`,
		`SELECT count(*) FROM short_spans WHERE r <@ '[1,500)'`,
		`SELECT '[1,5)'::span && '[2,3)'`)
}

// refused fails t for each statement e does not refuse with a reason
// holding want ("" for any reason).
func refused(t *testing.T, e *postgres.Engine, want string, statements ...string) {
	t.Helper()
	for _, sql := range statements {
		_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 5e9})
		if !refusalNames(err, want) {
			t.Errorf("%s: not refused with a reason naming %q: %v", sql, want, err)
		}
	}
}

// programTable makes the file_fdw foreign table ran, whose every read
// runs a program on the server that creates the file ran in dir (a
// serverDir).
func programTable(t *testing.T, a *pgx.Conn) (dir, ran string) {
	t.Helper()
	exec(t, a, "CREATE EXTENSION file_fdw")
	exec(t, a, "CREATE SERVER files FOREIGN DATA WRAPPER file_fdw")
	dir = serverDir(t, "tablewise-fdw-")
	ran = filepath.Join(dir, "ran")
	exec(t, a, fmt.Sprintf(`CREATE FOREIGN TABLE ran (a text) SERVER files OPTIONS (program 'touch %s; echo hi')`, ran))
	return dir, ran
}

// noSample fails t unless e's catalog holds table, with no sample of its
// rows.
func noSample(t *testing.T, e *postgres.Engine, table string) {
	t.Helper()
	cat, err := e.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tb := cat.Table(table); tb == nil || len(tb.Sample) != 0 {
		t.Errorf("the catalog's table %s: %+v", table, tb)
	}
}

// notCreated fails t, saying what happened, when path exists: the file a
// refused statement's code would have created.
func notCreated(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %s exists (%v)", what, path, err)
	}
}

// serverDir makes a directory, removed after the test, that the server's
// own user can write files in and read them from.
func serverDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// endVictim is a PL/pgSQL statement that ends the session victimSession
// opens: a function holding it shows that it ran.
const endVictim = "PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tablewise_victim';"

// victimSession opens a session of the test's own for endVictim to end.
func victimSession(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	victim := admin(t, url)
	exec(t, victim, "SET application_name = 'tablewise_victim'")
	return victim
}

// refusalNames reports whether err is the guard's refusal with a reason
// that names want.
func refusalNames(err error, want string) bool {
	var rej *guard.Rejection
	return errors.As(err, &rej) && strings.Contains(rej.Reason, want)
}

// refusedNaming fails t for each statement e does not refuse with a
// reason naming want and a hint, and stops it once the victim session was
// ended.
func refusedNaming(t *testing.T, e *postgres.Engine, victim *pgx.Conn, want string, statements ...string) {
	t.Helper()
	for _, sql := range statements {
		_, err := query.Collect(context.Background(), e, sql, query.Options{MaxRows: 10, Timeout: 5e9})
		var rej *guard.Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.Reason, want) || rej.Hint == "" {
			t.Errorf("%s: not refused naming %s with a hint: %v", sql, want, err)
		}
		if err := sessionErr(victim); err != nil {
			t.Fatalf("%s: the other session was ended: %v", sql, err)
		}
	}
}
