// Package servers copies SQLite databases into PostgreSQL and
// MariaDB/MySQL databases it creates itself, for tests and development. It
// never writes into a database it did not create.
//
// # Tests
//
//	url := servers.Postgres(t)       // Chinook: postgres://postgres@127.0.0.1:5432/tw_…?sslmode=disable
//	url := servers.PostgresSample(t) // the built-in sample
//	url := servers.PostgresOf(t, testdb.Fixture(t))
//	url := servers.PostgresScratch(t) // empty, owned by a new role tw_scratch_… that is not a superuser
//	url := servers.MySQL(t)          // Chinook: mysql://root@127.0.0.1:3306/tw_…
//	url := servers.MySQLSample(t)
//	url := servers.MySQLOf(t, path)
//	dsn, _ := servers.DriverDSN(url) // root@tcp(127.0.0.1:3306)/tw_… for github.com/go-sql-driver/mysql
//
// Each call returns a fresh database of its own (tw_, the test's name and
// 48 random bits, so parallel tests and concurrent test binaries never
// share one), connected to as superuser (postgres) or root, dropped when
// the test ends; PostgresScratch's is connected to as its own role. pgx
// takes the PostgreSQL URL as it is.
//
// A server that does not answer within 2 s skips the test with the
// command that starts it (what .ci/run does); TABLEWISE_TEST_REQUIRE=
// postgres,mysql turns those skips into failures (.ci/run sets it for the
// servers it saw up). TABLEWISE_TEST_POSTGRES and TABLEWISE_TEST_MYSQL
// point at other servers (a URL as above, any database path; "off" skips).
// Postgres and MySQL also skip when ../shared/data is absent.
//
// # Sharing the load
//
// A whole copy from SQLite is made once per server and source file, into a
// template database named after the file's contents and this loader's
// version (tw_tpl_chinook_<hash>). It stays on the server, so later test
// binaries find it; a changed file or loader makes a new one. Concurrent
// binaries take a server-wide lock named after the template (an advisory
// lock; GET_LOCK), so one loads and the others wait; a load cut short is
// never used (PostgreSQL loads under another name and renames; a MySQL
// template is marked complete last).
//
//   - PostgreSQL: each test's database is CREATE DATABASE … TEMPLATE (the
//     template allows no connections, which that needs).
//   - MariaDB has no templates. Each test's database gets the tables from
//     the SQLite schema and its rows by INSERT … SELECT from the template,
//     on the server. A read-only database shared by a whole test binary
//     would be faster, but the tests of a read-only engine are exactly the
//     ones that try to write: one escaped write would change what every
//     later test sees.
//
// Measured with BenchmarkLoad and BenchmarkFresh (go test
// ./core/testdb/servers -run '^$' -bench . -benchtime 5x, three runs; a
// 2-core machine shared with other work, so figures vary run to run):
//
//	                      whole load from SQLite    each test's database
//	Chinook  PostgreSQL   0.41–0.76 s               58–77 ms
//	Chinook  MariaDB      0.53–1.01 s               96–99 ms
//	sample   PostgreSQL   0.87–1.26 s               43–119 ms
//	sample   MariaDB      0.91–1.36 s               380–464 ms
//
// # Load and the command
//
// Load(ctx, "chinook.sqlite", "postgres://…/newdb?sslmode=disable") copies
// a file into a new database; so does
//
//	go run ./data/load --from ../shared/data/chinook.sqlite --to 'postgres://postgres@127.0.0.1:5432/chinook?sslmode=disable'
//	go run ./data/load --from sample --to mysql://root@127.0.0.1:3306/sample
//
// Names keep their case: quoted in PostgreSQL ("Track"."AlbumId"), in
// backticks in MySQL (lower_case_table_names is 0 here, so case counts).
// Rows go in by COPY (pgx CopyFrom) and by multi-row INSERTs of up to 1,000
// rows or 1 MB. Types, from the declared SQLite type (SQLite's affinity
// rules, with BOOLEAN, DATE and DATETIME named first) and the values:
//
//	SQLite                    PostgreSQL              MySQL/MariaDB
//	INTEGER, INT…             integer, bigint when a value needs 64 bits or BIGINT is declared
//	BOOLEAN (0/1)             boolean                 BOOLEAN (tinyint(1))
//	REAL, FLOAT, DOUBLE       double precision        DOUBLE
//	NUMERIC(p,s), DECIMAL     numeric(p,s)            DECIMAL(p,s)
//	NUMERIC (no scale)        numeric                 DECIMAL(p,s) as wide as the values
//	NVARCHAR(n), VARCHAR(n)   varchar(n)              VARCHAR(n)
//	TEXT                      text                    TEXT (VARCHAR(255+) when in a key; MEDIUM/LONGTEXT when long)
//	DATE                      date                    DATE
//	DATETIME, TIMESTAMP       timestamp               DATETIME, DATETIME(6) with fractions
//	BLOB                      bytea                   LONGBLOB
//	(none)                    by the values: integer, double, text or bytea
//
// Decimals are rounded to the declared scale halves away from zero (as the
// servers round); a value that would change otherwise (text in an INTEGER
// column, a VARCHAR(3) holding 5 characters, a NUL in text) stops the load
// with its table, column and row. MySQL databases are utf8mb4 with the
// server's default collation (utf8mb4_general_ci here: comparisons ignore
// case and accents).
//
// Copied: primary keys (composite too), UNIQUE constraints, CREATE INDEX
// indexes (DESC kept), foreign keys with their ON DELETE/UPDATE actions
// (PostgreSQL checks them; the MySQL load runs with foreign_key_checks=0),
// CHECK (col IN (…)) constraints, literal defaults, and the table and
// column comments of the CREATE TABLE text (core/ddl reads them), as COMMENT
// ON / COMMENT. A view is created with only its identifier quotes rewritten
// when the server accepts it: the sample's views run on MariaDB, but
// PostgreSQL refuses order_totals (round(double precision, integer) does
// not exist) and so monthly_sales. Result.Notes lists what was left out:
// such views, expression and partial indexes, virtual tables, MySQL view
// comments; other CHECK constraints are not copied.
//
// # Facts for the engines
//
// Measured here (PostgreSQL 15.20, MariaDB 10.11, superuser/root); each is
// a subtest of TestPostgresFacts or TestMySQLFacts, so a server that
// behaves otherwise fails it.
//
// PostgreSQL:
//   - Inside BEGIN READ ONLY, pg_read_file, COPY (…) TO '/tmp/…' (the file
//     is written), pg_advisory_lock and set_config run; INSERT is 25006.
//     The advisory lock outlives ROLLBACK. A set_config(…, false) is undone
//     by ROLLBACK but kept for the session by COMMIT: end read-only
//     transactions with ROLLBACK.
//   - EXPLAIN (VERBOSE, FORMAT JSON) writes a function call in an
//     expression unqualified, as deparsed text, even when the query wrote
//     pg_catalog.pg_read_file: "Output": ["pg_read_file('/etc/hostname'::text)"]
//     in a scalar subquery (an InitPlan), a MATERIALIZED CTE ("CTE c") and a
//     view (expanded into the plan). Only a function in FROM gets fields of
//     its own: "Function Name": "pg_ls_dir", "Schema": "pg_catalog". An
//     immutable call on constants is folded away (lower('A') → 'a'::text),
//     and the query inside query_to_xml's string is not planned at all. So
//     the plan can confirm a denied function is present, never that none is.
//   - SET LOCAL statement_timeout = '300ms': pg_sleep(3) ends with 57014 at
//     300 ms, the transaction is then aborted (25P02), and after ROLLBACK
//     the session's statement_timeout is as before.
//   - pgx v5 on a cancelled context (default config): the call returns at
//     once with context.DeadlineExceeded and the connection is closed; pgx
//     then sends a cancel request and Terminate in the background, and the
//     backend is gone within a second. With
//     pgconn.CancelRequestContextWatcherHandler the call returns 57014 and
//     the connection stays usable; PgConn.CancelRequest from another
//     goroutine does the same.
//   - DISCARD ALL inside a transaction is 25001. Outside it releases
//     advisory locks and resets set_config'd settings — and deallocates
//     pgx's cached prepared statements: the next run of a cached query
//     fails with 26000 (use pgx's QueryExecModeExec/SimpleProtocol or
//     reset the statement cache with it).
//
// MariaDB:
//   - Inside START TRANSACTION READ ONLY, LOAD_FILE('/etc/hostname') reads
//     the file and SELECT … INTO OUTFILE writes one (secure_file_priv is
//     empty here), GET_LOCK is granted and outlives ROLLBACK, SET STATEMENT
//     … FOR SELECT runs; SELECT … FOR UPDATE and INSERT are 1792.
//   - SET STATEMENT max_statement_time=0.3 FOR <query> ends a heavy query
//     and SLEEP(2) alike with error 1969 at 300 ms; the session's
//     @@max_statement_time is untouched.
//   - KILL QUERY <id> from a second connection ends the query with 1317
//     and the first connection stays usable. go-sql-driver on a cancelled
//     context returns at once and drops the connection but sends no KILL:
//     the server goes on running the statement (PROCESSLIST still shows it
//     as Query). An engine must KILL QUERY itself.
//   - With multiStatements off (the default), "SELECT 1; SELECT 2" is
//     refused by the server (1064 syntax error), not by the driver, which
//     sends the text as it is; with multiStatements=true it runs.
//   - Executable comments run: SELECT 1 /*! + 1 */ and /*M! + 1 */ are 2,
//     so is /*!50100 + 1 */ and /*!100000 + 1 */; /*!50700 … */ to
//     /*!99999 … */ (MySQL 5.7+ versions), /*!110000 … */ and
//     /*M!999999 … */ are comments; /*+ … */ is a comment.
//     SELECT 1 /*!, LOAD_FILE('/etc/hostname') */ returns two columns: a
//     checker that skips comments does not see what MariaDB runs.
package servers
