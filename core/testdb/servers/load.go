package servers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// ErrExists is matched (errors.Is) when the database Load would create
// exists already: Load never writes into a database it did not create.
var ErrExists = errors.New("database exists")

// ErrURL is matched (errors.Is) when a URL given to Load is not one it
// reads.
var ErrURL = errors.New("not a postgres:// or mysql:// URL")

// Result says what Load copied.
type Result struct {
	// Database is the URL of the database Load created.
	Database string
	Tables   int
	Rows     int64
	// Views is how many views the server accepted as SQLite writes them.
	Views int
	// Notes lists what was not copied, and why (views in SQLite's own
	// dialect, partial or expression indexes, virtual tables).
	Notes   []string
	Elapsed time.Duration
}

// Load copies the SQLite database file from into a new database: to is a
// postgres:// or mysql:// URL whose path names the database to create
// (postgres://postgres@127.0.0.1:5432/chinook?sslmode=disable,
// mysql://root@127.0.0.1:3306/chinook). It refuses a database that exists
// (ErrExists) and drops the one it created when the copy fails.
//
// Names keep their case (quoted in PostgreSQL, backticks in MySQL); types
// map as the package documentation says; primary keys, UNIQUE constraints,
// indexes, foreign keys, CHECK (col IN (…)) constraints, literal defaults
// and the comments of the CREATE TABLE text are copied; a view is copied
// when the server accepts its SQL with only the identifier quotes changed.
func Load(ctx context.Context, from, to string) (*Result, error) {
	start := time.Now()
	srv, name, err := parseServer(to)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("%s names no database to create (add /NAME): %w", to, ErrURL)
	}
	src, err := openSource(from)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	s, err := readSchema(ctx, src, from)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", from, err)
	}
	notes, err := srv.load(ctx, name, s, src, "")
	if err != nil {
		return nil, err
	}
	r := &Result{Database: srv.database(name), Tables: len(s.Tables), Notes: append(s.Notes, notes...), Elapsed: time.Since(start)}
	for _, t := range s.Tables {
		r.Rows += t.Rows
	}
	r.Views = len(s.Views)
	for _, n := range notes {
		if strings.HasPrefix(n, "view ") {
			r.Views--
		}
	}
	return r, nil
}

// server is a PostgreSQL or MySQL server, by the URL its administrative
// connections use.
type server struct {
	engine string // "postgres" or "mysql"
	url    *url.URL
}

// parseServer reads a postgres:// or mysql:// URL: the server, and the
// database its path names.
func parseServer(raw string) (server, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return server{}, "", fmt.Errorf("read the URL %q: %w (%w)", raw, err, ErrURL)
	}
	name := strings.Trim(u.Path, "/")
	switch u.Scheme {
	case "postgres", "postgresql":
		return server{engine: "postgres", url: u}, name, nil
	case "mysql", "mariadb":
		return server{engine: "mysql", url: u}, name, nil
	}
	return server{}, "", fmt.Errorf("%q is %w", raw, ErrURL)
}

// database is the URL of database name on the server.
func (s server) database(name string) string {
	u := *s.url
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// admin is the URL of the server's administrative database: postgres on
// PostgreSQL, none on MySQL.
func (s server) admin() string {
	if s.engine == "postgres" {
		return s.database("postgres")
	}
	return s.database("")
}

func (s server) String() string { return s.url.Host }

// connectPG opens one connection to the PostgreSQL database at u.
func connectPG(ctx context.Context, u string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return conn, nil
}

// openMySQL opens a pool on the MySQL database at u.
func openMySQL(u string, params map[string]string) (*sql.DB, error) {
	dsn, err := DriverDSN(u)
	if err != nil {
		return nil, err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = reachTimeout
	}
	for k, v := range params {
		if err := cfg.Apply(withParam(k, v)); err != nil {
			return nil, err
		}
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

func withParam(k, v string) mysql.Option {
	return func(c *mysql.Config) error {
		switch k {
		case "interpolateParams":
			c.InterpolateParams = v == "true"
		default:
			if c.Params == nil {
				c.Params = map[string]string{}
			}
			c.Params[k] = v
		}
		return nil
	}
}

// DriverDSN turns a mysql:// URL (mysql://root@127.0.0.1:3306/DB?param=v)
// into the DSN github.com/go-sql-driver/mysql reads
// (root@tcp(127.0.0.1:3306)/DB?param=v).
func DriverDSN(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "mysql" && u.Scheme != "mariadb" {
		return "", fmt.Errorf("%q is not a mysql:// URL", raw)
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = u.Hostname() + ":3306"
	}
	cfg.DBName = strings.Trim(u.Path, "/")
	dsn := cfg.FormatDSN()
	if u.RawQuery != "" {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + u.RawQuery
	}
	if _, err := mysql.ParseDSN(dsn); err != nil {
		return "", fmt.Errorf("the parameters of %q: %w", raw, err)
	}
	return dsn, nil
}

// load creates database name on the server and copies s into it, rows from
// src or, on MySQL, from the database template of the same server. It drops
// the database again when the copy fails.
func (srv server) load(ctx context.Context, name string, s *schema, src *sql.DB, template string) (notes []string, err error) {
	if name == "" {
		return nil, fmt.Errorf("the URL names no database to create (add /NAME): %w", ErrURL)
	}
	if srv.engine == "postgres" {
		return srv.loadPostgres(ctx, name, s, src)
	}
	return srv.loadMySQL(ctx, name, s, src, template)
}

func (srv server) loadPostgres(ctx context.Context, name string, s *schema, src *sql.DB) (notes []string, err error) {
	admin, err := connectPG(ctx, srv.admin())
	if err != nil {
		return nil, err
	}
	defer admin.Close(context.Background())
	if err = pgCreateDatabase(ctx, admin, name, ""); err != nil {
		return nil, err
	}
	conn, err := connectPG(ctx, srv.database(name))
	if err == nil {
		notes, err = pgLoad(ctx, conn, s, src)
		conn.Close(context.Background())
	}
	if err != nil {
		pgDropDatabase(context.Background(), admin, name)
		return nil, err
	}
	return notes, nil
}

func (srv server) loadMySQL(ctx context.Context, name string, s *schema, src *sql.DB, template string) (notes []string, err error) {
	admin, err := openMySQL(srv.admin(), nil)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	if err = mysqlCreateDatabase(ctx, admin, name); err != nil {
		return nil, err
	}
	notes, err = func() ([]string, error) {
		db, err := openMySQL(srv.database(name), map[string]string{"interpolateParams": "true"})
		if err != nil {
			return nil, err
		}
		defer db.Close()
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		return mysqlLoad(ctx, conn, s, src, template)
	}()
	if err != nil {
		mysqlDropDatabase(context.Background(), admin, name)
		return nil, err
	}
	return notes, nil
}
