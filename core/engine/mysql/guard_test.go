package mysql

import (
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/guard"
)

// TestVet: what the guard admits and what it refuses, with the name of
// the refused thing. Every text here is read by the server as the
// comment says (TestGuardAgreesWithServer runs the ones that matter).
func TestVet(t *testing.T) {
	allowed := []string{
		"SELECT 1",
		"select * from `Track` where Name = \"INTO\"",
		"SELECT 1;",
		"SELECT 1 ; ; ",
		"(SELECT 1) UNION (SELECT 2)",
		"WITH t AS (SELECT 1 AS x) SELECT x FROM t",
		"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT * FROM c",
		"VALUES (1), (2)",
		"SHOW TABLES",
		"SHOW CREATE TABLE `Track`",
		"DESCRIBE `Track`",
		"DESC Track Name",
		"EXPLAIN SELECT * FROM Track",
		"EXPLAIN FORMAT=JSON SELECT * FROM Track",
		"SELECT 'a\\' ; DROP TABLE Genre -- '",    // one string: the backslash escapes the quote
		"SELECT 'it''s', \"say \"\"hi\"\"\"",      // doubled quotes
		"SELECT 'a'' ; DELETE FROM Track; -- '",   // one string: '' is a quote inside it
		"SELECT 1 -- a comment; DROP TABLE Genre", // the rest of the line is a comment
		"SELECT 1 # DROP TABLE Genre",
		"SELECT 1 /* ; DROP TABLE Genre */",
		"SELECT 1--1", // minus minus one: no comment
		"SELECT `into`, `for update` FROM t",
		"SELECT CAST(x AS CHAR CHARACTER SET utf8mb4) FROM t",
		"SELECT REPLACE(Name, 'a', 'b'), INSERT(Name, 1, 2, 'x') FROM Track",
		"SELECT SLEEP(1)",
		"SELECT 1INTO", // a column named 1INTO
		"SELECT @@version",
		"SELECT@@version",
		"SELECT 1.5 INTO_x FROM t",
		"SELECT t.5x FROM t",
		"SELECT Name FROM Track WHERE Name LIKE '%\\_%' ESCAPE '\\\\'",
		"SHOW BINARY LOGS",
		"SHOW BINLOG STATUS",
		"SHOW MASTER STATUS",
		"SELECT JSON_EXTRACT('{\"a\": 1}', '$.a'), JSON_VALUE('[1]', '$[0]')",
	}
	for _, sql := range allowed {
		if err := vet(sql, nil); err != nil {
			t.Errorf("%q refused: %v", sql, err)
		}
	}
	refused := map[string]string{
		"DELETE FROM Track":                                           "DELETE",
		"INSERT INTO Genre SELECT 99, 'x'":                            "INSERT",
		"UPDATE Track SET Name = 'x'":                                 "UPDATE",
		"DROP TABLE Track":                                            "DROP TABLE",
		"CREATE TABLE x (a INT)":                                      "CREATE TABLE",
		"CREATE TEMPORARY TABLE x (a INT)":                            "CREATE TEMP TABLE",
		"TRUNCATE Track":                                              "TRUNCATE",
		"ALTER TABLE Track ADD x INT":                                 "ALTER TABLE",
		"RENAME TABLE Track TO t2":                                    "RENAME",
		"SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(5)":      "SET",
		"SET SESSION max_statement_time = 0":                          "SET",
		"SET @@session.sql_mode = 'ANSI_QUOTES'":                      "SET",
		"DO SLEEP(1)":                                                 "DO",
		"CALL p()":                                                    "CALL",
		"HANDLER Track OPEN":                                          "HANDLER",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE t":                 "LOAD",
		"LOAD XML INFILE '/etc/passwd' INTO TABLE t":                  "LOAD",
		"LOCK TABLES Track READ":                                      "LOCK",
		"KILL 1":                                                      "KILL",
		"KILL QUERY 1":                                                "KILL",
		"FLUSH TABLES":                                                "FLUSH",
		"PREPARE s FROM 'DELETE FROM Track'":                          "PREPARE",
		"EXECUTE s":                                                   "EXECUTE",
		"BEGIN":                                                       "BEGIN",
		"COMMIT":                                                      "COMMIT",
		"XA START 'x'":                                                "XA",
		"GRANT ALL ON *.* TO x":                                       "GRANT",
		"INSTALL SONAME 'x'":                                          "INSTALL",
		"SHUTDOWN":                                                    "SHUTDOWN",
		"ANALYZE SELECT * FROM Track":                                 "ANALYZE",
		"ANALYZE TABLE Track":                                         "ANALYZE",
		"EXPLAIN ANALYZE SELECT 1":                                    "EXPLAIN ANALYZE",
		"EXPLAIN DELETE FROM Track":                                   "EXPLAIN of DELETE",
		"EXPLAIN FOR CONNECTION 5":                                    "EXPLAIN FOR CONNECTION",
		"SHOW EXPLAIN FOR 5":                                          "SHOW EXPLAIN FOR",
		"SHOW EXPLAIN FORMAT=JSON FOR 5":                              "SHOW EXPLAIN FOR",
		"SHOW ANALYZE FOR 5":                                          "SHOW ANALYZE FOR",
		"show analyze format = json for 5":                            "SHOW ANALYZE FOR",
		"WITH t AS (SELECT 1) DELETE FROM Track":                      "WITH … DELETE",
		"WITH t AS (SELECT 1) UPDATE Track SET Name = 'x'":            "WITH … UPDATE",
		"SELECT 1; DROP TABLE Track":                                  "several statements",
		"SELECT 1; SELECT 2":                                          "several statements",
		"SELECT 1 -- x\n; DELETE FROM Track":                          "several statements",
		"SELECT \"x\\\" ; DROP TABLE Genre -- \"":                     "several statements", // no escapes in a "name"
		"SELECT Name || 'x' FROM Track":                               "||",
		"SELECT 1 FROM t WHERE a = 1 || b = 2":                        "||",
		"SELECT \"LOAD_FILE\"('/etc/passwd')":                         "function LOAD_FILE",
		"SELECT 1 INTO OUTFILE '/tmp/x'":                              "SELECT … INTO",
		"SELECT 1 INTO DUMPFILE '/tmp/x'":                             "SELECT … INTO",
		"SELECT 1 INTO @a":                                            "SELECT … INTO",
		"SELECT 1 INTO@a":                                             "SELECT … INTO",
		"SELECT 1 FROM dual INTO@a":                                   "SELECT … INTO",
		"SELECT 1.5INTO @a":                                           "number joined to a word",
		"SELECT 1e1INTO @a":                                           "number joined to a word",
		"SELECT .5INTO @a":                                            "number joined to a word",
		"SELECT @a := 1":                                              ":=",
		"SELECT * FROM Track FOR UPDATE":                              "FOR UPDATE",
		"SELECT * FROM Track FOR SHARE":                               "FOR SHARE",
		"SELECT * FROM Track LOCK IN SHARE MODE":                      "LOCK IN SHARE MODE",
		"SELECT * FROM Track PROCEDURE ANALYSE()":                     "PROCEDURE",
		"SELECT LOAD_FILE('/etc/passwd')":                             "function LOAD_FILE",
		"select load_file('/etc/passwd')":                             "function LOAD_FILE",
		"SELECT LOAD_FILE ('/etc/passwd')":                            "function LOAD_FILE",
		"SELECT LOAD_FILE/**/('/etc/passwd')":                         "function LOAD_FILE",
		"SELECT `LOAD_FILE`('/etc/passwd')":                           "function LOAD_FILE",
		"SELECT GET_LOCK('x', 0)":                                     "function GET_LOCK",
		"SELECT RELEASE_LOCK('x')":                                    "function RELEASE_LOCK",
		"SELECT IS_FREE_LOCK('x')":                                    "function IS_FREE_LOCK",
		"SELECT NEXTVAL(s)":                                           "function NEXTVAL",
		"SELECT NEXT VALUE FOR s":                                     "NEXT VALUE FOR",
		"SELECT LAST_INSERT_ID(5)":                                    "function LAST_INSERT_ID",
		"SELECT MASTER_POS_WAIT('f', 4)":                              "function MASTER_POS_WAIT",
		"SELECT IS_USED_LOCK('x')":                                    "function IS_USED_LOCK",
		"SELECT BINLOG_GTID_POS('mysql-bin.000001', 4)":               "function BINLOG_GTID_POS",
		"SELECT WSREP_SYNC_WAIT_UPTO_GTID('0-1-1', 60)":               "function WSREP_SYNC_WAIT_UPTO_GTID",
		"SELECT spider_direct_sql('SELECT 1', 't', 'host \"h\"')":     "function SPIDER_DIRECT_SQL",
		"SELECT spider_bg_direct_sql('SELECT 1', 't', '')":            "function SPIDER_BG_DIRECT_SQL",
		"SELECT spider_copy_tables('t', '0', '1')":                    "function SPIDER_COPY_TABLES",
		"SELECT spider_ping_table('t', '', 0, 0, '', 0, 0, 0, 0, 0)":  "function SPIDER_PING_TABLE",
		"SELECT spider_flush_table_mon_cache()":                       "function SPIDER_FLUSH_TABLE_MON_CACHE",
		"SELECT json_file('/etc/passwd')":                             "function JSON_FILE",
		"SELECT bson_file('/etc/passwd')":                             "function BSON_FILE",
		"SELECT jfile_make('{}', '/tmp/x.json')":                      "function JFILE_MAKE",
		"SELECT bfile_convert('/tmp/a', '/tmp/b', 100)":               "function BFILE_CONVERT",
		"SELECT envar('HOME')":                                        "function ENVAR",
		"SHOW BINLOG EVENTS":                                          "SHOW BINLOG EVENTS",
		"show binlog events in 'mysql-bin.000001' limit 5":            "SHOW BINLOG EVENTS",
		"SHOW RELAYLOG EVENTS":                                        "SHOW RELAYLOG EVENTS",
		"show engine 'innodb' status":                                 "SHOW ENGINE … STATUS",
		"SHOW RELAYLOG 'source' EVENTS FROM 4":                        "SHOW RELAYLOG EVENTS",
		"SELECT sys_exec('id')":                                       "function SYS_EXEC",
		"SELECT other_db.f(1)":                                        "function other_db.f",
		"SELECT `other db`.`f`(1)":                                    "function `other db`.`f`",
		"VALUES (LOAD_FILE('/etc/passwd'))":                           "function LOAD_FILE",
		"WITH t AS (SELECT LOAD_FILE('/etc/passwd')) SELECT * FROM t": "function LOAD_FILE",
		"SELECT 1 /*! , LOAD_FILE('/etc/passwd') */":                  "executable comment",
		"SELECT 1 /*!50100 , LOAD_FILE('/etc/passwd') */":             "executable comment",
		"SELECT 1 /*M! , LOAD_FILE('/etc/passwd') */":                 "executable comment",
		"/*!99999 DROP TABLE x */ SELECT 1":                           "executable comment",
		"SELECT /*+ MAX_EXECUTION_TIME(0) */ 1":                       "optimizer hint",
		"SELECT 1 /* unterminated":                                    "unterminated comment",
		"SELECT 'unterminated":                                        "unterminated string",
		"SELECT `unterminated":                                        "unterminated name",
		"SELECT 1\x00":                                                "NUL byte",
		"SELECT * FROM information_schema.innodb_cmp_reset":           "table innodb_cmp_reset",
	}
	for sql, what := range refused {
		err := vet(sql, nil)
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%q: %v, want a refusal (%s)", sql, err, what)
			continue
		}
		if rej.What != what {
			t.Errorf("%q refused as %q (%s), want %q", sql, rej.What, rej.Reason, what)
		}
	}
	// Text that begins no statement is a syntax error, never sent.
	for sql, hint := range map[string]string{"SELEC 1": "did you mean SELECT?", "ＳＥＬＥＣＴ 1": "?", "hello there": "?"} {
		var se *guard.SQLError
		if err := vet(sql, nil); !errors.As(err, &se) || hint != "?" && se.Hint != hint || !strings.Contains(se.Msg, "does not begin a statement") {
			t.Errorf("%q: %v (hint %q)", sql, err, hint)
		}
	}
	// A stored function of the database is refused by name.
	if err := vet("SELECT grab(1)", &known{functions: map[string]bool{"GRAB": true}}); err == nil || !strings.Contains(err.Error(), "stored function grab") {
		t.Errorf("stored function: %v", err)
	}
	// On a server with a remote table, the reads that open every table
	// are refused; those that read definitions only are not, and without
	// a remote table none is.
	fed := &known{remote: map[string]string{"FED": "it is a FEDERATED table"}}
	opening := map[string]string{
		"SHOW TABLE STATUS":           "SHOW TABLE STATUS",
		"show table status like 'f%'": "SHOW TABLE STATUS",
		"SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()": "reading information_schema.TABLES",
		"SELECT * FROM INFORMATION_SCHEMA.`TABLES`":                                                    "reading information_schema.TABLES",
		"SELECT t.* FROM information_schema.tables t":                                                  "reading information_schema.TABLES",
		"SELECT MAX(CREATE_TIME) FROM information_schema.TABLES":                                       "reading information_schema.TABLES",
		"SELECT CARDINALITY FROM information_schema.STATISTICS":                                        "reading information_schema.STATISTICS",
		"SELECT TABLE_NAME FROM information_schema.KEY_COLUMN_USAGE":                                   "reading information_schema.KEY_COLUMN_USAGE",
		"SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS":                                    "reading information_schema.TABLE_CONSTRAINTS",
		"SELECT * FROM information_schema.PARTITIONS":                                                  "reading information_schema.PARTITIONS",
	}
	for sql, what := range opening {
		var rej *guard.Rejection
		if err := vet(sql, fed); !errors.As(err, &rej) || rej.What != what {
			t.Errorf("%q with a remote table: %v, want a refusal (%s)", sql, err, what)
		}
		if err := vet(sql, &known{}); err != nil {
			t.Errorf("%q without a remote table: %v", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT TABLE_NAME, ENGINE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
		"SELECT COUNT(*) FROM information_schema.TABLES",
		"SELECT * FROM information_schema.COLUMNS",
		"SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS",
		"SELECT TABLE_ROWS FROM stats", // a table of the database's own
		"SHOW FULL TABLES",
		"SHOW INDEX FROM Track",
	} {
		if err := vet(sql, fed); err != nil {
			t.Errorf("%q with a remote table: %v", sql, err)
		}
	}
	// SHOW's table of another database written apart from it is that
	// database's table.
	other := &known{remote: map[string]string{"OTHER.FED": "it is a FEDERATED table"}}
	for _, sql := range []string{"SHOW INDEX FROM fed FROM other", "SHOW KEYS IN `fed` IN `other`", "SHOW COLUMNS FROM fed IN other"} {
		var rej *guard.Rejection
		if err := vet(sql, other); !errors.As(err, &rej) || !strings.Contains(rej.What, "other") {
			t.Errorf("%q with other.fed remote: %v, want a refusal naming it", sql, err)
		}
	}
	if err := vet("SHOW INDEX FROM Genre FROM other", other); err != nil {
		t.Errorf("SHOW INDEX FROM Genre FROM other: %v", err)
	}
	for _, sql := range []string{"", "  ", "-- only a comment", "/* c */", ";", "# c"} {
		if err := vet(sql, nil); !errors.Is(err, guard.ErrEmpty) {
			t.Errorf("%q: %v, want ErrEmpty", sql, err)
		}
	}
}

// TestUnlistedCall: to a user who cannot read mysql.func, a call the
// server would look up among the loadable functions is refused, and its
// own functions and syntax are not; to one who can, neither is.
func TestUnlistedCall(t *testing.T) {
	reader := &known{own: ownNames(func(string, func([]string)) error { return errors.New("no server") })}
	admin := &known{udfsRead: true}
	for sql, refused := range map[string]bool{
		"SELECT sys_exec2('id')":                              true,
		"SELECT `concat`('a')":                                true, // quoted: the server may look it up
		"SELECT status(1)":                                    true, // a keyword it looks up
		"SELECT point(1)":                                     true, // POINT takes two
		"SELECT json_table('x')":                              true,
		"SELECT CONCAT('a'), JSON_VALUE('[1]', '$[0]')":       false,
		"SELECT ST_AsText(POINT(1, (2)))":                     false,
		"SELECT GEOMETRYCOLLECTION(POINT(1, 2), POINT(3, 4))": false,
		"SELECT * FROM JSON_TABLE('[]', '$[*]' COLUMNS (a INT PATH '$', NESTED PATH '$' COLUMNS (b INT PATH '$'))) j": false,
		"WITH c(n) AS (SELECT 1) SELECT n FROM c":                              false,
		"SELECT Name FROM Genre WHERE GenreId IN (1, 2) AND EXISTS (SELECT 1)": false,
	} {
		var rej *guard.Rejection
		err := vet(sql, reader)
		if got := errors.As(err, &rej) && strings.Contains(rej.Hint, "mysql.func"); got != refused {
			t.Errorf("%q to a reader: %v, want refused %v", sql, err, refused)
		}
		if err := vet(sql, admin); err != nil {
			t.Errorf("%q to an administrator: %v", sql, err)
		}
	}
}
