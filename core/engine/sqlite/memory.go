package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
)

// Memory describes an in-memory database that tablewise fills itself
// (from CSV, JSON or Parquet files) before anyone may query it.
type Memory struct {
	// Source names the database for people.
	Source engine.Source
	// Files are the files the data comes from: Owns reports them, so no
	// export or chart can replace one.
	Files []string
	// SizeHint is about how big the database will be, in bytes: that
	// much memory is set aside at once rather than grown into (0: none).
	SizeHint int64
	// Load fills the database through l. It runs once, on a connection
	// of its own that no user statement ever reaches; once it returns,
	// that connection is closed and every pooled connection opens the
	// database read-only.
	Load func(ctx context.Context, l *Loader) error
}

// memory is what an Engine opened by OpenMemory keeps.
type memory struct {
	source engine.Source
	files  []string // absolute paths, and their resolved forms
	heap   int64    // the heap limit its statements run under (the data and DefaultHeapLimit)
}

// liveHeaps are the heap limits of the open in-memory databases: the
// process-wide limit never goes below the largest while they hold their
// data (a SQLite file opened next to a 1 GB CSV must not cut the heap to
// 256 MiB under it).
var liveHeaps struct {
	sync.Mutex
	limits map[*memory]int64
}

// configureHeap sets the process-wide heap limit to limit, or to the
// largest an open in-memory database was loaded under.
func configureHeap(limit int64) {
	liveHeaps.Lock()
	defer liveHeaps.Unlock()
	for _, l := range liveHeaps.limits {
		limit = max(limit, l)
	}
	lite.ConfigureHeap(limit)
}

// hold records m's heap limit while it is open; release forgets it.
func (m *memory) hold() {
	liveHeaps.Lock()
	defer liveHeaps.Unlock()
	if liveHeaps.limits == nil {
		liveHeaps.limits = map[*memory]int64{}
	}
	liveHeaps.limits[m] = m.heap
}

func (m *memory) release() {
	liveHeaps.Lock()
	defer liveHeaps.Unlock()
	delete(liveHeaps.limits, m)
}

// memSeq numbers in-memory databases so that each has a name of its own.
var memSeq atomic.Int64

// ErrTooBig is matched (errors.Is) when loading stopped because the
// in-memory database reached SQLite's heap limit.
var ErrTooBig = errors.New("the data does not fit in memory")

// OpenMemory creates an in-memory database, fills it with m.Load and
// opens it like a file: a pool of hardened connections opened read-only
// (SQLITE_OPEN_READONLY, mode=ro), the guard's authorizer on each. The
// database lives in SQLite's heap, so opt.HeapLimit (process-wide,
// default DefaultHeapLimit) bounds its size; nothing is written to disk.
// Once it is loaded, the limit is lowered to what SQLite holds plus
// DefaultHeapLimit, the room a statement has on a database file.
func OpenMemory(ctx context.Context, m Memory, opt engine.Options) (*Engine, error) {
	if opt.MaxConns <= 0 {
		opt.MaxConns = 4
	}
	if opt.HeapLimit <= 0 {
		opt.HeapLimit = DefaultHeapLimit
	}
	configureHeap(opt.HeapLimit)
	mem := &memory{source: m.Source, heap: opt.HeapLimit}
	for _, f := range m.Files {
		if abs, err := filepath.Abs(f); err == nil {
			mem.files = append(mem.files, abs, atomicfile.Resolve(abs))
		}
	}
	// A name starting with "/" makes the memdb VFS share the database
	// between the connections of this process that name it.
	name := fmt.Sprintf("/tablewise-%d-%d", os.Getpid(), memSeq.Add(1))
	uri := "file:" + name + "?vfs=memdb"
	w, err := lite.Open(uri, lite.OpenReadWrite|lite.OpenCreate|lite.OpenURI|lite.OpenNoMutex)
	if err != nil {
		return nil, fmt.Errorf("create the in-memory database: %w", err)
	}
	closeW := func() {
		if w != nil {
			w.Close()
			w = nil
		}
	}
	defer closeW()
	// The database may grow until the heap limit stops it, less room for
	// the connections' own caches and statements.
	limit := w.SetSizeLimit(max(opt.HeapLimit-opt.HeapLimit/8, 1<<20))
	for id, v := range Limits {
		w.Limit(id, v)
	}
	im, err := lite.NewImage(m.SizeHint, limit)
	if err != nil {
		return nil, fmt.Errorf("create the in-memory database: %w", ErrTooBig)
	}
	defer im.Free()
	o, err := lite.NewOracle()
	if err != nil {
		return nil, fmt.Errorf("create the in-memory database: %w", err)
	}
	defer o.Close()
	l := &Loader{im: im, o: o, heap: opt.HeapLimit}
	if err := m.Load(ctx, l); err != nil {
		return nil, err
	}
	if err := im.Install(w); err != nil {
		return nil, l.explain(fmt.Errorf("load into memory: %w", err))
	}
	d := &Engine{mem: mem, uri: "file:" + name + "?vfs=memdb&mode=ro", warnings: l.warnings}
	d.newPool(opt.MaxConns)
	// A pooled connection holds the database before the writer lets go
	// of it; the pool keeps at least one open until Close.
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("open the in-memory database: %w", err)
	}
	closeW()
	d.keep = c
	// Loading may take the whole limit; a statement gets the room it has
	// on a database file: the data stays, and DefaultHeapLimit more.
	// Left at opt.HeapLimit (4 GiB for data files), one statement on a
	// three-row CSV held 3 GB.
	im.Free()
	mem.heap = min(opt.HeapLimit, lite.MemoryUsed()+DefaultHeapLimit)
	configureHeap(mem.heap)
	mem.hold()
	return d, nil
}

// owns reports whether abs is one of the files the data came from.
func (m *memory) owns(abs string) (string, bool) {
	out := []string{abs, atomicfile.Resolve(abs)}
	for _, f := range m.files {
		for _, o := range out {
			if o == f {
				return "a data file the database was loaded from", true
			}
		}
	}
	if a, err := os.Stat(abs); err == nil {
		for _, f := range m.files {
			if b, err := os.Stat(f); err == nil && os.SameFile(a, b) {
				return "a data file the database was loaded from", true
			}
		}
	}
	return "", false
}

// Column is one column of a table a Loader creates.
type Column struct {
	Name string
	// Type is the declared type: INTEGER, REAL, TEXT, DATE, DATETIME,
	// BOOLEAN.
	Type string
}

// Loader fills an in-memory database: it writes the tables in SQLite's
// file format (lite.Image), each value as an INSERT would store it.
type Loader struct {
	im       *lite.Image
	o        *lite.Oracle
	heap     int64
	warnings []string
}

// Warn adds a note for the user about how the data was read.
func (l *Loader) Warn(msg string) { l.warnings = append(l.warnings, msg) }

// HeapLimit is the heap limit in force, for messages.
func (l *Loader) HeapLimit() int64 { return l.heap }

// CreateTable creates table name with cols and returns an Inserter for
// its rows. The caller closes the Inserter.
func (l *Loader) CreateTable(name string, cols []Column) (*Inserter, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("create table %s: no columns", name)
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE " + quoteIdent(name) + " (")
	aff := make([]byte, len(cols))
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(c.Name) + " " + c.Type)
		aff[i] = lite.AffinityOf(c.Type)
	}
	b.WriteString(")")
	// SQLite checks the statement (a name taken, too many columns…).
	if err := l.o.Check(b.String()); err != nil {
		return nil, fmt.Errorf("create table %s: %w", name, err)
	}
	return &Inserter{l: l, cols: len(cols), aff: aff, w: l.im.Table(name, b.String(), aff)}, nil
}

// explain turns the errors of a full in-memory database into ErrTooBig.
func (l *Loader) explain(err error) error {
	if err == nil {
		return nil
	}
	var le *lite.Error
	if errors.As(err, &le) && (le.Code == lite.CodeFull || le.Code == lite.CodeNoMem) {
		return fmt.Errorf("%w: %w", ErrTooBig, err)
	}
	return err
}

// Inserter inserts rows into one table.
type Inserter struct {
	l    *Loader
	cols int
	aff  []byte // the columns' affinities
	w    *lite.TableWriter
	row  []Value
}

// Kinds of Value.
const (
	Null  = lite.ValNull
	Int   = lite.ValInt
	Float = lite.ValFloat
	Text  = lite.ValText
	Blob  = lite.ValBlob
)

// Value is one value to insert: Kind says which field holds it. Text is
// UTF-8 (a Text or Blob value's bytes are in Text).
type Value = lite.Datum

// RowError is an error inserting rows: Row is the index (from 0) of the
// row that failed. It wraps ErrTooBig when the database is full.
type RowError struct {
	Row int
	Err error
}

func (e *RowError) Error() string { return e.Err.Error() }
func (e *RowError) Unwrap() error { return e.Err }

// Insert inserts rows: vals holds one Value per column for each row, row
// after row.
func (in *Inserter) Insert(vals []Value) error {
	n := len(vals) / in.cols
	for r := range n {
		row := append(in.row[:0], vals[r*in.cols:(r+1)*in.cols]...)
		in.row = row
		for i := range row {
			if !lite.Store(&row[i], in.aff[i]) {
				if err := in.l.o.Store(&row[i], in.aff[i]); err != nil {
					return &RowError{Row: r, Err: err}
				}
			}
		}
		if err := in.w.Append(row); err != nil {
			return &RowError{Row: r, Err: in.l.explain(err)}
		}
	}
	return nil
}

// Close ends the table.
func (in *Inserter) Close() error {
	return in.l.explain(in.w.Close())
}
