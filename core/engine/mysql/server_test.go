package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// fixture is a fresh copy of Chinook on the server: the engine on it, and
// a root connection of the test's own to set things up and look at the
// server from outside.
type fixture struct {
	url  string
	eng  *twmysql.Engine
	root *sql.DB
}

func open(t testing.TB, url string) *fixture {
	t.Helper()
	eng, err := twmysql.Open(context.Background(), url, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &fixture{url: url, eng: eng, root: servers.MySQLClient(t, url, "")}
}

func chinook(t *testing.T) *fixture { return open(t, servers.MySQL(t)) }

// refuses fails the test unless eng refuses q. A statement that runs is
// reported with its row count, not its rows (SHOW ENGINE STATUS prints
// pages).
func refuses(t *testing.T, eng *twmysql.Engine, q string) {
	t.Helper()
	res, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
	var rej *guard.Rejection
	switch {
	case err == nil:
		t.Errorf("%q ran (%d rows), want a refusal", q, len(res.Rows))
	case !errors.As(err, &rej):
		t.Errorf("%q: %v, want a refusal", q, err)
	}
}

// single opens another engine on the fixture's database with one pooled
// connection, so that every call reuses it; the caller closes it.
func (f *fixture) single(t *testing.T) *twmysql.Engine {
	t.Helper()
	eng, err := twmysql.Open(context.Background(), f.url, engine.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// connectionID is the server's id of the connection eng runs a statement
// on.
func connectionID(t *testing.T, eng *twmysql.Engine) int64 {
	t.Helper()
	res, err := query.Collect(context.Background(), eng, "SELECT CONNECTION_ID()", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows[0][0].(int64)
}

func (f *fixture) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := f.root.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (f *fixture) scalar(t *testing.T, q string, args ...any) string {
	t.Helper()
	var v sql.NullString
	if err := f.root.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v.String
}

// running counts the statements on the server whose text contains marker,
// other than the one asking, whatever their command: a statement killed
// but still computing shows as "Killed", not "Query".
func (f *fixture) running(t *testing.T, marker string) int {
	t.Helper()
	var n int
	err := f.root.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Sleep' AND INFO LIKE CONCAT('%', ?, '%') AND ID <> CONNECTION_ID()", marker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestValues: every type the server sends maps onto the five storage
// classes as the engines agree: integers, floats, decimals exact up to
// 15 digits (text beyond), dates and times in ISO 8601, JSON as text,
// binary as bytes, NULL.
func TestValues(t *testing.T) {
	f := chinook(t)
	f.exec(t, "CREATE TABLE stamps (ts TIMESTAMP(3) NULL, dt DATETIME, d DATE, big BIGINT UNSIGNED, flag BOOLEAN, bits BIT(10), js JSON, bin VARBINARY(4), price DECIMAL(10,2), wide DECIMAL(30,2))")
	f.exec(t, "SET time_zone = '+02:00'") // the engine reads TIMESTAMP in UTC whatever the server's zone
	f.exec(t, "INSERT INTO stamps VALUES ('2024-03-01 12:00:00.250', '2024-03-01 10:00:00', '2024-03-01', 18446744073709551615, TRUE, b'1000000001', '{\"a\": [1, 2]}', X'00FF', 19.99, 123456789012345678901234567.89)")
	res, err := query.Collect(context.Background(), f.eng, "SELECT ts, dt, d, big, flag, bits, js, bin, price, wide, NULL AS n, 1.5e0 AS f, 7 AS i, 'héllo' AS s, big - 1 AS b2, CAST(1 AS UNSIGNED) AS u FROM stamps", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"2024-03-01T10:00:00.250Z", "2024-03-01T10:00:00", "2024-03-01", "18446744073709551615", int64(1), int64(513),
		`{"a": [1, 2]}`, []byte{0, 0xFF}, 19.99, "123456789012345678901234567.89", nil, 1.5, int64(7), "héllo", "18446744073709551614", int64(1)}
	row := res.Rows[0]
	for i, w := range want {
		got := row[i]
		if gb, ok := got.([]byte); ok {
			if wb, ok := w.([]byte); !ok || string(gb) != string(wb) {
				t.Errorf("%s = %#v, want %#v", res.Columns[i].Name, got, w)
			}
			continue
		}
		if got != w {
			t.Errorf("%s (%s) = %#v (%T), want %#v", res.Columns[i].Name, res.Columns[i].Type, got, got, w)
		}
	}
	// A quotient (AVG, division) is a number with as many digits as a
	// float64 holds, as SQLite's double; a sum of decimals stays exact.
	q, err := query.Collect(context.Background(), f.eng, "SELECT AVG(Milliseconds), SUM(UnitPrice), AVG(UnitPrice), 1 / 3 FROM Track", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{393599.2121039109, 3680.97, 1.0508050242649156, 1.0 / 3} {
		if got, ok := q.Rows[0][i].(float64); !ok || math.Abs(got-w) > 1e-12*math.Abs(w) {
			t.Errorf("%s = %#v, want %v", q.Columns[i].Name, q.Rows[0][i], w)
		}
	}
	for i, typ := range map[int]string{0: "TIMESTAMP", 3: "UNSIGNED BIGINT", 8: "DECIMAL(10,2)", 9: "DECIMAL(30,2)", 10: ""} {
		if res.Columns[i].Type != typ {
			t.Errorf("column %s type %q, want %q", res.Columns[i].Name, res.Columns[i].Type, typ)
		}
	}
}

// TestDeadline: SLEEP(30) and a heavy join with a 2 s deadline stop
// within 3 s with a deadline error, and the statement is gone from the
// server's process list when Run returns.
func TestDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on deadlines (-short)")
	}
	f := chinook(t)
	for _, q := range []string{
		"SELECT SLEEP(30) AS tw_deadline_sleep",
		"SELECT COUNT(*) AS tw_deadline_join FROM Track a, Track b, Track c",
	} {
		marker := q[strings.LastIndex(q, "tw_deadline"):]
		servers.StopsAtDeadline(t, q, func(timeout time.Duration) error {
			_, err := query.Collect(context.Background(), f.eng, q, query.Options{Timeout: timeout})
			return err
		}, func() int { return f.running(t, marker) })
	}
	// The pool is usable afterwards.
	res, err := query.Collect(context.Background(), f.eng, "SELECT COUNT(*) FROM Genre", query.Options{Timeout: 2 * time.Second})
	if err != nil || res.Rows[0][0] != int64(25) {
		t.Errorf("after the deadlines: %v %v", res, err)
	}
}

// TestCancel: a cancelled context ends the statement on the server (KILL
// QUERY: the driver alone would leave it running).
func TestCancel(t *testing.T) {
	f := chinook(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := query.Collect(ctx, f.eng, "SELECT SLEEP(20) AS tw_cancel_marker", query.Options{Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled: %v after %v", err, time.Since(start))
	}
	if errors.Is(err, query.ErrDeadline) {
		t.Error("a cancellation reported as the deadline")
	}
	if n := f.running(t, "tw_cancel_marker"); n != 0 {
		t.Errorf("still running on the server after cancel (%d)", n)
	}
}

// sinkFunc adapts a function to query.Sink.
type sinkFunc func(c query.Cursor) error

func (s sinkFunc) Begin([]query.Column) error { return nil }
func (s sinkFunc) Row(c query.Cursor) error   { return s(c) }

// TestStreams: rows reach the sink while the statement still runs on the
// server (no client-side buffering of the result), and a sink that stops
// early stops the statement instead of reading the rest.
func TestStreams(t *testing.T) {
	f := chinook(t)
	const q = "SELECT seq, REPEAT('x', 100) AS pad, IF(seq = 200000, SLEEP(5), 0) AS tw_stream_marker FROM seq_1_to_200000"
	var stillRunning = -1
	stop := errors.New("seen enough")
	start := time.Now()
	n := 0
	_, err := f.eng.Run(context.Background(), q, query.Options{Timeout: time.Minute}, sinkFunc(func(c query.Cursor) error {
		n++
		if n == 1 {
			stillRunning = f.running(t, "tw_stream_marker")
		}
		if n == 1000 {
			return stop
		}
		return nil
	}))
	if !errors.Is(err, stop) {
		t.Fatalf("Run: %v", err)
	}
	if stillRunning != 1 {
		t.Errorf("at the first row the statement was running %d times on the server, want 1 (rows are buffered?)", stillRunning)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("a sink that stopped after 1,000 rows waited %v: the rest was read", took)
	}
	if n := f.running(t, "tw_stream_marker"); n != 0 {
		t.Errorf("the statement still runs after the sink stopped (%d)", n)
	}
	// A row cap does the same.
	start = time.Now()
	sum, err := f.eng.Run(context.Background(), q, query.Options{Timeout: time.Minute, MaxRows: 10}, sinkFunc(func(query.Cursor) error { return nil }))
	if err != nil || !sum.Truncated || sum.RowCount != 10 || time.Since(start) > 4*time.Second {
		t.Errorf("capped at 10 rows: %+v %v after %v", sum, err, time.Since(start))
	}
}

// TestExportMillion streams a million rows of five columns through the
// engine and checks every row arrived in order; the memory figure comes
// from data/testdata/compare-export-servers.sh.
func TestExportMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("a million rows (-short)")
	}
	f := chinook(t)
	var sum, want int64
	rows := 0
	_, err := f.eng.Run(context.Background(), "SELECT seq, seq * 2, CONCAT('row ', seq), seq / 7, DATE '2024-01-01' + INTERVAL (seq MOD 365) DAY FROM seq_1_to_1000000",
		query.Options{}, sinkFunc(func(c query.Cursor) error {
			rows++
			sum += c.Int64(0)
			return nil
		}))
	for i := int64(1); i <= 1_000_000; i++ {
		want += i
	}
	if err != nil || rows != 1_000_000 || sum != want {
		t.Errorf("%d rows, sum %d (want %d), %v", rows, sum, want, err)
	}
}

// untouched is the state of the server an adversarial test checks is
// unchanged: the tables' checksums and names, a file no statement may
// write, another session, named locks and a sequence.
type untouched struct {
	f       *fixture
	sums    string
	tables  string
	out     string
	other   *sql.Conn
	otherID int64
}

func (f *fixture) checksums(t *testing.T) string {
	t.Helper()
	return servers.MySQLChecksums(t, f.root, "Genre, Track, Invoice, InvoiceLine, Customer")
}

func (f *fixture) tableNames(t *testing.T) string {
	t.Helper()
	return f.scalar(t, "SELECT GROUP_CONCAT(TABLE_NAME ORDER BY TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()")
}

// watch makes what the adversarial statements reach for — the sequence
// tw_seq, the function grab (which takes the lock tw-grab), and views that
// reach a refused call directly or through another view or a stored
// function (the server would run them as their definer): leak, `lock
// view`, deeper — then runs more, and records the server's state. out is
// the file, named from prefix and the test, that no statement may write.
func (f *fixture) watch(t *testing.T, prefix string, more ...string) *untouched {
	t.Helper()
	f.exec(t, "CREATE SEQUENCE tw_seq")
	f.exec(t, "CREATE FUNCTION grab(n INT) RETURNS INT NOT DETERMINISTIC RETURN GET_LOCK('tw-grab', 0) + n")
	f.exec(t, "CREATE VIEW leak AS SELECT LOAD_FILE('/etc/passwd') AS f")
	f.exec(t, "CREATE VIEW `lock view` AS SELECT grab(1) AS g")
	f.exec(t, "CREATE VIEW deeper AS SELECT * FROM leak")
	for _, q := range more {
		f.exec(t, q)
	}
	u := &untouched{f: f, sums: f.checksums(t), tables: f.tableNames(t)}
	// Another session, to check it survives.
	other, err := f.root.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	u.other = other
	other.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&u.otherID)
	u.out = prefix + strings.ReplaceAll(t.Name(), "/", "-")
	os.Remove(u.out)
	t.Cleanup(func() { os.Remove(u.out) })
	return u
}

// check fails t for whatever changed since watch: the tables' checksums
// or names, the file written, a named lock held, the other session gone,
// the sequence advanced.
func (u *untouched) check(t *testing.T) {
	t.Helper()
	f := u.f
	if got := f.checksums(t); got != u.sums {
		t.Errorf("tables changed: %s, was %s", got, u.sums)
	}
	if got := f.tableNames(t); got != u.tables {
		t.Errorf("tables now %s, were %s", got, u.tables)
	}
	if _, err := os.Stat(u.out); err == nil {
		t.Errorf("%s was written", u.out)
	}
	for _, lock := range []string{"tw-lock", "tw-grab"} {
		if held := f.scalar(t, "SELECT IS_USED_LOCK(?)", lock); held != "" {
			t.Errorf("lock %s held by connection %s", lock, held)
		}
	}
	if err := u.other.PingContext(context.Background()); err != nil {
		t.Errorf("the other session died: %v", err)
	}
	if v := f.scalar(t, "SELECT NEXTVAL(tw_seq)"); v != "1" {
		t.Errorf("the sequence advanced: next is %s, want 1", v)
	}
}

// TestAdversarial: every family of statements that would write, act
// outside the transaction, read server files, take locks, poison the
// pooled session or escape the deadline is refused, and the server is
// unchanged: the tables' checksums, no file written, no lock held, the
// other session alive, and the session's settings intact for the next
// call on the same pooled connection.
func TestAdversarial(t *testing.T) {
	f := chinook(t)
	eng := f.single(t) // one connection: every call reuses it
	defer eng.Close()
	u := f.watch(t, "/tmp/tw-my-adversarial-", "CREATE PROCEDURE wipe() DELETE FROM Genre", "CREATE VIEW fine AS SELECT Name FROM Genre")
	out := u.out
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	statements := []string{
		"DELETE FROM Genre",
		"INSERT INTO Genre VALUES (99, 'x')",
		"INSERT INTO Genre SELECT 100, 'y'",
		"REPLACE INTO Genre VALUES (1, 'x')",
		"UPDATE Genre SET Name = 'x'",
		"DROP TABLE Genre",
		"CREATE TABLE tw_new (a INT)",
		"CREATE TEMPORARY TABLE tw_tmp (a INT)",
		"TRUNCATE Genre",
		"ALTER TABLE Genre ADD COLUMN x INT",
		"CALL wipe()",
		"SELECT grab(1)",
		"SELECT `grab`(1)",
		"SELECT * FROM leak",
		"SELECT * FROM `lock view`",
		`SELECT * FROM "lock view"`,
		"SELECT * FROM deeper",
		"SELECT COUNT(*) FROM Genre WHERE Name IN (SELECT f FROM deeper)",
		"SELECT NEXTVAL(tw_seq)",
		"SELECT NEXT VALUE FOR tw_seq",
		"SELECT 1 INTO OUTFILE '" + out + "'",
		"SELECT * FROM Genre INTO DUMPFILE '" + out + "'",
		"SELECT LOAD_FILE('/etc/passwd')",
		"SELECT 1 /*!, LOAD_FILE('/etc/passwd') */",
		"SELECT 1 /*M!, LOAD_FILE('/etc/passwd') */",
		"SELECT 1 /*!50100 INTO OUTFILE '" + out + "' */",
		"SELECT GET_LOCK('tw-lock', 0)",
		"SELECT * FROM Genre FOR UPDATE",
		"SELECT * FROM Genre LOCK IN SHARE MODE",
		"KILL " + id(u.otherID),
		"KILL QUERY " + id(u.otherID),
		"SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(5)",
		"SET SESSION max_statement_time = 0",
		"SET @@session.sql_mode = 'NO_BACKSLASH_ESCAPES'",
		"SET time_zone = '+05:00'",
		"SELECT @tw := 1",
		"SELECT 1 INTO @tw",
		"SELECT 1.5INTO @tw",
		"DO GET_LOCK('tw-lock', 0)",
		"LOCK TABLES Genre WRITE",
		"HANDLER Genre OPEN",
		"LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE Genre",
		"PREPARE s FROM 'DELETE FROM Genre'",
		"ANALYZE DELETE FROM Genre",
		"EXPLAIN ANALYZE SELECT 1",
		"SELECT 1; DELETE FROM Genre",
		"SELECT 1 -- x\n; DELETE FROM Genre",
		"SELECT /*+ MAX_EXECUTION_TIME(0) */ SLEEP(5)",
		"FLUSH TABLES",
		"BEGIN",
		"COMMIT",
		"RESET QUERY CACHE",
		"SELECT IS_USED_LOCK('tw-lock')",
		"SELECT BINLOG_GTID_POS('mysql-bin.000001', 4)",
		"SELECT WSREP_SYNC_WAIT_UPTO_GTID('0-1-1', 1)",
		"SHOW BINLOG EVENTS",
		"SHOW RELAYLOG EVENTS",
		"SELECT SPIDER_DIRECT_SQL('SELECT 1', 'tw', 'host \"127.0.0.1\"')",
		"SELECT JSON_FILE('/etc/passwd')",
		"SELECT JFILE_MAKE('{}', '" + out + "')",
		"SELECT ENVAR('HOME')",
	}
	for _, q := range statements {
		refuses(t, eng, q)
	}
	if res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM fine", query.Options{}); err != nil || res.Rows[0][0] != int64(25) {
		t.Errorf("a view that calls nothing refused: %v %v", res, err)
	}
	// The catalog lists the refused views but neither counts nor samples
	// them: that would run the call through tablewise's own SQL.
	cat, err := eng.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"leak", "deeper", "lock view"} {
		if v := cat.Table(name); v == nil || v.Sample != nil || v.RowCount != 0 {
			t.Errorf("view %s in the catalog: %+v", name, v)
		}
	}
	if v := cat.Table("fine"); v == nil || len(v.Sample) == 0 {
		t.Errorf("view fine has no sample: %+v", v)
	}
	if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
		t.Errorf("reading the catalog took the lock (connection %s)", held)
	}
	u.check(t)

	// The pooled session is intact: its settings are tablewise's, and the
	// deadline still stops a slow statement.
	res, err := query.Collect(context.Background(), eng, "SELECT @@max_statement_time, @@time_zone, @@sql_mode, @tw", query.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != 2.0 || r[1] != "+00:00" || r[2] != "ANSI_QUOTES,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION" || r[3] != nil {
		t.Errorf("session after the attempts: %v", r)
	}
	start := time.Now()
	_, err = query.Collect(context.Background(), eng, "SELECT SLEEP(10)", query.Options{Timeout: time.Second})
	if !errors.Is(err, query.ErrDeadline) || time.Since(start) > 2*time.Second {
		t.Errorf("a slow statement after the attempts: %v after %v", err, time.Since(start))
	}
}

// TestGuardAgreesWithServer: texts the guard admits because it reads
// them as one harmless statement are one harmless statement to the
// server too (same rows), so the lexer and the server read quotes,
// escapes, comments and numbers alike.
func TestGuardAgreesWithServer(t *testing.T) {
	f := chinook(t)
	for q, want := range map[string]string{
		"SELECT 'a\\' ; DELETE FROM Genre -- '":       "a' ; DELETE FROM Genre -- ",
		"SELECT 'a'' ; DELETE FROM Genre; -- '":       "a' ; DELETE FROM Genre; -- ",
		"SELECT \"a\\\" FROM (SELECT 1 AS \"a\\\") t": "1", // a name with a backslash: no escapes in names
		"SELECT 1--1":                               "2",
		"SELECT 1 -- x; DELETE FROM Genre":          "1",
		"SELECT 1 # x; DELETE FROM Genre":           "1",
		"SELECT 1 /* ; DELETE FROM Genre */":        "1",
		"SELECT 1.5e0 ":                             "1.5",
		"SELECT `a``b` FROM (SELECT 7 AS `a``b`) t": "7",
	} {
		res, err := query.Collect(context.Background(), f.eng, q, query.Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		if got := strings.TrimSpace(toString(res.Rows[0][0])); got != strings.TrimSpace(want) {
			t.Errorf("%q = %q, want %q", q, got, want)
		}
	}
	// Double quotes quote names (ANSI_QUOTES), and MySQL's habit of
	// "strings" fails loudly with a hint instead of answering wrongly.
	res, err := query.Collect(context.Background(), f.eng, `SELECT "Name" FROM "Track" WHERE "TrackId" = 1`, query.Options{})
	if err != nil || res.Rows[0][0] != "For Those About To Rock (We Salute You)" {
		t.Errorf("double-quoted names: %v %v", res, err)
	}
	_, err = query.Collect(context.Background(), f.eng, `SELECT Name FROM Track WHERE Name = "Balls to the Wall"`, query.Options{})
	var se *guard.SQLError
	if !errors.As(err, &se) || !strings.Contains(se.Hint, "write 'Balls to the Wall' for a string") {
		t.Errorf(`a "string": %v`, err)
	}
	if n := f.scalar(t, "SELECT COUNT(*) FROM Genre"); n != "25" {
		t.Errorf("Genre has %s rows, want 25", n)
	}
}

func toString(v any) string { return fmt.Sprint(v) }

// TestServerClosedConnection: a pooled connection the server closed
// (wait_timeout, a restart) is replaced, not reported as an error.
func TestServerClosedConnection(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	before := connectionID(t, eng)
	f.exec(t, "KILL CONNECTION "+strconv.FormatInt(before, 10))
	if after := connectionID(t, eng); after == before {
		t.Errorf("after the server closed the connection: still connection %d", after)
	}
}

// TestCheck: Check vets and has the server prepare the statement, which
// finds unknown names and runs nothing.
func TestCheck(t *testing.T) {
	f := chinook(t)
	ctx := context.Background()
	var se *guard.SQLError
	if err := f.eng.Check(ctx, "SELECT nope FROM Track"); !errors.As(err, &se) || se.Missing != "nope" {
		t.Errorf("unknown column: %v", err)
	}
	start := time.Now()
	if err := f.eng.Check(ctx, "SELECT SLEEP(10) AS tw_check_marker"); err != nil || time.Since(start) > 2*time.Second {
		t.Errorf("SLEEP(10) checked in %v: %v (it must not run)", time.Since(start), err)
	}
	var rej *guard.Rejection
	if err := f.eng.Check(ctx, "SELECT LOAD_FILE('/etc/passwd')"); !errors.As(err, &rej) {
		t.Errorf("LOAD_FILE: %v", err)
	}
	for _, ok := range []string{"SHOW TABLES", "SELECT * FROM Track", `SELECT "Name" FROM "Genre"`} {
		if err := f.eng.Check(ctx, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestCapKeepsConnection: a result cut at a cap whose remaining rows end
// soon keeps its pooled connection (they are read and dropped); one whose
// statement goes on is stopped (TestStreams).
func TestCapKeepsConnection(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	before := connectionID(t, eng)
	res, err := query.Collect(context.Background(), eng, "SELECT * FROM Track", query.Options{MaxRows: 10})
	if err != nil || !res.Truncated || len(res.Rows) != 10 {
		t.Fatalf("capped: %v %v", res, err)
	}
	if after := connectionID(t, eng); after != before {
		t.Errorf("the connection changed after a capped result (%v, then %v)", before, after)
	}
}

// TestLexerDifferential builds texts from the pieces where a lexer and the
// server could disagree (quotes, backslashes, comments, numbers glued to
// words, semicolons) around a call the guard must refuse, GET_LOCK, and
// runs each through the engine. Whatever the guard admits, the server
// must not have run the call: no named lock is held afterwards.
func TestLexerDifferential(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	pieces := []string{"'", `"`, "`", `\`, `\'`, `''`, `""`, "``", `\"`, "/*", "*/", "/* x */", "/*'*/", "-- ", "--", "#", "\n", ";", " ", "1.5", "1e1", ".5", "1", "x", "@", "@@", "(", ")", ",", "\t", "/", "*", "-", "N", "_utf8mb4", "$", "'a'", "\"a\""}
	rng := uint64(12345)
	next := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	admitted, ran := 0, 0
	const lock = " , GET_LOCK(0x74772D66757A7A, 0) " // 'tw-fuzz', without quotes of its own
	seeds := []string{                               // texts that split a lexer that gets one rule wrong from the server
		`SELECT '\''` + lock + `, '\''`,
		`SELECT "\""` + lock + `, "\""`,
		"SELECT 1 --x" + lock,
		"SELECT 1 /* */" + lock + "/* */",
		"SELECT `a\\`" + lock + ", `\\`",
	}
	random := func() string {
		var b strings.Builder
		b.WriteString("SELECT 1")
		for k := next(6); k >= 0; k-- {
			b.WriteString(pieces[next(len(pieces))])
		}
		b.WriteString(lock)
		for k := next(6); k >= 0; k-- {
			b.WriteString(pieces[next(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 3000+len(seeds); i++ {
		q := ""
		if i < len(seeds) {
			q = seeds[i]
		} else {
			q = random()
		}
		_, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
		var rej *guard.Rejection
		if errors.As(err, &rej) {
			continue
		}
		admitted++
		if err == nil {
			ran++
		}
		if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-fuzz')"); held != "" {
			t.Fatalf("the guard admitted %q and the server took the lock (%v)", q, err)
		}
	}
	t.Logf("%d texts: %d admitted by the guard (%d ran, the rest failed on the server), none took the lock", 3000+len(seeds), admitted, ran)
}

// TestConcurrent: many callers share a small pool; cancellations and
// deadlines among them leave every other answer right and no statement
// behind on the server.
func TestConcurrent(t *testing.T) {
	f := chinook(t)
	eng, err := twmysql.Open(context.Background(), f.url, engine.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 8; i++ {
				switch (g + i) % 4 {
				case 0: // cancelled mid-statement
					ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
					_, err := query.Collect(ctx, eng, "SELECT SLEEP(3) AS tw_concurrent_marker", query.Options{Timeout: time.Minute})
					cancel()
					if !errors.Is(err, context.DeadlineExceeded) {
						errs <- fmt.Errorf("cancelled: %v", err)
						return
					}
				case 1: // stopped at the deadline
					_, err := query.Collect(context.Background(), eng, "SELECT SLEEP(3) AS tw_concurrent_marker", query.Options{Timeout: 200 * time.Millisecond})
					if !errors.Is(err, query.ErrDeadline) {
						errs <- fmt.Errorf("deadline: %v", err)
						return
					}
				default:
					res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Track WHERE GenreId = 1", query.Options{Timeout: 10 * time.Second})
					if err != nil || res.Rows[0][0] != int64(1297) {
						errs <- fmt.Errorf("count: %v %v", res, err)
						return
					}
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := f.running(t, "tw_concurrent_marker"); n != 0 {
		t.Errorf("%d statements left running", n)
	}
}

// TestOtherDatabases: a view of another database on the server is
// refused as one of the database's own would be (its definer runs it, in
// the read-only transaction but outside what the guard read), and so is
// a FEDERATED table (the server reads it on a connection of its own, in a
// transaction that is not read-only) and a view that reads one: the
// remote side's write never happens and no file is read.
func TestOtherDatabases(t *testing.T) {
	f := chinook(t)
	other := f.scalar(t, "SELECT DATABASE()") + "_other"
	f.exec(t, "CREATE DATABASE "+other)
	t.Cleanup(func() { f.root.Exec("DROP DATABASE " + other) })
	f.exec(t, "CREATE VIEW "+other+".leak AS SELECT LOAD_FILE('/etc/hostname') AS f")
	f.exec(t, "CREATE TABLE "+other+".written (a INT)")
	f.exec(t, "CREATE FUNCTION "+other+".w() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO "+other+".written VALUES (1); RETURN 1; END")
	f.exec(t, "CREATE VIEW "+other+".writes AS SELECT "+other+".w() AS a")
	statements := []string{
		"SELECT * FROM " + other + ".leak",
		"SELECT * FROM `" + other + "`.`leak`",
		"SELECT Name FROM Genre WHERE Name IN (SELECT f FROM " + other + ".leak)",
	}
	if installed(t, f, "FEDERATED", "ha_federatedx") {
		port := f.scalar(t, "SELECT @@port")
		f.exec(t, "CREATE TABLE remote_writes (a INT) ENGINE=FEDERATED CONNECTION='mysql://root@127.0.0.1:"+port+"/"+other+"/writes'")
		f.exec(t, "CREATE VIEW reads_remote AS SELECT a FROM remote_writes")
		statements = append(statements, "SELECT * FROM remote_writes", "SELECT * FROM reads_remote")
	}
	// A SPHINX table connects to the searchd its CONNECTION names (and
	// its query can name another): here a listener of the test's own,
	// which counts the connections the server makes.
	var searchd *atomic.Int64
	if installed(t, f, "SPHINX", "ha_sphinx") {
		var port string
		port, searchd = listen(t, "")
		f.exec(t, "CREATE TABLE search (id BIGINT UNSIGNED NOT NULL, weight INT NOT NULL, query VARCHAR(3072) NOT NULL, INDEX(query)) ENGINE=SPHINX CONNECTION='sphinx://127.0.0.1:"+port+"/idx'")
		t.Cleanup(func() { f.root.Exec("DROP TABLE search") })
		f.exec(t, "CREATE VIEW reads_search AS SELECT id FROM search WHERE query = 'x'")
		t.Cleanup(func() { f.root.Exec("DROP VIEW reads_search") })
		statements = append(statements, "SELECT * FROM search WHERE query = 'x'", "SELECT * FROM reads_search")
	}
	// Creating the FEDERATED table already read the remote side once.
	written := f.scalar(t, "SELECT COUNT(*) FROM "+other+".written")
	for _, q := range statements {
		refuses(t, f.eng, q)
	}
	if _, err := f.eng.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.scalar(t, "SELECT COUNT(*) FROM "+other+".written"); n != written {
		t.Errorf("the remote side wrote: %s rows, were %s", n, written)
	}
	if searchd != nil && searchd.Load() != 0 {
		t.Errorf("the server connected to the SPHINX table's searchd %d times", searchd.Load())
	}
}

// installed makes the server's storage engine available: installed for
// the test from soname when its library is on the server and it is not
// yet (uninstalled after the test's tables are dropped: cleanups run last
// first). It is false when the server has no such engine.
func installed(t *testing.T, f *fixture, engine, soname string) bool {
	t.Helper()
	if f.scalar(t, "SELECT COUNT(*) FROM information_schema.ENGINES WHERE ENGINE = ? AND SUPPORT IN ('YES', 'DEFAULT')", engine) != "0" {
		return true
	}
	if _, err := f.root.Exec("INSTALL SONAME '" + soname + "'"); err != nil {
		t.Logf("the server has no %s engine (%v): %s tables are not tried", engine, err, engine)
		return false
	}
	t.Cleanup(func() { f.root.Exec("UNINSTALL SONAME '" + soname + "'") })
	return true
}

// listen accepts connections on a port of its own and counts them; with
// forward, it passes each on to that address (a proxy), else closes it.
func listen(t *testing.T, forward string) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			if forward == "" {
				c.Close()
				continue
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", forward)
				if err != nil {
					return
				}
				defer up.Close()
				go io.Copy(up, c)
				io.Copy(c, up)
			}()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), &n
}

// TestRemoteTableCatalog: neither reading the catalog and the schema
// version nor a statement opens a FEDERATED table, which connects to its
// remote server (a remote that does not answer held the statement on the
// server past the deadline and KILL QUERY): the catalog lists it with its
// row count unknown, and the reads of information_schema that open every
// table are refused while those of names and definitions run. The remote
// here is the server itself, through a proxy of the test's own that
// counts the connections.
func TestRemoteTableCatalog(t *testing.T) {
	f := chinook(t)
	if !installed(t, f, "FEDERATED", "ha_federatedx") {
		return
	}
	port, n := listen(t, "127.0.0.1:"+f.scalar(t, "SELECT @@port"))
	db := f.scalar(t, "SELECT DATABASE()")
	f.exec(t, "CREATE TABLE `Remote Genre` (GenreId INT NOT NULL, Name VARCHAR(120), PRIMARY KEY (GenreId)) ENGINE=FEDERATED CONNECTION='mysql://root@127.0.0.1:"+port+"/"+db+"/Genre'")
	t.Cleanup(func() { f.root.Exec("DROP TABLE `Remote Genre`") })
	f.exec(t, "FLUSH TABLES `Remote Genre`") // its statistics are read again when it is opened
	created := n.Load()
	cat, err := f.eng.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.SchemaVersion(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SHOW TABLE STATUS",
		"SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
		"SELECT * FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
		"SELECT TABLE_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE()",
		"SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()",
	} {
		refuses(t, f.eng, q)
	}
	res, err := query.Collect(context.Background(), f.eng, "SELECT TABLE_NAME, ENGINE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND ENGINE = 'FEDERATED'", query.Options{})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "Remote Genre" {
		t.Errorf("the remote table's name and engine: %v %v", res, err)
	}
	if got := n.Load() - created; got != 0 {
		t.Errorf("reading the catalog and the statements connected to the remote server %d times", got)
	}
	if r := cat.Table("Remote Genre"); r == nil || r.RowCount != -1 || r.Sample != nil || len(r.Columns) != 2 {
		t.Errorf("the remote table in the catalog: %+v", r)
	}
	if g := cat.Table("Genre"); g == nil || g.RowCount != 25 || len(g.PrimaryKey) != 1 {
		t.Errorf("Genre in the catalog: %+v", g)
	}
}
