package tui

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/help"
)

// rect is a screen area; a pane's rect includes its title line.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return r.w > 0 && r.h > 0 && x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// layout is where every pane is.
type layout struct {
	sidebar, input, answer, grid, chart rect
	sideBySide                          bool
	bodyH                               int
}

// chartVisible says whether the chart pane takes space.
func (a *App) chartVisible() bool {
	if a.chartOff {
		return false
	}
	return a.chart.Has() || a.chartForced
}

// relayout sizes every pane for the window and the current content. A
// chart whose pane changed size is redrawn.
func (a *App) relayout() tea.Cmd {
	if a.w <= 0 || a.h <= 0 {
		return nil
	}
	var L layout
	L.bodyH = max(1, a.h-2)
	x0 := 0
	if a.sidebar && a.w >= 50 {
		sw := min(34, max(22, a.w*3/10))
		L.sidebar = rect{0, 0, sw, L.bodyH}
		x0 = sw
	}
	mw := a.w - x0
	inputLines := max(1, min(8, L.bodyH/3))
	if a.input.Editor() {
		inputLines = max(3, L.bodyH/2)
	}
	a.input.SetSize(mw, inputLines)
	ih := min(L.bodyH, 1+a.input.Height())
	L.input = rect{x0, 0, mw, ih}
	y, rest := ih, L.bodyH-ih
	if a.answer.Active() && rest > 4 {
		pref := 1 + a.answer.PreferredHeight(mw)
		limit := rest / 2
		if a.grid.Columns() == nil && !a.grid.Running() && !a.chartVisible() {
			limit = rest - 3
		}
		ah := max(min(4, rest), min(pref, limit))
		L.answer = rect{x0, y, mw, ah}
		y, rest = y+ah, rest-ah
	}
	switch {
	case !a.chartVisible() || rest < 4:
		L.grid = rect{x0, y, mw, rest}
	case mw >= 80:
		cw := mw * 2 / 5
		L.grid = rect{x0, y, mw - cw - 1, rest}
		L.chart = rect{x0 + mw - cw, y, cw, rest}
		L.sideBySide = true
	case rest >= 10:
		ch := rest * 45 / 100
		L.grid = rect{x0, y, mw, rest - ch}
		L.chart = rect{x0, y + rest - ch, mw, ch}
	default:
		L.grid = rect{x0, y, mw, rest}
	}
	a.lay = L
	if L.sidebar.w > 0 {
		a.schema.SetSize(L.sidebar.w-1, L.sidebar.h-1)
	}
	a.answer.SetSize(L.answer.w, max(0, L.answer.h-1))
	a.grid.SetSize(L.grid.w, max(0, L.grid.h-1))
	a.status.SetSize(a.w, 1)
	a.help.SetSize(a.w, 1)
	a.prompt.SetSize(min(a.w-4, 72)-4, 4)
	a.detail.SetSize(max(10, a.w-8-4), max(3, a.h-4-2))

	// Keep focus on a pane that is on screen.
	if (a.focus == paneSchema && L.sidebar.w == 0) || (a.focus == paneAnswer && L.answer.h == 0) || (a.focus == paneChart && L.chart.h == 0) {
		a.setFocus(paneInput)
	}
	a.chart.SetSize(L.chart.w, max(0, L.chart.h-1))
	return a.chart.Resize()
}

// segment is a block of lines drawn at a rect.
type segment struct {
	r     rect
	lines []string
}

// render draws the whole screen.
func (a *App) render() string {
	if a.w <= 0 || a.h <= 0 {
		return ""
	}
	st := a.com.Styles
	L := a.lay
	var segs []segment
	add := func(r rect, block string) {
		if r.w <= 0 || r.h <= 0 {
			return
		}
		segs = append(segs, segment{r, strings.Split(common.Block(block, r.w, r.h), "\n")})
	}
	pane := func(r rect, title, info, body string, p pane) {
		if r.h <= 0 {
			return
		}
		add(r, common.Title(st, title, info, r.w, a.focus == p && a.over == overlayNone)+"\n"+body)
	}
	if L.sidebar.w > 0 {
		r := L.sidebar
		body := common.Title(st, "Schema", a.schema.Summary(r.w-1-13), r.w-1, a.focus == paneSchema && a.over == overlayNone) + "\n" + a.schema.View()
		add(rect{r.x, r.y, r.w - 1, r.h}, body)
		add(rect{r.x + r.w - 1, r.y, 1, r.h}, strings.TrimSuffix(strings.Repeat(st.PaneRule.Render("│")+"\n", r.h), "\n"))
	}
	add(L.input, a.inputTitle(L.input.w)+"\n"+a.input.View())
	pane(L.answer, "Answer", a.answerInfo(), a.answer.View(), paneAnswer)
	pane(L.grid, "Results", a.gridInfo(), a.grid.View(), paneResults)
	if L.chart.h > 0 {
		pane(L.chart, "Chart", a.chart.Describe(), a.chart.View(), paneChart)
		if L.sideBySide {
			r := L.grid
			add(rect{r.x + r.w, r.y, 1, r.h}, strings.TrimSuffix(strings.Repeat(st.PaneRule.Render("│")+"\n", r.h), "\n"))
		}
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].r.x < segs[j].r.x })
	lines := make([]string, 0, a.h)
	for y := 0; y < L.bodyH; y++ {
		var b strings.Builder
		for _, s := range segs {
			if y >= s.r.y && y < s.r.y+s.r.h {
				b.WriteString(s.lines[y-s.r.y])
			}
		}
		lines = append(lines, common.Fit(b.String(), a.w))
	}
	a.updateStatus()
	a.updateHelp()
	lines = append(lines, a.status.View(), a.help.View())
	screen := strings.Join(lines[:min(len(lines), a.h)], "\n")

	switch a.over {
	case overlayHelp:
		bw := min(a.w-2, 84)
		var more []help.Section
		if a.focus == paneInput {
			more = append(more, help.Section{Title: "Dot-commands, as in sqlite3", Groups: dotHelp()})
		}
		lines := strings.Split(a.help.Overlay(bw-4, a.globalHelp(), more...), "\n")
		bh := min(a.h-2, len(lines)+2)
		title := "Keys · " + a.focus.String() + " (? or esc closes)"
		if rows := bh - 2; rows < len(lines) {
			a.helpOff = max(0, min(a.helpOff, len(lines)-rows))
			lines = lines[a.helpOff:]
			title = "Keys · " + a.focus.String() + " (↑/↓ more · esc closes)"
		} else {
			a.helpOff = 0
		}
		screen = common.Overlay(screen, common.Box(st, title, strings.Join(lines, "\n"), bw, bh), (a.w-bw)/2, max(0, (a.h-bh)/2))
	case overlayDetail:
		bw, bh := min(a.w-4, 100), a.h-4
		a.detail.SetSize(bw-4, bh-2)
		bh = min(bh, a.detail.PreferredHeight()+2)
		a.detail.SetSize(bw-4, bh-2)
		screen = common.Overlay(screen, common.Box(st, a.detail.Title(), a.detail.View(), bw, bh), (a.w-bw)/2, max(0, (a.h-bh)/2))
	case overlayNote:
		bw := min(a.w-4, 72)
		lines := common.Wrap(format.Printable(a.noteText), max(1, bw-4))
		lines = append(lines, "", st.Dim.Render("esc or enter closes"))
		bh := min(a.h-2, len(lines)+2)
		screen = common.Overlay(screen, common.Box(st, format.PrintableLine(a.noteTitle), strings.Join(lines, "\n"), bw, bh), (a.w-bw)/2, max(0, (a.h-bh)/2))
	case overlayPager:
		bw, bh := a.w, max(3, a.h-2)
		a.pager.SetSize(max(1, bw-4), max(1, bh-2))
		screen = common.Overlay(screen, common.Box(st, a.pager.Title(), a.pager.View(), bw, bh), 0, 0)
	case overlayPrompt:
		bw := min(a.w-4, 72)
		a.prompt.SetSize(bw-4, 4)
		body := a.prompt.View()
		bh := strings.Count(body, "\n") + 3
		screen = common.Overlay(screen, common.Box(st, a.prompt.Title(), body, bw, bh), (a.w-bw)/2, max(0, (a.h-bh)/2))
	}
	return screen
}

// inputTitle is the input's title line with its mode badge.
func (a *App) inputTitle(w int) string {
	st := a.com.Styles
	label, sql, forced := a.input.ModeLabel()
	badge := st.ModeAsk.Render(" " + label + " ")
	if sql {
		badge = st.ModeSQL.Render(" " + label + " ")
	}
	info := "auto · ctrl+t forces"
	if forced {
		info = "forced · ctrl+t changes"
	}
	switch {
	case a.input.Editor():
		info = "editor · alt+enter or f5 runs · ctrl+o one line · " + info
	case a.focus == paneInput && a.over == overlayNone:
		info = "enter runs · " + info
	}
	rs := st.PaneRule
	if a.focus == paneInput && a.over == overlayNone {
		rs = st.PaneRuleFocused
	}
	return common.TitleRule(rs.Render("─ ")+badge+" "+st.Dim.Render(info)+" ", rs, w)
}

func (a *App) answerInfo() string {
	switch {
	case a.answer.Running():
		return "thinking…"
	case a.answer.Bundle() != nil:
		return string(a.answer.Bundle().Status)
	}
	return ""
}

func (a *App) gridInfo() string {
	var parts []string
	if p := a.grid.Position(); p != "" {
		parts = append(parts, p)
	}
	if s := a.grid.Sorted(); s != "" {
		parts = append(parts, "sorted by "+s)
	}
	if sql := a.grid.SQL(); sql != "" {
		parts = append(parts, format.PrintableLine(strings.Join(strings.Fields(sql), " ")))
	} else if a.gridLabel != "" && a.grid.Columns() != nil {
		parts = append(parts, format.PrintableLine(strings.TrimSpace(a.gridLabel)))
	}
	return strings.Join(parts, " · ")
}
