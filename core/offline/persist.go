package offline

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/config"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
)

// The value index is built from the results of bounded scans of the data
// (values.go). Those results are kept between runs in a file of the state
// directory (never beside the database), so a planner that starts again on
// the same database reads them instead of scanning: the index, and so the
// answers, are the same as a fresh build's, and a question costs its own
// query. The file is named by the database's identity (engine and source)
// and its schema version (a hash of its tables, columns, types and
// indexes); it holds the row counts it was built at, and a database whose
// row counts have changed since is scanned again and the file rewritten.
// A database's file of an earlier schema is removed when a new one is
// written.
//
// For a SQLite file the file also keeps the catalog, with the size and
// modification time of the database's files (db.FileStamp): while those
// are the same nothing was written, and the catalog is taken from the file
// instead of being read again (on 2,000 tables, 10,000 statements). Any
// write changes them, and the catalog is read and checked as above.

// DefaultIndexDir is where the planner keeps its value indexes:
// tablewise/offline in the state directory.
func DefaultIndexDir() string { return filepath.Join(config.StateDir(), "tablewise", "offline") }

// scanFormat changes when the file's layout or what is scanned does.
const scanFormat = 5

// scanFile is what is kept of one database's scans.
type scanFile struct {
	Format   int
	Identity string
	Schema   string
	// Stamp is the row counts the scans were made at.
	Stamp string
	// results: the scans' results by SQL text, read from the file
	// (rest) only when the value index is built from them.
	results map[string]scanResult
	rest    *fileRest
	// Files is the database's db.FileStamp when the file was written, and
	// Catalog its catalog then: while the stamp is the same, the catalog
	// need not be read. Empty for databases without one.
	Files   string
	Catalog []keptTable
	// index is the value index built from the scans on Catalog
	// (keptindex.go), read instead of building it again while the
	// database's files are the same; empty when none is kept.
	// builtIndex, when not nil, replaces it: the index just built, to
	// be written.
	index      string
	builtIndex []byte
}

// The file holds, each after its length in bytes (a uvarint): the gob of
// its scanFile (all but the index and the scans), the index, and the gob
// of the scans. A planner that reads the index stops there.

// fileRest is the open file after the index: the scans.
type fileRest struct {
	f *os.File
	r *bufio.Reader
}

// scans returns the file's scans, reading them on first use. Scans that
// cannot be read are as none: they are made again.
func (f *scanFile) scans() map[string]scanResult {
	if f.results == nil {
		f.results = map[string]scanResult{}
		if f.rest != nil {
			raw, err := readSection(f.rest.r, math.MaxInt32)
			if err != nil || gob.NewDecoder(bytes.NewReader(raw)).Decode(&f.results) != nil {
				f.results = map[string]scanResult{}
			}
		}
		f.close()
	}
	return f.results
}

// close closes the file, if it is still open.
func (f *scanFile) close() {
	if f != nil && f.rest != nil {
		f.rest.f.Close()
		f.rest = nil
	}
}

// readSection reads a length and as many bytes, at most limit.
func readSection(r *bufio.Reader, limit uint64) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("section of %d bytes", n)
	}
	out := make([]byte, n)
	_, err = io.ReadFull(r, out)
	return out, err
}

// keptTable is a catalog.Table, its sample rows in the kept index's
// encoding of values (encoder.rows).
type keptTable struct {
	Table  catalog.Table
	Sample string
}

// scanResult is a kept query.Result: its rows, typed cell by cell (gob
// cannot carry a nil in an interface).
type scanResult struct {
	Rows      [][]cell
	Truncated bool
}

// cell is one value: Kind 0 NULL, 1 int64, 2 float64, 3 text, 4 bytes.
type cell struct {
	Kind byte
	I    int64
	F    float64
	S    string
	B    []byte
}

func toScan(res *query.Result) (scanResult, bool) {
	out := scanResult{Truncated: res.Truncated, Rows: make([][]cell, len(res.Rows))}
	for i, r := range res.Rows {
		out.Rows[i] = toCells(r)
		if out.Rows[i] == nil && r != nil {
			return scanResult{}, false // a type this file does not keep
		}
	}
	return out, true
}

// toCells types a row's values cell by cell; nil when one is of a type
// the file does not keep.
func toCells(r []any) []cell {
	out := make([]cell, len(r))
	for j, v := range r {
		switch v := v.(type) {
		case nil:
		case int64:
			out[j] = cell{Kind: 1, I: v}
		case float64:
			out[j] = cell{Kind: 2, F: v}
		case string:
			out[j] = cell{Kind: 3, S: v}
		case []byte:
			out[j] = cell{Kind: 4, B: v}
		default:
			return nil
		}
	}
	return out
}

func fromCells(r []cell) []any {
	row := make([]any, len(r))
	for j, c := range r {
		switch c.Kind {
		case 1:
			row[j] = c.I
		case 2:
			row[j] = c.F
		case 3:
			row[j] = c.S
		case 4:
			row[j] = c.B
		}
	}
	return row
}

func (s scanResult) result(sql string) *query.Result {
	res := &query.Result{SQL: sql, RowCount: len(s.Rows), Truncated: s.Truncated, Rows: make([]query.Row, len(s.Rows))}
	for i, r := range s.Rows {
		res.Rows[i] = fromCells(r)
	}
	return res
}

// scanCache serves the value index's scans from a scanFile and records
// new ones. Only successful scans are kept.
type scanCache struct {
	path  string
	mu    sync.Mutex
	file  *scanFile
	dirty bool
	hits  int
	// served: the scans the value index was built from, kept or made.
	served int
	// keptCat: the catalog was read from the file; cat is it.
	keptCat bool
	cat     *catalog.Catalog
}

type scanCacheKey struct{}

// openKept returns d's catalog and the scans kept in dir for it. When the
// database's files are as they were when the file was written
// (db.FileStamp), the catalog comes from the file too and the database is
// not read at all; otherwise the catalog is read, and the scans are kept
// only when the schema and row counts are the same. A nil cache (no dir)
// keeps nothing. fresh is nil for a planner's first build, which reads
// the database's cached catalog and caches the file's; a rebuild's
// catalog is read anew (or was, fresh.cat), never the cached one.
func openKept(ctx context.Context, dir string, d *db.DB, fresh *freshCatalog) (*scanCache, *catalog.Catalog, error) {
	readCatalog := d.Catalog
	if fresh != nil {
		readCatalog = fresh.read
	}
	if dir == "" {
		cat, err := readCatalog(ctx)
		return nil, cat, err
	}
	identity := d.Engine().Dialect().Name() + " " + d.Source()
	id := sha256.Sum256([]byte(identity))
	prefix := filepath.Join(dir, hex.EncodeToString(id[:12])+"-")
	files, stamped := d.FileStamp()
	if stamped {
		paths, _ := filepath.Glob(prefix + "*.gob")
		for _, path := range paths {
			f := readScanFile(path, identity)
			var kept *catalog.Catalog
			if f != nil && f.Files == files && f.Catalog != nil {
				kept = f.catalog()
			}
			if kept == nil {
				f.close()
				continue
			}
			cat := kept
			if fresh == nil {
				cat = d.Adopt(kept)
			}
			// The file's copy is let go; it is written again from cat
			// if the file is.
			f.Catalog = nil
			return &scanCache{path: path, file: f, keptCat: true, cat: cat}, cat, nil
		}
	}
	cat, err := readCatalog(ctx)
	if err != nil {
		return nil, nil, err
	}
	schema, stamp := schemaVersion(cat)
	c := &scanCache{path: prefix + schema[:16] + ".gob"}
	f := readScanFile(c.path, identity)
	if f == nil || f.Schema != schema || f.Stamp != stamp {
		f.close()
		f = &scanFile{Format: scanFormat, Identity: identity, Schema: schema, Stamp: stamp, results: map[string]scanResult{}}
	}
	if stamped && f.Files != files {
		// Kept with the files' stamp, the catalog is not read next time.
		f.Files = files
		f.keepCatalog(cat)
		c.dirty = true
	}
	c.file = f
	return c, cat, nil
}

// readScanFile reads the file at path up to its scans (left open, read
// when needed), or returns nil when there is none or it is of another
// format or database.
func readScanFile(path, identity string) *scanFile {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil
	}
	size := uint64(info.Size())
	r := bufio.NewReaderSize(fh, 1<<16)
	var f scanFile
	head, err := readSection(r, size)
	if err != nil || gob.NewDecoder(bytes.NewReader(head)).Decode(&f) != nil || f.Format != scanFormat || f.Identity != identity {
		fh.Close()
		return nil
	}
	// The index is read into a string its values' strings share.
	n, err := binary.ReadUvarint(r)
	if err != nil || n > size {
		fh.Close()
		return nil
	}
	var index strings.Builder
	index.Grow(int(n))
	if _, err := io.CopyN(&index, r, int64(n)); err != nil {
		fh.Close()
		return nil
	}
	f.index = index.String()
	f.rest = &fileRest{f: fh, r: r}
	return &f
}

// keepCatalog puts cat in the file.
func (f *scanFile) keepCatalog(cat *catalog.Catalog) {
	f.Catalog = make([]keptTable, len(cat.Tables))
	for i, t := range cat.Tables {
		k := keptTable{Table: *t}
		k.Table.Sample = nil
		e := &encoder{}
		e.rows(t.Sample)
		k.Sample = string(e.b)
		f.Catalog[i] = k
	}
}

// catalog is the catalog the file keeps, or nil when its sample rows
// cannot be read.
func (f *scanFile) catalog() *catalog.Catalog {
	tables := make([]*catalog.Table, len(f.Catalog))
	for i := range f.Catalog {
		k := &f.Catalog[i]
		t := k.Table
		d := &decoder{s: k.Sample}
		if t.Sample = d.rows(); d.bad || len(d.s) != 0 {
			return nil
		}
		tables[i] = &t
	}
	return catalog.New(tables)
}

// schemaVersion hashes what the scans depend on: tables, columns, types
// and indexes (the schema), and row counts (the stamp).
func schemaVersion(cat *catalog.Catalog) (schema, stamp string) {
	hs, hr := sha256.New(), sha256.New()
	tables := append([]*catalog.Table(nil), cat.Tables...)
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	for _, t := range tables {
		fmt.Fprintf(hs, "%s %s\n", t.Kind, t.Name)
		for _, col := range t.Columns {
			fmt.Fprintf(hs, "  %s %s %d\n", col.Name, col.Type, col.PK)
		}
		for _, ix := range t.Indexes {
			fmt.Fprintf(hs, "  index %s %v\n", ix.Name, ix.Columns)
		}
		fmt.Fprintf(hr, "%s %d\n", t.Name, t.RowCount)
	}
	return hex.EncodeToString(hs.Sum(nil)), hex.EncodeToString(hr.Sum(nil))
}

// collect runs a scan of the value index, or returns its kept result.
func collect(ctx context.Context, d *db.DB, sql string, opt query.Options) (*query.Result, error) {
	c, _ := ctx.Value(scanCacheKey{}).(*scanCache)
	if c == nil {
		return query.Collect(ctx, d, sql, opt)
	}
	c.mu.Lock()
	kept, ok := c.file.scans()[sql]
	if ok {
		c.hits++
		c.served++
	}
	c.mu.Unlock()
	if ok {
		return kept.result(sql), nil
	}
	res, err := query.Collect(ctx, d, sql, opt)
	if err != nil {
		return nil, err
	}
	if kept, ok := toScan(res); ok {
		c.mu.Lock()
		c.file.scans()[sql] = kept
		c.served++
		c.dirty = true
		c.mu.Unlock()
	}
	return res, nil
}

// save writes the scans when some are new, replacing the file whole.
func (c *scanCache) save() error {
	if c == nil || !c.dirty {
		return nil
	}
	if c.file.Catalog == nil && c.cat != nil {
		c.file.keepCatalog(c.cat)
	}
	var head, scans bytes.Buffer
	if err := gob.NewEncoder(&head).Encode(c.file); err != nil {
		return err
	}
	if err := gob.NewEncoder(&scans).Encode(c.file.scans()); err != nil {
		return err
	}
	index := c.file.builtIndex
	if index == nil {
		index = []byte(c.file.index)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	out, err := atomicfile.Create(c.path, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	for _, sec := range [][]byte{head.Bytes(), index, scans.Bytes()} {
		w.Write(binary.AppendUvarint(nil, uint64(len(sec))))
		w.Write(sec)
	}
	if err := w.Flush(); err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	// The same database's files of earlier schemas are of no more use.
	id, _, _ := strings.Cut(filepath.Base(c.path), "-")
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(c.path), id+"-*.gob"))
	for _, p := range old {
		if p != c.path {
			_ = os.Remove(p) // best effort
		}
	}
	return nil
}

// reused is how many scans were served from the file.
func (c *scanCache) reused() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// catalogKept: the catalog was read from the file, not the database.
func (c *scanCache) catalogKept() bool { return c != nil && c.keptCat }

// keptValues returns the value index kept in the file, built on s, and
// the number of scans it was built from, when the catalog is the file's
// (the database's files have not changed since it was written); else nil.
func (c *scanCache) keptValues(s *schema) (*valueIndex, int) {
	if c == nil || !c.keptCat || len(c.file.index) == 0 {
		return nil, 0
	}
	return decodeValues(c.file.index, s)
}

// release closes the file; the cache keeps no more scans after it.
func (c *scanCache) release() {
	if c != nil {
		c.file.close()
	}
}

// keepValues puts vi, just built on s, in the file; an index some scan
// of which failed is not kept, so the next planner builds it again.
func (c *scanCache) keepValues(s *schema, vi *valueIndex) {
	if c == nil {
		return
	}
	var enc []byte
	if !vi.partial {
		c.mu.Lock()
		served := c.served
		c.mu.Unlock()
		enc = encodeValues(s, vi, served)
	}
	if string(enc) != c.file.index {
		c.file.index, c.file.builtIndex = "", enc
		c.dirty = true
	}
}
