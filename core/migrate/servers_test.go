package migrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// The migrations the server tests rehearse on the sample database.
const (
	serverUp = `-- tag orders, drop a column
CREATE TABLE order_tags (order_id integer NOT NULL REFERENCES orders(order_id), tag varchar(40) NOT NULL);
CREATE INDEX order_tags_order ON order_tags(order_id);
ALTER TABLE customers DROP COLUMN marketing_opt_in;`
	// down forgets to restore customers.marketing_opt_in.
	serverDown = `DROP TABLE order_tags;`
)

// pgState is what a rehearsal must leave as it was in the real database:
// every table's rows and the schema's definition.
func pgState(t *testing.T, url string) string {
	t.Helper()
	ctx := context.Background()
	c := servers.PostgresClient(t, url)
	defer c.Close(ctx)
	tables := servers.PostgresColumn[string](t, c, "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	var b strings.Builder
	for _, tb := range tables {
		var sum string
		if err := c.QueryRow(ctx, fmt.Sprintf("SELECT %s || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '')  FROM %s t", "'"+tb+"'", tb)).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		b.WriteString(sum + "\n")
	}
	var schema string
	if err := c.QueryRow(ctx, `SELECT md5(string_agg(table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable, ',' ORDER BY table_name, ordinal_position))
		|| md5((SELECT string_agg(indexdef, ',' ORDER BY indexdef) FROM pg_indexes WHERE schemaname = 'public'))
		FROM information_schema.columns WHERE table_schema = 'public'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return b.String() + schema
}

// pgRehearsals lists the rehearsal schemas left in a database.
func pgRehearsals(t *testing.T, url string) []string {
	t.Helper()
	c := servers.PostgresClient(t, url)
	defer c.Close(context.Background())
	return servers.PostgresColumn[string](t, c, "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'tablewise\\_rehearse\\_%'")
}

// checkServerRehearsal checks the report of serverUp and serverDown on a
// copy of the sample: the schema changes it lists include changes, down
// does not restore the dropped column, and the copy was faithful.
func checkServerRehearsal(t *testing.T, rep *Report, changes ...string) {
	t.Helper()
	for _, want := range changes {
		if !slices.Contains(rep.Changes, want) {
			t.Errorf("changes %v lack %q", rep.Changes, want)
		}
	}
	if rep.Reversible == nil || *rep.Reversible || !slices.Contains(rep.NotRestored, "- column customers.marketing_opt_in") {
		t.Errorf("reversible %v, not restored %v", rep.Reversible, rep.NotRestored)
	}
	for _, n := range rep.Notes {
		if strings.Contains(n, "rehearsal lacks") || strings.Contains(n, "not copied") || strings.Contains(n, "differs") {
			t.Errorf("the copy is not faithful: %s", n)
		}
	}
}

func TestPostgresScratch(t *testing.T) {
	url := servers.PostgresSample(t)
	scratch := servers.PostgresScratch(t) // another database on the same server, its user no superuser
	d := testdb.Open(t, url)
	before := pgState(t, url)

	rep := mustCheck(t, d, serverUp, serverDown, Options{Scratch: scratch})
	if !rep.Valid || !rep.Destructive {
		t.Fatalf("report: %s", rep.Text())
	}
	if n := rep.Up[2].Notes; !rep.Up[2].Destructive || len(n) == 0 || !strings.Contains(n[0], "drops column customers.marketing_opt_in") || !strings.Contains(n[0], "2,400 rows") {
		t.Errorf("drop column: %+v", rep.Up[2])
	}
	wantLocks := []string{"SHARE ROW EXCLUSIVE on orders", "SHARE on order_tags", "ACCESS EXCLUSIVE on customers"}
	for i, want := range wantLocks {
		if rep.Up[i].Lock != want {
			t.Errorf("statement %d lock %q, want %q", i+1, rep.Up[i].Lock, want)
		}
	}
	checkServerRehearsal(t, rep, "+ table order_tags", "+ index order_tags_order", "- column customers.marketing_opt_in")

	// A down that restores exactly is reversible.
	rep = mustCheck(t, d, "ALTER TABLE orders ADD COLUMN gift_note text;\nCREATE INDEX CONCURRENTLY orders_gift ON orders(gift_note);",
		"DROP INDEX orders_gift;\nALTER TABLE orders DROP COLUMN gift_note;", Options{Scratch: scratch})
	if !rep.Valid || rep.Destructive || rep.Reversible == nil || !*rep.Reversible {
		t.Errorf("safe migration: %s", rep.Text())
	}
	if rep.Up[1].Lock != "SHARE UPDATE EXCLUSIVE on orders" || rep.Down[0].Lock != "ACCESS EXCLUSIVE on orders" {
		t.Errorf("locks %q, %q", rep.Up[1].Lock, rep.Down[0].Lock)
	}

	// An invalid statement stops the script and makes the report invalid.
	rep = mustCheck(t, d, "CREATE TABLE x(a int);\nALTER TABLE nope ADD COLUMN b int;\nCREATE TABLE y(a int);", "", Options{Scratch: scratch})
	if rep.Valid || len(rep.Up) != 2 || !strings.Contains(rep.Up[1].Error, `"nope" does not exist`) {
		t.Errorf("invalid: %+v", rep)
	}

	rep = mustCheck(t, d, "DROP DATABASE postgres;", "", Options{Scratch: scratch})
	if rep.Valid || !strings.Contains(rep.Up[0].Error, "drop database is not rehearsed") {
		t.Errorf("DROP DATABASE: %+v", rep.Up)
	}

	if got := pgState(t, url); got != before {
		t.Errorf("the database changed:\n%s\nwas\n%s", got, before)
	}
	if left := append(pgRehearsals(t, scratch), pgRehearsals(t, url)...); len(left) != 0 {
		t.Errorf("rehearsal schemas left: %v", left)
	}

	// The database itself is never a scratch database, however spelled.
	for _, same := range []string{url, strings.Replace(url, "127.0.0.1", "localhost", 1)} {
		_, err := Check(context.Background(), d, serverUp, "", Options{Scratch: same})
		if !errors.Is(err, engine.ErrScratchIsDatabase) || !strings.Contains(err.Error(), "names the database being checked") {
			t.Errorf("scratch %s: %v", same, err)
		}
	}
	if _, err := Check(context.Background(), d, serverUp, "", Options{}); !errors.Is(err, ErrNeedsScratch) || !strings.Contains(err.Error(), "--scratch") {
		t.Errorf("no scratch: %v", err)
	}
	if got := pgState(t, url); got != before {
		t.Error("the database changed")
	}
}

// TestPostgresBigTableLock: ACCESS EXCLUSIVE on a big table is warned
// about; the same lock on a small one is not.
func TestPostgresBigTableLock(t *testing.T) {
	url := servers.PostgresSample(t)
	scratch := servers.PostgresScratch(t)
	ctx := context.Background()
	c := servers.PostgresClient(t, url)
	if _, err := c.Exec(ctx, "CREATE TABLE events AS SELECT g AS id, 'x' AS kind FROM generate_series(1, 150000) g; ANALYZE events"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	d := testdb.Open(t, url)
	rep, err := Check(ctx, d, "ALTER TABLE events ADD COLUMN seen boolean;\nALTER TABLE shippers ADD COLUMN seen boolean;\nALTER TABLE shippers ADD COLUMN code text NOT NULL;\nALTER TABLE shippers ALTER COLUMN code TYPE varchar(2);", "", Options{Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Up[0].Lock != "ACCESS EXCLUSIVE on events" || len(rep.Up[0].Notes) != 1 || !strings.Contains(rep.Up[0].Notes[0], "a big table (150,000 rows)") {
		t.Errorf("big table: %+v", rep.Up[0])
	}
	if rep.Up[1].Lock != "ACCESS EXCLUSIVE on shippers" || len(rep.Up[1].Notes) != 0 {
		t.Errorf("small table: %+v", rep.Up[1])
	}
	// The copy has no rows, so PostgreSQL accepts what the database
	// (6 shippers) would refuse: reported as destructive all the same.
	if n := rep.Up[2].Notes; !rep.Up[2].Destructive || len(n) != 1 || !strings.Contains(n[0], "NOT NULL column without a default") || !strings.Contains(n[0], "6 rows") {
		t.Errorf("NOT NULL without a default: %+v", rep.Up[2])
	}
	if !rep.Up[3].Destructive || rep.Up[3].Lock != "ACCESS EXCLUSIVE on shippers" {
		t.Errorf("type change: %+v", rep.Up[3])
	}
	if !rep.Valid || !rep.Destructive {
		t.Errorf("report: %s", rep.Text())
	}
}

// TestPostgresScratchReach: on the checked database's own server, a
// scratch user that could act on that database is refused before anything
// runs (the statements below would reach it, one built at run time); a
// scratch user without those rights runs them in the rehearsal, where
// PostgreSQL refuses them: neither changes the checked database.
func TestPostgresScratchReach(t *testing.T) {
	url := servers.PostgresSample(t)
	d := testdb.Open(t, url)
	checked := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
	a := servers.PostgresClient(t, url) // the superuser postgres
	ctx := context.Background()
	state := func() string {
		var s string
		if err := a.QueryRow(ctx, `SELECT coalesce(shobj_description(d.oid, 'pg_database'), '') || '|' ||
			coalesce((SELECT array_to_string(setconfig, ',') FROM pg_db_role_setting WHERE setdatabase = d.oid AND setrole = 0), '')
			FROM pg_database d WHERE datname = current_database()`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	ups := []string{
		`COMMENT ON DATABASE "` + checked + `" IS 'changed';`,
		`DO $$ BEGIN EXECUTE 'ALTER DATABASE ' || quote_ident('` + checked + `') || ' SET work_mem = ''7MB'''; END $$;`,
	}
	admin := func(sql string) {
		t.Helper()
		if _, err := a.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	scratch := servers.PostgresScratch(t)
	role := scratch[len("postgres://"):strings.Index(scratch, "@")]
	t.Cleanup(func() { a.Exec(ctx, `ALTER DATABASE "`+checked+`" OWNER TO postgres`) }) // before the role goes, if the test stops early
	refused := func(scratch, why string) {
		t.Helper()
		for _, up := range ups {
			rep, err := Check(ctx, d, up, "", Options{Scratch: scratch})
			if !errors.Is(err, engine.ErrScratchReaches) || !errors.Is(err, engine.ErrBadPath) || errors.Is(err, engine.ErrScratchIsDatabase) ||
				!strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "give a --scratch URL whose user is not a superuser") {
				t.Errorf("%s\n%s: report %+v, error %v", why, up, rep, err)
			}
		}
	}
	refused(servers.Postgres(t), "the scratch user postgres is a superuser on the server of the database being checked")
	admin("ALTER ROLE " + role + " CREATEROLE")
	refused(scratch, "the scratch user "+role+" has CREATEROLE")
	admin("ALTER ROLE " + role + " NOCREATEROLE; GRANT pg_write_server_files TO " + role)
	refused(scratch, "the scratch user "+role+" is a member of pg_write_server_files")
	admin("REVOKE pg_write_server_files FROM " + role + "; GRANT pg_execute_server_program TO " + role)
	refused(scratch, "the scratch user "+role+" is a member of pg_execute_server_program")
	admin("REVOKE pg_execute_server_program FROM " + role + `; ALTER DATABASE "` + checked + `" OWNER TO ` + role)
	refused(scratch, "the scratch user "+role+" owns the database being checked")
	admin(`ALTER DATABASE "` + checked + `" OWNER TO postgres; GRANT postgres TO ` + role)
	refused(scratch, "the scratch user "+role+" is a member of postgres, the owner of the database being checked")
	other := servers.PostgresScratch(t)
	other = other[len("postgres://"):strings.Index(other, "@")]
	admin("REVOKE postgres FROM " + role + "; ALTER ROLE " + other + " SUPERUSER; GRANT " + other + " TO " + role)
	refused(scratch, "the scratch user "+role+" is a member of "+other+", a superuser on the server")
	admin("ALTER ROLE " + other + " NOSUPERUSER CREATEROLE")
	refused(scratch, "the scratch user "+role+" is a member of "+other+", which has CREATEROLE")
	admin("REVOKE " + other + " FROM " + role)
	if after := state(); after != before {
		t.Fatalf("the checked database changed: %q, was %q", after, before)
	}

	// Without those rights the statements are rehearsed, and fail.
	for _, up := range ups {
		rep := mustCheck(t, d, up, "", Options{Scratch: scratch})
		if rep.Valid || len(rep.Up) != 1 || !strings.Contains(rep.Up[0].Error, "must be owner of database") {
			t.Errorf("%s: %+v", up, rep.Up)
		}
	}
	if after := state(); after != before {
		t.Errorf("the checked database changed: %q, was %q", after, before)
	}
	if left := pgRehearsals(t, scratch); len(left) != 0 {
		t.Errorf("rehearsal schemas left: %v", left)
	}
}

// mysqlState is every table's CHECKSUM TABLE and the schema's columns and
// indexes.
func mysqlState(t *testing.T, url string) string {
	t.Helper()
	c := servers.MySQLClient(t, url, "")
	defer c.Close()
	var tables []string
	for _, s := range servers.Column[string](t, c, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY 1") {
		tables = append(tables, "`"+s+"`")
	}
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	sums := servers.MySQLChecksums(t, c, strings.Join(tables, ", "))
	var schema string
	if err := c.QueryRow(`SELECT CONCAT(MD5(GROUP_CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', COLUMN_TYPE, ' ', IS_NULLABLE ORDER BY TABLE_NAME, ORDINAL_POSITION)),
		(SELECT MD5(GROUP_CONCAT(TABLE_NAME, '.', INDEX_NAME, '.', COLUMN_NAME ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX)) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()))
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return sums + schema
}

func mysqlRehearsals(t *testing.T, url string) []string {
	t.Helper()
	c := servers.MySQLClient(t, url, "")
	defer c.Close()
	return servers.Column[string](t, c, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'tablewise\\_rehearse\\_%'")
}

// leftRehearsals is what rehearsals list finds now that was not in
// before. On MySQL rehearsal databases are the server's, and other test
// packages rehearse on it at the same time: a name not there before is
// given up to 20 s to go (theirs end in seconds; one left behind never
// goes), and a name of before that went is someone else's, ended.
func leftRehearsals(t *testing.T, list func() []string, before []string) []string {
	t.Helper()
	var left []string
	for wait := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		left = left[:0]
		for _, name := range list() {
			if !slices.Contains(before, name) {
				left = append(left, name)
			}
		}
		if len(left) == 0 || time.Now().After(wait) {
			return left
		}
	}
}

func TestMySQLScratch(t *testing.T) {
	url := servers.MySQLSample(t)
	scratch := servers.MySQL(t)
	d := testdb.Open(t, url)
	before := mysqlState(t, url)
	left := mysqlRehearsals(t, url)

	rep := mustCheck(t, d, strings.ReplaceAll(serverUp, "integer", "int"), serverDown, Options{Scratch: scratch})
	if !rep.Valid || !rep.Destructive || !rep.Up[2].Destructive {
		t.Fatalf("report: %s", rep.Text())
	}
	if rep.Up[0].Lock != "" {
		t.Errorf("lock on MySQL: %q", rep.Up[0].Lock)
	}
	checkServerRehearsal(t, rep, "+ table order_tags", "+ index order_tags.order_tags_order", "- column customers.marketing_opt_in")

	rep = mustCheck(t, d, "ALTER TABLE orders ADD COLUMN gift_note text;\nCREATE INDEX orders_gift ON orders(gift_note(20));",
		"DROP INDEX orders_gift ON orders;\nALTER TABLE orders DROP COLUMN gift_note;", Options{Scratch: scratch})
	if !rep.Valid || rep.Destructive || rep.Reversible == nil || !*rep.Reversible {
		t.Errorf("safe migration: %s", rep.Text())
	}

	rep = mustCheck(t, d, "CREATE TABLE x(a int);\nALTER TABLE nope ADD COLUMN b int;", "", Options{Scratch: scratch})
	if rep.Valid || len(rep.Up) != 2 || !strings.Contains(rep.Up[1].Error, "nope") {
		t.Errorf("invalid: %+v", rep)
	}

	// Nothing of a script reaches beyond the rehearsal database, though
	// the scratch server is the checked database's own.
	checked := url[strings.LastIndex(url, "/")+1:]
	outfile := filepath.Join(os.TempDir(), fmt.Sprintf("tablewise-rehearsal-outfile-%d", os.Getpid()))
	t.Cleanup(func() { os.Remove(outfile) })
	for up, want := range map[string]string{
		"ALTER TABLE `" + checked + "`.customers DROP COLUMN marketing_opt_in;":                                     "names the checked database",
		"ALTER TABLE " + checked + ".customers DROP COLUMN marketing_opt_in;":                                       "names the checked database",
		"USE `" + checked + "`;\nDROP TABLE customers;":                                                             "USE is not rehearsed",
		"DROP DATABASE `" + checked + "`;":                                                                          "DROP DATABASE is not rehearsed",
		"PREPARE s FROM 'DROP TABLE " + checked + ".customers';":                                                    "PREPARE is not rehearsed",
		"CREATE OR REPLACE DATABASE `" + checked + "`;":                                                             "DATABASE is not rehearsed",
		"CREATE PROCEDURE p() EXECUTE IMMEDIATE CONCAT('DROP TABLE ', '" + checked + "', '.customers');\nCALL p();": "EXECUTE is not rehearsed",
		"DROP USER IF EXISTS tablewise_no_such_user;":                                                               "DROP USER is not rehearsed",
		"SET GLOBAL max_connections = @@global.max_connections;":                                                    "SET GLOBAL is not rehearsed",
		"SET @@global.max_connections = @@global.max_connections;":                                                  "SET GLOBAL is not rehearsed",
		"FLUSH PRIVILEGES;": "FLUSH is not rehearsed",
		"GRANT SELECT ON *.* TO tablewise_no_such_user@localhost;": "GRANT is not rehearsed",
		"LOAD DATA INFILE '/etc/hostname' INTO TABLE customers;":   "LOAD is not rehearsed",
		"SELECT 1 INTO OUTFILE '" + outfile + "';":                 "INTO OUTFILE is not rehearsed",
	} {
		rep := mustCheck(t, d, up, "", Options{Scratch: scratch})
		if rep.Valid || len(rep.Up) != 1 || !strings.Contains(rep.Up[0].Error, want) {
			t.Errorf("%s: %+v", up, rep.Up)
		}
	}

	if got := mysqlState(t, url); got != before {
		t.Errorf("the database changed:\n%s\nwas\n%s", got, before)
	}
	if now := leftRehearsals(t, func() []string { return mysqlRehearsals(t, url) }, left); len(now) != 0 {
		t.Errorf("rehearsal databases left: %v (before: %v)", now, left)
	}
	for _, same := range []string{url, strings.Replace(url, "127.0.0.1", "localhost", 1)} {
		_, err := Check(context.Background(), d, serverUp, "", Options{Scratch: same})
		if !errors.Is(err, engine.ErrScratchIsDatabase) || !strings.Contains(err.Error(), "names the database being checked") {
			t.Errorf("scratch %s: %v", same, err)
		}
	}
	if _, err := Check(context.Background(), d, serverUp, "", Options{}); !errors.Is(err, ErrNeedsScratch) {
		t.Errorf("no scratch: %v", err)
	}
}

// TestScratchDroppedAtDeadline: a rehearsal cut short by its deadline
// still drops what it made in the scratch database.
func TestScratchDroppedAtDeadline(t *testing.T) {
	for name, c := range map[string]struct {
		urls  func(t *testing.T) (string, string)
		sleep string
		left  func(t *testing.T, url string) []string
	}{
		"postgres": {func(t *testing.T) (string, string) { return servers.PostgresSample(t), servers.PostgresScratch(t) }, "SELECT pg_sleep(20);", pgRehearsals},
		"mysql":    {func(t *testing.T) (string, string) { return servers.MySQLSample(t), servers.MySQL(t) }, "SELECT SLEEP(20);", mysqlRehearsals},
	} {
		t.Run(name, func(t *testing.T) {
			url, scratch := c.urls(t)
			d := testdb.Open(t, url)
			if _, err := d.Catalog(context.Background()); err != nil { // cached: the deadline is the rehearsal's
				t.Fatal(err)
			}
			before := c.left(t, scratch)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			start := time.Now()
			rep, err := Check(ctx, d, "CREATE TABLE x(a int);\n"+c.sleep+"\nCREATE TABLE y(a int);", "", Options{Scratch: scratch})
			if time.Since(start) > 15*time.Second {
				t.Errorf("the rehearsal took %v past a 3 s deadline", time.Since(start))
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Valid || len(rep.Up) != 2 || !strings.Contains(rep.Up[1].Error, "deadline passed") {
				t.Errorf("report: %+v", rep)
			}
			if left := leftRehearsals(t, func() []string { return c.left(t, scratch) }, before); len(left) != 0 {
				t.Errorf("rehearsal left in the scratch database: %v", left)
			}
		})
	}
}
