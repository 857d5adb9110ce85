// Package grid is the results table. It keeps at most a fixed number of
// rows as Go values (never as strings) and formats only the cells on
// screen, so a million-row result costs what one screen costs.
package grid

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
)

// DefaultLimit is how many rows the grid keeps by default.
const DefaultLimit = 100_000

// Column widths.
const (
	maxColWidth = 40
	minColWidth = 3
	sampleRows  = 1000 // rows measured for column widths
	colGap      = 2
)

// ExpandMsg asks the app to show a whole cell and its row.
type ExpandMsg struct {
	Columns []query.Column
	Row     query.Row
	Col     int
	RowNum  int // 1-based
}

// CopiedMsg reports what was put on the clipboard.
type CopiedMsg struct{ What string }

// Model is the results grid.
type Model struct {
	c common.Common

	cols    []query.Column
	rows    []query.Row
	widths  []int
	numeric []int8 // 1: numbers (right-aligned), -1: other, 0: unknown yet
	sampled int
	limit   int
	more    bool // rows exist beyond the kept ones
	by      string
	running bool
	done    bool
	err     error
	notice  string
	sql     string
	elapsed time.Duration
	empty   []string // what an empty grid shows

	cur, col   int // cursor row and column
	off, offC  int // first visible row and column
	w, h       int
	focused    bool
	lastFormat int // cells formatted by the last View
}

var _ common.Component = (*Model)(nil)

// New returns an empty grid keeping at most limit rows (0: DefaultLimit).
func New(c common.Common, limit int) *Model {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Model{c: c, limit: limit}
}

// Limit is the most rows the grid keeps.
func (m *Model) Limit() int { return m.limit }

// SetEmpty sets the lines an empty grid shows.
func (m *Model) SetEmpty(lines []string) { m.empty = lines }

// Reset clears the grid for a new run of sql.
func (m *Model) Reset(sql string) {
	*m = Model{c: m.c, limit: m.limit, empty: m.empty, w: m.w, h: m.h, focused: m.focused, sql: sql, running: true}
}

// Begin sets the columns of the running result.
func (m *Model) Begin(cols []query.Column) {
	m.cols = cols
	m.rows = nil
	m.more, m.by, m.done, m.running, m.err, m.notice = false, "", false, true, nil, ""
	m.cur, m.col, m.off, m.offC = 0, 0, 0, 0
	m.widths = make([]int, len(cols))
	m.numeric = make([]int8, len(cols))
	for i, c := range cols {
		m.widths[i] = clampW(ansi.StringWidth(common.Sanitize(c.Name)))
	}
	m.sampled = 0
}

// Append adds streamed rows, keeping at most the limit.
func (m *Model) Append(rows []query.Row) {
	room := m.limit - len(m.rows)
	if len(rows) > room {
		rows = rows[:max(0, room)]
		m.more = true
		if m.by == "" {
			m.by = "rows"
		}
	}
	for _, r := range rows {
		if m.sampled < sampleRows {
			m.measure(r)
			m.sampled++
		}
	}
	m.rows = append(m.rows, rows...)
}

func (m *Model) measure(r query.Row) {
	for i := range m.widths {
		if i >= len(r) {
			break
		}
		txt, null, right := formatValue(r[i], maxColWidth+1)
		if m.numeric[i] == 0 && !null {
			m.numeric[i] = -1
			if right {
				m.numeric[i] = 1
			}
		}
		if w := clampW(ansi.StringWidth(txt)); w > m.widths[i] {
			m.widths[i] = w
		}
	}
}

func clampW(w int) int { return min(maxColWidth, max(minColWidth, w)) }

// Finish ends the run.
func (m *Model) Finish(truncated bool, by string, elapsed time.Duration, err error) {
	m.running, m.done = false, true
	m.elapsed = elapsed
	if truncated {
		m.more = true
		if by != "" {
			m.by = by
		}
	}
	m.err = err
}

// SetNotice shows a one-line note above an empty grid ("cancelled").
func (m *Model) SetNotice(s string) { m.notice = s }

// SetError shows err instead of rows.
func (m *Model) SetError(err error) {
	m.running = false
	m.done = true
	m.err = err
}

// SetResult shows a whole result at once (a question's preview).
func (m *Model) SetResult(sql string, cols []query.Column, rows []query.Row, truncated bool) {
	m.Reset(sql)
	m.Begin(cols)
	m.Append(rows)
	m.Finish(truncated, "", 0, nil)
}

// Running reports whether rows are still streaming in.
func (m *Model) Running() bool { return m.running }

// Err is the run's error.
func (m *Model) Err() error { return m.err }

// SQL is the statement whose rows are shown.
func (m *Model) SQL() string { return m.sql }

// Columns are the result's columns.
func (m *Model) Columns() []query.Column { return m.cols }

// Len is the number of kept rows.
func (m *Model) Len() int { return len(m.rows) }

// More reports whether rows exist beyond the kept ones.
func (m *Model) More() bool { return m.more }

// Snapshot returns the kept rows as a result that later appends never
// change (for charts rendered in the background).
func (m *Model) Snapshot() *query.Result {
	n := len(m.rows)
	return &query.Result{Columns: m.cols, Rows: m.rows[:n:n], RowCount: n, Truncated: m.more, SQL: m.sql, Elapsed: m.elapsed}
}

// Formatted is how many cells the last View formatted.
func (m *Model) Formatted() int { return m.lastFormat }

// Summary is the row count line: "12 rows · 3 ms", "100,000 of more rows".
func (m *Model) Summary() string {
	if m.cols == nil {
		return ""
	}
	n := int64(len(m.rows))
	var s string
	switch {
	case m.running:
		s = common.Plural(n, "row") + " so far…"
	case m.more:
		s = common.Count(n) + " of more rows"
	default:
		s = common.Plural(n, "row")
	}
	if m.done && m.elapsed > 0 {
		s += " · " + FormatDuration(m.elapsed)
	}
	if m.more && !m.running {
		if m.by == "bytes" {
			s += " · size limit"
		}
		s += " · ctrl+s exports all"
	}
	return s
}

// FormatDuration is "3 ms", "1.2 s", "2m05s".
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1 ms"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return d.Round(time.Second).String()
}

// Position is "row 3 of 12" for the pane title.
func (m *Model) Position() string {
	if len(m.rows) == 0 {
		return ""
	}
	total := common.Count(int64(len(m.rows)))
	if m.more {
		total += "+"
	}
	return "row " + common.Count(int64(m.cur+1)) + " of " + total
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
}

// Focus implements common.Focusable.
func (m *Model) Focus() { m.focused = true }

// Blur implements common.Focusable.
func (m *Model) Blur() { m.focused = false }

// Focused implements common.Focusable.
func (m *Model) Focused() bool { return m.focused }

func (m *Model) bodyHeight() int { return max(0, m.h-2) }

func (m *Model) clamp() {
	m.cur = min(m.cur, len(m.rows)-1)
	m.cur = max(m.cur, 0)
	m.col = min(m.col, len(m.cols)-1)
	m.col = max(m.col, 0)
	bh := m.bodyHeight()
	if m.cur < m.off {
		m.off = m.cur
	}
	if bh > 0 && m.cur >= m.off+bh {
		m.off = m.cur - bh + 1
	}
	m.off = max(0, min(m.off, len(m.rows)-bh))
	if m.col < m.offC {
		m.offC = m.col
	}
	for m.offC < m.col && !m.fits(m.offC, m.col) {
		m.offC++
	}
}

// fits reports whether columns from..to all fit in the pane.
func (m *Model) fits(from, to int) bool {
	x := m.gutterWidth()
	for c := from; c <= to; c++ {
		x += m.widths[c]
		if x > m.w {
			return false
		}
		x += colGap
	}
	return true
}

func (m *Model) gutterWidth() int {
	return len(strconv.Itoa(max(1, len(m.rows)))) + 1
}

// Scroll moves the cursor n rows (mouse wheel).
func (m *Model) Scroll(n int) {
	m.cur += n
	m.clamp()
}

// Click moves the cursor to the cell at (x, y) of the view.
func (m *Model) Click(x, y int) {
	if y >= 2 {
		m.cur = m.off + y - 2
	}
	cx := m.gutterWidth()
	for c := m.offC; c < len(m.cols); c++ {
		if x >= cx && x < cx+m.widths[c]+colGap {
			m.col = c
			break
		}
		cx += m.widths[c] + colGap
	}
	m.clamp()
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.cols) == 0 {
		return nil
	}
	k := m.c.Keys.Grid
	page := max(1, m.bodyHeight()-1)
	switch {
	case key.Matches(kp, k.Up):
		m.cur--
	case key.Matches(kp, k.Down):
		m.cur++
	case key.Matches(kp, k.Left):
		m.col--
	case key.Matches(kp, k.Right):
		m.col++
	case key.Matches(kp, k.PageUp):
		m.cur -= page
		m.off -= page
	case key.Matches(kp, k.PageDn):
		m.cur += page
		m.off += page
	case key.Matches(kp, k.Top):
		m.cur = 0
	case key.Matches(kp, k.Bottom):
		m.cur = len(m.rows) - 1
	case key.Matches(kp, k.RowStart):
		m.col = 0
	case key.Matches(kp, k.RowEnd):
		m.col = len(m.cols) - 1
	case key.Matches(kp, k.Expand):
		if r := m.row(); r != nil {
			msg := ExpandMsg{Columns: m.cols, Row: r, Col: m.col, RowNum: m.cur + 1}
			return func() tea.Msg { return msg }
		}
	case key.Matches(kp, k.CopyCell):
		if r := m.row(); r != nil {
			return copyCmd(CellText(r[m.col]), "cell")
		}
	case key.Matches(kp, k.CopyRow):
		if r := m.row(); r != nil {
			parts := make([]string, len(r))
			for i, v := range r {
				parts[i] = CellText(v)
			}
			return copyCmd(strings.Join(parts, "\t"), "row")
		}
	default:
		return nil
	}
	m.clamp()
	return nil
}

func copyCmd(s, what string) tea.Cmd {
	return tea.Batch(tea.SetClipboard(s), func() tea.Msg { return CopiedMsg{What: what} })
}

func (m *Model) row() query.Row {
	if m.cur < 0 || m.cur >= len(m.rows) {
		return nil
	}
	return m.rows[m.cur]
}

// CellText is a value as text for the clipboard and the cell view: NULL
// is empty, blobs are hex.
func CellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return string(export.AppendFloat(nil, v))
	case string:
		return v
	case []byte:
		const hexd = "0123456789abcdef"
		b := make([]byte, 0, 2*len(v))
		for _, c := range v {
			b = append(b, hexd[c>>4], hexd[c&15])
		}
		return string(b)
	}
	return ""
}

// formatValue renders one value for a cell, looking at no more of a long
// text than a cell can show.
func formatValue(v any, limit int) (text string, null, right bool) {
	switch v := v.(type) {
	case nil:
		return "NULL", true, false
	case int64:
		return strconv.FormatInt(v, 10), false, true
	case float64:
		return string(export.AppendFloat(nil, v)), false, true
	case string:
		if len(v) > 4*limit+4 {
			cut := 4*limit + 4
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			v = v[:cut] + "…"
		}
		return common.Sanitize(v), false, false
	case []byte:
		return "‹blob " + common.Count(int64(len(v))) + " B›", true, false
	}
	return "?", false, false
}

// View implements common.Component.
func (m *Model) View() string {
	st := m.c.Styles
	m.lastFormat = 0
	switch {
	case m.err != nil:
		var lines []string
		if m.notice != "" {
			lines = append(lines, st.Dim.Render(m.notice))
		}
		lines = append(lines, common.ErrorBlock(st, m.err, m.w)...)
		return common.Block(strings.Join(lines, "\n"), m.w, m.h)
	case m.cols == nil && m.running:
		msg := "running…"
		if m.notice != "" {
			msg = m.notice
		}
		return common.Block(st.Dim.Render(msg), m.w, m.h)
	case m.cols == nil:
		lines := m.empty
		if m.notice != "" {
			lines = append([]string{st.Dim.Render(m.notice)}, lines...)
		}
		return common.Block(strings.Join(lines, "\n"), m.w, m.h)
	}
	m.clamp()
	gw := m.gutterWidth()
	// Visible columns and their widths.
	type vcol struct{ i, w int }
	var vis []vcol
	x := gw
	for c := m.offC; c < len(m.cols); c++ {
		w := m.widths[c]
		if x+w > m.w {
			if rem := m.w - x; rem >= minColWidth || c == m.offC {
				vis = append(vis, vcol{c, max(1, rem)})
			}
			break
		}
		vis = append(vis, vcol{c, w})
		x += w + colGap
	}
	gap := strings.Repeat(" ", colGap)
	var out []string
	// Header and rule.
	var hb, rb strings.Builder
	hb.WriteString(strings.Repeat(" ", gw))
	rb.WriteString(st.GridRule.Render(strings.Repeat(" ", gw)))
	for j, vc := range vis {
		if j > 0 {
			hb.WriteString(gap)
			rb.WriteString(gap)
		}
		name := common.Sanitize(m.cols[vc.i].Name)
		hs := st.GridHeader
		if vc.i == m.col && m.focused {
			hs = hs.Foreground(st.Accent.GetForeground())
		}
		if m.numeric[vc.i] > 0 {
			hb.WriteString(hs.Render(common.FitRight(name, vc.w)))
		} else {
			hb.WriteString(hs.Render(common.Fit(name, vc.w)))
		}
		rb.WriteString(st.GridRule.Render(strings.Repeat("─", vc.w)))
	}
	left, right := "", ""
	if m.offC > 0 {
		left = "‹"
	}
	if len(vis) > 0 && vis[len(vis)-1].i < len(m.cols)-1 || (len(vis) > 0 && vis[len(vis)-1].w < m.widths[vis[len(vis)-1].i]) {
		right = "›"
	}
	header := common.Fit(hb.String(), m.w)
	if left != "" {
		header = st.Accent.Render(left) + ansi.TruncateLeft(header, 1, "")
	}
	if right != "" {
		header = ansi.Truncate(header, m.w-1, "") + st.Accent.Render(right)
	}
	out = append(out, header, common.Fit(rb.String(), m.w))
	if len(m.rows) == 0 {
		msg := "(no rows)"
		if m.running {
			msg = "waiting for rows…"
		}
		out = append(out, st.Dim.Render(msg))
		return common.Block(strings.Join(out, "\n"), m.w, m.h)
	}
	bh := m.bodyHeight()
	for i := m.off; i < len(m.rows) && i < m.off+bh; i++ {
		r := m.rows[i]
		isCur := i == m.cur && m.focused
		var rowStyle lipgloss.Style
		if isCur {
			rowStyle = st.GridCursorRow
		}
		var b strings.Builder
		b.WriteString(st.GridRowNum.Inherit(rowStyle).Render(common.FitRight(strconv.Itoa(i+1), gw-1) + " "))
		for j, vc := range vis {
			if j > 0 {
				b.WriteString(rowStyle.Render(gap))
			}
			var v any
			if vc.i < len(r) {
				v = r[vc.i]
			}
			txt, null, rightAlign := formatValue(v, vc.w)
			m.lastFormat++
			var cell string
			if rightAlign {
				cell = common.FitRight(txt, vc.w)
			} else {
				cell = common.Fit(txt, vc.w)
			}
			style := rowStyle
			if null {
				style = st.Null.Inherit(rowStyle)
			}
			if isCur && vc.i == m.col {
				style = st.GridCursorCell
			}
			b.WriteString(style.Render(cell))
		}
		line := common.Fit(b.String(), m.w)
		if isCur {
			line = b.String()
			if pad := m.w - ansi.StringWidth(line); pad > 0 {
				line += rowStyle.Render(strings.Repeat(" ", pad))
			} else {
				line = ansi.Truncate(line, m.w, "")
			}
		}
		out = append(out, line)
	}
	return common.Block(strings.Join(out, "\n"), m.w, m.h)
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Grid
	return []key.Binding{common.Short(k.Expand, "cell"), common.Short(k.CopyCell, "copy"), common.Short(k.CopyRow, "copy row"), common.Short(m.c.Keys.Global.Export, "export")}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Grid
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right},
		{k.PageUp, k.PageDn, k.Top, k.Bottom, k.RowStart, k.RowEnd},
		{k.Expand, k.CopyCell, k.CopyRow, m.c.Keys.Global.Export},
	}
}
