package mysql_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// TestOtherDatabaseViewCallsItsFunction: the server stores a view's call
// of a stored function of its own database unqualified (`takes`()), and
// runs it as that database's function when another database's statement
// reads the view. The guard looked such a name up among the functions of
// the connection's database only, so the view passed, and its function
// took a named lock that outlived the call and set a user variable and
// a session variable on the pooled connection (the read-only transaction
// refuses only its writes to tables). The view is
// refused, read directly or through a view of the connection's database,
// before and after the guard learnt it, and the pooled session and the
// server are unchanged.
func TestOtherDatabaseViewCallsItsFunction(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	// The guard learns the database before the views exist: confirm
	// sees them first, then vet.
	if _, err := query.Collect(context.Background(), eng, "SELECT 1", query.Options{}); err != nil {
		t.Fatal(err)
	}
	other := f.scalar(t, "SELECT DATABASE()") + "_fn"
	f.exec(t, "CREATE DATABASE "+other)
	t.Cleanup(func() { f.root.Exec("DROP DATABASE " + other) })
	// Made from a session whose database is the other one, as its owner
	// would: the server then writes the calls unqualified.
	f.session(t,
		"USE "+other,
		"CREATE FUNCTION takes() RETURNS INT RETURN GET_LOCK('tw-grab', 0)",
		"CREATE FUNCTION sets() RETURNS INT BEGIN SET @tw_other = 42; SET SESSION group_concat_max_len = 4; RETURN LAST_INSERT_ID(99); END",
		"CREATE FUNCTION hÖld() RETURNS INT RETURN GET_LOCK('tw-grab', 0)",
		"CREATE VIEW takes_lock AS SELECT takes() AS a",
		"CREATE VIEW sets_session AS SELECT sets() AS a",
		"CREATE VIEW accented AS SELECT hold() AS a", // calls hÖld: the server ignores accents
	)
	if def := f.scalar(t, "SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'takes_lock'", other); def != "select `takes`() AS `a`" {
		t.Fatalf("the server wrote the view as %q", def)
	}
	f.exec(t, "CREATE VIEW reads_other AS SELECT a FROM "+other+".takes_lock")
	u := f.watch(t, "/tmp/tw-my-otherfn-")
	for round := 0; round < 2; round++ {
		for _, q := range []string{
			"SELECT * FROM " + other + ".takes_lock",
			"SELECT a FROM `" + other + "`.`sets_session`",
			"SELECT * FROM " + other + ".accented",
			"SELECT * FROM reads_other",
			"SELECT COUNT(*) FROM Genre WHERE GenreId IN (SELECT a FROM " + other + ".sets_session)",
		} {
			refuses(t, eng, q)
			// The next call releases what a call left: look now.
			if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
				t.Errorf("%q left the lock tw-grab held by connection %s", q, held)
			}
		}
	}
	u.check(t)
	res, err := query.Collect(context.Background(), eng, "SELECT @tw_other, @@last_insert_id, @@group_concat_max_len = @@global.group_concat_max_len", query.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != nil || r[1] != int64(0) || r[2] != int64(1) {
		t.Errorf("the pooled session after the attempts: @tw_other %v, last_insert_id %v, group_concat_max_len unchanged %v", r[0], r[1], r[2])
	}
}

// session runs qs, in order, on one connection of the fixture's root
// (so that a session setting or USE holds for the statements after it),
// which it then ends rather than return it to the pool with them.
func (f *fixture) session(t *testing.T, qs ...string) {
	t.Helper()
	c, err := f.root.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer c.Raw(func(any) error { return driver.ErrBadConn })
	for _, q := range qs {
		if _, err := c.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// reader opens an engine with one pooled connection on the fixture's
// database as a user of the test's own who has only the privileges
// grants on it ("SELECT", "SELECT, SHOW VIEW"), and SELECT on the tables
// also names (mysql.proc); the caller closes it.
func (f *fixture) reader(t *testing.T, grants string, also ...string) *twmysql.Engine {
	t.Helper()
	user := "tw_reader_" + f.scalar(t, "SELECT CONNECTION_ID()")
	t.Cleanup(func() { f.root.Exec("DROP USER IF EXISTS " + user) })
	f.exec(t, "CREATE USER "+user)
	f.exec(t, "GRANT "+grants+" ON `"+f.scalar(t, "SELECT DATABASE()")+"`.* TO "+user)
	for _, table := range also {
		f.exec(t, "GRANT SELECT ON "+table+" TO "+user)
	}
	as, err := url.Parse(f.url)
	if err != nil {
		t.Fatal(err)
	}
	as.User = url.User(user)
	eng, err := twmysql.Open(context.Background(), as.String(), engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// refusesSaying fails t unless eng refuses each of qs with a reason or
// hint that contains say, and the lock tw-grab is free after each (the
// next call would release it).
func (f *fixture) refusesSaying(t *testing.T, eng *twmysql.Engine, say string, qs ...string) {
	t.Helper()
	for _, q := range qs {
		_, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
		var rej *guard.Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.Reason+rej.Hint, say) {
			t.Errorf("%q: %v, want a refusal saying %q", q, err, say)
		}
		if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
			t.Errorf("%q left the lock tw-grab held by connection %s", q, held)
		}
	}
}

// TestViewsTheUserCannotSeeInto: what a user who may read a view may not
// see of it hid the calls the view makes, and the view then ran them as
// its definer (here taking the named lock tw-grab, which outlived the
// call). Each such view is refused, saying why, the lock stays free, the
// server is unchanged, and what the user may read is still read.
//
//   - UnreadableViewIsRefused: the server shows a view's definition in
//     information_schema.VIEWS only to its definer and to a user with the
//     SHOW VIEW privilege; to a user who may only SELECT it is empty, and
//     the guard read an empty definition as one that calls nothing. A
//     view whose definition the user cannot read is refused, saying which
//     privilege reads it.
//   - ViewCallsFunctionHiddenFromUser: information_schema.ROUTINES lists
//     a stored function only to a user with a privilege on it, so to the
//     user tablewise doctor recommends (SELECT, SHOW VIEW) the database
//     has no functions, and a view calling one passed the guard. The
//     server writes a stored function's name in a view's definition
//     quoted (`grab`(1)), a built-in's bare (get_lock('x',0)): such a call
//     refuses the view, whether or not the function is seen. A view with
//     a recursive WITH, whose names the server writes bare, still runs.
func TestViewsTheUserCannotSeeInto(t *testing.T) {
	for _, c := range []struct {
		name string
		// prefix names the file no statement may write (see watch).
		prefix string
		// view is made besides watch's views.
		view string
		// grants are the user's privileges on the database.
		grants string
		// say is what every refusal of refused says.
		say     string
		refused []string
		// count is a statement the user may run, answering want.
		count string
		want  int64
	}{
		{
			name:    "UnreadableViewIsRefused",
			prefix:  "/tmp/tw-my-noview-",
			view:    "CREATE VIEW hidden AS SELECT GET_LOCK('tw-grab', 0) AS l, Name FROM Genre",
			grants:  "SELECT",
			say:     "SHOW VIEW",
			refused: []string{"SELECT * FROM hidden", "SELECT COUNT(*) FROM Genre WHERE Name IN (SELECT Name FROM hidden)"},
			count:   "SELECT COUNT(*) FROM Genre",
			want:    25,
		},
		{
			name:    "ViewCallsFunctionHiddenFromUser",
			prefix:  "/tmp/tw-my-hiddenfn-",
			view:    "CREATE VIEW counted AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c",
			grants:  "SELECT, SHOW VIEW",
			say:     "grab",
			refused: []string{"SELECT * FROM `lock view`", "SELECT COUNT(*) FROM Genre WHERE GenreId IN (SELECT g FROM `lock view`)"},
			count:   "SELECT COUNT(*) FROM counted",
			want:    3,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := chinook(t)
			u := f.watch(t, c.prefix, c.view)
			eng := f.reader(t, c.grants)
			defer eng.Close()
			f.refusesSaying(t, eng, c.say, c.refused...)
			if res, err := query.Collect(context.Background(), eng, c.count, query.Options{}); err != nil || res.Rows[0][0] != c.want {
				t.Errorf("%s: %v %v", c.count, res, err)
			}
			u.check(t)
		})
	}
}

// TestLearningStoppedAtTheDeadline: before a statement runs, the guard
// learns the database (every view's definition and its digest) under the
// statement's deadline. A database whose views take longer to read than
// the deadline had that read cut by the server's max_statement_time, and
// the caller got the server's "Query execution was interrupted" as a
// plain error (exit 1), not the deadline's (exit 5).
func TestLearningStoppedAtTheDeadline(t *testing.T) {
	f := chinook(t)
	// Views of long definitions: reading them and their digests takes
	// the server well over the deadline below.
	long := strings.Repeat("x", 1<<20)
	for i := 0; i < 40; i++ {
		f.exec(t, "CREATE VIEW tw_long_"+strconv.Itoa(i)+" AS SELECT '"+long+"' AS x")
	}
	eng := f.single(t)
	defer eng.Close()
	_, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{Timeout: 5 * time.Millisecond})
	if !errors.Is(err, query.ErrDeadline) {
		t.Errorf("a statement whose vetting outlasts the deadline: %v, want the deadline's error", err)
	}
}

// TestAdversarialForms: forms of refused families that the other tests
// do not write — locking reads with their MariaDB options, ANALYZE and
// EXPLAIN ANALYZE with a format, the lock and replication functions
// not tried elsewhere, SHOW ENGINE STATUS spelled otherwise, executable
// comments and hints without content, and EXPLAIN or DESCRIBE of a view
// that calls a refused function — are refused, and the server is
// unchanged.
func TestAdversarialForms(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	u := f.watch(t, "/tmp/tw-my-forms-")
	for _, q := range []string{
		"SELECT * FROM Genre FOR UPDATE SKIP LOCKED",
		"SELECT * FROM Genre WHERE GenreId = 1 FOR UPDATE NOWAIT",
		"SELECT * FROM Genre FOR UPDATE WAIT 1",
		"SELECT * FROM Genre LOCK IN SHARE MODE NOWAIT",
		"SELECT * FROM (SELECT * FROM Genre FOR UPDATE) g",
		"EXPLAIN FORMAT=JSON ANALYZE SELECT * FROM Genre",
		"ANALYZE FORMAT=JSON SELECT * FROM Genre",
		"SELECT RELEASE_ALL_LOCKS()",
		"SELECT IS_FREE_LOCK('tw-lock')",
		"SELECT MASTER_GTID_WAIT('0-1-1000', 1)",
		"SELECT LAST_INSERT_ID()",
		"SELECT LASTVAL(tw_seq)",
		"SHOW ENGINE `innodb` STATUS",
		"SHOW ENGINE/**/INNODB STATUS",
		"SHOW ENGINE ALL STATUS",
		"SELECT 1 /*!*/",
		"SELECT 1 /*M!100000 */",
		"SELECT 1 /*+ */",
		"DESCRIBE `lock view`",
		"EXPLAIN leak",
		"EXPLAIN SELECT * FROM leak",
		"EXPLAIN FORMAT=JSON SELECT * FROM `lock view`",
		"SHOW COLUMNS FROM `lock view`",
		"SELECT * FROM Genre INTO OUTFILE '" + u.out + "'",
		"SELECT * FROM Genre WHERE GenreId = 1 INTO @tw_a",
	} {
		refuses(t, eng, q)
	}
	u.check(t)
	res, err := query.Collect(context.Background(), eng, "SELECT @tw_a", query.Options{Timeout: 2 * time.Second})
	if err != nil || res.Rows[0][0] != nil {
		t.Errorf("the pooled session's @tw_a after the attempts: %v %v", res, err)
	}
}

// TestViewReadsHiddenView: information_schema lists a database's tables
// and views only to a user with a privilege on them. A view the user may
// read, whose definer may read another database, read there a view the
// user could not see, and so neither its definition nor its calls: the
// guard passed it, and the hidden view's function ran as the definer's
// (here taking a named lock). A view that reads what the server does not
// show the user is refused; views reading what the user sees still run.
func TestViewReadsHiddenView(t *testing.T) {
	f := chinook(t)
	hidden := f.scalar(t, "SELECT DATABASE()") + "_hid"
	f.exec(t, "CREATE DATABASE "+hidden)
	t.Cleanup(func() { f.root.Exec("DROP DATABASE " + hidden) })
	f.exec(t, "CREATE FUNCTION "+hidden+".takes() RETURNS INT RETURN GET_LOCK('tw-grab', 0)")
	f.exec(t, "CREATE VIEW "+hidden+".takes_lock AS SELECT "+hidden+".takes() AS a")
	u := f.watch(t, "/tmp/tw-my-hidden-",
		"CREATE VIEW via_hidden AS SELECT a FROM "+hidden+".takes_lock",
		"CREATE VIEW joined AS SELECT g.Name, COUNT(*) AS n FROM Genre g JOIN (Track t JOIN MediaType m ON m.MediaTypeId = t.MediaTypeId) ON t.GenreId = g.GenreId GROUP BY g.Name")
	eng := f.reader(t, "SELECT, SHOW VIEW")
	defer eng.Close()
	f.refusesSaying(t, eng, hidden+".takes_lock", "SELECT * FROM via_hidden", "SELECT COUNT(*) FROM Genre WHERE GenreId IN (SELECT a FROM via_hidden)")
	if res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM joined", query.Options{}); err != nil || res.Rows[0][0] != int64(25) {
		t.Errorf("SELECT COUNT(*) FROM joined: %v %v", res, err)
	}
	u.check(t)
}

// TestBareCallHiddenFromUser: a view made while sql_quote_show_create is
// off has its definition written with bare names, a stored function's
// call too (hold(1), as get_lock('x',0)): to a user who cannot see the
// function in information_schema.ROUTINES, TestViewCallsFunctionHidden
// FromUser's quoted call was no longer there to see, and the view ran the
// function as its definer. To a user who cannot read mysql.proc (so may
// not see every function), a view calling a bare name the server does
// not list among its own functions is refused; one calling built-ins
// runs.
func TestBareCallHiddenFromUser(t *testing.T) {
	f := chinook(t)
	f.session(t,
		"SET SESSION sql_quote_show_create = 0",
		"CREATE FUNCTION hold(n INT) RETURNS INT NOT DETERMINISTIC RETURN GET_LOCK('tw-grab', 0) + n",
		"CREATE VIEW bare_call AS SELECT hold(1) AS g",
		"CREATE VIEW bare_fine AS SELECT COUNT(*) AS n, MAX(CHAR_LENGTH(Name)) AS m, JSON_VALUE('[1]', '$[0]') AS j, IF(COUNT(*) > 1, 'many', 'one') AS k FROM Genre",
	)
	if def := f.scalar(t, "SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'bare_call'"); def != "select hold(1) AS g" {
		t.Fatalf("the server wrote the view as %q", def)
	}
	u := f.watch(t, "/tmp/tw-my-barecall-")
	eng := f.reader(t, "SELECT, SHOW VIEW")
	defer eng.Close()
	f.refusesSaying(t, eng, "hold", "SELECT * FROM bare_call", "SELECT COUNT(*) FROM Genre WHERE GenreId IN (SELECT g FROM bare_call)")
	if res, err := query.Collect(context.Background(), eng, "SELECT n, k FROM bare_fine", query.Options{}); err != nil || res.Rows[0][0] != int64(25) {
		t.Errorf("SELECT n FROM bare_fine: %v %v", res, err)
	}
	u.check(t)
}
