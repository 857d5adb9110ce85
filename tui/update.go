package tui

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
	answerpane "github.com/tablewise/tablewise/tui/components/answer"
	"github.com/tablewise/tablewise/tui/components/chart"
	"github.com/tablewise/tablewise/tui/components/detail"
	"github.com/tablewise/tablewise/tui/components/grid"
	"github.com/tablewise/tablewise/tui/components/input"
	"github.com/tablewise/tablewise/tui/components/pager"
	"github.com/tablewise/tablewise/tui/components/prompt"
	"github.com/tablewise/tablewise/tui/components/schema"
	"github.com/tablewise/tablewise/tui/components/statusbar"
)

// Update implements tea.Model.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := a.update(msg)
	if a.quitting {
		return a, cmd
	}
	return a, tea.Batch(cmd, a.relayout())
}

// View implements tea.Model.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tablewise · " + a.d.Label()
	return v
}

func (a *App) update(msg tea.Msg) tea.Cmd {
	if m, ok := msg.(interface{ jobID() int }); ok && !a.current(m.jobID()) {
		return nil // from a job that is no longer current
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.w, a.h = msg.Width, msg.Height
		return nil
	case checkMsg:
		return a.showCheck(msg)
	case namesMsg:
		if a.cat == nil && msg.cat != nil {
			a.schema.SetCatalog(msg.cat, a.d.Dialect(), nil)
			a.input.SetCatalog(msg.cat, a.d.Dialect())
		}
	case catalogMsg:
		return a.onCatalog(msg)
	case schemaTickMsg:
		return a.onSchemaTick(msg)
	case schemaMsg:
		return a.onSchema(msg)
	case exampleMsg:
		a.example, a.exampleDone = msg.question, true
		a.log.Info("welcome example", "question", msg.question)
		a.grid.SetEmpty(a.welcome(a.cat))
	case tea.KeyPressMsg:
		return a.onKey(msg)
	case tea.PasteMsg:
		return a.routeToFocused(msg)
	case tea.MouseClickMsg:
		return a.onClick(msg)
	case tea.MouseWheelMsg:
		a.onWheel(msg)
		return nil
	case spinner.TickMsg:
		if a.job == nil {
			return nil
		}
		var cmd tea.Cmd
		a.spin, cmd = a.spin.Update(msg)
		return cmd

	case input.SubmitMsg:
		return a.submit(msg.Text, msg.SQL)
	case input.HistoryErrMsg:
		a.log.Warn("write history", "err", msg.Err)
		a.status.SetMessage(statusbar.Error, "history not saved: "+msg.Err.Error())
	case schema.PreviewMsg:
		dl := a.d.Dialect()
		sql := "SELECT * FROM " + dl.QuoteIdentIfNeeded(msg.Table) + " " + dl.Limit(100)
		cmd := a.runSQL(sql)
		a.job.preview = true // rows to look at, not to chart
		return cmd
	case schema.InsertMsg:
		a.input.Insert(msg.Text)
		a.setFocus(paneInput)
	case answerpane.AskMsg:
		return a.ask(msg.Question)
	case answerpane.ClarifyMsg:
		return a.ask(clarified(msg.Question, msg.Asked, msg.Option))
	case answerpane.EditSQLMsg:
		a.input.SetValue(msg.SQL)
		a.input.SetMode(input.ModeAuto)
		a.setFocus(paneInput)
		a.status.SetMessage(statusbar.Info, "the answer's SQL is in the input — edit it and press enter")
	case answerpane.CopiedMsg:
		a.status.SetMessage(statusbar.OK, "copied the SQL to the clipboard")
	case grid.CopiedMsg:
		a.status.SetMessage(statusbar.OK, "copied the "+msg.What+" to the clipboard")
	case detail.CopiedMsg:
		a.status.SetMessage(statusbar.OK, "copied the "+msg.What+" to the clipboard")
	case grid.ExpandMsg:
		if msg.Open == grid.OpenPager {
			a.openPager(grid.CellTitle(msg.Columns[msg.Col], msg.RowNum), grid.CellText(msg.Row[msg.Col]), false)
			return nil
		}
		a.detail.Open(msg)
		a.over = overlayDetail
	case grid.ViewMsg:
		return a.grid.Update(msg)
	case grid.StatusMsg:
		a.status.SetMessage(statusbar.Info, msg.Text)
	case detail.StepMsg:
		if e, ok := a.grid.Step(msg.Delta); ok {
			a.detail.Show(e)
		}
	case detail.PagerMsg:
		a.openPager(msg.Title, msg.Text, false)
	case pager.CopiedMsg:
		a.status.SetMessage(statusbar.OK, "copied the text to the clipboard")
	case chart.RenderedMsg:
		return a.chart.Update(msg)
	case chart.SaveMsg:
		a.prompt.Open("png", "Save the chart as PNG", "The chart is drawn again at 1200×800 pixels.", "./tablewise-chart-"+a.now().Format("20060102-150405")+".png")
		a.over = overlayPrompt
	case chart.OpenMsg:
		path := filepath.Join(os.TempDir(), "tablewise-chart-"+a.now().Format("20060102-150405")+".png")
		spec, _ := a.chart.Spec()
		return chart.SavePNG(a.ctx, spec, a.chart.Result(), path, true)
	case chart.SavedMsg:
		switch {
		case msg.Err != nil:
			a.log.Warn("save chart", "path", msg.Path, "err", msg.Err)
			a.status.SetMessage(statusbar.Error, "chart not saved: "+msg.Err.Error())
		case msg.Open:
			a.status.SetMessage(statusbar.OK, "chart PNG written to "+msg.Path+" — open it with your image viewer")
		default:
			a.status.SetMessage(statusbar.OK, "chart saved to "+msg.Path)
		}
	case prompt.DoneMsg:
		a.over = overlayNone
		return a.onPrompt(msg)

	case queryBeginMsg:
		a.grid.Begin(msg.cols)
		return a.job.next()
	case queryRowsMsg:
		a.grid.Append(msg.rows)
		return a.job.next()
	case queryDoneMsg:
		return a.onQueryDone(msg)
	case askTextMsg:
		a.answer.AppendText(msg.delta)
		return a.job.next()
	case askDoneMsg:
		return a.onAskDone(msg)
	case exportProgressMsg:
		a.job.rows = msg.rows
		return a.job.next()
	case exportDoneMsg:
		return a.onExportDone(msg)
	}
	return nil
}

func (a *App) current(id int) bool { return a.job != nil && a.job.id == id }

func (a *App) onCatalog(msg catalogMsg) tea.Cmd {
	if msg.err != nil {
		a.log.Error("read catalog", "err", msg.err)
	} else {
		a.log.Info("catalog", "tables", len(msg.cat.Tables), "took", msg.took)
	}
	a.showCatalog(msg.cat, msg.err)
	if msg.cat == nil {
		// Read again on the schema's tick (onSchema), which also looks
		// for the welcome example once the catalog is read.
		return a.followSchema()
	}
	return tea.Batch(a.findExample(msg.cat), a.followSchema())
}

// openNote shows a short text in a box until esc or enter.
func (a *App) openNote(title, text string) {
	a.noteTitle, a.noteText = title, text
	a.over = overlayNote
}

// openPager shows text in the pager over whatever overlay is open; closing
// the pager shows that overlay again.
func (a *App) openPager(title, text string, sql bool) {
	if a.over != overlayPager {
		a.pagerBack = a.over
	}
	a.pager.Open(title, text, sql)
	a.over = overlayPager
}

// clarified is the question asked again with the user's choice.
func clarified(question, asked, option string) string {
	return question + "\n\nClarification — " + asked + " " + option
}

// submit runs what the user typed.
func (a *App) submit(text string, sql bool) tea.Cmd {
	if c, ok := parseDot(text); ok {
		return a.runDot(c)
	}
	if !sql && a.clarify != nil {
		c := a.clarify
		a.clarify = nil
		return a.ask(clarified(c.Question, c.Asked, text))
	}
	if sql {
		return a.runSQL(text)
	}
	return a.ask(text)
}

// runSQL runs a statement typed or chosen by the user.
func (a *App) runSQL(sql string) tea.Cmd {
	if a.exportBusy() {
		return nil
	}
	a.answer.Clear()
	a.clearAnswer()
	a.grid.Reset(sql)
	a.gridLabel = ""
	return a.startQuery(sql, false)
}

// exportBusy says on the status line that an export is running, and
// reports whether one is: a query or question waits for it.
func (a *App) exportBusy() bool {
	if a.job != nil && a.job.kind == jobExport {
		a.status.SetMessage(statusbar.Error, "an export is running — wait for it or press ctrl+c to cancel it")
		return true
	}
	return false
}

// clearAnswer forgets what came with the last result — its clarifying
// question, its chart spec and chart — and the status line's message,
// before a new result.
func (a *App) clearAnswer() {
	a.clarify = nil
	a.answerSpec = nil
	a.chart.Clear()
	a.chartForced = false
	a.status.SetMessage(statusbar.Info, "")
}

// ask sends a question to the asker.
func (a *App) ask(q string) tea.Cmd {
	if a.exportBusy() {
		return nil
	}
	a.cancelJob()
	a.clearAnswer()
	a.answer.Start(q)
	a.grid.Reset("")
	a.gridLabel = ""
	if a.opts.Asker == nil {
		a.grid.Finish(false, "", 0, nil)
		a.answer.Finish(nil, ErrNoAsker, 0)
		a.log.Info("question without a model")
		return nil
	}
	a.grid.SetNotice("waiting for the answer…")
	return a.startAsk(q)
}

func (a *App) onQueryDone(msg queryDoneMsg) tea.Cmd {
	j := a.job
	a.job = nil
	elapsed := a.now().Sub(j.start)
	err := msg.err
	truncated, by := false, ""
	if msg.sum != nil {
		truncated, by = msg.sum.Truncated, msg.sum.TruncatedBy
	}
	a.log.Info("query done", "id", j.id, "rows", a.grid.Len(), "truncated", truncated, "elapsed", elapsed, "err", err)
	switch {
	case isCancel(err):
		a.grid.Finish(false, "", elapsed, nil)
		note := "cancelled"
		if a.grid.Columns() != nil {
			note = "cancelled after " + format.Plural(int64(a.grid.Len()), "row")
		}
		a.grid.SetNotice(note)
		a.status.SetMessage(statusbar.Info, "query "+note)
		return nil
	case err != nil:
		if j.fromAnswer && a.grid.Columns() != nil {
			// The answer's preview stays; say why the whole result is missing.
			a.grid.Finish(true, "", elapsed, nil)
			msg, _ := common.Explain(err)
			a.status.SetMessage(statusbar.Error, "showing the answer's preview — the full result failed: "+msg)
			return nil
		}
		a.grid.Finish(false, "", elapsed, err)
		m, _ := common.Explain(err)
		a.status.SetMessage(statusbar.Error, m)
		return nil
	}
	a.grid.Finish(truncated, by, elapsed, nil)
	if j.preview {
		return nil
	}
	return a.chart.SetData(a.grid.Snapshot(), a.answerSpec)
}

func (a *App) onAskDone(msg askDoneMsg) tea.Cmd {
	j := a.job
	a.job = nil
	elapsed := a.now().Sub(j.start)
	b, err := msg.b, msg.err
	if err == nil && b == nil {
		err = errors.New("the asker returned no answer")
	}
	if isCancel(err) {
		a.answer.Finish(nil, errors.New("question cancelled"), elapsed)
		a.grid.SetNotice("")
		a.grid.Finish(false, "", 0, nil)
		a.status.SetMessage(statusbar.Info, "question cancelled")
		return nil
	}
	a.answer.Finish(b, err, elapsed)
	a.grid.SetNotice("")
	if err != nil {
		a.log.Warn("question failed", "id", j.id, "err", err)
		a.grid.Finish(false, "", 0, nil)
		m, _ := common.Explain(err)
		a.status.SetMessage(statusbar.Error, m)
		return nil
	}
	a.log.Info("question done", "id", j.id, "status", b.Status, "model_calls", b.Usage.ModelCalls, "tool_calls", b.Usage.ToolCalls, "elapsed", elapsed)
	if b.Clarification != nil {
		c := answerpane.ClarifyMsg{Question: a.answer.Question(), Asked: b.Clarification.Question}
		a.clarify = &c
		if len(b.Clarification.Options) > 0 {
			a.setFocus(paneAnswer)
		}
	}
	a.answerSpec = b.Chart
	if len(b.Columns) == 0 {
		a.grid.Finish(false, "", 0, nil)
		if b.SQL != "" && b.Status == "answered" {
			return a.startQuery(b.SQL, true)
		}
		return nil
	}
	a.grid.SetResult(b.SQL, b.Columns, b.Rows, b.Truncated || b.RowCount > len(b.Rows))
	cmd := a.chart.SetData(a.grid.Snapshot(), b.Chart)
	if b.SQL != "" && (b.Truncated || b.RowCount > len(b.Rows)) {
		// The bundle holds a preview; stream the whole result.
		a.grid.SetNotice("")
		return tea.Batch(cmd, a.startQuery(b.SQL, true))
	}
	return cmd
}

func (a *App) onExportDone(msg exportDoneMsg) tea.Cmd {
	j := a.job
	a.job = nil
	a.log.Info("export done", "id", j.id, "path", msg.path, "rows", msg.rows, "err", msg.err)
	switch {
	case isCancel(msg.err):
		a.status.SetMessage(statusbar.Info, "export cancelled — no file written")
	case msg.err != nil:
		m, h := common.Explain(msg.err)
		if h != "" {
			m += " — " + h
		}
		a.status.SetMessage(statusbar.Error, "export failed: "+m)
	default:
		a.status.SetMessage(statusbar.OK, "exported "+format.Plural(msg.rows, "row")+" to "+msg.path)
	}
	return nil
}

func (a *App) onPrompt(msg prompt.DoneMsg) tea.Cmd {
	if msg.Cancelled {
		a.status.SetMessage(statusbar.Info, "")
		return nil
	}
	switch msg.Tag {
	case "export":
		return a.startExport(a.grid.SQL(), msg.Value)
	case "png":
		if err := a.d.CheckOutput(msg.Value); err != nil {
			return a.fail(err)
		}
		spec, _ := a.chart.Spec()
		return chart.SavePNG(a.ctx, spec, a.chart.Result(), msg.Value, false)
	}
	return nil
}

// fail shows err in the status line.
func (a *App) fail(err error) tea.Cmd {
	m, h := common.Explain(err)
	if h != "" {
		m += " — " + h
	}
	a.status.SetMessage(statusbar.Error, m)
	return nil
}

// openExport asks where to export the current result.
func (a *App) openExport() tea.Cmd {
	switch {
	case a.job != nil:
		a.status.SetMessage(statusbar.Error, "wait for the running "+a.job.kind.String()+" to finish (ctrl+c cancels it)")
		return nil
	case a.grid.SQL() == "" || a.grid.Columns() == nil:
		a.status.SetMessage(statusbar.Error, "nothing to export yet — run a query first")
		return nil
	}
	a.prompt.Open("export", "Export the whole result", "The query runs again and every row streams to the file: .csv, .json, .jsonl or .md picks the format.", "./tablewise-export-"+a.now().Format("20060102-150405")+".csv")
	a.over = overlayPrompt
	return nil
}

// --- keys ---

func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	g := a.keys.Global
	// ctrl+c: cancel the running work, else quit.
	if key.Matches(msg, g.Cancel) {
		if a.job != nil && !a.job.cancelling {
			a.job.cancel()
			a.job.cancelling = true
			a.log.Info("cancel", "id", a.job.id, "kind", a.job.kind.String())
			return nil
		}
		return a.quit()
	}
	switch a.over {
	case overlayHelp:
		switch {
		case key.Matches(msg, g.Help) || key.Matches(msg, a.keys.Overlay.Close):
			a.over = overlayNone
		case key.Matches(msg, a.keys.Overlay.Up):
			a.helpOff--
		case key.Matches(msg, a.keys.Overlay.Down):
			a.helpOff++
		case msg.String() == "pgup":
			a.helpOff -= 10
		case msg.String() == "pgdown" || msg.String() == "space":
			a.helpOff += 10
		}
		return nil
	case overlayDetail:
		cmd := a.detail.Update(msg)
		if !a.detail.Active() {
			a.over = overlayNone
		}
		return cmd
	case overlayPrompt:
		return a.prompt.Update(msg)
	case overlayPager:
		cmd := a.pager.Update(msg)
		if !a.pager.Active() {
			a.over = a.pagerBack
		}
		return cmd
	case overlayNote:
		if key.Matches(msg, a.keys.Overlay.Close) || key.Matches(msg, a.keys.Overlay.Confirm) {
			a.over = overlayNone
		}
		return nil
	}

	// Keys that work in every pane, the input included.
	switch {
	case key.Matches(msg, g.Health):
		return a.openHealth()
	case key.Matches(msg, g.FocusSchema):
		if !a.sidebar {
			a.sidebar = true
		}
		a.setFocus(paneSchema)
		return nil
	case key.Matches(msg, g.FocusInput):
		a.setFocus(paneInput)
		return nil
	case key.Matches(msg, g.FocusResults):
		a.setFocus(paneResults)
		return nil
	case key.Matches(msg, g.FocusAnswer):
		if a.answer.Active() {
			a.setFocus(paneAnswer)
		}
		return nil
	case key.Matches(msg, g.FocusChart):
		if !a.chartVisible() && a.grid.Columns() != nil {
			a.chartOff, a.chartForced = false, true
		}
		if a.chartVisible() {
			a.setFocus(paneChart)
		}
		return nil
	case key.Matches(msg, g.ToggleSidebar):
		a.sidebar = !a.sidebar
		if !a.sidebar && a.focus == paneSchema {
			a.setFocus(paneInput)
		}
		return nil
	case key.Matches(msg, g.ToggleChart):
		if a.chartVisible() {
			a.chartOff, a.chartForced = true, false
		} else {
			a.chartOff, a.chartForced = false, true
		}
		return nil
	case key.Matches(msg, g.Export):
		return a.openExport()
	case msg.String() == "f1":
		a.openHelp()
		return nil
	case msg.String() == "shift+tab" && !(a.focus == paneInput && a.input.Busy()):
		a.cycleFocus(-1)
		return nil
	}

	switch a.focus {
	case paneInput:
		switch {
		case msg.String() == "esc" && !a.input.Busy():
			a.setFocus(paneResults)
			return nil
		case msg.String() == "tab" && a.input.Value() == "":
			a.cycleFocus(1)
			return nil
		}
		return a.input.Update(msg)
	case paneSchema:
		if a.schema.Filtering() {
			return a.schema.Update(msg)
		}
	case paneResults:
		if a.grid.Filtering() {
			return a.grid.Update(msg)
		}
	}

	// Single-letter global keys, outside the input.
	switch {
	case key.Matches(msg, g.Quit):
		return a.quit()
	case key.Matches(msg, g.Help):
		a.openHelp()
		return nil
	case key.Matches(msg, g.NextPane):
		a.cycleFocus(1)
		return nil
	case key.Matches(msg, g.Edit):
		a.setFocus(paneInput)
		return nil
	case msg.String() == "esc" && a.focus != paneSchema:
		a.setFocus(paneInput)
		return nil
	}
	return a.routeToFocused(msg)
}

func (a *App) openHelp() {
	a.over = overlayHelp
	a.helpOff = 0
}

func (a *App) quit() tea.Cmd {
	a.quitting = true
	a.cancelJob()
	return tea.Quit
}

func (a *App) routeToFocused(msg tea.Msg) tea.Cmd {
	if a.over == overlayPrompt {
		return a.prompt.Update(msg)
	}
	switch a.focus {
	case paneSchema:
		return a.schema.Update(msg)
	case paneInput:
		return a.input.Update(msg)
	case paneAnswer:
		return a.answer.Update(msg)
	case paneResults:
		return a.grid.Update(msg)
	case paneChart:
		return a.chart.Update(msg)
	}
	return nil
}

// setFocus gives pane p the keyboard.
func (a *App) setFocus(p pane) {
	a.focus = p
	for q, c := range map[pane]interface {
		Focus()
		Blur()
	}{paneSchema: a.schema, paneInput: a.input, paneAnswer: a.answer, paneResults: a.grid, paneChart: a.chart} {
		if q == p {
			c.Focus()
		} else {
			c.Blur()
		}
	}
}

// visiblePanes lists the panes on screen in tab order.
func (a *App) visiblePanes() []pane {
	var out []pane
	if a.lay.sidebar.w > 0 {
		out = append(out, paneSchema)
	}
	out = append(out, paneInput)
	if a.lay.answer.h > 0 {
		out = append(out, paneAnswer)
	}
	out = append(out, paneResults)
	if a.lay.chart.h > 0 {
		out = append(out, paneChart)
	}
	return out
}

func (a *App) cycleFocus(d int) {
	ps := a.visiblePanes()
	for i, p := range ps {
		if p == a.focus {
			a.setFocus(ps[((i+d)%len(ps)+len(ps))%len(ps)])
			return
		}
	}
	a.setFocus(paneInput)
}

// --- mouse ---

func (a *App) onClick(msg tea.MouseClickMsg) tea.Cmd {
	m := msg.Mouse()
	if a.over != overlayNone || m.Button != tea.MouseLeft {
		return nil
	}
	L := a.lay
	switch {
	case L.sidebar.contains(m.X, m.Y):
		a.setFocus(paneSchema)
		a.schema.Click(m.Y - L.sidebar.y - 1)
	case L.input.contains(m.X, m.Y):
		a.setFocus(paneInput)
	case L.answer.contains(m.X, m.Y):
		a.setFocus(paneAnswer)
		return a.answer.Click(m.Y - L.answer.y - 1)
	case L.grid.contains(m.X, m.Y):
		a.setFocus(paneResults)
		return a.grid.Click(m.X-L.grid.x, m.Y-L.grid.y-1)
	case L.chart.contains(m.X, m.Y):
		a.setFocus(paneChart)
	}
	return nil
}

func (a *App) onWheel(msg tea.MouseWheelMsg) {
	m := msg.Mouse()
	n := 0
	switch m.Button {
	case tea.MouseWheelUp:
		n = -3
	case tea.MouseWheelDown:
		n = 3
	default:
		return
	}
	if a.over == overlayPager {
		for i := 0; i < max(n, -n); i++ {
			k := tea.KeyPressMsg{Code: tea.KeyDown}
			if n < 0 {
				k = tea.KeyPressMsg{Code: tea.KeyUp}
			}
			a.pager.Update(k)
		}
		return
	}
	if a.over == overlayDetail {
		for i := 0; i < max(n, -n); i++ {
			k := "down"
			if n < 0 {
				k = "up"
			}
			a.detail.Update(tea.KeyPressMsg{Code: map[string]rune{"up": tea.KeyUp, "down": tea.KeyDown}[k]})
		}
		return
	}
	L := a.lay
	switch {
	case L.sidebar.contains(m.X, m.Y):
		a.schema.Scroll(n)
	case L.answer.contains(m.X, m.Y):
		a.answer.Scroll(n)
	case L.grid.contains(m.X, m.Y):
		a.grid.Scroll(n)
	}
}

// --- status and help ---

func (a *App) updateStatus() {
	if j := a.job; j != nil {
		el := a.now().Sub(j.start).Round(100 * time.Millisecond)
		secs := format.Seconds(el)
		var text string
		switch {
		case j.cancelling:
			text = "cancelling…"
		case j.kind == jobQuery:
			text = "running query · " + secs
			if a.grid.Columns() != nil {
				text += " · " + format.Plural(int64(a.grid.Len()), "row")
			}
			text += " · ctrl+c cancels"
		case j.kind == jobAsk:
			text = "asking · " + secs + " · ctrl+c cancels"
		case j.kind == jobExport:
			text = "exporting " + format.Plural(j.rows, "row") + " → " + j.path + " · " + secs + " · ctrl+c cancels"
		}
		a.status.SetBusy(text, a.spin.View())
	} else {
		a.status.SetBusy("", "")
	}
	a.status.SetRight(a.grid.Summary())
}

func (a *App) focusedComponent() common.Component {
	switch a.over {
	case overlayDetail:
		return a.detail
	case overlayPrompt:
		return a.prompt
	case overlayPager:
		return a.pager
	}
	switch a.focus {
	case paneSchema:
		return a.schema
	case paneAnswer:
		return a.answer
	case paneResults:
		return a.grid
	case paneChart:
		return a.chart
	}
	return a.input
}

func (a *App) updateHelp() {
	c := a.focusedComponent()
	short := append([]key.Binding(nil), c.ShortHelp()...)
	switch a.over {
	case overlayHelp:
		short = []key.Binding{common.Short(a.keys.Overlay.Close, "close help")}
	case overlayNote:
		short = []key.Binding{common.Short(a.keys.Overlay.Close, "close")}
	}
	if a.over == overlayNone {
		if a.focus == paneInput && a.input.Value() == "" && a.lay.answer.h > 0 && len(a.answer.ShortHelp()) > 0 {
			short = append(short, common.Hint("alt+4", "follow-ups"))
		}
		short = append(short, key.NewBinding(key.WithKeys("?"), key.WithHelp(helpKey(a.focus), "help")))
	}
	cancel := common.Hint("ctrl+c", "quit")
	if a.job != nil {
		cancel.SetHelp("ctrl+c", "cancel")
	}
	short = append(short, cancel)
	title := a.focus.String()
	switch {
	case a.over == overlayPager:
		title = "Pager"
	case a.over == overlayDetail && a.detail.Record():
		title = "Row"
	case a.over == overlayDetail:
		title = "Cell"
	}
	a.help.Set(title, short, c.FullHelp())
}

func helpKey(p pane) string {
	if p == paneInput {
		return "f1"
	}
	return "?"
}

// globalHelp is the bindings that work everywhere.
func (a *App) globalHelp() [][]key.Binding {
	g := a.keys.Global
	return [][]key.Binding{
		{g.Cancel, g.Quit, g.Help, g.Export, g.Health},
		{g.NextPane, g.PrevPane, g.Edit, g.ToggleSidebar, g.ToggleChart},
		{g.FocusSchema, g.FocusInput, g.FocusResults, g.FocusAnswer, g.FocusChart},
	}
}
