// Package engine is the seam between tablewise and the databases it reads.
// An Engine is one opened database: it vets and runs one statement at a
// time under a deadline and caps, streaming rows that keep their types
// (core/query), reads the catalog (core/catalog), explains a statement,
// says which files are part of the database and what doctor should check.
// A Dialect writes the SQL that differs between engines.
//
// Each engine is one package under core/engine (core/engine/sqlite,
// core/engine/postgres); core/db picks one from the DSN and is the only
// package that imports them. Engines raise the shared typed errors — *guard.Rejection,
// *guard.SQLError, guard.ErrEmpty, *query.LimitError and the sentinels
// below — so that core/fault explains them the same way for every engine.
package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// Engine is one opened database. It is safe for concurrent use; every
// method that takes a context stops waiting when the context ends.
type Engine interface {
	// Name is the engine's short name: "sqlite" (later "postgres",
	// "mysql").
	Name() string
	// Dialect writes the SQL that differs between engines.
	Dialect() Dialect
	// Source says what was opened, for people, never with a password.
	Source() Source
	// Warnings are notes for the user about how the database is read,
	// known once it is open (rows a read mode hides, for example).
	Warnings() []string

	// Run vets sql and runs it if it is one read-only query, streaming
	// its rows into sink: the deadline (opt.Timeout and ctx) interrupts
	// the statement at any point of its life, and the row and byte caps
	// end the stream early (Summary.Truncated). It refuses with a
	// *guard.Rejection or guard.ErrEmpty, fails with a *guard.SQLError
	// (Missing set when a table or column is unknown) or a
	// *query.LimitError. It returns once the connection it used is free.
	Run(ctx context.Context, sql string, opt query.Options, sink query.Sink) (*query.Summary, error)
	// Check vets sql as Run does without running it.
	Check(ctx context.Context, sql string) error
	// Explain shows how the database would run sql, after vetting it as
	// Run does. A leading EXPLAIN in sql is the engine's to drop.
	Explain(ctx context.Context, sql string) (*Plan, error)

	// Catalog reads the tables, views, columns, keys, indexes, row
	// counts and sample rows, within ctx's deadline (ErrCatalogDeadline
	// when it passes); slow counts and samples are cut short by budgets
	// of their own. It is not cached: core/db caches it.
	Catalog(ctx context.Context) (*catalog.Catalog, error)
	// Names reads only the tables' and views' names and their columns'
	// names, quickly, for hints.
	Names(ctx context.Context) (*catalog.Catalog, error)

	// Owns reports whether writing the file at path would write the
	// database or a file the engine keeps beside it (a journal, -wal,
	// -shm), however path reaches it (symbolic links, hard links), and
	// names what it is ("the database file"). Server engines own no
	// local file.
	Owns(path string) (what string, owned bool)
	// Info is what doctor shows and checks.
	Info(ctx context.Context) (*Info, error)
	// Close closes idle connections now and busy ones when they are
	// released.
	Close() error
}

// Options tune opening an engine. Zero values mean the engine's defaults.
type Options struct {
	// MaxConns bounds the connection pool.
	MaxConns int
	// HeapLimit caps the memory an in-process engine may allocate
	// (SQLite: process-wide). Server engines ignore it.
	HeapLimit int64
	// Progress, when set, counts what an engine that loads data files
	// into memory has read so far. Other engines ignore it.
	Progress *LoadProgress
}

// LoadProgress counts a load of data files as it goes, for a progress
// line: the bytes read of the file being loaded, its size, the rows
// inserted so far (all files) and the file's name.
type LoadProgress struct {
	Bytes, Total, Rows atomic.Int64
	File               atomic.Pointer[string]
}

// Opener opens the database a DSN names. core/db keeps one per engine.
type Opener func(ctx context.Context, dsn string, opt Options) (Engine, error)

// OpenerOf is an engine package's open function as an Opener: on an error
// the Engine is nil, never a nil pointer of the engine's type.
func OpenerOf[E Engine](open func(ctx context.Context, dsn string, opt Options) (E, error)) Opener {
	return func(ctx context.Context, dsn string, opt Options) (Engine, error) {
		e, err := open(ctx, dsn, opt)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

// Source says what an engine opened, for people.
type Source struct {
	// Display is the database's file path, or its URL with any password
	// redacted (Redact).
	Display string
	// Label is a short default name: the file name, the database name.
	Label string
}

// Info is what doctor shows about an opened database.
type Info struct {
	// Version names the engine and its version: "SQLite 3.50.4
	// (modernc.org/sqlite, pure Go)", "PostgreSQL 15.4".
	Version string
	// Checks are facts that keep the database unwritten and the work
	// bounded: the connection is read-only, hardening is in effect…
	Checks []Check
	// Refused are statements the guard must refuse on this engine;
	// doctor runs each and expects a *guard.Rejection.
	Refused []string
	// Read is a statement that must run; its one value counts the
	// schema's entries.
	Read string
}

// Check is one fact doctor reports: ok, or failed with a problem.
type Check struct {
	Label   string
	OK      bool
	Problem string // what is wrong when !OK
}

// Plan is how the database would run a statement.
type Plan struct {
	// SQL is the statement explained, without EXPLAIN.
	SQL string `json:"sql"`
	// Steps form a tree: each names its parent (0: a root), in display
	// order.
	Steps []PlanStep `json:"steps"`
	// Notes point, in plain words, at what may be slow: full scans of big
	// tables, temporary sorts.
	Notes []string `json:"notes,omitempty"`
	// Actual is set when the statement ran to measure its plan
	// (Analyzer): what the whole statement did.
	Actual *Actual `json:"actual,omitempty"`
}

// Actual is what a statement did when it ran once to measure its plan.
type Actual struct {
	// Rows is the number of rows the statement returned, -1 when the
	// engine does not say.
	Rows int64 `json:"rows"`
	// MS is the time it ran, in milliseconds.
	MS float64 `json:"ms"`
	// PerStep says whether the steps carry their own actual rows and
	// times; Note says what was measured when they do not.
	PerStep bool   `json:"per_step"`
	Note    string `json:"note,omitempty"`
}

// SchemaVersioner is an engine that can tell cheaply whether its catalog
// changed: SchemaVersion returns a value that differs whenever a table,
// view or column in the catalog's scope is created, dropped or altered
// (and may differ on other changes). It is one fixed statement of the
// engine's, run as its catalog queries run (vetted, read-only, within
// ctx's deadline). core/db asks it before reading the catalog again;
// without it a catalog read once is kept.
type SchemaVersioner interface {
	SchemaVersion(ctx context.Context) (string, error)
}

// Analyzer is an engine that can run a statement to measure its plan
// (EXPLAIN ANALYZE and its kin). The statement is vetted exactly as Run
// vets it and runs as Run runs it: inside the read-only transaction,
// under the deadline (timeout and ctx), stopped on the server when the
// deadline passes. Its rows are counted, never returned.
type Analyzer interface {
	ExplainAnalyze(ctx context.Context, sql string, timeout time.Duration) (*Plan, error)
}

// NotMeasurable is the refusal of an Analyzer asked to measure a
// statement that is not a query; first is the statement's first word.
func NotMeasurable(first string) *guard.Rejection {
	return &guard.Rejection{What: "EXPLAIN ANALYZE of " + first, Reason: "only a query (SELECT, WITH, VALUES, TABLE) can be measured", Hint: "explain a SELECT"}
}

// PlanStep is one node of a plan.
type PlanStep struct {
	ID     int64  `json:"id"`
	Parent int64  `json:"parent"`
	Detail string `json:"detail"`
	// Rows is the planner's estimate of the rows the step returns, 0 when
	// the engine gives none (SQLite does not).
	Rows float64 `json:"rows,omitempty"`
	// ActualRows and ActualMS are what the step did when the statement
	// ran (Analyzer): the rows it returned and the time it took, over all
	// its loops; nil when it did not run or the engine does not say.
	ActualRows *float64 `json:"actual_rows,omitempty"`
	ActualMS   *float64 `json:"actual_ms,omitempty"`
	// Loops is how many times the step ran, 0 when unknown.
	Loops float64 `json:"loops,omitempty"`
	// Scan names the table the step reads in full ("" for none): notes
	// name big ones from the catalog's row counts.
	Scan string `json:"-"`
	// Note is the engine's own remark on the step ("a temporary b-tree
	// sorts the rows"), "" for none.
	Note string `json:"-"`
}

// Text renders the plan as a tree, as the sqlite3 shell does, with its
// notes below.
func (p *Plan) Text() string {
	var b strings.Builder
	b.WriteString("QUERY PLAN\n")
	children := map[int64][]PlanStep{}
	ids := map[int64]bool{}
	for _, s := range p.Steps {
		ids[s.ID] = true
	}
	var roots []PlanStep
	for _, s := range p.Steps {
		if s.Parent != 0 && ids[s.Parent] {
			children[s.Parent] = append(children[s.Parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	var walk func(steps []PlanStep, prefix string)
	walk = func(steps []PlanStep, prefix string) {
		for i, s := range steps {
			last := i == len(steps)-1
			branch, next := "|--", "|  "
			if last {
				branch, next = "`--", "   "
			}
			b.WriteString(prefix + branch + s.Detail + s.measured() + "\n")
			walk(children[s.ID], prefix+next)
		}
	}
	walk(roots, "")
	if a := p.Actual; a != nil {
		fmt.Fprintf(&b, "ran in %s ms", strconv.FormatFloat(a.MS, 'f', 1, 64))
		if a.Rows >= 0 {
			fmt.Fprintf(&b, " and returned %s", format.Plural(a.Rows, "row"))
		}
		b.WriteString("\n")
		if a.Note != "" {
			b.WriteString("note: " + a.Note + "\n")
		}
	}
	for _, n := range p.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}

// measured is what a step did when the statement ran, as "  (actual 830
// rows, 0.4 ms; estimated 820)", "" when it did not run.
func (s PlanStep) measured() string {
	if s.ActualRows == nil {
		return ""
	}
	out := "  (actual " + format.Plural(int64(math.Round(*s.ActualRows)), "row")
	if s.ActualMS != nil {
		out += ", " + strconv.FormatFloat(*s.ActualMS, 'f', 3, 64) + " ms"
	}
	if s.Loops > 1 {
		out += " over " + format.Count(int64(s.Loops)) + " loops"
	}
	if s.Rows > 0 {
		out += "; estimated " + format.Count(int64(math.Round(s.Rows)))
	}
	return out + ")"
}

// ErrNotFound means the database does not exist (a missing file).
// tablewise never creates one. Callers treat it as a usage error.
var ErrNotFound = errors.New("database not found")

// ErrBadPath means the DSN does not name a database tablewise can open: a
// directory, a FIFO or device, an in-memory database, an unknown URL
// scheme. Callers treat it as a usage error.
var ErrBadPath = errors.New("not a database tablewise can open")

// ErrNeedsOwner means the database is in a state only a writer can fix (a
// hot journal to roll back, a WAL to checkpoint or recover), and tablewise
// never writes. Callers treat it as a database error.
var ErrNeedsOwner = errors.New("the database needs its owner to recover it")

// ErrUnavailable means the database could not be reached or refused the
// connection (a server that is down, a login refused). Callers treat it as
// a database error; the message names the server, never a password.
var ErrUnavailable = errors.New("the database is unavailable")

// ErrNoIndexTrial is matched (errors.Is) when an IndexTrier cannot try
// indexes on this database (PostgreSQL without HypoPG): index advice then
// falls back to a labelled estimate.
var ErrNoIndexTrial = errors.New("the planner cannot try indexes on this database")

// ErrCatalogDeadline is matched (errors.Is) when reading the catalog or the
// names for a hint stopped at its deadline. It wraps
// context.DeadlineExceeded.
var ErrCatalogDeadline = fmt.Errorf("reading the schema took too long: %w", context.DeadlineExceeded)

// Ended is ctx's error, or context.DeadlineExceeded once its deadline has
// passed though its timer has not yet fired: net cuts a dial at the
// deadline itself and reports "i/o timeout", which on a busy machine can
// come back before ctx.Err() says anything.
func Ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// StillRuns is the error for a statement the client stopped waiting for
// (at its deadline timeout, or cancelled) that the server still runs: it
// checks for a cancel between rows, not inside the computation of one
// value. who names the server's session (a connection id, a backend pid)
// and hint the computations that do this on its server. Never "stopped
// at the deadline": the server still works on it.
func StillRuns(timeout time.Duration, cancelled bool, who, hint string) *StillRunning {
	return &StillRunning{Timeout: timeout, Cancelled: cancelled, Who: who, Hint: hint}
}

// StillRunning is StillRuns' error. It reads as, and unwraps to, the SQL
// error it describes; a caller whose own deadline was longer than what
// was left of it for the statement (the opening came first) restates it
// with that deadline (Timeout).
type StillRunning struct {
	Timeout   time.Duration
	Cancelled bool
	Who, Hint string
}

func (e *StillRunning) Error() string { return e.Unwrap().Error() }

// Unwrap is the error as a *guard.SQLError.
func (e *StillRunning) Unwrap() error {
	at := "the " + e.Timeout.String() + " deadline"
	if e.Cancelled {
		at = "cancellation"
	}
	return &guard.SQLError{
		Msg:  fmt.Sprintf("the statement did not stop at %s: the server still runs it (%s) until it has computed the value it is on", at, e.Who),
		Hint: e.Hint,
	}
}

// GoneGrace is how long a statement the client gave up on may take to
// leave the server before it is reported as still running (StillRuns).
const GoneGrace = time.Second

// AwaitGone asks probe, every 50 ms for up to GoneGrace, whether the
// statement the client gave up on has left the server (probe may stop it
// again meanwhile), and reports whether it has. An error of probe's
// (no connection, no answer) counts as not known yet.
func AwaitGone(ctx context.Context, probe func() (left bool, err error)) bool {
	until := time.Now().Add(GoneGrace)
	for {
		if left, err := probe(); err == nil && left {
			return true
		}
		if time.Now().After(until) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Redact returns dsn for display without its password: the password of a
// URL's user information and the value of any password= or sslpassword=
// parameter (in a URL's query or a key=value DSN; sslpassword unlocks a
// client key) become "xxxxx". It never fails: text it
// cannot read is redacted all the same, and a password written without
// percent-encoding its / ? # or @ is redacted whole.
func Redact(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		rest := dsn[i+3:]
		if at := userinfoEnd(rest); at >= 0 {
			if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
				rest = rest[:colon+1] + "xxxxx" + rest[at:]
			}
		}
		dsn = dsn[:i+3] + rest
	}
	return passwordParam.ReplaceAllString(dsn, "${1}xxxxx")
}

// UserInfo returns the user information of the URL dsn ("user:password")
// as Redact reads it, "" when dsn is no URL or has none. A driver that
// ends it at the first @ instead (libpq, pgx) reads another password and
// host when UserInfo holds an @.
func UserInfo(dsn string) string {
	i := strings.Index(dsn, "://")
	if i < 0 {
		return ""
	}
	rest := dsn[i+3:]
	if at := userinfoEnd(rest); at >= 0 {
		return rest[:at]
	}
	return ""
}

// UnencodedInPassword says, for the URL dsn, why its password cannot be
// read as written: it holds one of chars unencoded (a driver's URL parser
// ends the user information there, and would take the rest for a host, a
// port or a database, and show it in its errors). The text names the
// character and its encoding; "" when the password holds none of chars.
func UnencodedInPassword(dsn, chars string) string {
	ui := UserInfo(dsn)
	i := strings.IndexAny(ui, chars)
	if i < 0 {
		return ""
	}
	c := ui[i]
	return fmt.Sprintf("the password holds a %c, which ends it early in a URL: write each %c in it as %%%02X", c, c, c)
}

// userinfoEnd returns the index of the @ that ends the user information of
// rest (a URL after its "://"), -1 without one. People paste passwords
// with / ? # and @ unencoded, so it is the last @ of rest that is not in a
// query parameter's value; "host:5432/path@x" has none, but
// "u:123/pw@host/db" has one: a password that starts with digits reads
// like a port up to its /, and the host and path after its @ tell it apart.
func userinfoEnd(rest string) int {
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	portLike := false
	if !strings.Contains(rest[:end], "@") {
		colon := strings.IndexByte(rest[:end], ':')
		if colon < 0 {
			return -1
		}
		portLike = strings.Trim(rest[colon+1:end], "0123456789") == ""
	}
	for at := strings.LastIndexByte(rest, '@'); at >= 0; at = strings.LastIndexByte(rest[:at], '@') {
		before := rest[:at]
		if q := strings.LastIndexByte(before, '?'); q >= 0 && strings.ContainsAny(before[q:], "=&") {
			continue
		}
		if portLike {
			after := rest[at+1:]
			if i := strings.IndexAny(after, "?#"); i >= 0 {
				after = after[:i]
			}
			if !strings.ContainsAny(after, "/:") {
				return -1
			}
		}
		return at
	}
	return -1
}

var passwordParam = regexp.MustCompile(`(?i)((?:^|[\s?&;])(?:ssl)?(?:password|passwd|pwd)\s*=\s*)('[^']*'|[^\s&;#]*)`)

// IndexSpec is an index that does not exist: a table and its columns in
// key order.
type IndexSpec struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
}

// IndexTrier is an engine whose planner can be asked how it would run a
// statement if some indexes existed, without creating anything in the
// database (SQLite: on a copy of the schema and its statistics, without
// rows, in memory; PostgreSQL: hypothetical indexes). The statement is
// vetted by the engine's guard first.
type IndexTrier interface {
	// TryIndexes returns the plan of sql as the database is, and its plan
	// with each index of specs alone, in the order of specs; in the plan
	// with specs[i], that index is named tablewise_candidate_<i+1>.
	TryIndexes(ctx context.Context, sql string, specs []IndexSpec) (before *Plan, after []*Plan, err error)
	// IndexTrial says in a few words how TryIndexes plans without the
	// indexes existing, for the advice shown to people.
	IndexTrial() string
}

// SchemaObject is one table, index or view with the SQL that makes it.
type SchemaObject struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Table string `json:"table"`
	SQL   string `json:"sql"`
}

// AppendSQL appends the SQL that makes each of objs to stmts.
func AppendSQL(stmts []string, objs []SchemaObject) []string {
	for _, o := range objs {
		stmts = append(stmts, o.SQL)
	}
	return stmts
}

// Rehearsal is what a migration did to a copy of a database's schema.
type Rehearsal struct {
	// Before is the schema as the database has it.
	Before []SchemaObject
	// Up lists the up script's statements as run, in order; the first
	// that failed ends it.
	Up []RehearsedStatement
	// AfterUp is the schema after the up script (nil when it failed).
	AfterUp []SchemaObject
	// Down and AfterDown are the same for the down script, run after up
	// (nil without one, or when up failed).
	Down      []RehearsedStatement
	AfterDown []SchemaObject
	// Notes say how the copy was made where it matters to the reader:
	// what of the database it could not reproduce.
	Notes []string
}

// RehearsedStatement is one statement of a migration and how it went.
type RehearsedStatement struct {
	SQL string `json:"sql"`
	// Err is the engine's error, "" when it ran.
	Err string `json:"error,omitempty"`
}

// Rehearser is an engine that can run a migration on a private copy of a
// database's schema (no rows), leaving the database itself only read.
type Rehearser interface {
	Rehearse(ctx context.Context, up, down string) (*Rehearsal, error)
}

// ScratchRehearser is a server engine that rehearses a migration in a
// scratch database the user names, never in the database it reads: it
// copies the database's schema (no rows) into a new schema or database
// created there for the rehearsal, runs up and then down on it statement
// by statement, reads the schema after each, and drops what it created,
// also when a statement fails or the deadline passes. The database itself
// is only read, through the engine's read-only path.
type ScratchRehearser interface {
	// RehearseIn rehearses up and down in the scratch database the URL
	// scratch names. It refuses (ErrScratchIsDatabase) a scratch URL that
	// names the database the engine reads, or a server of another engine,
	// and (ErrScratchReaches) a scratch user whose rights on the checked
	// database's own server would let a migration act on that database.
	RehearseIn(ctx context.Context, scratch, up, down string) (*Rehearsal, error)
}

// ErrScratchIsDatabase is matched (errors.Is) by the *UsageError a
// ScratchRehearser returns for a scratch URL that names the database being
// read (same host, port and database name) or cannot serve as a scratch
// database for this engine.
var ErrScratchIsDatabase = errors.New("the scratch database must be a separate database")

// ErrScratchReaches is matched (errors.Is) by the *UsageError a
// ScratchRehearser returns for a scratch URL whose user could act on the
// database being read.
var ErrScratchReaches = errors.New("the scratch user could reach the database being checked")

// UsageError is a refusal worded for the user. It matches (errors.Is) its
// Sentinel and ErrBadPath: callers treat it as a usage error.
type UsageError struct {
	Msg      string
	Sentinel error
}

func (e *UsageError) Error() string { return e.Msg }

// Is matches Sentinel and ErrBadPath.
func (e *UsageError) Is(target error) bool {
	return target == e.Sentinel || target == ErrBadPath
}

// RehearsalPrefix begins the name of every schema or database a
// ScratchRehearser creates in a scratch database.
const RehearsalPrefix = "tablewise_rehearse_"

// RehearsalName is a fresh name for a rehearsal's schema or database:
// RehearsalPrefix and twelve random hex digits.
func RehearsalName() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return RehearsalPrefix + hex.EncodeToString(b), nil
}

// CopyDiffers names what of a database's schema (orig) a rehearsal's copy
// of it does not reproduce, for the rehearsal's notes.
func CopyDiffers(orig, copied []SchemaObject) []string {
	have := map[string]string{}
	for _, o := range copied {
		have[o.Type+" "+o.Name] = o.SQL
	}
	var out []string
	for _, o := range orig {
		if sql, ok := have[o.Type+" "+o.Name]; !ok {
			out = append(out, fmt.Sprintf("the rehearsal lacks %s %s, which the database has", o.Type, o.Name))
		} else if sql != o.SQL {
			out = append(out, fmt.Sprintf("the rehearsal's %s %s differs from the database's", o.Type, o.Name))
		}
	}
	return out
}

// SameHost reports whether two host names reach the same server as far as
// their spelling tells: equal ignoring case, or both the loopback
// interface (localhost, 127.0.0.1, ::1).
func SameHost(a, b string) bool {
	norm := func(h string) string {
		h = strings.ToLower(strings.Trim(h, "[]"))
		switch h {
		case "", "localhost", "127.0.0.1", "::1", "localhost.localdomain":
			return "loopback"
		}
		return h
	}
	return norm(a) == norm(b)
}
