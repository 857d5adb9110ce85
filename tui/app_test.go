package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/tui/internal/tuitest"
)

var (
	sampleOnce sync.Once
	sampleErr  error
)

// openSample is the built-in sample database (testdb.Sample) with exact
// row counts in its catalog.
func openSample(t *testing.T) *db.DB {
	t.Helper()
	sampleDB := testdb.Sample(t)
	sampleOnce.Do(func() {
		ctx := context.Background()
		// The catalog counts rows within a time budget and shows "?" for a
		// table or view it could not count in time (a slow machine, the race
		// detector). Screens must not depend on the machine's speed, so the
		// cached catalog gets exact counts before any test draws it.
		cat, err := sampleDB.Catalog(ctx)
		if err != nil {
			sampleErr = err
			return
		}
		for _, t := range cat.Tables {
			if t.RowCount >= 0 && !t.RowCountEstimated {
				continue
			}
			res, err := query.Collect(ctx, sampleDB, "SELECT count(*) FROM "+sampleDB.Dialect().QuoteIdent(t.Name), query.Options{})
			if err != nil {
				sampleErr = err
				return
			}
			t.RowCount, t.RowCountEstimated = res.Rows[0][0].(int64), false
		}
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	return sampleDB
}

// waitLimit is how long a test waits for a screen or a state before it
// fails: a bound for a hang, not a measure of speed (the race detector and
// a loaded machine make the million-row tests take seconds).
const waitLimit = 30 * time.Second * raceWait

// fixedNow is the clock of screen tests: times on screen never change.
func fixedNow() time.Time { return time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC) }

func testOptions(t *testing.T) Options {
	return Options{
		StateDir: t.TempDir(),
		Now:      fixedNow,
		Getenv:   func(string) string { return "" },
	}
}

// harness wraps the app so a test can read the screen from inside the
// program's event loop (no data race with the app's state).
type harness struct{ app *App }

type snapMsg struct{ ch chan string }

type doMsg struct {
	f    func(*App)
	done chan struct{}
}

func (h harness) Init() tea.Cmd { return h.app.Init() }

func (h harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case snapMsg:
		m.ch <- h.app.render()
		return h, nil
	case doMsg:
		m.f(h.app)
		close(m.done)
		return h, nil
	}
	_, cmd := h.app.Update(msg)
	return h, cmd
}

func (h harness) View() tea.View { return h.app.View() }

type session struct {
	t   *testing.T
	tm  *teatest.TestModel
	app *App
}

func start(t *testing.T, d *db.DB, opts Options, w, h int) *session {
	t.Helper()
	app := New(d, opts)
	t.Cleanup(app.Close)
	tm := teatest.NewTestModel(t, harness{app},
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(
			tea.WithEnvironment([]string{"TERM=xterm-256color"}),
			tea.WithColorProfile(colorprofile.ANSI256),
		))
	s := &session{t: t, tm: tm, app: app}
	t.Cleanup(func() {
		tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	})
	return s
}

// startReady starts the explorer and waits for its first screen (the
// sidebar lists the sample's tables).
func startReady(t *testing.T, d *db.DB, opts Options, w, h int) *session {
	t.Helper()
	s := start(t, d, opts, w, h)
	s.waitText("categories")
	return s
}

// startSample is startReady on the sample database (openSample) with the
// test options at 100×30.
func startSample(t *testing.T) *session {
	t.Helper()
	return startReady(t, openSample(t), testOptions(t), 100, 30)
}

// submit types text into the input, presses enter and waits until every
// sub is on the screen, which it returns.
func (s *session) submit(text string, sub ...string) string {
	s.t.Helper()
	s.typeText(text)
	s.key("enter")
	return s.waitText(sub...)
}

// query is submit followed by idle: the screen returned is the one on
// which every sub first showed.
func (s *session) query(text string, sub ...string) string {
	s.t.Helper()
	scr := s.submit(text, sub...)
	s.idle()
	return scr
}

// screen returns the current screen without styles.
func (s *session) screen() string {
	ch := make(chan string, 1)
	s.tm.Send(snapMsg{ch})
	select {
	case v := <-ch:
		return ansi.Strip(v)
	case <-time.After(waitLimit):
		s.t.Fatal("the program did not answer")
	}
	return ""
}

// styled returns the current screen with styles.
func (s *session) styled() string {
	ch := make(chan string, 1)
	s.tm.Send(snapMsg{ch})
	return <-ch
}

// do runs f on the app inside the event loop.
func (s *session) do(f func(*App)) {
	done := make(chan struct{})
	s.tm.Send(doMsg{f, done})
	select {
	case <-done:
	case <-time.After(waitLimit):
		s.t.Fatal("the program did not answer")
	}
}

// waitFor polls the screen until cond holds.
func (s *session) waitFor(what string, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	var last string
	for time.Now().Before(deadline) {
		last = s.screen()
		if cond(last) {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("waiting for %s; the screen is:\n%s", what, last)
	return ""
}

func (s *session) waitText(sub ...string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", sub), func(scr string) bool {
		for _, x := range sub {
			if !strings.Contains(scr, x) {
				return false
			}
		}
		return true
	})
}

// idle waits until no work runs and no chart is being drawn.
func (s *session) idle() {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		busy := true
		s.do(func(a *App) { busy = a.job != nil || a.chart.Pending() })
		if !busy {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatal("the app stayed busy")
}

// waitApp polls the app's state (inside the event loop) until cond holds.
func (s *session) waitApp(what string, cond func(*App) bool) {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		ok := false
		s.do(func(a *App) { ok = cond(a) })
		if ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("waiting for %s; the screen is:\n%s", what, s.screen())
}

func (s *session) typeText(text string) { s.tm.Type(text) }

func (s *session) key(k string) {
	s.tm.Send(tuitest.Key(k))
}

// fakeAsker stands in for the agent: it runs real SQL on the sample
// database and returns a bundle with an answer, SQL, rows, a chart and
// follow-ups, streaming its text first.
type fakeAsker struct {
	d     *db.DB
	mu    sync.Mutex
	asked []string
	convs []ask.Conversation
	block chan struct{} // when set, Ask waits for it or ctx
}

const revenueSQL = "SELECT c.name AS category, round(sum(oi.quantity * oi.unit_price * (1 - oi.discount)), 2) AS revenue\nFROM order_items oi\nJOIN products p ON p.product_id = oi.product_id\nJOIN categories c ON c.category_id = p.category_id\nGROUP BY 1 ORDER BY 2 DESC"

func (f *fakeAsker) Ask(ctx context.Context, q string, conv ask.Conversation, onText func(string)) (*answer.Bundle, error) {
	f.mu.Lock()
	f.asked = append(f.asked, q)
	f.convs = append(f.convs, conv)
	f.mu.Unlock()
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	res, err := query.Collect(ctx, f.d, revenueSQL, query.Options{MaxRows: 50})
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%s brings in the most revenue: $%.2f, ahead of %s.", res.Rows[0][0], res.Rows[0][1], res.Rows[1][0])
	onText(text[:20])
	onText(text[20:])
	return &answer.Bundle{
		Question:  q,
		Status:    answer.StatusAnswered,
		Answer:    text,
		SQL:       revenueSQL,
		Columns:   res.Columns,
		Rows:      res.Rows,
		RowCount:  res.RowCount,
		Chart:     &answer.ChartSpec{Kind: answer.KindHBar, X: "category", Y: "revenue", Title: "Revenue by category"},
		FollowUps: []string{"How did Furniture revenue change by month?", "Which products lead in Furniture?"},
		Provider:  "fake",
		Model:     "test-model",
		Usage:     answer.Usage{ModelCalls: 2, ToolCalls: 3, InputTokens: 1234, OutputTokens: 321},
		Timings:   answer.Timings{TotalMS: 2300},
	}, nil
}

func (f *fakeAsker) questions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

func requireGolden(t *testing.T, screen string) {
	t.Helper()
	golden.RequireEqual(t, []byte(screen))
}

func TestScreens(t *testing.T) {
	d := openSample(t)

	t.Run("first_80x24", func(t *testing.T) {
		s := start(t, d, testOptions(t), 80, 24)
		scr := s.waitText("categories", "order_items", "SELECT * FROM categories", "question  which 5 products have the most order items?")
		lines := strings.Split(scr, "\n")
		if len(lines) != 24 {
			t.Fatalf("%d lines, want 24", len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != 80 {
				t.Errorf("line %d is %d cells wide, want 80: %q", i, w, l)
			}
		}
		requireGolden(t, scr)
	})

	t.Run("sql_query", func(t *testing.T) {
		s := startReady(t, d, testOptions(t), 80, 24)
		s.query("SELECT sku, unit_price, notes FROM products ORDER BY product_id LIMIT 30", "30 rows")
		scr := s.screen()
		for _, want := range []string{"sku", "unit_price", "NULL", "30 rows", "row 1 of 30"} {
			if !strings.Contains(scr, want) {
				t.Errorf("screen lacks %q", want)
			}
		}
		requireGolden(t, scr)
	})

	t.Run("question", func(t *testing.T) {
		opts := testOptions(t)
		fa := &fakeAsker{d: d}
		opts.Asker = fa
		s := startReady(t, d, opts, 100, 30)
		scr := s.query("which category earns the most?", "trace:", "Furniture brings in the most revenue")
		scr = s.screen()
		for _, want := range []string{
			"Q    which category earns the most?",
			"SQL  SELECT c.name AS category",
			"How did Furniture revenue change by month?",
			"trace: fake test-model · 2 model calls · 3 tool calls",
			"2.3 s",
			"Furniture ████", // the chart
			"hbar · revenue by category (from the answer)",
			"10 rows",
		} {
			if !strings.Contains(scr, want) {
				t.Errorf("screen lacks %q", want)
			}
		}
		requireGolden(t, scr)
		if q := fa.questions(); len(q) != 1 || q[0] != "which category earns the most?" {
			t.Errorf("asked %q", q)
		}

		// A follow-up is chosen with the keyboard: alt+4, ↓, enter.
		s.key("alt+4")
		s.key("down")
		s.key("enter")
		s.waitFor("the follow-up", func(string) bool { return len(fa.questions()) == 2 })
		if q := fa.questions()[1]; q != "Which products lead in Furniture?" {
			t.Errorf("follow-up asked %q", q)
		}
		// Both questions belong to the session's one conversation about d.
		fa.mu.Lock()
		if c := fa.convs; len(c) != 2 || c[0].DB != d || c[0].Key == "" || c[1] != c[0] {
			t.Errorf("asked in conversations %+v", c)
		}
		fa.mu.Unlock()
		s.idle()
		// e puts the answer's SQL in the input.
		s.key("alt+4")
		s.key("e")
		s.waitApp("the answer's SQL in the input", func(a *App) bool { return a.input.Value() == revenueSQL && a.focus == paneInput })
	})

	t.Run("question_80x24", func(t *testing.T) {
		opts := testOptions(t)
		opts.Asker = &fakeAsker{d: d}
		s := startReady(t, d, opts, 80, 24)
		s.query("which category earns the most?", "Furniture brings in")
		scr := s.screen()
		for _, want := range []string{"Q    which category earns the most?", "SQL  SELECT", "next › How did Furniture", "Furniture"} {
			if !strings.Contains(scr, want) {
				t.Errorf("screen lacks %q", want)
			}
		}
		requireGolden(t, scr)
	})

	t.Run("refused", func(t *testing.T) {
		s := startReady(t, d, testOptions(t), 80, 24)
		scr := s.query("DELETE FROM customers WHERE customer_id = 1", "refused")
		scr = s.screen()
		if !strings.Contains(scr, "✗ refused: ") || !strings.Contains(scr, "hint:") {
			t.Errorf("no inline refusal with a hint:\n%s", scr)
		}
		requireGolden(t, scr)
	})

	t.Run("resize_120x40", func(t *testing.T) {
		s := startReady(t, d, testOptions(t), 80, 24)
		s.query("SELECT ship_country, count(*) AS orders FROM orders GROUP BY 1 ORDER BY 2 DESC, 1", "24 rows")
		s.tm.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
		scr := s.waitFor("a 120x40 screen", func(scr string) bool {
			l := strings.Split(scr, "\n")
			return len(l) == 40 && ansi.StringWidth(l[0]) == 120
		})
		s.idle()
		scr = s.screen()
		for i, l := range strings.Split(scr, "\n") {
			if w := ansi.StringWidth(l); w != 120 {
				t.Errorf("line %d is %d cells wide, want 120", i, w)
			}
		}
		if !strings.Contains(scr, "United States") || !strings.Contains(scr, "Chart") {
			t.Errorf("resized screen lacks the rows or the chart:\n%s", scr)
		}
		requireGolden(t, scr)
	})

	t.Run("help", func(t *testing.T) {
		s := startReady(t, d, testOptions(t), 80, 24)
		s.key("alt+3")
		s.key("?")
		scr := s.waitText("Keys · Results")
		for _, want := range []string{"copy cell", "export result", "ctrl+c", "cancel / quit", "schema sidebar"} {
			if !strings.Contains(scr, want) {
				t.Errorf("help lacks %q", want)
			}
		}
		requireGolden(t, scr)
		s.key("esc")
		s.waitFor("the help to close", func(scr string) bool { return !strings.Contains(scr, "Keys · Results") })
	})
}

// TestNoAsker: a question without a model explains how to configure one.
func TestNoAsker(t *testing.T) {
	s := startSample(t)
	scr := s.submit("how many customers are there?", "no model configured")
	flat := strings.Join(strings.Fields(scr), " ")
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "--provider offline"} {
		if !strings.Contains(flat, want) {
			t.Errorf("message lacks %q:\n%s", want, scr)
		}
	}
}

// TestCancel: ctrl+c during a slow query cancels it (the statement really
// stops) and a second ctrl+c quits.
func TestCancel(t *testing.T) {
	d := openSample(t)
	app := New(d, testOptions(t))
	tm := teatest.NewTestModel(t, harness{app}, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithEnvironment([]string{"TERM=xterm-256color"})))
	s := &session{t: t, tm: tm, app: app}
	s.waitText("categories")
	// Slow after its first row: only an interrupt stops it.
	s.submit("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 1 OR x = -1", "running query")
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	s.key("ctrl+c")
	scr := s.waitText("cancelled")
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("cancelling took %v", took)
	}
	if !strings.Contains(scr, "query cancelled") {
		t.Errorf("status does not say the query was cancelled:\n%s", scr)
	}
	var running bool
	s.do(func(a *App) { running = a.job != nil })
	if running {
		t.Fatal("a job is still running after the cancel")
	}
	s.key("ctrl+c")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if m := tm.FinalModel(t).(harness); !m.app.quitting {
		t.Error("the app did not quit")
	}
	app.Close()
}

// TestCancelQuestion: ctrl+c during a question cancels the asker's context.
func TestCancelQuestion(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	fa := &fakeAsker{d: d, block: make(chan struct{})}
	opts.Asker = fa
	s := startReady(t, d, opts, 80, 24)
	s.submit("which category earns the most?", "asking")
	s.key("ctrl+c")
	s.waitText("question cancelled")
}

// TestStreamingCap: a result larger than the cap keeps exactly the cap,
// says "of more", and the grid renders one screen of it.
func TestStreamingCap(t *testing.T) {
	s := startSample(t)
	scr := s.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000) SELECT x, 'row ' || x AS label FROM c", "100,000 of more rows")
	var kept, formatted, bodyRows int
	s.do(func(a *App) {
		kept = a.grid.Len()
		a.render()
		formatted = a.grid.Formatted()
		bodyRows = a.lay.grid.h - 1 - 2
	})
	if kept != 100_000 {
		t.Errorf("kept %d rows, want 100,000", kept)
	}
	if formatted > 2*bodyRows {
		t.Errorf("the view formatted %d cells for %d visible rows of 2 columns", formatted, bodyRows)
	}
	if !strings.Contains(scr, "ctrl+s exports all") {
		t.Errorf("status does not say where it stopped:\n%s", scr)
	}
}

// TestPreviewTable: enter on a table in the sidebar previews its rows
// through the normal query path.
func TestPreviewTable(t *testing.T) {
	s := startSample(t)
	s.key("alt+1")
	s.key("down")
	s.key("down") // customers
	s.key("enter")
	scr := s.waitText("SELECT * FROM customers LIMIT 100", "100 rows")
	if !strings.Contains(scr, "customer_id") {
		t.Errorf("preview lacks the columns:\n%s", scr)
	}
	// Expanding shows columns with types and key markers.
	s.key("alt+1")
	s.key("space")
	scr = s.waitText("customer_id PK integer")
	if !strings.Contains(scr, "country_id FK→countries") {
		t.Errorf("no FK marker:\n%s", scr)
	}
	// The filter narrows the tree.
	s.key("/")
	s.typeText("ship")
	scr = s.waitText("shipments")
	if strings.Contains(scr, "categories") {
		t.Errorf("the filter kept categories:\n%s", scr)
	}
}

// TestExport: the whole result is written to the file, not just the rows
// in memory.
func TestExport(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	opts.MaxRows = 100 // keep fewer rows than the export writes
	s := startReady(t, d, opts, 100, 30)
	s.query("SELECT customer_id, name FROM customers ORDER BY customer_id", "100 of more rows")
	s.key("ctrl+s")
	s.waitText("Export the whole result", "tablewise-export-20261201-093000.csv")
	out := filepath.Join(t.TempDir(), "customers.csv")
	s.key("ctrl+u")
	s.typeText(out)
	s.key("enter")
	s.waitApp("the export", func(a *App) bool { return a.status.Message() == "exported 2,400 rows to "+out })
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n")), "\n")
	if len(lines) != 2401 || lines[0] != "customer_id,name" {
		t.Errorf("export has %d lines, first %q", len(lines), lines[0])
	}
	// The database itself is refused as a target.
	s.key("ctrl+s")
	s.waitText("Export the whole result")
	s.key("ctrl+u")
	s.typeText(d.Source())
	s.key("enter")
	s.waitApp("the refusal", func(a *App) bool { return strings.Contains(a.status.Message(), "it is the database file") })
}

// TestSmallAndOddSizes: every size draws exactly the window, without a
// panic, down to a few cells.
func TestSmallAndOddSizes(t *testing.T) {
	d := openSample(t)
	s := startReady(t, d, testOptions(t), 80, 24)
	s.query("SELECT * FROM customers", "2,400 rows")
	for _, sz := range [][2]int{{40, 10}, {20, 5}, {60, 8}, {3, 2}, {1, 1}, {200, 60}, {80, 24}} {
		s.tm.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s.idle()
		for _, over := range []string{"", "?"} {
			if over != "" {
				s.key("alt+3")
				s.key(over)
			}
			scr := s.screen()
			lines := strings.Split(scr, "\n")
			if len(lines) != sz[1] {
				t.Errorf("%dx%d: %d lines", sz[0], sz[1], len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%dx%d: line %d is %d wide", sz[0], sz[1], i, w)
				}
			}
			if over != "" {
				s.key("esc")
			}
		}
	}
}

// TestMouse: a click focuses the pane under it (and picks the row), the
// wheel scrolls.
func TestMouse(t *testing.T) {
	s := startSample(t)
	s.query("SELECT * FROM orders", "11,887 rows")
	var gx, gy int
	s.do(func(a *App) { gx, gy = a.lay.grid.x+6, a.lay.grid.y+1+2+4 }) // the fifth data row
	s.tm.Send(tea.MouseClickMsg{X: gx, Y: gy, Button: tea.MouseLeft})
	s.waitApp("a click on row 5", func(a *App) bool { return a.focus == paneResults && a.grid.Position() == "row 5 of 11,887" })
	s.tm.Send(tea.MouseWheelMsg{X: gx, Y: gy, Button: tea.MouseWheelDown})
	s.waitApp("the wheel", func(a *App) bool { return a.grid.Position() == "row 8 of 11,887" })

	var sx, sy int
	s.do(func(a *App) { sx, sy = a.lay.sidebar.x+2, a.lay.sidebar.y+1+3 }) // employees
	s.tm.Send(tea.MouseClickMsg{X: sx, Y: sy, Button: tea.MouseLeft})
	s.waitApp("a click in the sidebar", func(a *App) bool {
		tb, _ := a.schema.Selected()
		return a.focus == paneSchema && tb != nil && tb.Name == "employees"
	})
	var ix, iy int
	s.do(func(a *App) { ix, iy = a.lay.input.x+3, a.lay.input.y+1 })
	s.tm.Send(tea.MouseClickMsg{X: ix, Y: iy, Button: tea.MouseLeft})
	s.waitApp("a click in the input", func(a *App) bool { return a.focus == paneInput })
}

// TestClarification: options are answered in place with the keyboard and
// the question is asked again with the choice.
func TestClarification(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	var asked []string
	var mu sync.Mutex
	opts.Asker = askerFunc(func(ctx context.Context, q string, onText func(string)) (*answer.Bundle, error) {
		mu.Lock()
		asked = append(asked, q)
		n := len(asked)
		mu.Unlock()
		if n == 1 {
			return &answer.Bundle{Question: q, Status: answer.StatusClarify, Answer: "Which measure of size?",
				Clarification: &answer.Clarification{Question: "Biggest by what?", Options: []string{"revenue", "number of orders"}}}, nil
		}
		onText("Streaming…")
		return &answer.Bundle{Question: q, Status: answer.StatusAnswered, Answer: "By orders, it is Germany."}, nil
	})
	s := startReady(t, d, opts, 100, 30)
	scr := s.submit("biggest customer country", "Biggest by what?", "› revenue", "number of orders")
	_ = scr
	s.waitApp("the answer pane to take focus", func(a *App) bool { return a.focus == paneAnswer })
	s.key("down")
	s.key("enter")
	s.waitText("By orders, it is Germany.")
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || !strings.HasPrefix(asked[1], "biggest customer country") || !strings.Contains(asked[1], "number of orders") {
		t.Errorf("asked %q", asked)
	}
}

type askerFunc func(ctx context.Context, q string, onText func(string)) (*answer.Bundle, error)

func (f askerFunc) Ask(ctx context.Context, q string, _ ask.Conversation, onText func(string)) (*answer.Bundle, error) {
	return f(ctx, q, onText)
}

// TestStreamedAnswer: text shows as it arrives, before the bundle.
func TestStreamedAnswer(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	release := make(chan struct{})
	opts.Asker = askerFunc(func(ctx context.Context, q string, onText func(string)) (*answer.Bundle, error) {
		onText("The answer is ")
		onText("forty-two")
		<-release
		return &answer.Bundle{Question: q, Status: answer.StatusAnswered, Answer: "The answer is forty-two."}, nil
	})
	s := startReady(t, d, opts, 100, 30)
	s.submit("what is the answer?", "The answer is forty-two", "asking")
	close(release)
	s.waitText("The answer is forty-two.")
}

// TestCellViewAndToggles: enter opens the whole cell and row; ctrl+b hides
// the sidebar and ctrl+g the chart.
func TestCellViewAndToggles(t *testing.T) {
	s := startSample(t)
	s.query("SELECT order_id, ship_city, status FROM orders ORDER BY order_id LIMIT 3", "3 rows")
	s.key("alt+3")
	s.key("down")
	s.key("l")
	s.key("enter")
	scr := s.waitText("ship_city · row 2")
	if !strings.Contains(scr, "order_id") || !strings.Contains(scr, "status") {
		t.Errorf("the cell view lacks the row:\n%s", scr)
	}
	s.key("esc")
	s.waitFor("the cell view to close", func(scr string) bool { return !strings.Contains(scr, "ship_city · row 2") })
	s.key("ctrl+b")
	s.waitFor("the sidebar to hide", func(scr string) bool { return !strings.Contains(scr, "─ Schema") })
	s.key("ctrl+b")
	s.waitText("─ Schema")
	s.typeText("i")
	s.waitApp("i to focus the input", func(a *App) bool { return a.focus == paneInput })
}

// TestDeadline: a query past the timeout stops with the limit's message
// and hint, inline.
func TestDeadline(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	opts.Timeout = 300 * time.Millisecond
	s := startReady(t, d, opts, 100, 30)
	scr := s.submit("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c", "deadline", "hint:")
	if !strings.Contains(scr, "✗ query stopped at the 300ms deadline") {
		t.Errorf("no deadline message:\n%s", scr)
	}
}

// TestOpenPNG: where the terminal shows images, v writes the chart's PNG
// and says where; the view itself never carries image escapes.
func TestOpenPNG(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	opts.Getenv = func(k string) string {
		if k == "TABLEWISE_IMAGE_PROTOCOL" {
			return "kitty"
		}
		return ""
	}
	s := startReady(t, d, opts, 100, 30)
	s.query("SELECT ship_country, count(*) AS orders FROM orders GROUP BY 1", "24 rows")
	s.key("alt+5")
	scr := s.waitText("v open PNG")
	_ = scr
	s.key("v")
	var msg string
	s.waitApp("the PNG", func(a *App) bool { msg = a.status.Message(); return strings.HasPrefix(msg, "chart PNG written to ") })
	path := strings.TrimSuffix(strings.TrimPrefix(msg, "chart PNG written to "), " — open it with your image viewer")
	defer os.Remove(path)
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Fatalf("no PNG at %s: %v", path, err)
	}
	if v := s.styled(); strings.Contains(v, "\x1b_G") || strings.Contains(v, "\x1b]1337") {
		t.Error("the view carries an image escape sequence")
	}
}

// TestColumnWidthsGrow: the query — 5,000 rows of x and x*x, then
// G — shows the last square whole; row 100,000 of a million-row query
// shows its x whole.
func TestColumnWidthsGrow(t *testing.T) {
	s := startSample(t)
	s.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5000) SELECT x, x*x AS sq FROM c", "5,000 rows")
	s.key("alt+3")
	s.key("G")
	scr := s.waitText("row 5,000 of 5,000")
	if !strings.Contains(scr, "5000  25000000") || strings.Contains(scr, "250000…") {
		t.Errorf("the last square is not whole:\n%s", scr)
	}

	s.key("i")
	s.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000) SELECT x, 'row ' || x AS label FROM c", "100,000 of more rows")
	s.key("alt+3")
	s.key("G")
	scr = s.waitText("row 100,000 of 100,000+")
	if !strings.Contains(scr, "100000  row 100000") {
		t.Errorf("row 100,000 is not whole:\n%s", scr)
	}
}

// TestSortFilterRecordPager: in the results pane, s sorts by the focused
// column, / filters with a match count, v shows the row one field a line
// and steps through rows, p pages a long cell with search.
func TestSortFilterRecordPager(t *testing.T) {
	d := openSample(t)
	s := startReady(t, d, testOptions(t), 100, 30)
	s.query("SELECT product_id, name, unit_price FROM products ORDER BY product_id", "240 rows")
	var top string
	res, err := query.Collect(context.Background(), d, "SELECT product_id, unit_price FROM products ORDER BY unit_price DESC, product_id LIMIT 1", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	top = fmt.Sprint(res.Rows[0][0])
	s.key("alt+3")
	s.key("$") // unit_price
	s.key("s")
	s.key("s")
	s.waitText("unit_price ↓")
	s.waitApp("the most expensive product first", func(a *App) bool {
		e, ok := a.grid.Step(0)
		return ok && fmt.Sprint(e.Row[0]) == top
	})

	// q typed into the filter is text, not quit.
	s.key("/")
	s.typeText("oak q")
	s.waitApp("the filter", func(a *App) bool { return a.grid.Filter() == "oak q" })
	for range 2 {
		s.key("backspace")
	}
	var want int
	res, err = query.Collect(context.Background(), d, "SELECT count(*) FROM products WHERE lower(name) LIKE '%oak%' OR CAST(unit_price AS TEXT) LIKE '%oak%'", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want = int(res.Rows[0][0].(int64))
	if want == 0 {
		t.Fatal("the sample has no oak products; pick another word")
	}
	scr := s.waitText(fmt.Sprintf("%d of 240 rows match", want))
	if !strings.Contains(scr, "Oak") {
		t.Errorf("the filtered rows lack Oak:\n%s", scr)
	}
	s.key("enter")
	s.waitApp("the filter line to close", func(a *App) bool { return !a.grid.Filtering() && a.grid.Filter() == "oak" })

	// The record view of the first match, then the next one.
	s.key("0")
	s.key("v")
	scr = s.waitText(fmt.Sprintf("row 1 of %d (result row", want), "←/→ rows", "› product_id")
	s.key("right")
	s.waitText(fmt.Sprintf("row 2 of %d (result row", want))
	s.key("esc")
	s.waitFor("the record view to close", func(scr string) bool { return !strings.Contains(scr, "←/→ rows") })

	// A long text cell in the pager, with search.
	s.key("i")
	s.query("SELECT group_concat(name, char(10)) AS names FROM (SELECT name FROM customers ORDER BY customer_id)", "1 row")
	var last string
	res, err = query.Collect(context.Background(), d, "SELECT name FROM customers ORDER BY customer_id DESC LIMIT 1", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last = res.Rows[0][0].(string)
	s.key("alt+3")
	s.key("p")
	scr = s.waitText("names · row 1", "lines 1–")
	if !strings.Contains(scr, "of 2,400") {
		t.Errorf("the pager does not count 2,400 lines:\n%s", scr)
	}
	s.key("G")
	s.waitText(last, "(100%)")
	s.key("g")
	s.key("/")
	s.submit(last, "match 1 of")
	s.key("q")
	s.waitFor("the pager to close", func(scr string) bool { return !strings.Contains(scr, "names · row 1") })
	s.waitApp("the results pane", func(a *App) bool { return a.over == overlayNone && a.focus == paneResults })
}

// TestEditorRuns: ctrl+o opens the multi-line editor; SQL typed over
// several lines runs with alt+enter and stays in the editor.
func TestEditorRuns(t *testing.T) {
	s := startSample(t)
	s.key("ctrl+o")
	s.waitText("editor · alt+enter or f5 runs")
	s.typeText("SELECT name, count(*) AS n")
	s.key("enter")
	s.typeText("FROM categories")
	s.key("enter")
	s.typeText("GROUP BY 1 ORDER BY 1")
	scr := s.waitText(" 3 GROUP BY 1")
	var inputH int
	s.do(func(a *App) { inputH = a.lay.input.h })
	if inputH < 10 {
		t.Errorf("the editor is %d lines tall at 100x30", inputH)
	}
	_ = scr
	s.key("alt+enter")
	scr = s.waitText("11 rows")
	if !strings.Contains(scr, " 2 FROM categories") {
		t.Errorf("the editor lost its text after running:\n%s", scr)
	}
	s.key("ctrl+o")
	s.waitApp("the one-line input", func(a *App) bool { return !a.input.Editor() && a.lay.input.h <= 4 })
}

// TestDotCommands: sqlite3's dot-commands typed in the input do what
// sqlite3 does, or say what to use instead; none is sent as a question.
func TestDotCommands(t *testing.T) {
	d := openSample(t)
	opts := testOptions(t)
	fa := &fakeAsker{d: d}
	opts.Asker = fa
	s := startReady(t, d, opts, 100, 30)

	run := func(cmd string) {
		t.Helper()
		s.key("alt+2")
		s.key("ctrl+l")
		s.typeText(cmd)
		s.key("enter")
	}
	status := func(want string) {
		t.Helper()
		s.waitApp(fmt.Sprintf("the status %q", want), func(a *App) bool { return strings.Contains(a.status.Message(), want) })
	}

	run(".tables")
	scr := s.waitText("─ Results ─ row 1 of 16 · .tables", "order_items", "monthly_sales", "view", "28445")
	_ = scr
	run(".tab order%")
	s.waitText("row 1 of 3 · .tables order%", "order_totals")
	run(`\dt`)
	s.waitText("row 1 of 16 · .tables")

	run(".schema customers")
	scr = s.waitText(".schema customers · 1 statement", "CREATE TABLE customers")
	s.key("esc")
	s.waitFor("the pager to close", func(scr string) bool { return !strings.Contains(scr, ".schema customers ·") })

	run(".indexes orders")
	s.waitText("idx_orders_customer", "idx_orders_date", "CREATE INDEX")

	// The database checks open in the pager; SQL keeps its quotes.
	run(".health orders")
	s.waitText(".health orders", "Health of sample", "fk-without-index", "orders.employee_id")
	s.key("esc")
	s.waitApp("the pager to close", func(a *App) bool { return a.over == overlayNone })
	run(".advise SELECT * FROM orders WHERE ship_city = 'Osaka'")
	s.waitText(".advise", "CREATE INDEX orders_ship_city_idx ON orders (ship_city);", "(ship_city=?)")
	s.key("esc")
	s.waitApp("the pager to close", func(a *App) bool { return a.over == overlayNone })
	run(".explain SELECT * FROM orders o WHERE o.channel = 'web'")
	s.waitText("SCAN o", "full scan of orders")
	s.key("esc")
	s.waitApp("the pager to close", func(a *App) bool { return a.over == overlayNone })

	note := func(want ...string) {
		t.Helper()
		scr := s.waitText(want...)
		if !strings.Contains(scr, "esc or enter closes") {
			t.Errorf("the note has no way out:\n%s", scr)
		}
		s.key("esc")
		s.waitApp("the note to close", func(a *App) bool { return a.over == overlayNone })
	}
	run(".mode csv")
	note("─ .mode csv ", "ctrl+s exports the", "CSV, JSON", "tablewise sql --format csv")
	run(".headers on")
	note("column names are always shown")
	run(".import x.csv t")
	note(".import is not available", "never writes")
	run(".frobnicate")
	note("Unknown command .frobnicate", ".tables, .schema")

	sqlFile := filepath.Join(t.TempDir(), "q.sql")
	if err := os.WriteFile(sqlFile, []byte("SELECT name\nFROM categories\nORDER BY 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(".read " + sqlFile)
	status("loaded " + sqlFile + " into the editor")
	s.waitApp("the file in the editor", func(a *App) bool {
		return a.input.Editor() && strings.HasPrefix(a.input.Value(), "SELECT name\nFROM categories")
	})
	s.key("f5")
	s.waitText("11 rows")
	s.key("ctrl+o")

	run(".help")
	scr = s.waitText("Dot-commands, as in sqlite3")
	if !strings.Contains(scr, ".tables [pattern]") {
		t.Errorf("the help lacks .tables:\n%s", scr)
	}
	s.key("esc")

	if q := fa.questions(); len(q) != 0 {
		t.Errorf("dot-commands were asked as questions: %q", q)
	}
	run(".quit")
	s.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestWelcomeExamplesWork: every example the welcome screen shows works:
// the question is answered by the built-in planner and the SQL runs and
// returns rows — on the sample and on Chinook.
func TestWelcomeExamplesWork(t *testing.T) {
	t.Run("sample", func(t *testing.T) { checkWelcome(t, openSample(t), "categories") })
	t.Run("chinook", func(t *testing.T) {
		p := testdb.SharedData(t, "chinook.sqlite")
		d := testdb.Open(t, p)
		q := checkWelcome(t, d, "Album")
		if strings.Contains(q, "playlist track") {
			t.Errorf("the example ranks by a link table: %q", q)
		}
	})
}

// checkWelcome opens the explorer on d, reads the examples off the welcome
// screen and tries them; it returns the question.
func checkWelcome(t *testing.T, d *db.DB, table string) string {
	s := start(t, d, testOptions(t), 100, 30)
	scr := s.waitFor("the welcome's question", func(scr string) bool {
		return strings.Contains(scr, table) && strings.Contains(scr, "  question  ") && !strings.Contains(scr, "finding one")
	})
	after := func(label string) string {
		for _, l := range strings.Split(scr, "\n") {
			if _, rest, ok := strings.Cut(l, label); ok {
				return strings.TrimSpace(strings.TrimRight(rest, "│ "))
			}
		}
		t.Fatalf("the welcome has no %q line:\n%s", label, scr)
		return ""
	}
	sql, question := after("  SQL       "), after("  question  ")
	if strings.HasSuffix(question, "…") || strings.HasSuffix(sql, "…") {
		t.Fatalf("an example is cut: %q / %q", sql, question)
	}
	ctx := context.Background()
	svc, err := ask.New(ask.Config{Provider: "offline"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	b, err := svc.Ask(ctx, question, ask.Conversation{DB: d}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != answer.StatusAnswered || b.RowCount == 0 {
		t.Errorf("the welcome's question %q is not answered by the built-in planner: %s: %s", question, b.Status, b.Answer)
	}
	res, err := query.Collect(ctx, d, sql, query.Options{})
	if err != nil || res.RowCount == 0 {
		t.Errorf("the welcome's SQL %q: %v, %d rows", sql, err, res.RowCount)
	}
	return question
}

// TestNewOverlaysAtOddSizes: the cell view, the row view, the pager, the
// filter line and a dot-command's note draw exactly the window at every
// size, without a panic.
func TestNewOverlaysAtOddSizes(t *testing.T) {
	d := openSample(t)
	s := startReady(t, d, testOptions(t), 80, 24)
	s.query("SELECT * FROM customers", "2,400 rows")
	open := map[string]func(){
		"cell":   func() { s.key("alt+3"); s.key("enter") },
		"row":    func() { s.key("alt+3"); s.key("v") },
		"pager":  func() { s.key("alt+3"); s.key("p") },
		"filter": func() { s.key("alt+3"); s.key("/"); s.typeText("a") },
		"note":   func() { s.key("alt+2"); s.typeText(".mode csv"); s.key("enter") },
	}
	for _, sz := range [][2]int{{40, 10}, {20, 5}, {3, 2}, {1, 1}, {200, 60}, {80, 24}} {
		s.tm.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s.idle()
		for name, f := range open {
			f()
			s.waitApp(name, func(a *App) bool { return a.over != overlayNone || a.grid.Filtering() })
			lines := strings.Split(s.screen(), "\n")
			if len(lines) != sz[1] {
				t.Errorf("%s at %dx%d: %d lines", name, sz[0], sz[1], len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("%s at %dx%d: line %d is %d wide", name, sz[0], sz[1], i, w)
				}
			}
			s.key("esc")
			s.waitApp("the overlay to close", func(a *App) bool { return a.over == overlayNone && !a.grid.Filtering() })
		}
	}
}
