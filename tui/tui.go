// Package tui is the terminal explorer that "tablewise" opens: a schema
// sidebar, an input for SQL and plain-language questions, a streaming
// results grid, an answer pane, a chart pane, a status bar and key help,
// built with Bubble Tea v2.
//
// Slow work (queries, questions, charts, exports) runs inside tea.Cmds and
// reports back with typed messages; the database is only ever read through
// query.Run, so the read-only guard vets everything the explorer runs.
package tui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/charts"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
	answerpane "github.com/tablewise/tablewise/tui/components/answer"
	"github.com/tablewise/tablewise/tui/components/chart"
	"github.com/tablewise/tablewise/tui/components/detail"
	"github.com/tablewise/tablewise/tui/components/grid"
	"github.com/tablewise/tablewise/tui/components/help"
	"github.com/tablewise/tablewise/tui/components/input"
	"github.com/tablewise/tablewise/tui/components/pager"
	"github.com/tablewise/tablewise/tui/components/prompt"
	"github.com/tablewise/tablewise/tui/components/schema"
	"github.com/tablewise/tablewise/tui/components/statusbar"
	"github.com/tablewise/tablewise/tui/keymap"
)

// Asker answers plain-language questions: the core/ask service. The
// explorer asks every question of a session in one conversation, so a
// follow-up sees the questions before it. onText receives the answer text
// as it comes.
type Asker interface {
	Ask(ctx context.Context, question string, conv ask.Conversation, onText func(delta string)) (*answer.Bundle, error)
}

// conversationKey names the explorer's conversation in the asker's store.
const conversationKey = "explorer"

// ErrNoAsker is what a question shows when no model is configured.
var ErrNoAsker = errors.New("no model configured — set ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL (Ollama, llama.cpp, vLLM, LM Studio), or use --provider offline")

// Defaults.
const (
	DefaultTimeout  = 60 * time.Second
	DefaultMaxBytes = query.DefaultMaxBytes
)

// Options configure the explorer. The zero value works: no asker
// (questions explain how to configure one), 100,000 kept rows, history and
// log in the state directory.
type Options struct {
	// Asker answers questions; nil means questions explain how to set a
	// model up.
	Asker Asker
	// MaxRows is the most rows a result keeps in memory (default
	// grid.DefaultLimit, 100,000); beyond it the result says "of more".
	MaxRows int
	// MaxBytes caps one result's size in memory (default 64 MiB).
	MaxBytes int64
	// Timeout stops a query that runs longer (default 60 s; ctrl+c
	// cancels sooner).
	Timeout time.Duration
	// StateDir holds the history file (tablewise/history); default
	// StateDir(). NoHistory keeps history in memory only.
	StateDir  string
	NoHistory bool
	// Logger receives the explorer's log; nil discards it. Run opens the
	// log file in the state directory.
	Logger *slog.Logger
	// Getenv reads the environment (image protocol detection); default
	// os.Getenv.
	Getenv func(string) string
	// Now is the clock; tests fix it so times on screen are stable.
	Now func() time.Time
	// Context bounds all background work; default context.Background().
	Context context.Context
}

// pane names a focusable pane.
type pane int

const (
	paneSchema pane = iota
	paneInput
	paneAnswer
	paneResults
	paneChart
)

func (p pane) String() string {
	return [...]string{"Schema", "Input", "Answer", "Results", "Chart"}[p]
}

// overlay names the dialog on top, if any.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayDetail
	overlayPrompt
	overlayPager
	overlayNote
)

// App is the explorer's root model.
type App struct {
	ctx    context.Context
	stop   context.CancelFunc
	d      *db.DB
	opts   Options
	com    common.Common
	keys   keymap.KeyMap
	log    *slog.Logger
	now    func() time.Time
	protoc charts.Protocol

	w, h        int
	focus       pane
	sidebar     bool
	chartOff    bool
	chartForced bool
	over        overlay
	pagerBack   overlay // the overlay under the pager, shown again when it closes
	helpOff     int     // the help overlay's first line
	noteTitle   string  // the note overlay: a dot-command's answer
	noteText    string

	schema *schema.Model
	input  *input.Model
	grid   *grid.Model
	answer *answerpane.Model
	chart  *chart.Model
	status *statusbar.Model
	help   *help.Model
	prompt *prompt.Model
	detail *detail.Model
	pager  *pager.Model
	spin   spinner.Model

	cat         *catalog.Catalog // nil until read
	schemaGen   int              // the schema tick that counts (followSchema)
	schemaBusy  bool             // asking core/db for the catalog
	example     string           // the welcome's question, once the planner answered it
	exampleDone bool
	gridLabel   string // what the results show when they come from a dot-command
	job         *job
	lastDot     string // the dot-command last run, as typed
	seq         int
	answerSpec  *answer.ChartSpec // the answer's chart, applied when its SQL re-runs
	clarify     *answerpane.ClarifyMsg
	lay         layout
	quitting    bool
}

var _ tea.Model = (*App)(nil)

// New builds the explorer for d.
func New(d *db.DB, opts Options) *App {
	if opts.MaxRows <= 0 {
		opts.MaxRows = grid.DefaultLimit
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, stop := context.WithCancel(opts.Context)
	com := common.Default()
	a := &App{
		ctx: ctx, stop: stop, d: d, opts: opts, com: com, keys: *com.Keys, log: log, now: opts.Now,
		protoc:  charts.DetectImageProtocol(opts.Getenv),
		focus:   paneInput,
		sidebar: true,
	}
	var hist *input.History
	if !opts.NoHistory {
		dir := opts.StateDir
		if dir == "" {
			dir = StateDir()
		}
		h, err := input.OpenHistory(HistoryPath(dir), input.DefaultHistoryLimit)
		if err != nil {
			log.Warn("read history", "err", err)
		}
		hist = h
	}
	a.schema = schema.New(com)
	a.input = input.New(com, hist)
	a.grid = grid.New(com, opts.MaxRows)
	a.answer = answerpane.New(com)
	a.chart = chart.New(com, a.protoc)
	a.status = statusbar.New(com, d.Label())
	a.help = help.New(com)
	a.prompt = prompt.New(com)
	a.detail = detail.New(com)
	a.pager = pager.New(com)
	a.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(com.Styles.StatusBusy))
	a.input.Focus()
	a.grid.SetEmpty(a.welcome(nil))
	return a
}

// Init implements tea.Model: read the tables' names (one statement), so
// the sidebar lists them at once on a schema of thousands of tables, then
// the whole catalog (row counts, keys, samples: a few statements a table),
// which is then followed as the schema changes (followSchema).
func (a *App) Init() tea.Cmd {
	a.log.Info("explorer start", "db", a.d.Label(), "source", a.d.Source(), "image_protocol", a.protoc.String(), "asker", a.opts.Asker != nil)
	return tea.Sequence(a.readNames(), a.readCatalog())
}

// readNames reads the tables' and columns' names (namesMsg).
func (a *App) readNames() tea.Cmd {
	ctx, d := a.ctx, a.d
	return func() tea.Msg {
		nctx, cancel := context.WithTimeout(ctx, namesTimeout)
		defer cancel()
		cat, err := d.Engine().Names(nctx)
		if err != nil {
			return nil
		}
		return namesMsg{cat: cat}
	}
}

// readCatalog reads the whole catalog (catalogMsg).
func (a *App) readCatalog() tea.Cmd {
	ctx, d, start := a.ctx, a.d, a.now()
	return func() tea.Msg {
		cat, err := d.Catalog(ctx)
		return catalogMsg{cat: cat, err: err, took: time.Since(start)}
	}
}

// namesTimeout bounds reading the names before the catalog: past it, the
// sidebar waits for the catalog.
const namesTimeout = 2 * time.Second

// namesMsg lists the tables and their columns' names, without row counts
// or keys, until the catalog arrives.
type namesMsg struct{ cat *catalog.Catalog }

type catalogMsg struct {
	cat  *catalog.Catalog
	err  error
	took time.Duration
}

// Close cancels background work. Run calls it when the program ends.
func (a *App) Close() {
	if a.job != nil {
		a.job.cancel()
	}
	a.stop()
}
