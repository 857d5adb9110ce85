// Package sqlite is the SQLite engine: it opens database files so that
// they cannot be written, keeps a small pool of hardened connections, vets
// every statement with SQLite's own compiler and an authorizer allow-list,
// runs it under a deadline that really interrupts it, and reads the
// catalog. It is the only package that imports the SQLite wrapper
// (internal/lite) and modernc.org/sqlite/lib.
//
// Every connection is opened from a file: URI with mode=ro and the
// SQLITE_OPEN_READONLY flag, in defensive mode, with trusted_schema and
// double-quoted string literals off, tight sqlite3_limit values, temporary
// storage in memory (so nothing is written anywhere), and the guard's
// authorizer installed before any SQL can reach it. The SQLite heap is
// capped process-wide. An in-memory database that tablewise fills itself
// (OpenMemory, for data files) is opened the same way once it is full.
package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/internal/pool"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite/funcs"
	"github.com/tablewise/tablewise/core/guard"
	_ "modernc.org/sqlite" // its init applies platform patches to the library
)

// DefaultHeapLimit caps the memory SQLite may allocate across the process.
const DefaultHeapLimit = 256 << 20

// Limits applied to every connection (sqlite3_limit).
var Limits = map[int]int{
	lite.LimitLength:            50_000_000, // largest string or blob
	lite.LimitSQLLength:         2 * guard.MaxSQLBytes,
	lite.LimitColumn:            2000,
	lite.LimitExprDepth:         1000,
	lite.LimitCompoundSelect:    500,
	lite.LimitFunctionArg:       100,
	lite.LimitAttached:          0,
	lite.LimitLikePatternLength: 10_000,
	lite.LimitVariableNumber:    1000,
	lite.LimitTriggerDepth:      10,
	lite.LimitWorkerThreads:     0,
}

// Each connection's lookaside memory: SQLite's default (1200, 40: 30
// slots of 1,200 bytes and 93 of 128), free for statements.
const (
	lookasideSize  = 1200
	lookasideSlots = 40
)

// Engine is a read-only SQLite database with a pool of connections.
type Engine struct {
	path      string
	uri       string
	immutable bool // the user asked for immutable=1
	nolock    bool // the user asked for nolock=1
	warnings  []string
	// mem is set for an in-memory database tablewise filled from files
	// (memory.go); path is then empty.
	mem *memory
	// keep is a connection held out of the pool for the life of an
	// in-memory database: the memory is freed when its last connection
	// closes.
	keep *conn

	pool *pool.Pool[*conn]
}

var _ engine.Engine = (*Engine)(nil)

// conn is one pooled connection and how it was opened.
type conn struct {
	*lite.Conn
	plan plan
}

// Open opens the SQLite database at path (a file path or a file: URI)
// read-only and checks that it is a database. It never creates or writes
// a file: see the comment on openMode for how WAL databases are read.
// opt.MaxConns defaults to 4 and opt.HeapLimit to DefaultHeapLimit; the
// heap limit is process-wide: the last Open sets it, never below the
// limit an open in-memory database was loaded under (OpenMemory).
func Open(ctx context.Context, path string, opt engine.Options) (*Engine, error) {
	file, q, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(file)
	// A server's key=value DSN (host=… password=…) given as --db reaches
	// here as a path: the messages show it without its password.
	shown := engine.Redact(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &fileError{kind: engine.ErrNotFound, msg: fmt.Sprintf("database file not found: %s (check the path; tablewise never creates a database)", shown)}
	case err != nil:
		return nil, fmt.Errorf("open database: %w", err)
	case st.IsDir():
		return nil, &fileError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database: %s is a directory, not a SQLite file", shown)}
	case !st.Mode().IsRegular():
		return nil, &fileError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database: %s is not a regular file (%s): give the path of a SQLite database file", shown, fileKind(st.Mode()))}
	}
	if err := lite.RegisterReadOnlyVFS(); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 4
	}
	if opt.HeapLimit <= 0 {
		opt.HeapLimit = DefaultHeapLimit
	}
	configureHeap(opt.HeapLimit)
	d := &Engine{path: file, immutable: uriBool(q.Get("immutable")), nolock: uriBool(q.Get("nolock"))}
	d.newPool(opt.MaxConns)
	p, warn, err := choosePlan(file, d.immutable)
	if err != nil {
		return nil, err
	}
	if warn != "" {
		d.warnings = append(d.warnings, warn)
	}
	d.uri = d.uriFor(p)
	// Prove it is a database we can read. This first statement reads
	// the whole schema, parsing every CREATE statement in it, which takes
	// seconds for tens of thousands of tables: it is interrupted when ctx
	// ends, so that opening keeps the caller's deadline.
	err = d.Conn(ctx, func(c *lite.Conn) error {
		return untilDone(ctx, c, func() error { return readSchema(c) })
	})
	if err != nil {
		d.Close()
		if rerr := d.ReadError(err); rerr != err {
			return nil, rerr
		}
		return nil, fmt.Errorf("open database %s: %w", file, err)
	}
	return d, nil
}

// untilDone runs fn, which uses c, interrupting it when ctx ends: its
// error is then ctx's.
func untilDone(ctx context.Context, c *lite.Conn, fn func() error) error {
	stop := c.InterruptAfter(1<<63-1, ctx)
	err := fn()
	if stop() && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// readSchema makes c read the database's schema, as its first statement
// does, and fails when the file is not a database it can read.
func readSchema(c *lite.Conn) error {
	stmt, err := Prepare(c, "SELECT count(*) FROM sqlite_schema")
	if err != nil {
		return err
	}
	defer stmt.Finalize()
	_, err = stmt.Step()
	return err
}

// OpenEngine is Open as an engine.Opener.
var OpenEngine = engine.OpenerOf(Open)

// LooksLikeFile reports whether arg reads as a SQLite database named on
// the command line: a file: URI or a path ending in .db, .sqlite or
// .sqlite3.
func LooksLikeFile(arg string) bool {
	return strings.HasSuffix(arg, ".db") || strings.HasSuffix(arg, ".sqlite") || strings.HasSuffix(arg, ".sqlite3") || strings.HasPrefix(arg, "file:")
}

// uriBool reads a boolean URI parameter as SQLite does.
func uriBool(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// parsePath turns a path or file: URI into the file's absolute path and
// the URI parameters given with it. SQLite's own rules are followed: a
// file: URI's path is percent-decoded, its authority must be empty or
// "localhost", and an in-memory database is refused (tablewise reads
// files).
func parsePath(path string) (file string, q url.Values, err error) {
	if path == "" {
		return "", nil, &fileError{kind: engine.ErrBadPath, msg: "open database: no path given"}
	}
	q = url.Values{}
	file = path
	if strings.HasPrefix(path, "file:") {
		u, err := url.Parse(path)
		if err != nil {
			return "", nil, &fileError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database: bad file: URI %q: %v", path, err)}
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", nil, &fileError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database: file: URI %q names host %q; only local files can be read", path, u.Host)}
		}
		q = u.Query()
		file = u.Path
		if u.Opaque != "" { // file:relative/path: url.Parse leaves it encoded
			if file, err = url.PathUnescape(u.Opaque); err != nil {
				return "", nil, &fileError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database: bad file: URI %q: %v", path, err)}
			}
		}
		if file == "" || file == ":memory:" || q.Get("mode") == "memory" || q.Get("vfs") == "memdb" {
			return "", nil, &fileError{kind: engine.ErrBadPath, msg: fmt.Sprintf("open database: %q is an in-memory database; give the path of a database file", path)}
		}
	} else if path == ":memory:" {
		return "", nil, &fileError{kind: engine.ErrBadPath, msg: "open database: \":memory:\" is an in-memory database; give the path of a database file"}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", nil, fmt.Errorf("open database: %w", err)
	}
	return abs, q, nil
}

// uriFor is the URI a connection following p opens. Only parameters that
// cannot write are used.
func (d *Engine) uriFor(p plan) string {
	keep := url.Values{}
	keep.Set("mode", "ro")
	keep.Set("vfs", lite.ReadOnlyVFS)
	if p.mode == modeImmutable {
		keep.Set("immutable", "1")
	} else {
		keep.Set("readonly_shm", "1")
	}
	if d.nolock {
		keep.Set("nolock", "1")
	}
	return "file:" + escapePath(d.path) + "?" + keep.Encode()
}

// escapePath percent-encodes everything in p but unreserved characters and
// '/', which SQLite's URI parser decodes back.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '_' || c == '.' || c == '~' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Name is "sqlite".
func (d *Engine) Name() string { return "sqlite" }

// Path is the database file's absolute path.
func (d *Engine) Path() string { return d.path }

// Source is the file's absolute path and its name.
func (d *Engine) Source() engine.Source {
	if d.mem != nil {
		return d.mem.source
	}
	return engine.Source{Display: d.path, Label: filepath.Base(d.path)}
}

// URI is the URI the first connection was opened with.
func (d *Engine) URI() string { return d.uri }

// Warnings are notes about how the database is read, for the user: for
// example that immutable=1 hides rows committed to the -wal file.
func (d *Engine) Warnings() []string { return d.warnings }

// ReadError explains an error SQLite raised because reading the database
// needed a write beside it (a hot journal to roll back, a WAL index to
// rebuild): the returned error names the file and says what the owner
// must do. Any other error is returned unchanged.
func (d *Engine) ReadError(err error) error {
	var le *lite.Error
	if !errors.As(err, &le) {
		var se *guard.SQLError
		if !errors.As(err, &se) {
			return err
		}
		le = &lite.Error{Code: se.Code}
	}
	if le.Code != lite.CodeReadOnly && le.Code != lite.CodeCantOpen {
		return err
	}
	if rerr := d.readOnlyError(le.Code); rerr != nil {
		return rerr
	}
	return err
}

// Conn runs fn with a pooled connection. The connection is fn's alone until
// fn returns; fn must finalize every statement it prepares.
func (d *Engine) Conn(ctx context.Context, fn func(c *lite.Conn) error) error {
	return d.withConn(ctx, func(c *conn) error { return fn(c.Conn) })
}

func (d *Engine) withConn(ctx context.Context, fn func(c *conn) error) error {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer d.pool.Release(c, false)
	return fn(c)
}

// newPool gives d a pool of at most max connections.
func (d *Engine) newPool(max int) {
	open := func(context.Context) (*conn, error) { return d.open() }
	// A writer connected since an idle connection was opened immutable:
	// it is replaced by one that reads its -wal.
	stale := func(c *conn) bool { return d.mem == nil && c.plan.stale(d.path) }
	d.pool = pool.New(max, open, closeConn, stale)
}

// closeConn closes c for good.
func closeConn(c *conn) {
	Uninstall(c.Conn)
	c.Close()
}

// open makes one hardened connection.
func (d *Engine) open() (*conn, error) {
	p, uri := plan{mode: modeMemory}, d.uri
	if d.mem == nil {
		var err error
		if p, _, err = choosePlan(d.path, d.immutable); err != nil {
			return nil, err
		}
		uri = d.uriFor(p)
	}
	c, err := lite.Open(uri, lite.OpenReadOnly|lite.OpenURI|lite.OpenNoMutex)
	if err != nil {
		if rerr := d.ReadError(err); rerr != err {
			return nil, rerr
		}
		return nil, fmt.Errorf("open database %s: %w", d.path, err)
	}
	ok := c.DBConfig(lite.ConfigDefensive, true) &&
		c.DBConfig(lite.ConfigTrustedSchema, false) &&
		c.DBConfig(lite.ConfigDQSDML, false) &&
		c.DBConfig(lite.ConfigDQSDDL, false) &&
		c.DBConfig(lite.ConfigLoadExtension, false) &&
		c.DBConfig(lite.ConfigNoCkptOnClose, true)
	if !ok {
		c.Close()
		return nil, errors.New("open database: could not harden the connection (sqlite3_db_config failed)")
	}
	for id, v := range Limits {
		c.Limit(id, v)
	}
	// Built-in functions whose one call could outlast any deadline are
	// replaced by ones that finish or stop at it (see package funcs).
	// Their definitions (about 1,150: the JSON ones for every argument
	// count) are made with lookaside off: made with it, they would hold
	// every lookaside slot for the connection's life, and each statement
	// would then take the global memory mutex for every allocation
	// (a point query cost ~20 µs instead of ~15 µs).
	c.Lookaside(0, 0)
	if err := funcs.Register(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("open database: register functions: %w", err)
	}
	c.Lookaside(lookasideSize, lookasideSlots)
	// Temporary tables, indexes and sort spills stay in memory, where the
	// heap limit bounds them: nothing is written to disk. This runs before
	// the authorizer is installed, and is the only statement that does.
	if err := c.Exec("PRAGMA temp_store = MEMORY"); err != nil {
		c.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := Install(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("open database: install authorizer: %w", err)
	}
	return &conn{Conn: c, plan: p}, nil
}

// Close closes idle connections now and busy ones when they are released.
func (d *Engine) Close() error {
	if !d.pool.Close() {
		return nil
	}
	if d.keep != nil {
		d.pool.Release(d.keep, true)
		d.keep = nil
	}
	if d.mem != nil {
		d.mem.release()
	}
	return nil
}

// Owns reports whether path names the database file or a file SQLite
// keeps beside it (-journal, -wal, -shm), however it is reached: through a
// symbolic link to the database or to its directory, a link at path, or a
// hard link.
func (d *Engine) Owns(path string) (what string, owned bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	if d.mem != nil {
		return d.mem.owns(abs)
	}
	owns := func(suffix string) (string, bool) {
		if suffix == "" {
			return "the database file", true
		}
		return "the database's " + suffix[1:] + " file, which SQLite reads beside it", true
	}
	out := []string{abs, atomicfile.Resolve(abs)}
	real := atomicfile.Resolve(d.path)
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		for _, base := range []string{d.path, real} {
			for _, o := range out {
				if o == base+suffix {
					return owns(suffix)
				}
			}
		}
	}
	if a, err := os.Stat(abs); err == nil {
		for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
			if b, err := os.Stat(real + suffix); err == nil && os.SameFile(a, b) {
				return owns(suffix)
			}
		}
	}
	return "", false
}
