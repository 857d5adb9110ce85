// Package db is what front doors hold: a read-only database opened through
// the engine its DSN names (core/engine), with its catalog cached and "did
// you mean" hints added to SQL errors. A path or file: URI opens SQLite.
//
// Adding an engine is one package under core/engine and one line in
// drivers below.
package db

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/engine/sqlite/files"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// driver is an engine and the DSNs it opens.
type driver struct {
	// schemes are the URL schemes it opens ("" for a plain path).
	schemes []string
	open    engine.Opener
	// names reports whether a bare command-line argument names one of
	// its databases (a file's suffix); nil when only schemes do.
	names func(arg string) bool
}

// drivers lists every engine.
var drivers = []driver{
	{open: files.Open, names: files.LooksLikeData},
	{schemes: []string{"", "file"}, open: sqlite.OpenEngine, names: sqlite.LooksLikeFile},
	{schemes: []string{"mysql", "mariadb"}, open: mysql.OpenEngine},
	{schemes: []string{"postgres", "postgresql"}, open: postgres.OpenEngine},
}

// Options tune Open.
type Options struct {
	// MaxConns bounds the engine's connection pool; default the engine's.
	MaxConns int
	// HeapLimit caps an in-process engine's memory (SQLite: process-wide,
	// default sqlite.DefaultHeapLimit).
	HeapLimit int64
	// Label names the database in messages ("sample" for the built-in
	// one); default the engine's (the file name).
	Label string
	// Progress, when set, counts the load of data files (CSV, JSON,
	// Parquet) into memory.
	Progress *engine.LoadProgress
	// SchemaCheck is how often, at most, Catalog and Names ask whether
	// the schema changed since they read it; default a second for a
	// SQLite file (whose FileStamp is looked at first), SchemaCheckEvery
	// for a server.
	SchemaCheck time.Duration
}

// SchemaCheckEvery is how often, by default, a server is asked whether
// its schema changed (Options.SchemaCheck).
const SchemaCheckEvery = 30 * time.Second

// DB is a read-only database: an engine, its label and its cached catalog.
type DB struct {
	eng   engine.Engine
	label string

	catMu   chan struct{} // held while the catalog is read
	catalog atomic.Pointer[cached]
	names   atomic.Pointer[cached]
	// checkAt: no schema check before then (Unix nanoseconds); one
	// every checkEvery at most.
	checkAt    atomic.Int64
	checkEvery time.Duration
	// rereads counts the catalog and names read from the engine.
	rereads atomic.Int64
}

var _ query.Runner = (*DB)(nil)

// Open opens the database dsn names, read-only, with the engine its scheme
// picks: a file path or file: URI opens SQLite. An unknown scheme is a
// usage error (engine.ErrBadPath) that lists the supported ones.
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	drv, err := driverFor(dsn)
	if err != nil {
		return nil, err
	}
	eng, err := drv.open(ctx, dsn, engine.Options{MaxConns: opt.MaxConns, HeapLimit: opt.HeapLimit, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	if opt.Label == "" {
		opt.Label = eng.Source().Label
	}
	d := &DB{eng: eng, label: opt.Label, catMu: make(chan struct{}, 1), checkEvery: opt.SchemaCheck}
	if d.checkEvery <= 0 {
		d.checkEvery = SchemaCheckEvery
		if _, file := d.FileStamp(); file {
			d.checkEvery = time.Second
		}
	}
	return d, nil
}

// scheme returns dsn's URL scheme in lower case: "file" for a file: URI,
// "" for a path. Only "file:" and a scheme followed by "//" count, so a
// path with a colon in it stays a path.
func scheme(dsn string) string {
	i := strings.Index(dsn, ":")
	if i <= 1 { // none, or a drive letter (C:\...)
		return ""
	}
	s := strings.ToLower(dsn[:i])
	for j, c := range s {
		if !(c >= 'a' && c <= 'z' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	if s == "file" || strings.HasPrefix(dsn[i+1:], "//") {
		return s
	}
	return ""
}

func driverFor(dsn string) (driver, error) {
	for _, d := range drivers {
		if d.schemes == nil && d.names(dsn) { // known by its name alone
			return d, nil
		}
	}
	s := scheme(dsn)
	for _, d := range drivers {
		for _, ds := range d.schemes {
			if ds == s {
				return d, nil
			}
		}
	}
	return driver{}, &schemeError{dsn: engine.Redact(dsn), scheme: s}
}

type schemeError struct{ dsn, scheme string }

func (e *schemeError) Error() string {
	return fmt.Sprintf("open database: %s: tablewise does not open %s:// databases; give %s", e.dsn, e.scheme, supported())
}

func (e *schemeError) Unwrap() error { return engine.ErrBadPath }

// supported lists what Open accepts, for messages.
func supported() string {
	var out []string
	for _, d := range drivers {
		for _, s := range d.schemes {
			switch s {
			case "":
				out = append(out, "a SQLite file path")
			case "file":
				out = append(out, "a file: URI")
			default:
				out = append(out, "a "+s+":// URL")
			}
		}
	}
	sort.Strings(out[min(2, len(out)):])
	if len(out) > 1 {
		return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
	}
	return strings.Join(out, "")
}

// LooksLikeDatabase reports whether a bare command-line argument names a
// database rather than a command: a URL with a scheme some engine opens,
// or a file an engine recognises (SQLite: .db, .sqlite, .sqlite3, file:;
// data files: .csv, .tsv, .json, .jsonl, .parquet).
func LooksLikeDatabase(arg string) bool {
	s := scheme(arg)
	for _, d := range drivers {
		if d.names != nil && d.names(arg) {
			return true
		}
		for _, ds := range d.schemes {
			if s != "" && ds == s {
				return true
			}
		}
	}
	return false
}

// DataFiles reports whether arg names data files (.csv, .tsv, .json,
// .jsonl, .parquet; several joined by commas) that Open loads into an
// in-memory database, a table per file.
func DataFiles(arg string) bool { return files.LooksLikeData(arg) }

// Engine is the engine behind d.
func (d *DB) Engine() engine.Engine { return d.eng }

// Dialect writes the SQL that differs between engines.
func (d *DB) Dialect() engine.Dialect { return d.eng.Dialect() }

// Label names the database for people ("sample", or the file name).
func (d *DB) Label() string { return d.label }

// Source is where the database is, for people: its file path, or its URL
// without a password.
func (d *DB) Source() string { return d.eng.Source().Display }

// Warnings are notes about how the database is read, for the user: for
// example that immutable=1 hides rows committed to the -wal file.
func (d *DB) Warnings() []string { return d.eng.Warnings() }

// Info is what doctor shows and checks.
func (d *DB) Info(ctx context.Context) (*engine.Info, error) { return d.eng.Info(ctx) }

// Check vets sql without running it.
func (d *DB) Check(ctx context.Context, sql string) error { return d.eng.Check(ctx, sql) }

// Close closes the engine.
func (d *DB) Close() error { return d.eng.Close() }

// Run vets sql and streams its rows into sink through the engine. A SQL
// error that names an unknown table or column gets a "did you mean" hint,
// read after the engine released its connection, within what is left of
// the deadline: no time left, no hint.
func (d *DB) Run(ctx context.Context, sql string, opt query.Options, sink query.Sink) (*query.Summary, error) {
	start := time.Now()
	sum, err := d.eng.Run(ctx, sql, opt, sink)
	if err != nil && d.addHint(ctx, err, sql, start, opt.Timeout) && sum != nil {
		sum.Elapsed = time.Since(start)
	}
	return sum, err
}

// addHint gives a SQL error about an unknown table or column a "did you
// mean" hint, within what is left of timeout (query.DefaultTimeout when
// 0) since start. It reports whether it tried.
func (d *DB) addHint(ctx context.Context, err error, sql string, start time.Time, timeout time.Duration) bool {
	var se *guard.SQLError
	if !errors.As(err, &se) || se.Missing == "" || se.Hint != "" {
		return false
	}
	if timeout <= 0 {
		timeout = query.DefaultTimeout
	}
	guard.AddHint(se, sql, d.hintNames(ctx, timeout-time.Since(start)))
	return true
}

// hintNames returns the schema's names for a hint, or nil when they cannot
// be read within left.
func (d *DB) hintNames(ctx context.Context, left time.Duration) guard.Names {
	if left <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	n, err := d.Names(ctx)
	if err != nil {
		return nil
	}
	return quotedNames{Names: n, dl: d.Dialect()}
}

// quotedNames suggests names quoted as the engine's SQL needs them.
type quotedNames struct {
	guard.Names
	dl engine.Dialect
}

func (q quotedNames) QuoteName(name string) string { return q.dl.QuoteIdentIfNeeded(name) }

// bigTable is the size from which a full scan earns a note.
const bigTable = 10_000

// Explain shows how the engine would run sql, after vetting it as Run
// does, with notes on what may be slow: the engine's own, and full scans of
// tables the catalog counts at 10,000 rows or more.
func (d *DB) Explain(ctx context.Context, sql string) (*engine.Plan, error) {
	start := time.Now()
	p, err := d.eng.Explain(ctx, sql)
	if err != nil {
		d.addHint(ctx, err, sql, start, 0)
		return nil, err
	}
	d.annotate(ctx, p)
	return p, nil
}

// annotate adds the notes on what may be slow to p: the engine's own,
// and full scans of tables the catalog counts at 10,000 rows or more.
func (d *DB) annotate(ctx context.Context, p *engine.Plan) {
	cat, _ := d.Catalog(ctx)
	var aliases map[string]*catalog.Table
	if cat != nil {
		aliases = cat.Aliases(p.SQL)
	}
	for _, s := range p.Steps {
		if s.Scan != "" && cat != nil {
			if t := aliases[strings.ToLower(s.Scan)]; t != nil && t.RowCount >= bigTable {
				p.Notes = append(p.Notes, fmt.Sprintf("full scan of %s (%s)", t.Name, format.RowCount(t.RowCount, t.RowCountEstimated)))
			}
		}
		if s.Note != "" {
			p.Notes = append(p.Notes, s.Note)
		}
	}
}

// ExplainAnalyze runs sql once to measure its plan: vetted and run
// exactly as Run runs it (the read-only transaction, the deadline of
// timeout and ctx; query.DefaultTimeout when timeout is 0), its rows
// counted and dropped. The engine's own measure (engine.Analyzer) gives
// actual rows and time per step; an engine without one (SQLite) gives its
// plan, and the rows and time of the whole statement.
func (d *DB) ExplainAnalyze(ctx context.Context, sql string, timeout time.Duration) (*engine.Plan, error) {
	if timeout <= 0 {
		timeout = query.DefaultTimeout
	}
	start := time.Now()
	var p *engine.Plan
	var err error
	if a, ok := d.eng.(engine.Analyzer); ok {
		p, err = a.ExplainAnalyze(ctx, sql, timeout)
	} else if p, err = d.eng.Explain(ctx, sql); err == nil {
		var sum *query.Summary
		sum, err = d.eng.Run(ctx, p.SQL, query.Options{Timeout: timeout}, countSink{})
		if err == nil {
			p.Actual = &engine.Actual{Rows: int64(sum.RowCount), MS: float64(sum.Elapsed.Microseconds()) / 1000,
				Note: d.Dialect().Name() + " gives no rows or time per step: the statement ran once, in full, to count its rows and time it"}
		}
	}
	if err != nil {
		d.addHint(ctx, err, sql, start, timeout)
		return nil, err
	}
	d.annotate(ctx, p)
	return p, nil
}

// countSink drops the rows it is given: Run counts them.
type countSink struct{}

func (countSink) Begin([]query.Column) error { return nil }
func (countSink) Row(query.Cursor) error     { return nil }

// ErrOutputIsDatabase is matched by CheckOutput's refusal.
var ErrOutputIsDatabase = errors.New("output path is the database file")

type outputError struct{ path, what string }

func (e *outputError) Error() string {
	return "refusing to write to " + e.path + ": it is " + e.what + " — choose another path"
}

func (e *outputError) Is(target error) bool { return target == ErrOutputIsDatabase }

// CheckOutput refuses an output path (an export, a chart) that names the
// database or a file its engine keeps beside it (engine.Engine.Owns),
// however it is reached. tablewise never writes the database, not even by
// replacing it with an export. "" and "-" (stdout) pass.
func (d *DB) CheckOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if what, owned := d.eng.Owns(path); owned {
		return &outputError{path, what}
	}
	return nil
}
