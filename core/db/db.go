// Package db opens SQLite databases so that they cannot be written, keeps a
// small pool of hardened connections, and reads the catalog.
//
// Every connection is opened from a file: URI with mode=ro and the
// SQLITE_OPEN_READONLY flag, in defensive mode, with trusted_schema and
// double-quoted string literals off, tight sqlite3_limit values, temporary
// storage in memory (so nothing is written anywhere), and the guard's
// authorizer installed before any SQL can reach it. The SQLite heap is
// capped process-wide.
package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/internal/lite"
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

// ErrNotFound means the database file does not exist. tablewise never
// creates one.
var ErrNotFound = errors.New("database file not found")

// Options tune Open.
type Options struct {
	// MaxConns bounds the pool; default 4.
	MaxConns int
	// HeapLimit caps SQLite's memory for the whole process; default
	// DefaultHeapLimit. It is process-wide: the last Open sets it.
	HeapLimit int64
	// Label names the database in messages ("sample" for the built-in one);
	// default the file name.
	Label string
}

// DB is a read-only database with a pool of connections.
type DB struct {
	path  string
	uri   string
	label string

	sem  chan struct{}   // one token per open connection
	idle chan *lite.Conn // connections not in use
	mu   sync.Mutex
	done bool

	catMu   sync.Mutex
	catalog *Catalog
}

// Open opens the SQLite database at path (a file path or a file: URI)
// read-only and checks that it is a database.
func Open(ctx context.Context, path string, opt Options) (*DB, error) {
	file, uri, err := buildURI(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s (check the path; tablewise never creates a database)", ErrNotFound, file)
	case err != nil:
		return nil, fmt.Errorf("open database: %w", err)
	case st.IsDir():
		return nil, fmt.Errorf("open database: %s is a directory, not a SQLite file", file)
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 4
	}
	if opt.HeapLimit <= 0 {
		opt.HeapLimit = DefaultHeapLimit
	}
	if opt.Label == "" {
		opt.Label = filepath.Base(file)
	}
	lite.ConfigureHeap(opt.HeapLimit)
	d := &DB{path: file, uri: uri, label: opt.Label, sem: make(chan struct{}, opt.MaxConns), idle: make(chan *lite.Conn, opt.MaxConns)}
	// Prove it is a database we can read.
	err = d.Conn(ctx, func(c *lite.Conn) error {
		stmt, err := guard.Prepare(c, "SELECT count(*) FROM sqlite_schema")
		if err != nil {
			return err
		}
		defer stmt.Finalize()
		_, err = stmt.Step()
		return err
	})
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("open database %s: %w", file, err)
	}
	return d, nil
}

// buildURI turns a path or file: URI into the file path and the URI that
// opens it read-only. Only the URI parameters that cannot write are kept.
func buildURI(path string) (file, uri string, err error) {
	if path == "" {
		return "", "", errors.New("open database: no path given")
	}
	keep := url.Values{}
	if strings.HasPrefix(path, "file:") {
		u, err := url.Parse(path)
		if err != nil {
			return "", "", fmt.Errorf("open database: bad file: URI: %w", err)
		}
		file = u.Path
		if file == "" {
			file = u.Opaque
		}
		if file == "" || file == ":memory:" || u.Query().Get("mode") == "memory" {
			return "", "", errors.New("open database: give the path of a database file")
		}
		for _, k := range []string{"immutable", "nolock"} {
			if v := u.Query().Get(k); v != "" {
				keep.Set(k, v)
			}
		}
	} else {
		file = path
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", "", fmt.Errorf("open database: %w", err)
	}
	keep.Set("mode", "ro")
	return abs, "file:" + escapePath(abs) + "?" + keep.Encode(), nil
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

// Path is the database file's absolute path.
func (d *DB) Path() string { return d.path }

// Label names the database for people ("sample", or the file name).
func (d *DB) Label() string { return d.label }

// URI is the URI connections are opened with.
func (d *DB) URI() string { return d.uri }

// Conn runs fn with a pooled connection. The connection is fn's alone until
// fn returns; fn must finalize every statement it prepares.
func (d *DB) Conn(ctx context.Context, fn func(c *lite.Conn) error) error {
	c, err := d.acquire(ctx)
	if err != nil {
		return err
	}
	defer d.release(c)
	return fn(c)
}

func (d *DB) acquire(ctx context.Context) (*lite.Conn, error) {
	for {
		d.mu.Lock()
		done := d.done
		d.mu.Unlock()
		if done {
			return nil, errors.New("database is closed")
		}
		select {
		case c := <-d.idle:
			if c == nil { // Close wakes waiters with nil
				continue
			}
			return c, nil
		case d.sem <- struct{}{}:
			c, err := d.open()
			if err != nil {
				<-d.sem
				return nil, err
			}
			return c, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (d *DB) release(c *lite.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		guard.Uninstall(c)
		c.Close()
		<-d.sem
		return
	}
	d.idle <- c // never blocks: idle holds as many as sem allows
}

// open makes one hardened connection.
func (d *DB) open() (*lite.Conn, error) {
	c, err := lite.Open(d.uri, lite.OpenReadOnly|lite.OpenURI|lite.OpenNoMutex)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", d.path, err)
	}
	ok := c.DBConfig(lite.ConfigDefensive, true) &&
		c.DBConfig(lite.ConfigTrustedSchema, false) &&
		c.DBConfig(lite.ConfigDQSDML, false) &&
		c.DBConfig(lite.ConfigDQSDDL, false) &&
		c.DBConfig(lite.ConfigLoadExtension, false)
	if !ok {
		c.Close()
		return nil, errors.New("open database: could not harden the connection (sqlite3_db_config failed)")
	}
	for id, v := range Limits {
		c.Limit(id, v)
	}
	// Temporary tables, indexes and sort spills stay in memory, where the
	// heap limit bounds them: nothing is written to disk. This runs before
	// the authorizer is installed, and is the only statement that does.
	if err := c.Exec("PRAGMA temp_store = MEMORY"); err != nil {
		c.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := guard.Install(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("open database: install authorizer: %w", err)
	}
	return c, nil
}

// Close closes idle connections now and busy ones when they are released.
func (d *DB) Close() error {
	d.mu.Lock()
	if d.done {
		d.mu.Unlock()
		return nil
	}
	d.done = true
	d.mu.Unlock()
	for {
		select {
		case c := <-d.idle:
			if c != nil {
				guard.Uninstall(c)
				c.Close()
				<-d.sem
			}
		default:
			return nil
		}
	}
}

// ErrOutputIsDatabase is matched by CheckOutput's refusal.
var ErrOutputIsDatabase = errors.New("output path is the database file")

type outputError struct{ path string }

func (e *outputError) Error() string {
	return "refusing to write to " + e.path + ": it is the database file — choose another path"
}

func (e *outputError) Is(target error) bool { return target == ErrOutputIsDatabase }

// CheckOutput refuses an output path (an export, a chart) that names the
// database file or its journal: tablewise never writes the database, not
// even by replacing it with an export. "" and "-" (stdout) pass.
func (d *DB) CheckOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	refuse := &outputError{path}
	for _, p := range []string{d.path, d.path + "-journal", d.path + "-wal", d.path + "-shm"} {
		if abs == p {
			return refuse
		}
	}
	if a, err := os.Stat(abs); err == nil {
		if b, err := os.Stat(d.path); err == nil && os.SameFile(a, b) {
			return refuse
		}
	}
	return nil
}
