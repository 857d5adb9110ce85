package servers_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// The facts the package documentation lists for the engines, measured on
// the test servers (PostgreSQL 15, MariaDB 10.11) as superuser/root. Each
// subtest fails when a server stops behaving as written there.

// serverFile is a path in /tmp, new to this run, for a server to write
// (the server's user owns the file; MySQL refuses to overwrite one).
func serverFile(engine string) string {
	return fmt.Sprintf("/tmp/tablewise-fact-%s-%d-%d.txt", engine, os.Getpid(), time.Now().UnixNano())
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestPostgresFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on server timeouts (-short)")
	}
	dsn := servers.Postgres(t)
	ctx := context.Background()
	connect := func(t *testing.T) *pgx.Conn { return connectPostgres(t, dsn) }
	setting := func(t *testing.T, conn *pgx.Conn, name string) string {
		var v string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	advisory := func(t *testing.T, conn *pgx.Conn) int {
		var n int
		conn.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()").Scan(&n)
		return n
	}

	t.Run("read-only transaction", func(t *testing.T) {
		conn := connect(t)
		out := serverFile("pg")
		t.Cleanup(func() { os.Remove(out) })
		conn.Exec(ctx, "SET statement_timeout = '5s'")
		tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		var file string
		if err := tx.QueryRow(ctx, "SELECT pg_read_file('/etc/hostname')").Scan(&file); err != nil || file == "" {
			t.Errorf("pg_read_file in a read-only transaction: %q, %v; want the file", file, err)
		}
		if _, err := tx.Exec(ctx, "COPY (SELECT 1) TO '"+out+"'"); err != nil {
			t.Errorf("COPY TO a server file: %v", err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_lock(4242)"); err != nil {
			t.Errorf("pg_advisory_lock: %v", err)
		}
		if _, err := tx.Exec(ctx, "SELECT set_config('statement_timeout', '0', false)"); err != nil {
			t.Errorf("set_config: %v", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO "Genre" VALUES (999, 'x')`); pgCode(err) != "25006" {
			t.Errorf("INSERT in a read-only transaction: %v, want 25006", err)
		}
		tx.Rollback(ctx)
		if _, err := os.Stat(out); err != nil {
			t.Errorf("COPY TO wrote no file: %v", err)
		}
		if n := advisory(t, conn); n != 1 {
			t.Errorf("%d advisory locks held after ROLLBACK, want 1 (the lock outlives the transaction)", n)
		}
		if v := setting(t, conn, "statement_timeout"); v != "5s" {
			t.Errorf("statement_timeout after ROLLBACK: %s, want 5s (a rolled-back set_config is undone)", v)
		}
		tx, _ = conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
		tx.Exec(ctx, "SELECT set_config('statement_timeout', '0', false)")
		tx.Commit(ctx)
		if v := setting(t, conn, "statement_timeout"); v != "0" {
			t.Errorf("statement_timeout after COMMIT: %s, want 0 (a committed set_config stays for the session)", v)
		}
	})

	t.Run("explain verbose names functions", func(t *testing.T) {
		conn := connect(t)
		tx, _ := conn.Begin(ctx)
		defer tx.Rollback(ctx)
		tx.Exec(ctx, "CREATE TEMP VIEW reads AS SELECT pg_read_file('/etc/hostname') AS f")
		plan := func(q string) string {
			var p string
			if err := tx.QueryRow(ctx, "EXPLAIN (VERBOSE, FORMAT JSON) "+q).Scan(&p); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return p
		}
		for _, q := range []string{
			"SELECT (SELECT pg_read_file('/etc/hostname'))",
			"WITH c AS MATERIALIZED (SELECT pg_read_file('/etc/hostname') AS f) SELECT * FROM c",
			"SELECT * FROM reads",
			"SELECT pg_catalog.pg_read_file('/etc/hostname')",
		} {
			p := plan(q)
			if !strings.Contains(p, `"pg_read_file('/etc/hostname'::text)"`) || strings.Contains(p, "pg_catalog.pg_read_file") {
				t.Errorf("%s: the plan does not name pg_read_file unqualified:\n%s", q, p)
			}
		}
		if p := plan("SELECT * FROM pg_ls_dir('/tmp')"); !strings.Contains(p, `"Function Name": "pg_ls_dir"`) || !strings.Contains(p, `"Schema": "pg_catalog"`) {
			t.Errorf("a function in FROM: no Function Name and Schema:\n%s", p)
		}
		if p := plan("SELECT lower('A')"); strings.Contains(p, "lower") {
			t.Errorf("an immutable call on constants is still in the plan:\n%s", p)
		}
		if p := plan("SELECT query_to_xml('SELECT pg_read_file(''/etc/hostname'')', true, false, '')"); strings.Contains(p, `pg_read_file('/etc/hostname'::text)`) {
			t.Errorf("the query inside query_to_xml's string is planned:\n%s", p)
		}
	})

	t.Run("set local statement_timeout", func(t *testing.T) {
		conn := connect(t)
		tx, _ := conn.Begin(ctx)
		tx.Exec(ctx, "SET LOCAL statement_timeout = '300ms'")
		start := time.Now()
		_, err := tx.Exec(ctx, "SELECT pg_sleep(3)")
		took := time.Since(start)
		if pgCode(err) != "57014" || took > 2*time.Second {
			t.Errorf("pg_sleep(3) under SET LOCAL statement_timeout 300ms: %v after %v, want 57014 near 300ms", err, took)
		}
		if _, err := tx.Exec(ctx, "SELECT 1"); pgCode(err) != "25P02" {
			t.Errorf("the next statement: %v, want 25P02 (the transaction is aborted)", err)
		}
		tx.Rollback(ctx)
		if v := setting(t, conn, "statement_timeout"); v != "0" {
			t.Errorf("statement_timeout after the transaction: %s, want 0", v)
		}
	})

	// gone waits up to a second for backend pid to leave pg_stat_activity.
	gone := func(t *testing.T, pid uint32) bool {
		admin := connect(t)
		for range 20 {
			var n int
			admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n)
			if n == 0 {
				return true
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false
	}

	t.Run("pgx cancel", func(t *testing.T) {
		// pgx's default: a cancelled context returns at once and closes the
		// connection; in the background pgx sends a cancel request and
		// Terminate, so the server stops the query and ends the session.
		conn := connect(t)
		pid := conn.PgConn().PID()
		c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		start := time.Now()
		_, err := conn.Exec(c, "SELECT pg_sleep(5)")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second || !conn.IsClosed() {
			t.Errorf("default handler: %v after %v, closed %v; want the deadline at once and a closed connection", err, time.Since(start), conn.IsClosed())
		}
		if !gone(t, pid) {
			t.Errorf("backend %d still there a second after the client cancelled", pid)
		}

		// With CancelRequestContextWatcherHandler the server is asked to
		// cancel: the statement ends with 57014 and the session is kept.
		cfg, _ := pgx.ParseConfig(dsn)
		cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 5 * time.Second}
		}
		conn2, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn2.Close(ctx)
		c, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
		start = time.Now()
		_, err = conn2.Exec(c, "SELECT pg_sleep(2)")
		cancel()
		if pgCode(err) != "57014" || time.Since(start) > time.Second || conn2.IsClosed() {
			t.Errorf("cancel-request handler: %v after %v, closed %v; want 57014 at once, connection open", err, time.Since(start), conn2.IsClosed())
		}
		var one int
		if err := conn2.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("the connection after a cancel request: %v", err)
		}

		// PgConn.CancelRequest from another goroutine does the same.
		go func() {
			time.Sleep(200 * time.Millisecond)
			conn2.PgConn().CancelRequest(ctx)
		}()
		_, err = conn2.Exec(ctx, "SELECT pg_sleep(2)")
		if pgCode(err) != "57014" {
			t.Errorf("CancelRequest: %v, want 57014", err)
		}
	})

	t.Run("discard all", func(t *testing.T) {
		conn := connect(t)
		tx, _ := conn.Begin(ctx)
		if _, err := tx.Exec(ctx, "DISCARD ALL"); pgCode(err) != "25001" {
			t.Errorf("DISCARD ALL in a transaction: %v, want 25001", err)
		}
		tx.Rollback(ctx)
		conn.Exec(ctx, "SELECT pg_advisory_lock(77)")
		conn.Exec(ctx, "SELECT set_config('statement_timeout', '9s', false)")
		var n int
		conn.QueryRow(ctx, `SELECT count(*) FROM "Genre" WHERE "GenreId" > $1`, 0).Scan(&n) // pgx prepares and caches this
		if _, err := conn.Exec(ctx, "DISCARD ALL"); err != nil {
			t.Fatalf("DISCARD ALL outside a transaction: %v", err)
		}
		if n := advisory(t, conn); n != 0 {
			t.Errorf("%d advisory locks after DISCARD ALL, want 0", n)
		}
		if v := setting(t, conn, "statement_timeout"); v != "0" {
			t.Errorf("statement_timeout after DISCARD ALL: %s, want 0", v)
		}
		err := conn.QueryRow(ctx, `SELECT count(*) FROM "Genre" WHERE "GenreId" > $1`, 0).Scan(&n)
		if pgCode(err) != "26000" {
			t.Errorf("pgx's cached statement after DISCARD ALL: %v, want 26000 (prepared statement does not exist)", err)
		}
	})
}

func TestMySQLFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on server timeouts (-short)")
	}
	url := servers.MySQL(t)
	ctx := context.Background()
	open := func(t *testing.T, params string) *sql.DB { return openMySQL(t, url, params) }
	number := func(err error) uint16 {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return me.Number
		}
		return 0
	}
	const heavy = "SELECT COUNT(*) FROM `Track` a, `Track` b, `Track` c" // minutes of work

	t.Run("read-only transaction", func(t *testing.T) {
		d := open(t, "")
		conn, err := d.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var priv sql.NullString
		conn.QueryRowContext(ctx, "SELECT @@secure_file_priv").Scan(&priv)
		out := serverFile("mysql")
		t.Cleanup(func() { os.Remove(out) })
		if _, err := conn.ExecContext(ctx, "START TRANSACTION READ ONLY"); err != nil {
			t.Fatal(err)
		}
		var file sql.NullString
		conn.QueryRowContext(ctx, "SELECT LOAD_FILE('/etc/hostname')").Scan(&file)
		if !file.Valid || file.String == "" {
			t.Errorf("LOAD_FILE in a read-only transaction (secure_file_priv %q): NULL, want the file", priv.String)
		}
		if _, err := conn.ExecContext(ctx, "SELECT 1 INTO OUTFILE '"+out+"'"); err != nil {
			t.Errorf("SELECT … INTO OUTFILE: %v", err)
		}
		var got int
		conn.QueryRowContext(ctx, "SELECT GET_LOCK('tablewise-fact', 0)").Scan(&got)
		if got != 1 {
			t.Errorf("GET_LOCK: %d", got)
		}
		if _, err := conn.ExecContext(ctx, "SELECT * FROM `Genre` FOR UPDATE"); number(err) != 1792 {
			t.Errorf("SELECT … FOR UPDATE: %v, want 1792", err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO `Genre` VALUES (999, 'x')"); number(err) != 1792 {
			t.Errorf("INSERT: %v, want 1792", err)
		}
		if _, err := conn.ExecContext(ctx, "SET STATEMENT max_statement_time=0 FOR SELECT 1"); err != nil {
			t.Errorf("SET STATEMENT … FOR SELECT: %v", err)
		}
		conn.ExecContext(ctx, "ROLLBACK")
		if _, err := os.Stat(out); err != nil {
			t.Errorf("INTO OUTFILE wrote no file: %v", err)
		}
		conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK('tablewise-fact') = CONNECTION_ID()").Scan(&got)
		if got != 1 {
			t.Error("the GET_LOCK lock did not outlive ROLLBACK")
		}
	})

	t.Run("max_statement_time", func(t *testing.T) {
		d := open(t, "")
		start := time.Now()
		_, err := d.ExecContext(ctx, "SET STATEMENT max_statement_time=0.3 FOR "+heavy)
		if took := time.Since(start); number(err) != 1969 || took > 2*time.Second {
			t.Errorf("a heavy query under max_statement_time=0.3: %v after %v, want 1969 near 300ms", err, took)
		}
		start = time.Now()
		_, err = d.ExecContext(ctx, "SET STATEMENT max_statement_time=0.3 FOR SELECT SLEEP(2)")
		if took := time.Since(start); number(err) != 1969 || took > time.Second {
			t.Errorf("SLEEP(2) under max_statement_time=0.3: %v after %v; want 1969 near 300ms", err, took)
		}
		// The limit is per statement: the session's own stays as it was.
		var limit float64
		d.QueryRowContext(ctx, "SELECT @@max_statement_time").Scan(&limit)
		if limit != 0 {
			t.Errorf("@@max_statement_time after SET STATEMENT: %v, want 0", limit)
		}
	})

	t.Run("kill query", func(t *testing.T) {
		d := open(t, "")
		conn, _ := d.Conn(ctx)
		defer conn.Close()
		var id int64
		conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
		go func() {
			time.Sleep(300 * time.Millisecond)
			d.ExecContext(ctx, "KILL QUERY ?", id)
		}()
		start := time.Now()
		_, err := conn.ExecContext(ctx, heavy)
		if took := time.Since(start); number(err) != 1317 || took > 2*time.Second {
			t.Errorf("KILL QUERY from another connection: %v after %v, want 1317 near 300ms", err, took)
		}
		var one int
		if err := conn.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Errorf("the connection after KILL QUERY: %v", err)
		}

		// go-sql-driver on a cancelled context: returns at once and drops
		// the connection; the server goes on with the query.
		conn2, _ := d.Conn(ctx)
		defer conn2.Close()
		conn2.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
		c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		start = time.Now()
		_, err = conn2.ExecContext(c, "SELECT SLEEP(2)")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
			t.Errorf("a cancelled context: %v after %v", err, time.Since(start))
		}
		time.Sleep(100 * time.Millisecond)
		var command string
		d.QueryRowContext(ctx, "SELECT COMMAND FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&command)
		if command != "Query" {
			t.Errorf("connection %d after the client cancelled: %q, expected it still running the query", id, command)
		}
	})

	t.Run("multiStatements", func(t *testing.T) {
		d := open(t, "")
		_, err := d.ExecContext(ctx, "SELECT 1; SELECT 2")
		if number(err) != 1064 {
			t.Errorf("two statements without multiStatements: %v, want the server's 1064 syntax error", err)
		}
		d2 := open(t, "?multiStatements=true")
		if _, err := d2.ExecContext(ctx, "SELECT 1; SELECT 2"); err != nil {
			t.Errorf("two statements with multiStatements=true: %v", err)
		}
	})

	t.Run("executable comments", func(t *testing.T) {
		d := open(t, "")
		for q, want := range map[string]int{
			"SELECT 1 /*! + 1 */":         2, // MySQL's executable comment
			"SELECT 1 /*M! + 1 */":        2, // MariaDB's own
			"SELECT 1 /*!50100 + 1 */":    2, // version 5.1.0 ≤ the server's
			"SELECT 1 /*!50700 + 1 */":    1, // MariaDB ignores MySQL 5.7 and later versions
			"SELECT 1 /*!99999 + 1 */":    1,
			"SELECT 1 /*M!999999 + 1 */":  1, // 99.99.99 > the server's: a comment
			"SELECT 1 /* + 1 */":          1,
			"SELECT 1 -- + 1\n":           1,
			"SELECT 1 /*!100000 + 1 */":   2, // 10.0.0 ≤ 10.11
			"SELECT 1 /*!110000 + 1 */":   1, // 11.0.0 > 10.11
			"SELECT 1 /*M!100000 + 1 */":  2,
			"SELECT 1 /*+ MAX_EXEC(1) */": 1, // an optimizer hint is a comment to MariaDB
		} {
			var got int
			if err := d.QueryRowContext(ctx, q).Scan(&got); err != nil || got != want {
				t.Errorf("%s = %d, %v; want %d", q, got, err, want)
			}
		}
		var cols []string
		rows, err := d.QueryContext(ctx, "SELECT 1 /*!, LOAD_FILE('/etc/hostname') */")
		if err == nil {
			cols, _ = rows.Columns()
			rows.Close()
		}
		if len(cols) != 2 {
			t.Errorf("a function call inside /*! */: %d columns (%v), want 2", len(cols), err)
		}
	})
}
