// Package postgres is the PostgreSQL engine (also for the servers that
// speak its protocol and plan as it does: Citus, YugabyteDB, AlloyDB,
// Aurora). It
// reads through github.com/jackc/pgx/v5's pgconn, with a small pool of
// its own so that every connection is reset before reuse.
//
// A server's READ ONLY transaction is one layer, never the only one. Every
// statement runs alone (the extended protocol refuses a second one) inside
// BEGIN READ ONLY … ROLLBACK, with SET LOCAL statement_timeout; sessions
// start with default_transaction_read_only on. The guard (guard.go) lets
// through only statement kinds that read and refuses by name the
// functions that act outside the transaction or read the server's files,
// found in the text and in the plan EXPLAIN (VERBOSE, FORMAT JSON) shows
// (a view's body, for one). The deadline is enforced by the server
// (statement_timeout) and by a cancel request from the client. A
// connection is rolled back and DISCARD ALL'd (after a verdict's run,
// reset as DISCARD ALL does but for prepared statements: resetQuery)
// before it serves again, and closed when that fails. A statement (or a statement's shape:
// the same point query with another id) that passed the guard on a
// connection runs there again in one round trip while the server shows
// that nothing it was vetted against has changed (vetted.go).
package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/internal/pool"
)

// RoleParam is the URL parameter naming a role every transaction switches
// to (SET LOCAL ROLE): postgres://admin@db/shop?tablewise_role=reader.
// tablewise removes it before connecting.
const RoleParam = "tablewise_role"

// Engine is a PostgreSQL database read through a pool of connections.
type Engine struct {
	cfg     *pgconn.Config
	display string
	label   string
	role    string // SET LOCAL ROLE in every transaction, "" for none
	version string // server_version: "15.4"
	major   string // "15"

	types *typeCache
	// local is what the guard refuses of the database's own functions,
	// operators, casts and domains, read again when older than
	// localMaxAge, and before then whenever the server says, before a
	// statement is planned, that the database no longer holds what it
	// read (fresh.go).
	localMu sync.Mutex
	local   *local
	localAt time.Time

	// clean holds the connections whose last statement's pipeline
	// already rolled back and reset them (stream).
	clean sync.Map
	// stateSQL reads what a verdict depends on (vetted.go), "" when the
	// server cannot; verdicts are the statements each connection passed.
	stateSQL  string
	checkSQL  string       // the check of a verdict's state (checkSQL)
	precheck  string       // that check before the Parse, setting the statement and lock timeouts
	shapes    bool         // verdicts for shapes too
	printable bool         // the server answers printSQL (fresh.go)
	busy      atomic.Bool  // the server's state had changed at the last check
	lockable  bool         // the server takes noLockWait (fresh.go)
	loads     atomic.Int64 // how many times the guard read the database's own objects
	verdicts  verdicts
	hits      atomic.Int64 // statements run on a verdict (tests read it)
	lockWaits atomic.Int64 // vettings tried again after one met a lock (lockwait.go; tests read it)

	pool *pool.Pool[*pgconn.PgConn]
}

var _ engine.Engine = (*Engine)(nil)

// connectTimeout bounds opening one connection when ctx has no deadline.
const connectTimeout = 10 * time.Second

// readBufferSize is how much one read from the server's socket may take.
const readBufferSize = 64 << 10

// resetTimeout bounds rolling back and resetting a connection.
const resetTimeout = 5 * time.Second

// Open connects to the PostgreSQL database dsn names (postgres:// or
// postgresql:// URL, or a key=value string) and checks that it answers.
// opt.MaxConns defaults to 4.
func Open(ctx context.Context, dsn string, opt engine.Options) (*Engine, error) {
	display := engine.Redact(dsn)
	connStr, role, err := splitRole(dsn)
	if err != nil {
		return nil, &openError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database %s: %v", display, err)}
	}
	if msg := engine.UnencodedInPassword(dsn, unencodedInPassword); msg != "" {
		return nil, &openError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database %s: %s", display, msg)}
	}
	cfg, err := pgconn.ParseConfig(connStr)
	if err != nil {
		return nil, &openError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database %s: not a PostgreSQL URL tablewise can read (%s); give postgres://user@host:5432/dbname", display, redactErr(err, urlPassword(dsn)))}
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	// Settings every session starts with and returns to after DISCARD
	// ALL: read-only transactions by default, values written the way the
	// cursor reads them.
	for k, v := range map[string]string{
		"default_transaction_read_only":       "on",
		"timezone":                            "UTC",
		"datestyle":                           "ISO, YMD",
		"intervalstyle":                       "postgres",
		"extra_float_digits":                  "1",
		"bytea_output":                        "hex",
		"standard_conforming_strings":         "on", // strings as the guard's lexer reads them
		"client_encoding":                     "UTF8",
		"idle_in_transaction_session_timeout": "60000",
		"application_name":                    "tablewise",
		// The server compiles a costly statement's expressions with LLVM
		// without checking for a cancel or its statement_timeout: a
		// filter of 200 terms over generate_series(1, 10000000) went on
		// compiling some 10 s past a 2 s deadline. A server without jit
		// refuses the parameter; connect then leaves it out.
		"jit": "off",
	} {
		if _, set := cfg.RuntimeParams[k]; !set || k != "application_name" {
			cfg.RuntimeParams[k] = v
		}
	}
	// A cancelled context sends a cancel request and waits for the
	// server to end the statement, so the connection stays usable and
	// the statement is gone when Run returns.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, CancelRequestDelay: 0, DeadlineDelay: 2 * time.Second}
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 4
	}
	label := cfg.Database
	if label == "" {
		label = cfg.User
	}
	e := &Engine{cfg: cfg, display: display, label: label, role: role, types: newTypeCache()}
	e.pool = pool.New(opt.MaxConns, e.connect, e.closeConn, settleIdle)
	err = e.withConn(ctx, func(c *pgconn.PgConn) error {
		e.version = c.ParameterStatus("server_version")
		e.major, _, _ = strings.Cut(e.version, ".")
		e.major, _, _ = strings.Cut(e.major, " ")
		if err := e.types.load(ctx, c); err != nil {
			return err
		}
		e.probeState(ctx, c)
		_, err := e.localFor(ctx, c)
		return err
	})
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// OpenEngine is Open as an engine.Opener.
var OpenEngine = engine.OpenerOf(Open)

// splitRole removes RoleParam from a URL's query.
func splitRole(dsn string) (string, string, error) {
	if !strings.Contains(dsn, RoleParam) || !strings.Contains(dsn, "://") {
		return dsn, "", nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", "", errors.New("the URL cannot be read")
	}
	q := u.Query()
	role := q.Get(RoleParam)
	q.Del(RoleParam)
	u.RawQuery = q.Encode()
	if role == "" {
		return "", "", fmt.Errorf("%s= names no role", RoleParam)
	}
	return u.String(), role, nil
}

// openError is a failure to open, wrapping the engine sentinel callers
// branch on, or the server's error (pgOpenError).
type openError struct {
	kind error
	msg  string
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.kind }

// unencodedInPassword are the characters pgx, like libpq, cannot read
// unencoded in a URL's password: it ends the user information at the
// first @, and at a / it reads the password's start as a port, so the rest
// would become the host or the database and be shown in the "lookup …" or
// "failed to connect to `user=… database=…`" error (? and # it reads).
const unencodedInPassword = "@/"

// redactErr is err's text without password (the raw one, which a driver
// may echo) and without the password of any URL in it.
func redactErr(err error, password string) string {
	msg := err.Error()
	if password != "" {
		msg = strings.ReplaceAll(msg, password, "xxxxx")
	}
	return engine.Redact(onceEach(msg))
}

// urlPassword is the password of the URL dsn, decoded; "" without one.
func urlPassword(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

// onceEach drops the lines of msg said before: pgx reports every attempt
// at the server, and sslmode=prefer makes two (with TLS, then without),
// which the server usually refuses with the same words.
func onceEach(msg string) string {
	lines := strings.Split(msg, "\n")
	seen := make(map[string]bool, len(lines))
	kept := lines[:0]
	for _, l := range lines {
		k := strings.TrimSpace(l)
		if k != "" && seen[k] {
			continue
		}
		seen[k] = true
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// localMaxAge is how long what the guard learned of the database's own
// functions is used before it is read again.
const localMaxAge = 10 * time.Second

// localFor returns what the guard knows of the database's own functions,
// reading it on c when it is older than localMaxAge.
func (e *Engine) localFor(ctx context.Context, c *pgconn.PgConn) (*local, error) {
	e.localMu.Lock()
	defer e.localMu.Unlock()
	if e.local != nil && time.Since(e.localAt) < localMaxAge {
		return e.local, nil
	}
	return e.readLocal(ctx, c)
}

// readLocal reads what the guard knows of the database's own objects on
// c and keeps it; e.localMu is held.
func (e *Engine) readLocal(ctx context.Context, c *pgconn.PgConn) (*local, error) {
	loc, err := e.loadLocal(ctx, c)
	if err != nil {
		return nil, err
	}
	e.local, e.localAt = loc, time.Now()
	return loc, nil
}

// Name is "postgres".
func (e *Engine) Name() string { return "postgres" }

// Source is the URL without its password, and the database's name.
func (e *Engine) Source() engine.Source { return engine.Source{Display: e.display, Label: e.label} }

// Warnings: none known at open.
func (e *Engine) Warnings() []string { return nil }

// Owns: a server engine owns no local file.
func (e *Engine) Owns(string) (string, bool) { return "", false }

// Role is the role every transaction switches to, "" for none.
func (e *Engine) Role() string { return e.role }

func (e *Engine) withConn(ctx context.Context, fn func(c *pgconn.PgConn) error) error {
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer e.release(c)
	return fn(c)
}

func (e *Engine) connect(ctx context.Context) (*pgconn.PgConn, error) {
	c, err := e.connectFramed(ctx)
	if err != nil && e.cfg.RuntimeParams["jit"] != "" && refusedSetting(err, "jit") {
		// A server before PostgreSQL 11 or a compatible engine has no
		// JIT to turn off. Only the first connection, made by Open
		// before any other, can meet this.
		delete(e.cfg.RuntimeParams, "jit")
		c, err = e.connectFramed(ctx)
	}
	if err != nil {
		if ended := engine.Ended(ctx); ended != nil {
			return nil, fmt.Errorf("connect to %s: %w", e.display, ended)
		}
		return nil, &openError{kind: engine.ErrUnavailable, msg: fmt.Sprintf("connect to %s: %s (check that the server is running and the user, password and database name)", e.display, redactErr(err, e.cfg.Password))}
	}
	return c, nil
}

// connectFramed connects with e.cfg, what the server sends passing
// through a framer of the connection's own (bound). Rows arrive in reads
// of 64 KiB rather than pgproto3's 8 KiB: an export of a million rows
// makes an eighth of the system calls.
func (e *Engine) connectFramed(ctx context.Context) (*pgconn.PgConn, error) {
	cfg := e.cfg.Copy()
	var f *framer
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f = &framer{r: r}
		return pgproto3.NewFrontend(bufio.NewReaderSize(f, readBufferSize), w)
	}
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	sessionOf(c).framer = f
	return c, nil
}

// refusedSetting reports whether err is the server refusing the startup
// parameter name as unknown.
func refusedSetting(err error, name string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42704" && strings.Contains(pe.Message, `"`+name+`"`)
}

// release rolls c back and resets its session (DISCARD ALL releases
// advisory locks, settings, prepared statements, temporary tables) before
// it returns to the pool; a connection that cannot be reset is closed.
func (e *Engine) release(c *pgconn.PgConn) {
	_, clean := e.clean.LoadAndDelete(c)
	ok := !c.IsClosed() && (clean || settled(c) && reset(c) == nil)
	e.pool.Release(c, !ok)
}

// settled reads the answer to a reset owed on c, and reports whether c
// can be reset: the server answered (a reset that failed leaves the
// connection usable), or nothing was owed.
func settled(c *pgconn.PgConn) bool {
	var pe *pgconn.PgError
	err := settle(c)
	return err == nil || errors.As(err, &pe)
}

// reset sends ROLLBACK and DISCARD ALL in one round trip (a pipeline,
// each its own implicit transaction: DISCARD ALL refuses to run inside
// one).
func reset(c *pgconn.PgConn) error {
	ctx, cancel := context.WithTimeout(context.Background(), resetTimeout)
	defer cancel()
	unprepared(c)
	p := c.StartPipeline(ctx)
	if err := sendReset(p); err != nil {
		return err
	}
	return finish(c, p)
}

// sendReset queues ROLLBACK and DISCARD ALL on p, each its own implicit
// transaction, and sends the pipeline; p is closed when that fails.
func sendReset(p *pgconn.Pipeline) error {
	p.SendQueryParams("ROLLBACK", nil, nil, nil, nil)
	p.SendPipelineSync()
	p.SendQueryParams("DISCARD ALL", nil, nil, nil, nil)
	if err := p.Sync(); err != nil {
		p.Close()
		return err
	}
	return nil
}

// A verdict's run (vetted.go) ends with resetQuery, a Query of the
// simple protocol sent after its pipeline's Sync: the server sends the
// statement's rows at the Sync, and rolls back and resets the session
// while the client reads them and answers its caller. The answer to the
// reset is read before the connection serves again (settle, at the next
// Acquire, or at release when the run failed). resetQuery is what
// DISCARD ALL does but DEALLOCATE ALL and DISCARD PLANS (which empties
// caches, no state a statement can set), after the ROLLBACK of the run's
// transaction, so that the checks and statements prepared on the
// connection for verdicts stay. A ROLLBACK runs
// in a failed transaction too: after an error in the pipeline the reset
// still runs, and release resets the session with DISCARD ALL as well.
// When a statement fails, those after it do not run and the server
// reports the error: settle returns it, and the connection is closed.
const resetQuery = "ROLLBACK; CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; " +
	"SELECT pg_catalog.pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES"

// sessionKey holds, in a connection's CustomData, what tablewise keeps
// of the connection (session).
const sessionKey = "tablewise.session"

// session is what tablewise keeps of one connection.
type session struct {
	framer *framer // reads what the server sends (framer.go); nil on a connection made elsewhere
	// checks says that the connection holds both verdict checks
	// prepared; stmts names the statements prepared there for verdicts,
	// by the text they hold, at most maxVerdicts of them (vetted.go).
	checks bool
	stmts  map[string]string
	// owed says that the answer to a resetQuery sent on the connection
	// is still to be read (settle).
	owed bool
}

// sessionOf is what tablewise keeps of c, made on first use.
func sessionOf(c *pgconn.PgConn) *session {
	s, ok := c.CustomData()[sessionKey].(*session)
	if !ok {
		s = &session{}
		c.CustomData()[sessionKey] = s
	}
	return s
}

// queueReset queues on p, which holds a verdict's run, the end of it:
// the Sync, then resetQuery; the caller sends them (p.Flush) and reads
// p's results, and settle the reset's answer.
func queueReset(c *pgconn.PgConn, p *pgconn.Pipeline) {
	p.SendPipelineSync()
	c.Frontend().Send(&pgproto3.Query{String: resetQuery})
	sessionOf(c).owed = true
}

// settle reads the answer to the resetQuery sent on c, when one is
// owed: the server's error when the reset failed (read to its end, the
// connection can go on), or the connection's, or an error when c is still
// in a transaction.
func settle(c *pgconn.PgConn) error {
	s := sessionOf(c)
	if !s.owed {
		return nil
	}
	s.owed = false
	// A deadline on the socket, not a context: ReceiveMessage watches a
	// context per message, and the answer is a dozen of them.
	if err := c.Conn().SetReadDeadline(time.Now().Add(resetTimeout)); err != nil {
		return err
	}
	defer c.Conn().SetReadDeadline(time.Time{})
	ctx := context.Background()
	var first error
	for {
		msg, err := c.ReceiveMessage(ctx)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			if first == nil {
				first = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			if first == nil && m.TxStatus != 'I' {
				first = errors.New("the session is still in a transaction")
			}
			return first
		}
	}
}

// settleIdle is the pool's check of an idle connection c before it
// serves again: it reads the answer to the reset its last statement
// sent when one is owed (settle: I/O, bounded by resetTimeout, in the
// caller of Acquire), and reports c unfit when it is closed or that
// reset failed.
func settleIdle(c *pgconn.PgConn) bool { return c.IsClosed() || settle(c) != nil }

// finish reads the rest of pipeline p, closing each result, and closes it:
// the first error met, or one when c is still in a transaction.
func finish(c *pgconn.PgConn, p *pgconn.Pipeline) error {
	first := eachResult(p, nil)
	if first == nil && c.TxStatus() != 'I' {
		first = errors.New("the session is still in a transaction")
	}
	return first
}

// eachResult reads the rest of pipeline p, handing each result to read
// (when not nil) before closing it, and closes p: the first error met.
func eachResult(p *pgconn.Pipeline, read func(rr *pgconn.ResultReader)) error {
	var first error
	for {
		res, err := p.GetResults()
		if err != nil {
			first = err
			break
		}
		if res == nil {
			break
		}
		if rr, ok := res.(*pgconn.ResultReader); ok {
			if read != nil {
				read(rr)
			}
			if _, err := rr.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	if err := p.Close(); first == nil {
		first = err
	}
	return first
}

// closeConn closes c for good, forgetting what it passed.
func (e *Engine) closeConn(c *pgconn.PgConn) {
	e.verdicts.forget(c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Close(ctx)
}

// Close closes idle connections now and busy ones when they are released.
func (e *Engine) Close() error {
	e.pool.Close()
	return nil
}
