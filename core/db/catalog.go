package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
)

// CatalogTimeout bounds reading the catalog when the caller's context has
// no earlier deadline.
var CatalogTimeout = 10 * time.Second * engine.RaceSlowdown

var _ guard.Names = (*catalog.Catalog)(nil)

// Catalog reads (once, then cached) the tables, views, columns, keys,
// indexes, row counts and sample rows, within ctx's deadline or
// CatalogTimeout, whichever comes first. One caller reads at a time;
// callers waiting for another caller's read give up when their own ctx
// ends, and when that read fails the next caller reads again.
func (d *DB) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	if cat := d.catalog.Load(); cat != nil {
		return cat, nil
	}
	select {
	case d.catMu <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("read catalog: %w", ctx.Err())
	}
	defer func() { <-d.catMu }()
	if cat := d.catalog.Load(); cat != nil {
		return cat, nil
	}
	ctx, cancel := context.WithTimeout(ctx, CatalogTimeout)
	defer cancel()
	cat, err := d.eng.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	d.catalog.Store(cat)
	return cat, nil
}

// Names returns the table and column names hints need: the cached catalog
// when there is one, else the names alone, read quickly by the engine
// within ctx's deadline (and cached).
func (d *DB) Names(ctx context.Context) (guard.Names, error) {
	if cat := d.catalog.Load(); cat != nil {
		return cat, nil
	}
	if n := d.names.Load(); n != nil {
		return n, nil
	}
	n, err := d.eng.Names(ctx)
	if err != nil {
		return nil, fmt.Errorf("read names: %w", err)
	}
	d.names.Store(n)
	return n, nil
}

// Adopt caches cat as the database's catalog when none has been read yet
// (a catalog kept from an earlier run whose files have not changed since,
// FileStamp), and returns the catalog the database now holds.
func (d *DB) Adopt(cat *catalog.Catalog) *catalog.Catalog {
	d.catalog.CompareAndSwap(nil, cat)
	return d.catalog.Load()
}

// FileStamp describes the database's files — the size and modification
// time of a SQLite file and of its -wal — so that a catalog, or anything
// derived from it and the data, kept with the stamp is known current when
// the stamp is the same: every write changes it. ok is false for a
// database that is not a local SQLite file (a server, data files loaded
// into memory), whose catalog must be read.
func (d *DB) FileStamp() (stamp string, ok bool) {
	path := d.eng.Source().Display
	if what, owned := d.eng.Owns(path); !owned || what != "the database file" {
		return "", false
	}
	var b strings.Builder
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(path + suffix)
		switch {
		case err == nil:
			fmt.Fprintf(&b, "%s %d %d;", suffix, fi.Size(), fi.ModTime().UnixNano())
		case suffix == "" || !errors.Is(err, fs.ErrNotExist):
			return "", false
		}
	}
	return b.String(), true
}
