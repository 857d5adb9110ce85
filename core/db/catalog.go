package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
)

// CatalogTimeout bounds reading the catalog when the caller's context has
// no earlier deadline.
var CatalogTimeout = 10 * time.Second * engine.RaceSlowdown

var _ guard.Names = (*catalog.Catalog)(nil)

// Catalog reads the tables, views, columns, keys, indexes, row counts and
// sample rows, within ctx's deadline or CatalogTimeout, whichever comes
// first, and caches them. One caller reads at a time; callers waiting for
// another caller's read give up when their own ctx ends, and when that
// read fails the next caller reads again.
//
// A process may hold the database for hours while its schema changes. At
// most once every Options.SchemaCheck a caller asks the engine whether it
// did (engine.SchemaVersioner; a SQLite file only when its FileStamp
// moved) and, when it did, reads the catalog again before answering;
// meanwhile other callers get the cached catalog. A check or read again
// that fails is logged, and the cached catalog is kept. While the schema
// is unchanged Catalog returns the same *catalog.Catalog, so a caller
// that shows it (the explorer) asks again and compares to follow changes.
func (d *DB) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	if c := d.catalog.Load(); c != nil {
		return d.current(ctx, c, false, true), nil
	}
	c, err := d.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	return c.cat, nil
}

// Names returns the table and column names hints need: the cached catalog
// when there is one, else the names alone, read quickly by the engine
// within ctx's deadline (and cached). Either follows the schema's changes
// as Catalog does.
func (d *DB) Names(ctx context.Context) (guard.Names, error) {
	if c := d.catalog.Load(); c != nil {
		return d.current(ctx, c, false, false), nil
	}
	if c := d.names.Load(); c != nil {
		return d.current(ctx, c, true, false), nil
	}
	c, err := d.reread(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("read names: %w", err)
	}
	return c.cat, nil
}

// Adopt caches cat as the database's catalog when none has been read yet
// (a catalog kept from an earlier run whose files have not changed since,
// FileStamp), and returns the catalog the database now holds. The first
// check after its files change reads the catalog again.
func (d *DB) Adopt(cat *catalog.Catalog) *catalog.Catalog {
	stamp, _ := d.FileStamp()
	d.catalog.CompareAndSwap(nil, &cached{cat: cat, stamp: stamp})
	return d.catalog.Load().cat
}

// cached is a catalog (or the names alone) and the schema as it was
// when it was read: the engine's schema version ("" when unknown) and
// the database's FileStamp ("" for none).
type cached struct {
	cat            *catalog.Catalog
	version, stamp string
}

// slot is where d caches what read reads: the catalog or the names.
func (d *DB) slot(names bool) *atomic.Pointer[cached] {
	if names {
		return &d.names
	}
	return &d.catalog
}

// read reads the catalog into its slot, with the schema version it was
// read at, one caller at a time; a caller waiting gives up when ctx ends.
func (d *DB) read(ctx context.Context) (*cached, error) {
	if err := d.lock(ctx); err != nil {
		return nil, err
	}
	defer d.unlock()
	if c := d.catalog.Load(); c != nil {
		return c, nil
	}
	return d.reread(ctx, false)
}

// lock takes d.catMu, or gives up when ctx ends.
func (d *DB) lock(ctx context.Context) error {
	select {
	case d.catMu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *DB) unlock() { <-d.catMu }

// reread reads the catalog (or the names) from the engine and caches it.
// d.catMu is held to read the catalog; the names (quick, and what hints
// need within a short deadline) are read without waiting for it. The
// version and stamp are taken first, so that a change made during the
// read is seen by the next check.
func (d *DB) reread(ctx context.Context, names bool) (*cached, error) {
	ctx, cancel := context.WithTimeout(ctx, CatalogTimeout)
	defer cancel()
	c := &cached{}
	c.stamp, _ = d.FileStamp()
	if sv, ok := d.eng.(engine.SchemaVersioner); ok {
		// Unknown ("") when it cannot be read: the next check reads the
		// catalog again.
		c.version, _ = sv.SchemaVersion(ctx)
	}
	var err error
	if names {
		c.cat, err = d.eng.Names(ctx)
	} else {
		c.cat, err = d.eng.Catalog(ctx)
	}
	if err != nil {
		return nil, err
	}
	d.rereads.Add(1)
	d.slot(names).Store(c)
	d.checkAt.Store(time.Now().Add(d.checkEvery).UnixNano())
	return c, nil
}

// current returns the catalog (or names) to answer with, c or, when a
// check is due and finds the schema changed, a fresh one. A caller finds
// a check not due with one atomic load; of the callers that find it due,
// one checks and the others answer with c. The one checking waits for a
// catalog read in progress when wait is set (until ctx ends); else (a
// hint, within a short deadline) it leaves the check to the next caller.
func (d *DB) current(ctx context.Context, c *cached, names, wait bool) *catalog.Catalog {
	if _, ok := d.eng.(engine.SchemaVersioner); !ok {
		return c.cat
	}
	now := time.Now().UnixNano()
	at := d.checkAt.Load()
	if now < at || !d.checkAt.CompareAndSwap(at, now+int64(d.checkEvery)) {
		return c.cat
	}
	if !wait {
		// Hints do not wait for a catalog read: the next caller checks.
		select {
		case d.catMu <- struct{}{}:
		default:
			d.checkAt.CompareAndSwap(now+int64(d.checkEvery), at)
			return c.cat
		}
	} else if d.lock(ctx) != nil {
		return c.cat
	}
	defer d.unlock()
	c = d.slot(names).Load() // read since, perhaps
	fresh, err := d.recheck(ctx, c, names)
	if err != nil {
		slog.Warn("reading the catalog again failed; the one read before is still used", "database", d.label, "err", err)
		return c.cat
	}
	return fresh.cat
}

// recheck returns c when the schema is as it was when c was read, else
// reads it again; d.catMu is held.
func (d *DB) recheck(ctx context.Context, c *cached, names bool) (*cached, error) {
	stamp, file := d.FileStamp()
	if file && c.stamp != "" && stamp == c.stamp {
		return c, nil
	}
	vctx, cancel := context.WithTimeout(ctx, CatalogTimeout)
	defer cancel()
	version, err := d.eng.(engine.SchemaVersioner).SchemaVersion(vctx)
	if err != nil {
		return nil, fmt.Errorf("read the schema version: %w", err)
	}
	if version != "" && version == c.version {
		if stamp != c.stamp { // written, not altered: check the version only when it moves again
			c = &cached{cat: c.cat, version: version, stamp: stamp}
			d.slot(names).Store(c)
		}
		return c, nil
	}
	return d.reread(ctx, names)
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
