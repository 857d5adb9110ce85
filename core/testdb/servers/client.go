package servers

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresClient connects to the database at a postgres:// url with pgx
// for the test's length: the test's own connection, to set things up and
// look at the server from outside tablewise.
func PostgresClient(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// MySQLClient opens the database at a mysql:// url with
// github.com/go-sql-driver/mysql, params (driver parameters, or "")
// appended to its DSN, for the test's length: the test's own connection,
// to set things up and look at the server from outside tablewise.
func MySQLClient(t testing.TB, url, params string) *sql.DB {
	t.Helper()
	dsn, err := DriverDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sql.Open("mysql", dsn+params)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Column runs q on d and returns the first column of its rows, failing the
// test on an error.
func Column[T any](t testing.TB, d *sql.DB, q string, args ...any) []T {
	t.Helper()
	rows, err := d.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// PostgresColumn is Column for a pgx connection: q's first column on c,
// failing the test, with q, on an error.
func PostgresColumn[T any](t testing.TB, c *pgx.Conn, q string, args ...any) []T {
	t.Helper()
	rows, err := c.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[T])
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	return out
}

// MySQLChecksums is CHECKSUM TABLE of tables (names as SQL, comma
// separated) on d, as "name=checksum;" for each: a test compares it
// before and after to see that no row changed.
func MySQLChecksums(t testing.TB, d *sql.DB, tables string) string {
	t.Helper()
	rows, err := d.Query("CHECKSUM TABLE " + tables)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name string
		var sum sql.NullInt64
		rows.Scan(&name, &sum)
		fmt.Fprintf(&b, "%s=%d;", name, sum.Int64)
	}
	return b.String()
}

// Kind is a server engine the tests run on: Of copies a SQLite fixture
// onto it (skipping when the server cannot be reached and is not
// required), Exec runs statements on such a copy as its administrator.
type Kind struct {
	Name string
	Of   func(t testing.TB, path string) string
}

// Kinds are PostgreSQL and MySQL/MariaDB.
func Kinds() []Kind {
	return []Kind{{"PostgreSQL", PostgresOf}, {"MySQL", MySQLOf}}
}

// EachKind runs fn as a subtest of t, named after the kind, on each kind
// of server, with url a copy of the SQLite file lite made there by Of.
func EachKind(t *testing.T, lite string, fn func(t *testing.T, k Kind, url string)) {
	t.Helper()
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) { fn(t, k, k.Of(t, lite)) })
	}
}

// Exec runs each statement on the database at url, failing the test on
// an error.
func (k Kind) Exec(t testing.TB, url string, stmts ...string) {
	t.Helper()
	if k.Name == "PostgreSQL" {
		c := PostgresClient(t, url)
		for _, s := range stmts {
			if _, err := c.Exec(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	c := MySQLClient(t, url, "")
	for _, s := range stmts {
		if _, err := c.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}
