package offline

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
)

// A planner lives as long as the process that asks it (the MCP server,
// the explorer, the Discord bridge: hours), and the database may change
// meanwhile: rows with new values, new tables. When a question comes and
// the database may have changed since the index was built, the planner
// answers from the index it has, at once, and builds a fresh one in the
// background — one at a time, within a deadline — which the next
// questions use once it is complete. A rebuild that fails leaves the
// index it would have replaced in use, and is tried again later.
//
// A SQLite file has changed when its stamp (db.FileStamp: the size and
// modification time of the file and its -wal) is not the one the index
// was built at; a question looks at it at most once a second. A
// database without one (a server) is checked at most once a minute, in
// the background, by its catalog's schema version and row counts
// (schemaVersion). A rebuild reads the catalog anew, and uses the scans
// and index kept in the state directory where still valid, as a new
// process would; what it builds is kept there for the next.

// Defaults of a planner's refresher.
const (
	// fileCheckEvery: how often a question looks at a SQLite file's stamp.
	fileCheckEvery = time.Second
	// serverCheckEvery: how often a server's catalog is read to see
	// whether it changed.
	serverCheckEvery = time.Minute
	// buildTimeout bounds one build of the index, the first or a
	// rebuild: its catalog read and scans have budgets of their own
	// (db.CatalogTimeout, indexBudget); this one holds whatever else
	// would wait.
	buildTimeout = 2 * time.Minute * engine.RaceSlowdown
	// retryAfter: how long after a failed rebuild the next may start.
	retryAfter = time.Minute
)

// refresher decides when a planner's index is rebuilt.
type refresher struct {
	fileEvery, serverEvery, timeout, retry time.Duration
	// onBuild, when set (by tests), runs first in every build, with its
	// context; an error it returns fails the build.
	onBuild func(ctx context.Context, rebuild bool) error

	mu sync.Mutex
	// checked: when the index was last checked; retryAt: no rebuild
	// starts before then (one failed).
	checked, retryAt time.Time
	// done is closed when the rebuild running (or the last one) ends;
	// nil while none has started.
	done    chan struct{}
	running bool
}

func newRefresher() refresher {
	return refresher{fileEvery: fileCheckEvery, serverEvery: serverCheckEvery, timeout: buildTimeout, retry: retryAfter}
}

// freshCatalog is where a rebuild's catalog comes from: cat when it was
// already read (to see whether a server's changed), else the engine,
// never the database's cached copy.
type freshCatalog struct {
	d   *db.DB
	cat *catalog.Catalog
}

func (f *freshCatalog) read(ctx context.Context) (*catalog.Catalog, error) {
	if f.cat != nil {
		return f.cat, nil
	}
	ctx, cancel := context.WithTimeout(ctx, db.CatalogTimeout)
	defer cancel()
	cat, err := f.d.Engine().Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	f.cat = cat
	return cat, nil
}

// maybeRefresh starts a rebuild of ix in the background when the
// database may have changed since it was built and none is running. It
// never waits for one.
func (p *Planner) maybeRefresh(ix *index) {
	r := &p.refresh
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	every := r.serverEvery
	if ix.stamped {
		every = r.fileEvery
	}
	if r.running || now.Sub(r.checked) < every || now.Before(r.retryAt) {
		return
	}
	r.checked = now
	if ix.stamped {
		if files, ok := p.d.FileStamp(); ok && files == ix.files {
			return
		}
	}
	r.running = true
	r.done = make(chan struct{})
	go p.rebuild(ix, r.done)
}

// rebuild builds a fresh index in place of old, unless the database
// proves unchanged; errors are logged, and old stays in use.
func (p *Planner) rebuild(old *index, done chan struct{}) {
	r := &p.refresh
	ix, err := p.rebuilt(old)
	r.mu.Lock()
	if err != nil {
		r.retryAt = time.Now().Add(r.retry)
	}
	if ix != nil {
		p.cur.Store(ix)
	}
	r.running = false
	close(done)
	r.mu.Unlock()
	if err != nil {
		slog.Warn("offline planner: rebuilding the index failed; the earlier one still answers", "database", p.d.Label(), "err", err)
	}
}

// rebuilt returns a fresh index of the database, or nil when its catalog
// shows it is as old was built on (a database without a file stamp).
func (p *Planner) rebuilt(old *index) (*index, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.refresh.timeout)
	defer cancel()
	fresh := &freshCatalog{d: p.d}
	if !old.stamped {
		cat, err := fresh.read(ctx)
		if err != nil {
			return nil, err
		}
		if schema, rows := schemaVersion(cat); schema == old.schemaV && rows == old.rowsV {
			return nil, nil
		}
	}
	return p.build(ctx, fresh)
}
