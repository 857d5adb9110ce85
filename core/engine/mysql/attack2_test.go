package mysql_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestUnstoppableIsNotCalledStopped: MariaDB checks for KILL and
// max_statement_time between rows, not inside one value's computation,
// and REPLACE on a long text moves the rest of the text at every match
// (quadratic): REPLACE(REPEAT('a', 8000000), 'a', 'bb') computes for a
// day after KILL QUERY, KILL CONNECTION and the client closing the
// connection. A statement the engine calls stopped at the deadline (exit
// 5) must be gone from the server; one that is not must be reported as
// still running. The statement here ends on its own after a few seconds.
func TestUnstoppableIsNotCalledStopped(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	for _, c := range []struct {
		name string
		run  func(q string, timeout time.Duration) error
	}{
		{"Run", func(q string, timeout time.Duration) error {
			_, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: timeout})
			return err
		}},
		{"ExplainAnalyze", func(q string, timeout time.Duration) error {
			_, err := eng.ExplainAnalyze(context.Background(), q, timeout)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := "tw_unstoppable_" + c.name
			q := "SELECT LENGTH(REPLACE(REPEAT('a', 100000), 'a', 'bb')) AS " + marker
			// However it ends, wait for the server to finish the
			// statement before the test's database goes.
			defer func() {
				for end := time.Now().Add(2 * time.Minute); f.running(t, marker) > 0 && time.Now().Before(end); {
					time.Sleep(100 * time.Millisecond)
				}
			}()
			start := time.Now()
			err := c.run(q, 500*time.Millisecond)
			took := time.Since(start)
			left := f.running(t, marker)
			t.Logf("%v after %v; %d left on the server", err, took, left)
			switch {
			case err == nil:
				t.Errorf("the statement ran to its end in %v under a 500 ms deadline", took)
			case errors.Is(err, query.ErrDeadline) && left != 0:
				t.Errorf("reported stopped at the deadline (%v) while the server still runs it (%d sessions)", err, left)
			case !errors.Is(err, query.ErrDeadline) && !strings.Contains(err.Error(), "still runs"):
				t.Errorf("%v: neither the deadline nor a statement that still runs", err)
			}
			if took > 5*time.Second {
				t.Errorf("the call took %v under a 500 ms deadline", took)
			}
			// The engine goes on serving.
			if res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{Timeout: 5 * time.Second}); err != nil || res.Rows[0][0] != int64(25) {
				t.Errorf("the next statement: %v %v", res, err)
			}
		})
	}
}

// TestCatalogViewNewerThanGuard: the catalog counts and samples the
// views the guard does not refuse, with what it learnt of the database
// (kept for a while): a view replaced just after, to call a function
// made just after, must not run in the catalog's reads — the lock
// tw-grab stays free — as it does not in a statement
// (TestOwnObjectsNewerThanGuard).
func TestCatalogViewNewerThanGuard(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	f.exec(t, "CREATE VIEW fine AS SELECT Name FROM Genre")
	// The guard reads the database.
	if _, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM fine", query.Options{}); err != nil {
		t.Fatal(err)
	}
	f.exec(t, "CREATE FUNCTION grab(n INT) RETURNS INT NOT DETERMINISTIC RETURN GET_LOCK('tw-grab', 0) + n")
	f.exec(t, "CREATE OR REPLACE VIEW fine AS SELECT grab(1) AS Name FROM Genre")
	cat, err := eng.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
		t.Errorf("reading the catalog ran grab: lock tw-grab held by connection %s", held)
	}
	if v := cat.Table("fine"); v == nil || v.Sample != nil {
		t.Errorf("the replaced view in the catalog: %+v", v)
	}
	if g := cat.Table("Genre"); g == nil || g.RowCount != 25 || len(g.Sample) == 0 {
		t.Errorf("Genre in the catalog: %+v", g)
	}
}

// TestClientCharsetCannotSplitStrings: in GBK, BIG5, SJIS and CP932 a
// backslash can be the second byte of a character, so a server reading
// the text in one of them ends the string '中\' where the guard reads
// an escaped quote, and runs what follows it. A URL's charset must
// never get the connection there: either it is refused, or the text
// the guard admits runs as one string — no file written, no lock taken.
func TestClientCharsetCannotSplitStrings(t *testing.T) {
	f := chinook(t)
	out := "/tmp/tw-my-charset-" + strings.ReplaceAll(t.Name(), "/", "-")
	os.Remove(out)
	t.Cleanup(func() { os.Remove(out) })
	for _, cs := range []string{"gbk", "big5", "sjis", "cp932", "gb2312"} {
		eng, err := twmysql.Open(context.Background(), f.url+"?charset="+cs, engine.Options{MaxConns: 1})
		if err != nil {
			t.Logf("charset=%s: %v", cs, err)
			continue
		}
		for _, q := range []string{
			"SELECT '中\\' , 1 INTO OUTFILE '" + out + "' -- '",
			"SELECT '中\\' , GET_LOCK(0x74772D63686172736574, 0) -- '", // 'tw-charset'
		} {
			res, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
			t.Logf("charset=%s: %q: %v %v", cs, q, res, err)
		}
		eng.Close()
		if _, err := os.Stat(out); err == nil {
			t.Errorf("charset=%s: %s was written", cs, out)
		}
		if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-charset')"); held != "" {
			t.Errorf("charset=%s: lock tw-charset held by connection %s", cs, held)
		}
	}
}

// TestRehearsalReachesNoOtherDatabase: a migration rehearsed on a
// scratch database of the checked database's own server must not reach
// the checked database through a table that the server reads elsewhere:
// a FEDERATED table whose CONNECTION names the checked database, and
// rows written into it and deleted, leave its tables as they were.
func TestRehearsalReachesNoOtherDatabase(t *testing.T) {
	f, scratch := federated(t)
	if f == nil {
		return
	}
	u := f.watch(t, "/tmp/tw-my-rehearse-")
	db := f.scalar(t, "SELECT DATABASE()")
	port := f.scalar(t, "SELECT @@port")
	conn := "CONNECTION='mysql://root@127.0.0.1:" + port + "/" + db + "/Genre'"
	cols := "(GenreId INT NOT NULL, Name VARCHAR(120), PRIMARY KEY (GenreId))"
	writes := "INSERT INTO fed VALUES (999, 'written');\nUPDATE fed SET Name = 'changed' WHERE GenreId = 1;"
	for _, up := range []string{
		"CREATE TABLE fed " + cols + " ENGINE=FEDERATED " + conn + ";\n" + writes,
		"CREATE TABLE fed " + cols + " engine = 'federated' " + conn + ";\n" + writes,
		"SET SESSION default_storage_engine = FEDERATED;\nCREATE TABLE fed " + cols + " " + conn + ";\n" + writes,
		"SET @@default_storage_engine = 'FEDERATED';\nCREATE TABLE fed " + cols + " " + conn + ";\n" + writes,
		"CREATE TABLE fed " + cols + ";\nALTER TABLE fed ENGINE FEDERATED " + conn + ";\n" + writes,
		"SET default_storage_engine = CONCAT('FEDER', 'ATED');\nCREATE TABLE fed " + cols + " COMMENT='mysql://root@127.0.0.1:" + port + "/" + db + "/Genre';\n" + writes,
	} {
		rehearsalRefuses(t, f, scratch, up)
	}
	u.check(t)
}

// TestRehearsalHoldsNoServerLock: BACKUP STAGE BLOCK_COMMIT (and the
// stages after it) blocks every session's commits on the server until
// the connection ends, and a named lock is the server's, which the
// database's own programs may wait for; a rehearsal on the checked
// database's own server must take neither: a write on another connection
// during the rehearsal commits at once, and the lock stays free.
func TestRehearsalHoldsNoServerLock(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	f.exec(t, "CREATE TABLE tw_writes (a INT) ENGINE=InnoDB")
	for _, up := range []string{
		"BACKUP STAGE START;\nBACKUP STAGE BLOCK_COMMIT;\nSELECT SLEEP(3);",
		"SELECT GET_LOCK('tw-app-lock', 0);\nSELECT SLEEP(3);",
	} {
		done := make(chan error, 1)
		go func() {
			reh, err := f.eng.RehearseIn(context.Background(), scratch, up, "")
			if reh != nil {
				for _, s := range reh.Up {
					t.Logf("%q: %s", s.SQL, s.Err)
				}
			}
			done <- err
		}()
		time.Sleep(time.Second)
		start := time.Now()
		f.exec(t, "INSERT INTO tw_writes VALUES (1)")
		if took := time.Since(start); took > 500*time.Millisecond {
			t.Errorf("%s: a write on another connection waited %v for the rehearsal's lock", up, took)
		}
		if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-app-lock')"); held != "" {
			t.Errorf("%s: the lock tw-app-lock is held by connection %s", up, held)
		}
		if err := <-done; err != nil {
			t.Logf("rehearsal: %v", err)
		}
	}
}

// TestRehearsalCopiesNoRemoteTable: the rehearsal copies the checked
// database's tables into the scratch database; a FEDERATED table of the
// checked database, copied as it is, would read and write the same
// remote rows, and a migration deleting from it would delete them there
// (MariaDB 10.11 happens not to recreate the table from its SHOW CREATE
// TABLE under the engine's sql_mode; the copy refuses it anyway). The
// remote rows stay.
func TestRehearsalCopiesNoRemoteTable(t *testing.T) {
	f, scratch := federated(t)
	if f == nil {
		return
	}
	db := f.scalar(t, "SELECT DATABASE()")
	other := db + "_remote"
	f.exec(t, "CREATE DATABASE "+other)
	t.Cleanup(func() { f.root.Exec("DROP DATABASE " + other) })
	f.exec(t, "CREATE TABLE "+other+".kept (a INT PRIMARY KEY)")
	f.exec(t, "INSERT INTO "+other+".kept VALUES (1), (2), (3)")
	f.exec(t, "CREATE TABLE remote_kept (a INT PRIMARY KEY) ENGINE=FEDERATED CONNECTION='mysql://root@127.0.0.1:"+f.scalar(t, "SELECT @@port")+"/"+other+"/kept'")
	t.Cleanup(func() { f.root.Exec("DROP TABLE remote_kept") })
	reh, err := f.eng.RehearseIn(context.Background(), scratch, "DELETE FROM remote_kept;\nINSERT INTO remote_kept VALUES (9);", "")
	if reh != nil {
		for _, s := range reh.Up {
			t.Logf("%q: %s", s.SQL, s.Err)
		}
		t.Logf("notes: %v", reh.Notes)
	}
	if err != nil {
		t.Logf("rehearsal: %v", err)
	}
	if n := f.scalar(t, "SELECT GROUP_CONCAT(a ORDER BY a) FROM "+other+".kept"); n != "1,2,3" {
		t.Errorf("the remote table's rows are now %q, were 1,2,3", n)
	}
}

// federated is a fixture on a server with the FEDERATED engine (nil
// without it) and a scratch database of the same server.
func federated(t *testing.T) (*fixture, string) {
	f := chinook(t)
	if !installed(t, f, "FEDERATED", "ha_federatedx") {
		return nil, ""
	}
	return f, servers.MySQL(t)
}

// TestAdversarialMore: what TestAdversarial does not try, refused, and
// the server unchanged: writes to MyISAM and MEMORY tables (outside any
// transaction) through a stored function, called or through a view;
// the sequence functions and forms not tried there; and CPU-bound
// statements (BENCHMARK, a join of information_schema with itself)
// stopped at the deadline and gone from the server.
func TestAdversarialMore(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	u := f.watch(t, "/tmp/tw-my-more-",
		"CREATE TABLE tw_myisam (a INT) ENGINE=MyISAM",
		"CREATE TABLE tw_memory (a INT) ENGINE=MEMORY",
		"CREATE FUNCTION tw_write() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO tw_myisam VALUES (1); INSERT INTO tw_memory VALUES (1); RETURN 1; END",
		"CREATE VIEW tw_writes AS SELECT tw_write() AS a")
	for _, q := range []string{
		"SELECT tw_write()",
		"SELECT * FROM tw_writes",
		"SELECT a FROM (SELECT * FROM tw_writes) t",
		"SELECT SETVAL(tw_seq, 100)",
		"SELECT LASTVAL(tw_seq)",
		"SELECT PREVIOUS VALUE FOR tw_seq",
		"SELECT NEXT /* c */ VALUE FOR tw_seq",
		"SELECT `nextval`(tw_seq)",
		"HANDLER tw_myisam OPEN",
		"ANALYZE TABLE tw_myisam",
		"CHECKSUM TABLE Genre",
		"DO tw_write()",
		"(SET @tw = 1)",
		"SELECT 1 LIMIT 1 INTO @tw",
		"SELECT * FROM Genre WHERE GenreId = 1 FOR /* c */ UPDATE",
	} {
		refuses(t, eng, q)
	}
	for _, tbl := range []string{"tw_myisam", "tw_memory"} {
		if n := f.scalar(t, "SELECT COUNT(*) FROM "+tbl); n != "0" {
			t.Errorf("%s has %s rows", tbl, n)
		}
	}
	u.check(t)
	for name, q := range map[string]string{
		"BENCHMARK":          "SELECT BENCHMARK(100000000000, MD5('x')) AS tw_more_benchmark",
		"information_schema": "SELECT COUNT(*) AS tw_more_schema FROM information_schema.COLUMNS a, information_schema.COLUMNS b, information_schema.COLUMNS c",
	} {
		marker := q[strings.LastIndex(q, "tw_more_"):]
		marker = strings.Fields(marker)[0]
		servers.StopsAtDeadline(t, name, func(timeout time.Duration) error {
			_, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: timeout})
			return err
		}, func() int { return f.running(t, marker) })
	}
}

// TestCutByServerDeadlineIsNoSuccess: MariaDB ends BENCHMARK at its own
// max_statement_time with no error and a 0, as if it had run its loops.
// When the client's timer ran late (a busy machine), that cut result came
// back as a success; a statement that ends past the deadline is reported
// as stopped at the deadline.
func TestCutByServerDeadlineIsNoSuccess(t *testing.T) {
	f := chinook(t)
	began := time.Now()
	err := twmysql.RunTimerLate(f.eng, context.Background(), "SELECT BENCHMARK(100000000000, MD5('x'))", time.Second)
	var le *query.LimitError
	if !errors.As(err, &le) || le.Kind != "deadline" {
		t.Errorf("BENCHMARK cut by the server's deadline after %v: %v, want the deadline error", time.Since(began).Round(time.Millisecond), err)
	}
}

// rehearsalRefuses rehearses up on scratch and fails the test unless one
// of its statements was not rehearsed; it returns the statements as the
// rehearsal reported them.
func rehearsalRefuses(t *testing.T, f *fixture, scratch, up string) []engine.RehearsedStatement {
	t.Helper()
	start := time.Now()
	reh, err := f.eng.RehearseIn(context.Background(), scratch, up, "")
	if err != nil {
		t.Fatalf("%s: %v", up, err)
	}
	refused := false
	for _, s := range reh.Up {
		t.Logf("%q: %s", s.SQL, s.Err)
		refused = refused || strings.Contains(s.Err, "not rehearsed")
	}
	if !refused {
		t.Errorf("%s: rehearsed in %v: %+v", up, time.Since(start).Round(time.Millisecond), reh.Up)
	}
	return reh.Up
}
