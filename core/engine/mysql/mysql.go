// Package mysql is the MySQL/MariaDB engine: it opens a mysql:// or
// mariadb:// URL with github.com/go-sql-driver/mysql, keeps a small pool
// of connections, vets every statement (guard.go), runs it inside a
// read-only transaction that is always rolled back, under a deadline
// enforced on the server (max_statement_time on MariaDB,
// max_execution_time on MySQL) and from the client (KILL QUERY on a
// second connection), and reads the catalog from information_schema.
//
// A READ ONLY transaction is one layer, never the only one: inside it
// MariaDB still runs SELECT … INTO OUTFILE, LOAD_FILE, GET_LOCK and SET
// STATEMENT … FOR (core/testdb/servers measures each), and DDL commits
// the transaction before it runs. So the guard admits only statement
// kinds that read, refuses executable comments (/*! … */, /*M! … */),
// INTO, locking reads, assignments and functions that act outside the
// transaction by name, and every call re-establishes the session's
// settings (sql_mode, time zone, the deadline) and releases named locks
// before its statement runs. A connection whose statement was killed,
// cancelled or failed mid-stream is discarded, not reused.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/internal/pool"
)

// sqlMode is the sql_mode every statement runs under. It fixes how the
// guard's lexer and the server read the text alike: double quotes and
// backticks quote names (ANSI_QUOTES, as in standard SQL, PostgreSQL and
// SQLite), single quotes delimit strings with backslash escapes (no
// NO_BACKSLASH_ESCAPES), a function name is followed directly by its
// parenthesis (no IGNORE_SPACE), and the MariaDB ORACLE and MSSQL parsers
// are off. ANSI_QUOTES was measured (README, "MySQL and MariaDB", and
// TestQuotingMeasured): without it, "Name" in SQL
// written the standard way is a string and the query silently answers
// something else (48 of 48 of Chinook's gold statements with their column
// names in double quotes); with it, MySQL's "strings" fail loudly with a
// hint (32 of 32).
const sqlMode = "ANSI_QUOTES,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// Engine is a MySQL or MariaDB database read through a pool of
// connections.
type Engine struct {
	db      *sql.DB // the driver's pool; conns below are taken from it
	display string  // the URL, password redacted
	dbName  string
	addr    string // host:port
	// connectTimeout bounds making one connection: the dial, the
	// handshake, the login and its first query (the URL's timeout).
	connectTimeout time.Duration
	mariadb        bool
	version        string // @@version
	// releaseLocks is whether the server has RELEASE_ALL_LOCKS (MariaDB
	// 10.5, MySQL 5.7).
	releaseLocks bool

	fnMu sync.Mutex
	fns  *known    // what the guard knows of the database
	fnAt time.Time // when fns was read

	pool *pool.Pool[*conn]

	// meters are the connections to the server by the server's id for
	// each (meter.go).
	meters sync.Map
}

var _ engine.Engine = (*Engine)(nil)

// conn is one pooled connection, the server's id for it (for KILL
// QUERY) and its meter.
type conn struct {
	*sql.Conn
	id int64
	m  *metered
}

// Params a URL may carry; anything else is refused, so that no option that
// would loosen the engine (multiStatements, allowAllFiles, …) reaches the
// driver.
var urlParams = map[string]string{
	"tls":     "TLS: true, false, skip-verify or preferred",
	"timeout": "the connect timeout (dial, handshake and login), as 5s",
	"charset": "the connection's character set: utf8mb4 (the default), utf8mb3 or utf8",
}

// Config turns a mysql:// or mariadb:// URL
// (mysql://user:password@host:port/database?tls=true) into the driver's
// configuration. Only the parameters in urlParams are accepted.
func Config(raw string) (*mysql.Config, error) {
	// url.Parse ends the user information at a / ? or #, and its error
	// quotes what came before as a port: part of the password.
	if msg := engine.UnencodedInPassword(raw, "/?#"); msg != "" {
		return nil, &badURL{msg: fmt.Sprintf("open database: %s: %s", engine.Redact(raw), msg)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("open database: %s is not a valid URL: %w", engine.Redact(raw), errors.Unwrap(err))
	}
	if u.Scheme != "mysql" && u.Scheme != "mariadb" {
		return nil, fmt.Errorf("open database: %s is not a mysql:// or mariadb:// URL", engine.Redact(raw))
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	if cfg.User == "" {
		cfg.User = "root"
	}
	cfg.Net = "tcp"
	host := u.Hostname()
	if host == "" {
		host = "127.0.0.1"
	}
	port := u.Port()
	if port == "" {
		port = "3306"
	}
	cfg.Addr = net.JoinHostPort(host, port)
	cfg.DBName = strings.Trim(u.Path, "/")
	if cfg.DBName == "" || strings.Contains(cfg.DBName, "/") {
		return nil, &badURL{msg: fmt.Sprintf("open database: %s names no database: add it to the path (mysql://user@host:3306/DATABASE)", engine.Redact(raw))}
	}
	cfg.Timeout = 5 * time.Second
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = false
	cfg.ParseTime = false
	cfg.Loc = time.UTC
	cfg.ConnectionAttributes = "program_name:tablewise"
	// The driver would print to stderr; its errors reach the caller.
	cfg.Logger = &mysql.NopLogger{}
	params, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, &badURL{msg: fmt.Sprintf("open database: %s: its parameters cannot be read (%v): write them as ?name=value&name=value", engine.Redact(raw), err)}
	}
	for k, vs := range params {
		v := vs[len(vs)-1]
		switch k {
		case "tls":
			cfg.TLSConfig = v
			if err := cfg.Apply(); err != nil { // validates TLSConfig via normalize
				return nil, &badURL{msg: fmt.Sprintf("open database: %s: tls=%s: %v", engine.Redact(raw), v, err)}
			}
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, &badURL{msg: fmt.Sprintf("open database: %s: timeout=%s is not a duration such as 5s", engine.Redact(raw), v)}
			}
			cfg.Timeout = d
		case "role":
			return nil, &badURL{msg: fmt.Sprintf("open database: %s: role=%s: on MySQL and MariaDB a role adds privileges to the user's and cannot take any away; connect as a user who can only read (tablewise doctor prints the SQL that makes one)", engine.Redact(raw), v)}
		case "charset":
			// The guard reads the text as UTF-8; in another character
			// set the server reads other characters (in GBK, BIG5 or
			// SJIS a backslash can end one, and a string would end
			// where the guard reads an escaped quote).
			if !plainName(v) {
				return nil, &badURL{msg: fmt.Sprintf("open database: %s: charset=%s is not a character set name", engine.Redact(raw), v)}
			}
			if cs := strings.ToLower(v); cs != "utf8mb4" && cs != "utf8mb3" && cs != "utf8" {
				return nil, &badURL{msg: fmt.Sprintf("open database: %s: charset=%s is not allowed: tablewise sends statements in UTF-8, which the server reads otherwise in %s; use utf8mb4 (the default), utf8mb3 or utf8", engine.Redact(raw), v, v)}
			}
			if err := cfg.Apply(mysql.Charset(v, "")); err != nil {
				return nil, &badURL{msg: fmt.Sprintf("open database: %s: charset=%s: %v", engine.Redact(raw), v, err)}
			}
		default:
			var known []string
			for p, what := range urlParams {
				known = append(known, p+" ("+what+")")
			}
			return nil, &badURL{msg: fmt.Sprintf("open database: %s: tablewise does not take the parameter %q; it takes %s", engine.Redact(raw), k, strings.Join(sortedCopy(known), ", "))}
		}
	}
	return cfg, nil
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// plainName reports whether s is 1 to 64 ASCII name characters.
func plainName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !isNameASCII(c) {
			return false
		}
	}
	return true
}

// badURL is a URL tablewise cannot use: a usage error.
type badURL struct{ msg string }

func (e *badURL) Error() string { return e.msg }
func (e *badURL) Unwrap() error { return engine.ErrBadPath }

// unavailable is a server that could not be reached or refused the login.
type unavailable struct {
	msg string
	err error
}

func (e *unavailable) Error() string { return e.msg }
func (e *unavailable) Is(target error) bool {
	return target == engine.ErrUnavailable
}
func (e *unavailable) Unwrap() error { return e.err }

// Open connects to the database the URL names, checks that it can be
// read, and learns the server's flavour and version. opt.MaxConns
// defaults to 4.
func Open(ctx context.Context, raw string, opt engine.Options) (*Engine, error) {
	cfg, err := Config(raw)
	if err != nil {
		return nil, err
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 4
	}
	e := &Engine{display: engine.Redact(raw), dbName: cfg.DBName, addr: cfg.Addr, connectTimeout: cfg.Timeout}
	cfg.DialFunc = e.dial
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, &badURL{msg: fmt.Sprintf("open database: %s: %v", engine.Redact(raw), err)}
	}
	db := sql.OpenDB(connector)
	// Two more than the pool: KILL QUERY takes a connection of its own.
	db.SetMaxOpenConns(opt.MaxConns + 2)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(time.Minute)
	e.db = db
	e.pool = pool.New(opt.MaxConns, e.open, closeConn, nil)
	if err := e.probe(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

// OpenEngine is Open as an engine.Opener.
var OpenEngine = engine.OpenerOf(Open)

// probe reads the server's version on a pooled connection.
func (e *Engine) probe(ctx context.Context) error {
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		if ended := engine.Ended(ctx); ended != nil {
			return e.connectError(ended)
		}
		return err
	}
	defer e.pool.Release(c, false)
	var version string
	if err := c.QueryRowContext(ctx, "SELECT @@version").Scan(&version); err != nil {
		return e.connectError(err)
	}
	e.version = version
	e.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	major, minor := versionNumbers(version)
	if e.mariadb {
		e.releaseLocks = major > 10 || major == 10 && minor >= 5
	} else {
		e.releaseLocks = major > 5 || major == 5 && minor >= 7
	}
	return nil
}

func versionNumbers(v string) (major, minor int) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 2 {
		major, _ = strconv.Atoi(parts[0])
		minor, _ = strconv.Atoi(strings.TrimLeftFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	}
	return major, minor
}

// connectError explains a failure to reach or log in to the server.
func (e *Engine) connectError(err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1045:
			return &unavailable{msg: fmt.Sprintf("open database %s: the server refused the login (%s): check the user and password", e.display, me.Message), err: err}
		case 1049:
			return &unavailable{msg: fmt.Sprintf("open database %s: %s: check the database name (SHOW DATABASES lists them)", e.display, me.Message), err: err}
		case 1044:
			return &unavailable{msg: fmt.Sprintf("open database %s: %s: grant the user SELECT on it", e.display, me.Message), err: err}
		}
		return fmt.Errorf("open database %s: %w", e.display, err)
	}
	if errors.Is(err, context.Canceled) {
		return &unavailable{msg: fmt.Sprintf("open database %s: cancelled before the server answered", e.display), err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &unavailable{msg: fmt.Sprintf("open database %s: no answer before the deadline: check that the server runs", e.display), err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) {
		return &unavailable{msg: fmt.Sprintf("open database %s: the server does not answer (%v): check that it runs and the host and port", e.display, err), err: err}
	}
	return fmt.Errorf("open database %s: %w", e.display, err)
}

// Name is "mysql".
func (e *Engine) Name() string { return "mysql" }

// Source is the URL without its password, and the database's name.
func (e *Engine) Source() engine.Source {
	return engine.Source{Display: e.display, Label: e.dbName}
}

// Warnings are none.
func (e *Engine) Warnings() []string { return nil }

// Owns is false: a server database has no local file.
func (e *Engine) Owns(string) (string, bool) { return "", false }

// MariaDB reports whether the server is MariaDB (else MySQL).
func (e *Engine) MariaDB() bool { return e.mariadb }

// open takes a new connection from the driver and prepares its session.
// A caller's deadline or cancellation that cut it short is returned as
// such (the driver reports a dial past the deadline as "i/o timeout").
func (e *Engine) open(ctx context.Context) (*conn, error) {
	// The driver's timeout ends at the dial: a server that accepts and
	// never sends its handshake would hold the connection for ever.
	ctx, cancel := context.WithTimeout(ctx, e.connectTimeout)
	defer cancel()
	sc, err := e.db.Conn(ctx)
	if err == nil {
		c := &conn{Conn: sc}
		if err = sc.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&c.id); err == nil {
			if c.m = e.meter(c.id); c.m != nil {
				return c, nil
			}
			err = fmt.Errorf("the server's greeting did not name connection %d", c.id)
		}
		sc.Close()
	}
	if ended := engine.Ended(ctx); ended != nil {
		return nil, e.connectError(ended)
	}
	return nil, e.connectError(err)
}

// closeConn closes c's physical connection (the driver's pool does not
// keep it).
func closeConn(c *conn) {
	c.Raw(func(any) error { return driver.ErrBadConn })
	c.Close()
}

// Close closes idle connections now and busy ones when they are released.
func (e *Engine) Close() error {
	if !e.pool.Close() {
		return nil
	}
	return e.db.Close()
}
