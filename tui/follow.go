package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/catalog"
)

// schemaEvery is how often the explorer asks core/db for the catalog to
// follow schema changes made by other processes. Asking is cheap: db.DB
// answers with the catalog it holds and itself decides when to check the
// schema (a SQLite file: at most once a second, by its file stamp; a
// server: every db.SchemaCheckEvery) and when to read the catalog again.
const schemaEvery = 2 * time.Second

// schemaTickMsg is the time to ask for the catalog again. Only the tick
// of the latest followSchema counts (gen), so one chain of ticks runs.
type schemaTickMsg struct{ gen int }

// schemaMsg is the catalog core/db holds now: a different one than shown
// means the schema changed.
type schemaMsg struct {
	cat *catalog.Catalog
	err error
}

// followSchema asks for the catalog again after schemaEvery.
func (a *App) followSchema() tea.Cmd {
	a.schemaGen++
	gen := a.schemaGen
	return tea.Tick(schemaEvery, func(time.Time) tea.Msg { return schemaTickMsg{gen: gen} })
}

// onSchemaTick asks core/db for its catalog in the background, unless an
// earlier ask still runs (its answer schedules the next tick).
func (a *App) onSchemaTick(msg schemaTickMsg) tea.Cmd {
	if msg.gen != a.schemaGen || a.schemaBusy {
		return nil
	}
	a.schemaBusy = true
	ctx, d := a.ctx, a.d
	return func() tea.Msg {
		cat, err := d.Catalog(ctx)
		return schemaMsg{cat: cat, err: err}
	}
}

// onSchema shows a catalog read again everywhere the explorer uses it,
// and schedules the next ask. A catalog that could not be read at first
// (a.cat nil) is shown once it is, and the welcome example looked for.
func (a *App) onSchema(msg schemaMsg) tea.Cmd {
	a.schemaBusy = false
	switch {
	case msg.err != nil:
		a.log.Warn("check the schema", "err", msg.err)
	case a.cat == nil:
		a.log.Info("catalog", "tables", len(msg.cat.Tables))
		a.showCatalog(msg.cat, nil)
		return tea.Batch(a.findExample(msg.cat), a.followSchema())
	case msg.cat != a.cat:
		a.log.Info("schema changed", "tables", len(msg.cat.Tables), "were", len(a.cat.Tables))
		a.showCatalog(msg.cat, nil)
	}
	return a.followSchema()
}

// showCatalog gives cat (nil when it could not be read, err) to the
// sidebar, the completion, the dot-commands and the welcome screen.
func (a *App) showCatalog(cat *catalog.Catalog, err error) {
	a.cat = cat
	a.schema.SetCatalog(cat, a.d.Dialect(), err)
	a.input.SetCatalog(cat, a.d.Dialect())
	a.grid.SetEmpty(a.welcome(cat))
}
