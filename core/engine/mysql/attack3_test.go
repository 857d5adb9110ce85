package mysql_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestStatisticsResetIsRefused: MariaDB resets the server's InnoDB
// compression statistics (information_schema.INNODB_CMP,
// INNODB_CMPMEM, INNODB_CMP_PER_INDEX) whenever its *_RESET tables are
// read, inside a read-only transaction too (measured on 10.11: 754
// compressions counted, none after one SELECT of INNODB_CMP_RESET). A
// read of them, named however, directly or through a view, is refused,
// and the counters stay.
func TestStatisticsResetIsRefused(t *testing.T) {
	f := chinook(t)
	f.exec(t, "CREATE TABLE tw_packed (a INT PRIMARY KEY, b TEXT) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4")
	f.exec(t, "INSERT INTO tw_packed SELECT seq, REPEAT(MD5(seq), 20) FROM seq_1_to_2000")
	f.exec(t, "CREATE VIEW tw_reset AS SELECT * FROM information_schema.INNODB_CMP_RESET")
	counted := func() string {
		return f.scalar(t, "SELECT SUM(compress_ops) FROM information_schema.INNODB_CMP")
	}
	before := counted()
	if before == "0" || before == "" {
		t.Fatalf("no compression counted after writing a compressed table: %q", before)
	}
	for _, q := range []string{
		"SELECT * FROM information_schema.INNODB_CMP_RESET",
		"SELECT COUNT(*) FROM INFORMATION_SCHEMA.`innodb_cmpmem_reset`",
		`SELECT 1 FROM "information_schema"."INNODB_CMP_PER_INDEX_RESET"`,
		"TABLE information_schema.INNODB_CMP_RESET",
		"SELECT page_size FROM information_schema . INNODB_CMP_RESET WHERE compress_ops > 0",
		"SELECT * FROM tw_reset",
	} {
		refuses(t, f.eng, q)
		var rej *guard.Rejection
		if err := f.eng.Check(context.Background(), q); !errors.As(err, &rej) {
			t.Errorf("Check(%q): %v, want a refusal", q, err)
		}
	}
	if after := counted(); after != before {
		t.Errorf("the server's compression statistics were reset: %s compressions counted, were %s", after, before)
	}
	// The statistics themselves can be read.
	if res, err := query.Collect(context.Background(), f.eng, "SELECT SUM(compress_ops) FROM information_schema.INNODB_CMP", query.Options{}); err != nil || len(res.Rows) != 1 {
		t.Errorf("reading INNODB_CMP: %v %v", res, err)
	}
}

// TestWideRowIsNotReadWhole: the server sends a row whatever its size
// (each value is held to max_allowed_packet, the row is not: four values
// of 16 MB came as one 64 MB row on 10.11), and the driver reads a whole
// row into memory before the byte cap can see it. A row that alone
// passes the byte cap ends the stream truncated as it arrives, without
// reading it whole (the driver still allocates a packet's buffer, up to
// 16 MB, from its header before reading it); the engine goes on working.
func TestWideRowIsNotReadWhole(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	cols := make([]string, 8)
	for i := range cols {
		cols[i] = "REPEAT('x', 8000000)"
	}
	wide := "SELECT Name FROM Genre WHERE GenreId = 1 UNION ALL SELECT " + strings.Join(cols, ", ") + " FROM Genre WHERE GenreId = 2"
	wide = strings.Replace(wide, "SELECT Name", "SELECT "+strings.Repeat("Name, ", len(cols)-1)+"Name", 1)
	opt := query.Options{MaxBytes: 1 << 20, Timeout: 20 * time.Second}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := query.Collect(context.Background(), eng, wide, opt)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Rows) != 1 {
		t.Errorf("a 64 MB row under a 1 MB cap: truncated %v, %d rows", res.Truncated, len(res.Rows))
	}
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a 64 MB row under a 1 MB cap allocated %d KB", grew>>10)
	if grew > 32<<20 {
		t.Errorf("reading a 64 MB row under a 1 MB cap allocated %d MB", grew>>20)
	}
	if res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{Timeout: 5 * time.Second}); err != nil || res.Rows[0][0] != int64(25) {
		t.Errorf("the next statement: %v %v", res, err)
	}
	// The catalog's sample of a table holding such a row is held to
	// its byte cap as it arrives.
	f.exec(t, "CREATE TABLE tw_wide (a LONGTEXT, b LONGTEXT, c LONGTEXT, d LONGTEXT, e LONGTEXT, f LONGTEXT, g LONGTEXT, h LONGTEXT)")
	f.exec(t, "INSERT INTO tw_wide SELECT "+strings.Join(cols, ", "))
	runtime.ReadMemStats(&before)
	cat, err := eng.Catalog(context.Background())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	grew = after.TotalAlloc - before.TotalAlloc
	t.Logf("the catalog of a table holding a 64 MB row allocated %d KB", grew>>10)
	if grew > 32<<20 {
		t.Errorf("the catalog of a table holding a 64 MB row allocated %d MB", grew>>20)
	}
	if w := cat.Table("tw_wide"); w == nil || len(w.Sample) != 0 {
		t.Errorf("tw_wide in the catalog: %v", w)
	}
	if g := cat.Table("Genre"); g == nil || len(g.Sample) == 0 {
		t.Errorf("Genre in the catalog: %v", g)
	}
}

// TestShowFromOtherDatabaseRemote: SHOW INDEX names its table and the
// table's database apart (SHOW INDEX FROM t FROM db), and on MariaDB 10.11
// it opens a FEDERATED table of another database that way and connects to
// its remote server, outside the read-only transaction and past the
// deadline when the remote does not answer — as it does the database's
// own, refused by name. Both spellings of such a table are refused, and
// the server connects to no remote.
func TestShowFromOtherDatabaseRemote(t *testing.T) {
	f := chinook(t)
	if !installed(t, f, "FEDERATED", "ha_federatedx") {
		return
	}
	db := f.scalar(t, "SELECT DATABASE()")
	other := db + "_shown"
	f.exec(t, "CREATE DATABASE "+other)
	t.Cleanup(func() { f.root.Exec("DROP DATABASE " + other) })
	port, n := listen(t, "127.0.0.1:"+f.scalar(t, "SELECT @@port"))
	f.exec(t, "CREATE TABLE "+other+".fed (GenreId INT NOT NULL, Name VARCHAR(120), PRIMARY KEY (GenreId)) ENGINE=FEDERATED CONNECTION='mysql://root@127.0.0.1:"+port+"/"+db+"/Genre'")
	for _, q := range []string{
		"SHOW INDEX FROM fed FROM " + other,
		"SHOW KEYS IN `fed` IN `" + other + "`",
		"show indexes from fed from " + other + " WHERE Key_name = 'PRIMARY'",
		"SHOW FULL COLUMNS FROM fed FROM " + other,
		"SHOW INDEX FROM " + other + ".fed",
	} {
		f.exec(t, "FLUSH TABLES "+other+".fed") // its statistics are read again when it is opened
		before := n.Load()
		refuses(t, f.eng, q)
		if got := n.Load() - before; got != 0 {
			t.Errorf("%q: the server connected to the remote server %d times", q, got)
		}
	}
	// The database's other tables can still be shown.
	if res, err := query.Collect(context.Background(), f.eng, "SHOW INDEX FROM Genre FROM "+db, query.Options{}); err != nil || len(res.Rows) == 0 {
		t.Errorf("SHOW INDEX FROM Genre FROM %s: %v %v", db, res, err)
	}
}

// TestEngineStatusIsRefused: SHOW ENGINE INNODB STATUS restarts the
// interval InnoDB's per-second averages are computed over, for every
// session's next report ("Per second averages calculated from the last
// 0 seconds" right after one, on MariaDB 10.11), whatever the engine is
// called (ALL, 'innodb', innobase). It is refused, and another session's
// report still covers the time since its own.
func TestEngineStatusIsRefused(t *testing.T) {
	f := chinook(t)
	interval := func() int {
		var typ, name, status string
		if err := f.root.QueryRow("SHOW ENGINE INNODB STATUS").Scan(&typ, &name, &status); err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`Per second averages calculated from the last (\d+) seconds`).FindStringSubmatch(status)
		if m == nil {
			t.Fatalf("no averaging interval in the InnoDB monitor's output: %.200s", status)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	interval()
	began := time.Now()
	time.Sleep(2500 * time.Millisecond)
	for _, q := range []string{
		"SHOW ENGINE INNODB STATUS",
		"show engine 'innodb' status",
		"SHOW ENGINE `InnoDB` STATUS",
		"SHOW ENGINE innobase STATUS",
		"SHOW ENGINE ALL STATUS",
	} {
		refuses(t, f.eng, q)
	}
	if n, want := interval(), int(time.Since(began).Seconds())-1; n < want {
		t.Errorf("InnoDB's per-second averages were restarted: computed over the last %d seconds, %d since the test's own report", n, want+1)
	}
}

// TestStoredFunctionNamedAnotherWay: the server finds a stored function
// by its name compared as utf8mb3_general_ci, which ignores case and
// accents: grÁb(1) and gräb(1) call grab (measured on MariaDB 10.11),
// where the guard, comparing upper-cased names, saw no stored function.
// They are refused, before and after the guard learnt the function, and
// the lock grab takes stays free.
func TestStoredFunctionNamedAnotherWay(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	// The guard learns the database before the function exists, and
	// again (the statements are refused through confirm, then vet).
	if _, err := query.Collect(context.Background(), eng, "SELECT 1", query.Options{}); err != nil {
		t.Fatal(err)
	}
	u := f.watch(t, "/tmp/tw-my-accent-")
	for _, q := range []string{
		"SELECT grÁb(1)",
		"SELECT gräb(1)",
		"SELECT `GRÅB`(1)",
		"SELECT Name FROM Genre WHERE GenreId = grâb(0) + 1",
	} {
		for round := 0; round < 2; round++ {
			res, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
			var rej *guard.Rejection
			if !errors.As(err, &rej) {
				t.Errorf("%q (round %d): %v %v, want a refusal", q, round, res, err)
			}
		}
	}
	u.check(t)
}

// TestRehearsalReadsNoServerFile: a rehearsal refuses LOAD DATA (it
// reads a file on the server) but ran LOAD_FILE, whose result comes back
// in the server's error message (EXTRACTVALUE's XPATH error quotes it) or
// is kept in the scratch database: a file of the server's, read as the
// scratch URL's user. However it is written, it is refused and no
// statement's message holds the file.
func TestRehearsalReadsNoServerFile(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	// The server runs on this machine in the tests: its file is this one.
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil || len(passwd) < 10 {
		t.Skipf("no /etc/passwd to look for: %v", err)
	}
	secret := string(passwd[:10])
	for _, up := range []string{
		"DO EXTRACTVALUE(1, CONCAT(0x7e, LOAD_FILE('/etc/passwd')));",
		"CREATE TABLE leaked AS SELECT `load_file`('/etc/passwd') AS f;\nDO EXTRACTVALUE(1, (SELECT CONCAT(0x7e, f) FROM leaked));",
		"SELECT UPDATEXML(1, CONCAT(0x7e, LOAD_FILE /* c */ ('/etc/passwd')), 1);",
		"CREATE FUNCTION peek() RETURNS TEXT READS SQL DATA RETURN LOAD_FILE('/etc/passwd');\nDO EXTRACTVALUE(1, CONCAT(0x7e, peek()));",
	} {
		for _, s := range rehearsalRefuses(t, f, scratch, up) {
			if strings.Contains(s.Err, secret) {
				t.Errorf("%q: its message holds the server's /etc/passwd: %s", s.SQL, s.Err)
			}
		}
	}
}

// TestRehearsalReadsScriptsAsTheServer: the scripts run under the
// server's own sql_mode (MariaDB's default: no ANSI_QUOTES), where "…"
// is a string with backslash escapes, but were checked with the lexer of
// the engine's sql_mode, where "…" is a name without them: "x\" " ends
// the string for the server where the check read a name, and the rest
// of the line, an UPDATE of the checked database inside a trigger's
// body (or a read of it), was a second name to the check. The rehearsal
// must never reach the checked database, however the text is read: its
// rows stay.
func TestRehearsalReadsScriptsAsTheServer(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	if mode := f.scalar(t, "SELECT @@GLOBAL.sql_mode"); strings.Contains(mode, "ANSI_QUOTES") {
		t.Skipf("the server's sql_mode %s reads \"…\" as a name, as the check does", mode)
	}
	db := f.scalar(t, "SELECT DATABASE()")
	for _, up := range []string{
		"CREATE TABLE t (a INT);\nCREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET @a = \"x\\\" \"; UPDATE " + db + ".Genre SET Name = 'changed' WHERE GenreId = 25; -- \"\nEND;\nINSERT INTO t VALUES (1);",
		"CREATE TABLE t AS SELECT \"x\\\" \" AS a, g.* FROM " + db + ".Genre g -- \"\n;",
	} {
		reh, err := f.eng.RehearseIn(context.Background(), scratch, up, "")
		if err != nil {
			t.Fatalf("%s: %v", up, err)
		}
		for _, s := range reh.Up {
			t.Logf("%q: %s", s.SQL, s.Err)
		}
		if name := f.scalar(t, "SELECT Name FROM Genre WHERE GenreId = 25"); name != "Opera" {
			t.Errorf("%s: the checked database's genre 25 is now %q, was Opera", up, name)
			f.exec(t, "UPDATE Genre SET Name = 'Opera' WHERE GenreId = 25")
		}
		if last := reh.Up[len(reh.Up)-1]; last.Err == "" {
			t.Errorf("%s: rehearsed to its end: %+v", up, reh.Up)
		}
	}
}

// TestCharsetParameter: the URL's charset parameter reached the driver
// as a session variable named charset, which no server has ("Unknown
// system variable 'charset'"), so no URL with it opened, whatever the
// character set. A UTF-8 character set, the one the guard reads the text
// in, now sets the connection's; any other is refused as the URL's
// error before anything is sent, naming it: in GBK, BIG5, SJIS or CP932
// a backslash can end a character and the server would end a string
// where the guard reads an escaped quote (TestClientCharsetCannotSplitStrings),
// and in a single-byte set the server would read the text's non-ASCII
// characters as other ones.
func TestCharsetParameter(t *testing.T) {
	f := chinook(t)
	for _, cs := range []string{"utf8mb4", "utf8mb3", "utf8"} {
		eng, err := twmysql.Open(context.Background(), f.url+"?charset="+cs, engine.Options{MaxConns: 1})
		if err != nil {
			t.Errorf("charset=%s: %v", cs, err)
			continue
		}
		res, err := query.Collect(context.Background(), eng, "SELECT @@character_set_client, 'héllo'", query.Options{})
		if err != nil || res.Rows[0][0] != cs && !(cs == "utf8" && res.Rows[0][0] == "utf8mb3") || res.Rows[0][1] != "héllo" {
			t.Errorf("charset=%s: %v %v", cs, res, err)
		}
		eng.Close()
	}
	for _, cs := range []string{"gbk", "big5", "sjis", "cp932", "latin1"} {
		_, err := twmysql.Config(f.url + "?charset=" + cs)
		if !errors.Is(err, engine.ErrBadPath) || !strings.Contains(err.Error(), "charset="+cs) {
			t.Errorf("charset=%s: %v, want the URL refused naming it", cs, err)
		}
	}
}

// TestRehearsalWritesNoServerDirectory: a rehearsal refuses INTO OUTFILE
// (it writes a file on the scratch server) but ran DATA DIRECTORY and
// INDEX DIRECTORY table options, with which the server writes a table's
// files wherever its own user can (MariaDB 10.11 made the directory
// DIR/<rehearsal database> for an InnoDB table, and left it after the
// rehearsal). They are refused, also in a partition's definition, and
// nothing is made there.
func TestRehearsalWritesNoServerDirectory(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	dir := "/tmp/tw-my-datadir-" + strings.ReplaceAll(t.Name(), "/", "-")
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, up := range []string{
		"CREATE TABLE t (a INT) ENGINE=InnoDB DATA DIRECTORY='" + dir + "';",
		"CREATE TABLE t (a INT) ENGINE=InnoDB data /* c */ directory = '" + dir + "';",
		"CREATE TABLE t (a INT);\nALTER TABLE t ENGINE=InnoDB, DATA DIRECTORY='" + dir + "';",
		"CREATE TABLE t (a INT) ENGINE=InnoDB PARTITION BY HASH (a) (PARTITION p0 DATA DIRECTORY='" + dir + "');",
		"CREATE TABLE m (a INT) ENGINE=MyISAM INDEX DIRECTORY='" + dir + "';",
	} {
		rehearsalRefuses(t, f, scratch, up)
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: the server made %s", up, dir)
			os.RemoveAll(dir)
		}
	}
}

// TestRehearsalKeepsItsDeadline: each rehearsed statement is held to
// 30 s by the scratch session's max_statement_time (and its lock waits
// by lock_wait_timeout); a script that set them itself ran on past it,
// and at the rehearsal's end the client closing the connection leaves
// such a statement running on the server. Setting them, for the session
// or one statement, is refused.
func TestRehearsalKeepsItsDeadline(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	for _, up := range []string{
		"SET SESSION max_statement_time = 0;\nDO SLEEP(33);",
		"SET STATEMENT max_statement_time = 0 FOR DO SLEEP(33);",
		"SET @@max_statement_time = 0, @@session.lock_wait_timeout = 86400;",
		"SET max_execution_time = 0;",
	} {
		rehearsalRefuses(t, f, scratch, up)
	}
}

// TestRehearsalEndsNoOtherTransaction: a prepared XA transaction whose
// session ended (its transaction manager waits to decide) is the
// server's: any session may XA COMMIT or XA ROLLBACK it by its id. A
// rehearsal on the checked database's own server that committed an
// application's prepared transaction wrote its rows into the checked
// database. XA is refused, and the transaction stays prepared.
func TestRehearsalEndsNoOtherTransaction(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	app, err := f.root.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var appID int64
	if err := app.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&appID); err != nil {
		t.Fatal(err)
	}
	xid := "'tw-app-" + strings.ReplaceAll(t.Name(), "/", "-") + "'"
	// Whatever happens, the transaction ends and its row goes (the
	// cleanups run last first).
	t.Cleanup(func() { f.root.Exec("DELETE FROM Genre WHERE GenreId = 999") })
	t.Cleanup(func() { f.root.Exec("XA ROLLBACK " + xid) })
	t.Cleanup(func() { app.Raw(func(any) error { return driver.ErrBadConn }); app.Close() })
	for _, q := range []string{"XA START " + xid, "INSERT INTO Genre VALUES (999, 'prepared')", "XA END " + xid, "XA PREPARE " + xid} {
		if _, err := app.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The application's session ends; its transaction stays prepared.
	app.Raw(func(any) error { return driver.ErrBadConn })
	app.Close()
	for end := time.Now().Add(5 * time.Second); f.scalar(t, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", appID) != "0" && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	for _, up := range []string{"XA COMMIT " + xid + ";", "xa recover;\nXA ROLLBACK " + xid + ";"} {
		rehearsalRefuses(t, f, scratch, up)
	}
	if n := f.scalar(t, "SELECT COUNT(*) FROM Genre WHERE GenreId = 999"); n != "0" {
		t.Errorf("the application's prepared transaction was committed into the checked database: %s rows", n)
	}
}

// TestRehearsalChangesNoUser: a rehearsal refuses GRANT, REVOKE and
// statements on users and roles (privileges are the server's), but ran
// SET DEFAULT ROLE … FOR, which changes another user's default role on
// the whole server. It is refused, and the user's role stays.
func TestRehearsalChangesNoUser(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	role, user := "tw_role_"+f.scalar(t, "SELECT CONNECTION_ID()"), "tw_user_"+f.scalar(t, "SELECT CONNECTION_ID()")
	t.Cleanup(func() { f.root.Exec("DROP USER IF EXISTS " + user) })
	t.Cleanup(func() { f.root.Exec("DROP ROLE IF EXISTS " + role) })
	f.exec(t, "CREATE ROLE "+role)
	f.exec(t, "CREATE USER "+user)
	f.exec(t, "GRANT "+role+" TO "+user)
	f.exec(t, "SET DEFAULT ROLE "+role+" FOR "+user)
	defaultRole := func() string {
		return f.scalar(t, "SELECT default_role FROM mysql.user WHERE User = ? AND Host = '%'", user)
	}
	if got := defaultRole(); got != role {
		t.Fatalf("the user's default role is %q", got)
	}
	reh, err := f.eng.RehearseIn(context.Background(), scratch, "SET DEFAULT ROLE NONE FOR "+user+";", "")
	if err != nil {
		t.Fatal(err)
	}
	if s := reh.Up[0]; !strings.Contains(s.Err, "not rehearsed") {
		t.Errorf("%q rehearsed: %q", s.SQL, s.Err)
	}
	if got := defaultRole(); got != role {
		t.Errorf("the rehearsal changed %s's default role to %q, was %s", user, got, role)
	}
}
