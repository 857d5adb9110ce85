// Package files opens data files — CSV, TSV, JSON, JSON Lines and Parquet
// — as a database: each file becomes a table of an in-memory SQLite
// database that tablewise fills itself, with column types inferred from
// the values, and then opens read-only like any SQLite file
// (sqlite.OpenMemory). The files are only read; nothing is written beside
// them or anywhere on disk.
package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// DefaultHeapLimit caps SQLite's heap, and so the in-memory database,
// while data files are loaded and no limit was given: 4 GiB. Statements
// then run under what the data holds plus sqlite.DefaultHeapLimit.
const DefaultHeapLimit = 4 << 30

// sampleRows is how many rows (or records) decide a column's type.
const sampleRows = 10_000

// formats maps a file suffix to its format.
var formats = map[string]string{
	".csv":     "csv",
	".tsv":     "tsv",
	".tab":     "tsv",
	".json":    "json",
	".jsonl":   "jsonl",
	".ndjson":  "jsonl",
	".parquet": "parquet",
}

// formatOf is the format path's suffix names, "" for none.
func formatOf(path string) string {
	return formats[strings.ToLower(filepath.Ext(path))]
}

// Paths splits a DSN into the data files it names: one path, or several
// joined by commas (a path that exists with a comma in its name is one
// file). It returns nil when the DSN names no data file.
func Paths(dsn string) []string {
	if strings.HasPrefix(dsn, "file:") || strings.Contains(dsn, "://") {
		return nil
	}
	if formatOf(dsn) != "" {
		if _, err := os.Stat(dsn); err == nil || !strings.Contains(dsn, ",") {
			return []string{dsn}
		}
	}
	parts := strings.Split(dsn, ",")
	for _, p := range parts {
		if formatOf(strings.TrimSpace(p)) == "" {
			return nil
		}
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// LooksLikeData reports whether a command-line argument names data files
// (by suffix: .csv, .tsv, .tab, .json, .jsonl, .ndjson, .parquet; several
// joined by commas).
func LooksLikeData(arg string) bool { return Paths(arg) != nil }

// InputError is a file tablewise could not read as data: it names the
// file and, when known, the line (or record) at fault. It matches
// engine.ErrBadPath.
type InputError struct {
	File string
	Line int64 // 0: not tied to a line
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

func (e *InputError) Unwrap() error { return engine.ErrBadPath }

// notFound is a missing data file (engine.ErrNotFound).
type notFound struct{ path string }

func (e *notFound) Error() string {
	return "data file not found: " + e.path + " (check the path)"
}
func (e *notFound) Unwrap() error { return engine.ErrNotFound }

// Open loads the data files dsn names (Paths) into an in-memory database,
// a table per file named after it, and opens that read-only.
// opt.HeapLimit defaults to DefaultHeapLimit; opt.Progress, when set,
// counts the load.
func Open(ctx context.Context, dsn string, opt engine.Options) (engine.Engine, error) {
	paths := Paths(dsn)
	if len(paths) == 0 {
		return nil, &InputError{File: dsn, Msg: "not a data file: give a .csv, .tsv, .json, .jsonl or .parquet file"}
	}
	var hint int64
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &notFound{p}
		case err != nil:
			return nil, fmt.Errorf("open %s: %w", p, err)
		case st.IsDir():
			return nil, &InputError{File: p, Msg: "is a directory: give a data file"}
		case !st.Mode().IsRegular():
			return nil, &InputError{File: p, Msg: "is not a regular file: give a data file"}
		}
		hint += sizeHint(p, st.Size())
	}
	if opt.HeapLimit <= 0 {
		opt.HeapLimit = DefaultHeapLimit
	}
	names := tableNames(paths)
	bases := make([]string, len(paths))
	for i, p := range paths {
		bases[i] = filepath.Base(p)
	}
	display := make([]string, len(paths))
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			display[i] = abs
		} else {
			display[i] = p
		}
	}
	m := sqlite.Memory{
		Source:   engine.Source{Display: strings.Join(display, ", "), Label: strings.Join(bases, ", ")},
		Files:    paths,
		SizeHint: hint,
		Load: func(ctx context.Context, l *sqlite.Loader) error {
			for i, p := range paths {
				if err := loadFile(ctx, l, p, names[i], opt.Progress); err != nil {
					return err
				}
			}
			return nil
		},
	}
	e, err := sqlite.OpenMemory(ctx, m, opt)
	if err != nil {
		var big *tooBig
		if errors.As(err, &big) {
			return nil, &query.LimitError{Kind: "memory",
				Msg:  fmt.Sprintf("%s does not fit in memory: at line %d the in-memory database reached SQLite's heap limit of %s", big.file, big.line, format.Bytes(opt.HeapLimit)),
				Hint: "load a smaller file (or fewer files), or convert it to a SQLite database file and open that"}
		}
		return nil, err
	}
	return e, nil
}

// tooBig is a load stopped by the heap limit at a line of a file.
type tooBig struct {
	file string
	line int64
	err  error
}

func (e *tooBig) Error() string { return fmt.Sprintf("%s line %d: %v", e.file, e.line, e.err) }
func (e *tooBig) Unwrap() error { return e.err }

// sizeHint is about how much room a file's table takes in memory: a
// little more than a text file's size (SQLite's records are about as big
// as CSV's, a JSON record's keys are not stored), four times a compressed
// Parquet file's. Too little only means the database grows once it is
// full.
func sizeHint(path string, size int64) int64 {
	if formatOf(path) == "parquet" {
		return 4*size + 1<<20
	}
	return size + size/4 + 1<<20
}

// tableNames names a table after each file: the file name without its
// suffix, with every character other than a letter, digit or underscore
// made an underscore ("sales 2024.csv" → sales_2024), a leading digit
// prefixed with "t_", and a name already taken suffixed with _2, _3…
func tableNames(paths []string) []string {
	taken := map[string]bool{}
	out := make([]string, len(paths))
	for i, p := range paths {
		base := filepath.Base(p)
		base = strings.TrimSuffix(base, filepath.Ext(base))
		n := strings.Map(func(r rune) rune {
			if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return '_'
		}, base)
		if n == "" || unicode.IsDigit([]rune(n)[0]) {
			n = "t_" + n
		}
		out[i] = distinct(n, taken)
	}
	return out
}

// loadFile loads one file into table name.
func loadFile(ctx context.Context, l *sqlite.Loader, path, name string, prog *engine.LoadProgress) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if prog == nil {
		prog = &engine.LoadProgress{}
	}
	prog.File.Store(&path)
	prog.Bytes.Store(0)
	prog.Total.Store(st.Size())
	t := &tableLoad{ctx: ctx, l: l, file: path, table: name, prog: prog}
	r := &countingReader{r: f, n: &prog.Bytes}
	switch formatOf(path) {
	case "csv":
		err = t.csv(r, 0)
	case "tsv":
		err = t.csv(r, '\t')
	case "json":
		err = t.json(f, false)
	case "jsonl":
		err = t.json(f, true)
	case "parquet":
		err = t.parquet(f, st.Size())
	}
	if err != nil {
		return err
	}
	t.notes()
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n interface{ Add(int64) int64 }
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// tableLoad is the load of one file into one table.
type tableLoad struct {
	ctx   context.Context
	l     *sqlite.Loader
	file  string
	table string
	prog  *engine.LoadProgress
	cols  []*column
	// latin1 counts text values that were not UTF-8 and were read as
	// Latin-1.
	latin1 int64
	rows   int64
	w      *writer
}

// row is one row as read, and where it was.
type row struct {
	cells []cell
	at    int64
}

// inferTypes sets each column's type from the sampled rows.
func (t *tableLoad) inferTypes(sample []row) {
	gs := make([]guess, len(t.cols))
	for i := range gs {
		gs[i] = newGuess()
	}
	for _, r := range sample {
		for i, c := range r.cells {
			if i < len(gs) {
				gs[i].add(c)
			}
		}
	}
	for i, c := range t.cols {
		if c.typ == "" {
			c.typ = gs[i].typ()
		}
	}
}

// batchRows is how many rows go to SQLite at a time.
const batchRows = 512

// batch is rows for insertion, and their lines: cells as read (their
// bytes copied into text, reused from batch to batch), which the writer
// converts into vals, or vals converted already.
type batch struct {
	cells []cell
	vals  []sqlite.Value
	at    []int64
	text  []byte
	// What converting found: per column, the values that did not fit and
	// the line of the first; the text read as Latin-1.
	misfits, first []int64
	latin1         int64
	ready          chan struct{} // converted
}

// writer converts batches on two goroutines and inserts them, in order,
// into the table on a third, so that reading, converting and inserting
// overlap.
type writer struct {
	full, order, free chan *batch
	done              chan struct{}
	failed            atomic.Bool
	err               error
	cur               *batch
}

// converters is how many goroutines convert batches.
const converters = 2

// create creates the table and starts its writer; finish ends it.
func (t *tableLoad) create() error {
	cols := make([]sqlite.Column, len(t.cols))
	for i, c := range t.cols {
		cols[i] = sqlite.Column{Name: c.name, Type: c.typ}
		c.conv = convOf(c.typ)
	}
	in, err := t.l.CreateTable(t.table, cols)
	if err != nil {
		return fmt.Errorf("load %s: %w", t.file, err)
	}
	const batches = 8
	w := &writer{full: make(chan *batch, batches), order: make(chan *batch, batches), free: make(chan *batch, batches), done: make(chan struct{})}
	for range batches {
		w.free <- &batch{ready: make(chan struct{}, 1), misfits: make([]int64, len(t.cols)), first: make([]int64, len(t.cols))}
	}
	w.cur = <-w.free
	t.w = w
	for range converters {
		go func() {
			for b := range w.full {
				if !w.failed.Load() && len(b.cells) > 0 {
					t.convert(b)
				}
				b.ready <- struct{}{}
			}
		}()
	}
	go func() { // inserting, in the order read; it alone updates the columns' counts
		defer close(w.done)
		for b := range w.order {
			<-b.ready
			for i, c := range t.cols {
				if b.misfits[i] > 0 {
					if c.misfits == 0 {
						c.first = b.first[i]
					}
					c.misfits += b.misfits[i]
				}
				b.misfits[i] = 0
			}
			t.latin1 += b.latin1
			b.latin1 = 0
			if w.err == nil {
				if err := in.Insert(b.vals); err != nil {
					at := int64(0)
					var re *sqlite.RowError
					if errors.As(err, &re) && re.Row < len(b.at) {
						at = b.at[re.Row]
					}
					w.err = t.fail(err, at)
					w.failed.Store(true)
				}
			}
			b.cells, b.vals, b.at, b.text = b.cells[:0], b.vals[:0], b.at[:0], b.text[:0]
			w.free <- b
		}
		if err := in.Close(); err != nil && w.err == nil {
			w.err = t.fail(err, t.rows)
		}
	}()
	return nil
}

// insert queues one row, its cells copied; missing trailing cells are
// NULL.
func (t *tableLoad) insert(cells []cell, at int64) error {
	b := t.w.cur
	for i := range t.cols {
		c := cell{k: kNull}
		if i < len(cells) {
			c = cells[i]
		}
		if len(c.b) > 0 {
			if cap(b.text)-len(b.text) < len(c.b) {
				b.text = make([]byte, 0, max(2*cap(b.text), 64<<10, len(c.b)))
			}
			b.text = append(b.text, c.b...)
			c.b = b.text[len(b.text)-len(c.b) : len(b.text) : len(b.text)]
		}
		b.cells = append(b.cells, c)
	}
	return t.queued(at)
}

// convert turns a batch's cells into values by their columns' types,
// counting in the batch what did not fit and what was read as Latin-1.
func (t *tableLoad) convert(b *batch) {
	n := len(t.cols)
	b.vals = slices.Grow(b.vals, len(b.cells))
	for r, at := range b.at {
		for i, col := range t.cols {
			v, misfit, latin1 := value(col.conv, b.cells[r*n+i])
			if misfit {
				if b.misfits[i] == 0 {
					b.first[i] = at
				}
				b.misfits[i]++
			}
			if latin1 {
				b.latin1++
			}
			b.vals = append(b.vals, v)
		}
	}
}

// queued ends a row appended to the current batch, and sends the batch
// when it is full.
func (t *tableLoad) queued(at int64) error {
	w := t.w
	b := w.cur
	b.at = append(b.at, at)
	t.rows++
	if len(b.at) < batchRows {
		return nil
	}
	t.prog.Rows.Add(int64(len(b.at)))
	w.send(b)
	w.cur = <-w.free
	if w.failed.Load() {
		return errStopped
	}
	return t.ctx.Err()
}

// send hands a full batch to the converters and to the inserting
// goroutine, which takes batches in the order sent.
func (w *writer) send(b *batch) {
	w.order <- b
	w.full <- b
}

// errStopped stands for the writer's own error, which finish returns.
var errStopped = errors.New("stopped")

// finish inserts the last rows, waits for the writer and returns the
// load's first error (err, when the reader stopped with one).
func (t *tableLoad) finish(err error) error {
	w := t.w
	if w == nil {
		return err
	}
	t.w = nil
	if err == nil && len(w.cur.at) > 0 {
		t.prog.Rows.Add(int64(len(w.cur.at)))
		w.send(w.cur)
	}
	close(w.full)
	close(w.order)
	<-w.done
	if w.err != nil {
		return w.err
	}
	return err
}

func (t *tableLoad) fail(err error, at int64) error {
	if errors.Is(err, sqlite.ErrTooBig) {
		return &tooBig{file: t.file, line: at, err: err}
	}
	return &InputError{File: t.file, Line: at, Msg: err.Error()}
}

// notes adds the load's notes for the user: values kept as text in a
// typed column, text read as Latin-1.
func (t *tableLoad) notes() {
	for _, c := range t.cols {
		if c.misfits > 0 {
			t.l.Warn(fmt.Sprintf("%s: column %s is %s but %s did not fit (the first on line %d); they are kept as text",
				t.file, c.name, c.typ, format.Plural(c.misfits, "value"), c.first))
		}
	}
	if t.latin1 > 0 {
		t.l.Warn(fmt.Sprintf("%s: %s were not valid UTF-8 and were read as Latin-1", t.file, format.Plural(t.latin1, "value")))
	}
}

// columnNames makes names for a table's columns from a header: spaces
// trimmed, an empty name made column_N, a repeated one suffixed _2, _3…
func columnNames(header []string) []*column {
	taken := map[string]bool{}
	out := make([]*column, len(header))
	for i, h := range header {
		out[i] = &column{name: distinctName(strings.TrimSpace(h), i, taken)}
	}
	return out
}

// distinctName is the name of the column at index i: name, or column_N
// (N = i+1) when it is blank, made distinct from the names in taken.
func distinctName(name string, i int, taken map[string]bool) string {
	if strings.TrimSpace(name) == "" {
		name = fmt.Sprintf("column_%d", i+1)
	}
	return distinct(name, taken)
}

// distinct is name, suffixed _2, _3… while taken holds it in any case
// (names that differ only in case are one name to SQLite). It adds the
// name it returns to taken.
func distinct(name string, taken map[string]bool) string {
	base := name
	for k := 2; taken[strings.ToLower(name)]; k++ {
		name = fmt.Sprintf("%s_%d", base, k)
	}
	taken[strings.ToLower(name)] = true
	return name
}
