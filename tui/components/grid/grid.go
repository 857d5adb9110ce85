// Package grid is the results table. It keeps at most a fixed number of
// rows as Go values (never as strings) and formats only the cells on
// screen, so a million-row result costs what one screen costs. Column
// widths follow every kept row (up to a bound), a number that does not fit
// its column is drawn as ### rather than cut, and the rows can be sorted
// by a column and filtered by text, in the background for large results.
package grid

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/lineedit"
)

// DefaultLimit is how many rows the grid keeps by default.
const DefaultLimit = 100_000

// Column widths.
const (
	maxColWidth = 40 // the widest a column grows by itself
	minColWidth = 3
	colGap      = 2
	widthStep   = 4 // cells a key widens or narrows a column by
)

// syncRows is the most rows sorted or filtered at once inside Update;
// larger results are ordered in a tea.Cmd.
const syncRows = 5000

// Open names what an ExpandMsg asks the app to show.
type Open int

// What to open.
const (
	OpenCell   Open = iota // the whole cell and its row
	OpenRecord             // the row, one field a line, stepping through rows
	OpenPager              // the cell's whole text in a pager
)

// ExpandMsg asks the app to show a whole cell, its row, or the cell in a
// pager.
type ExpandMsg struct {
	Columns []query.Column
	Row     query.Row
	Col     int
	RowNum  int // 1-based, in the result as it came
	Pos     int // 1-based, in the grid as sorted and filtered
	Count   int // rows the grid shows
	Open    Open
}

// CopiedMsg reports what was put on the clipboard.
type CopiedMsg struct{ What string }

// StatusMsg is a note for the status line.
type StatusMsg struct{ Text string }

// ViewMsg carries a display order computed in the background.
type ViewMsg struct {
	gen  int
	upto int // rows[:upto] were ordered
	view []int32
}

// Model is the results grid.
type Model struct {
	c common.Common

	cols    []query.Column
	rows    []query.Row
	auto    []int  // widths measured from every kept row, at most maxColWidth
	user    []int  // widths set with the widen and narrow keys; 0: auto
	numeric []int8 // 1: numbers (right-aligned), -1: other, 0: unknown yet
	scratch []byte
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

	cur, col   int // cursor row (in display order) and column
	off, offC  int // first visible row and column
	w, h       int
	focused    bool
	lastFormat int // cells formatted by the last View

	// Sorting and filtering. view lists the rows shown, in order, when
	// hasView; otherwise every kept row shows as it came.
	ord        order
	filterText string
	view       []int32
	hasView    bool
	gen        int // the order's generation; older ViewMsgs are dropped
	pending    bool
	cancel     context.CancelFunc
	editing    bool
	edit       *lineedit.Model
}

var _ common.Component = (*Model)(nil)

// New returns an empty grid keeping at most limit rows (0: DefaultLimit).
func New(c common.Common, limit int) *Model {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Model{c: c, limit: limit, ord: order{col: -1}, edit: newFilterEdit(c)}
}

func newFilterEdit(c common.Common) *lineedit.Model {
	e := lineedit.New(c.Styles)
	e.Prompt = "/ "
	e.Placeholder = "text to find in any column"
	return e
}

// Limit is the most rows the grid keeps.
func (m *Model) Limit() int { return m.limit }

// SetEmpty sets the lines an empty grid shows.
func (m *Model) SetEmpty(lines []string) { m.empty = lines }

// Reset clears the grid for a new run of sql.
func (m *Model) Reset(sql string) {
	m.stopPending()
	*m = Model{c: m.c, limit: m.limit, empty: m.empty, w: m.w, h: m.h, focused: m.focused, sql: sql, running: true,
		ord: order{col: -1}, edit: newFilterEdit(m.c), gen: m.gen + 1}
}

// Begin sets the columns of the running result.
func (m *Model) Begin(cols []query.Column) {
	m.cols = cols
	m.rows = nil
	m.more, m.by, m.done, m.running, m.err, m.notice = false, "", false, true, nil, ""
	m.cur, m.col, m.off, m.offC = 0, 0, 0, 0
	m.auto = make([]int, len(cols))
	m.user = make([]int, len(cols))
	m.numeric = make([]int8, len(cols))
	for i, c := range cols {
		m.auto[i] = clampW(ansi.StringWidth(format.PrintableLine(c.Name)))
	}
	m.clearOrder()
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
		m.measure(r)
	}
	from := len(m.rows)
	m.rows = append(m.rows, rows...)
	if m.hasView && m.ord.filter != "" && !m.pending {
		m.appendMatches(from)
	}
}

// measure widens the columns for the values of r.
func (m *Model) measure(r query.Row) {
	for i := range m.auto {
		if i >= len(r) {
			break
		}
		if m.numeric[i] != 0 && m.auto[i] >= maxColWidth {
			continue
		}
		v := r[i]
		if m.numeric[i] == 0 && v != nil {
			m.numeric[i] = -1
			switch v.(type) {
			case int64, float64:
				m.numeric[i] = 1
			}
		}
		if w := clampW(m.cellWidth(v)); w > m.auto[i] {
			m.auto[i] = w
		}
	}
}

// cellWidth is how wide formatValue's text of v is, exactly for the
// widths a column can take by itself and at least maxColWidth+1 beyond
// them; it does not allocate for numbers or plain text.
func (m *Model) cellWidth(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case int64:
		return intWidth(x)
	case float64:
		m.scratch = format.AppendFloat(m.scratch[:0], x)
		return len(m.scratch)
	case string:
		if len(x) > 4*(maxColWidth+1) {
			return maxColWidth + 1
		}
		for i := 0; i < len(x); i++ {
			if x[i] < 0x20 || x[i] >= 0x7f {
				txt, _, _ := formatValue(v, maxColWidth+1)
				return ansi.StringWidth(txt)
			}
		}
		return len(x)
	}
	txt, _, _ := formatValue(v, maxColWidth+1)
	return ansi.StringWidth(txt)
}

// intWidth is len(strconv.FormatInt(x, 10)).
func intWidth(x int64) int {
	n := 1
	if x < 0 {
		if x == -1<<63 {
			return 20
		}
		n++
		x = -x
	}
	for x >= 10 {
		x /= 10
		n++
	}
	return n
}

func clampW(w int) int { return min(maxColWidth, max(minColWidth, w)) }

// width is column c's width on screen: as set with the keys, else as
// measured, with room for the sort arrow after the name of the sorted
// column.
func (m *Model) width(c int) int {
	if m.user[c] > 0 {
		return m.user[c]
	}
	if c == m.ord.col {
		return max(m.auto[c], clampW(ansi.StringWidth(format.PrintableLine(m.cols[c].Name))+2))
	}
	return m.auto[c]
}

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
		s = format.Plural(n, "row") + " so far…"
	case m.more:
		s = format.Count(n) + " of more rows"
	default:
		s = format.Plural(n, "row")
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

// Position is "row 3 of 12" for the pane title ("row 3 of 12 matching"
// under a filter).
func (m *Model) Position() string {
	n := m.count()
	if len(m.rows) == 0 || (n == 0 && !m.hasView) {
		return ""
	}
	if n == 0 {
		return "no rows match"
	}
	total := format.Count(int64(n))
	if m.more && !(m.hasView && m.ord.filter != "") {
		total += "+"
	}
	s := "row " + format.Count(int64(m.cur+1)) + " of " + total
	if m.hasView && m.ord.filter != "" {
		s += " matching"
	}
	return s
}

// Sorted names the sort: "sq ↓", "" when the rows are as they came.
func (m *Model) Sorted() string {
	if m.ord.col < 0 || m.ord.col >= len(m.cols) {
		return ""
	}
	return format.PrintableLine(m.cols[m.ord.col].Name) + " " + sortArrow(m.ord.desc)
}

func sortArrow(desc bool) string {
	if desc {
		return "↓"
	}
	return "↑"
}

// Filter is the filter's text as typed ("" when none).
func (m *Model) Filter() string { return m.filterText }

// Filtering reports whether the filter line has the keyboard.
func (m *Model) Filtering() bool { return m.editing }

// Pending reports whether a sort or filter is being computed.
func (m *Model) Pending() bool { return m.pending }

// count is how many rows the grid shows.
func (m *Model) count() int {
	if m.hasView {
		return len(m.view)
	}
	return len(m.rows)
}

// index is the kept row shown at display position i.
func (m *Model) index(i int) int {
	if m.hasView {
		return int(m.view[i])
	}
	return i
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
}

// Focus implements common.Focusable.
func (m *Model) Focus() { m.focused = true }

// Blur implements common.Focusable.
func (m *Model) Blur() {
	m.focused = false
	m.editing = false
	m.edit.Blur()
}

// Focused implements common.Focusable.
func (m *Model) Focused() bool { return m.focused }

// barShown reports whether the filter line takes the last line.
func (m *Model) barShown() bool { return m.editing || m.ord.filter != "" }

func (m *Model) bodyHeight() int {
	h := m.h - 2
	if m.barShown() {
		h--
	}
	return max(0, h)
}

func (m *Model) clamp() {
	n := m.count()
	m.cur = min(m.cur, n-1)
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
	m.off = max(0, min(m.off, n-bh))
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
		x += m.width(c)
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

// Click moves the cursor to the cell at (x, y) of the view; a click on a
// column's name sorts by it.
func (m *Model) Click(x, y int) tea.Cmd {
	if len(m.cols) == 0 {
		return nil
	}
	if y >= 2 && y-2 < m.bodyHeight() {
		m.cur = m.off + y - 2
	}
	cx := m.gutterWidth()
	for c := m.offC; c < len(m.cols); c++ {
		if x >= cx && x < cx+m.width(c)+colGap {
			m.col = c
			break
		}
		cx += m.width(c) + colGap
	}
	m.clamp()
	if y == 0 {
		return m.cycleSort()
	}
	return nil
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ViewMsg:
		m.applyView(msg)
		return nil
	case tea.PasteMsg:
		if m.editing && m.edit.Update(msg) {
			return m.setFilter(m.edit.Value())
		}
		return nil
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.cols) == 0 {
		return nil
	}
	k := m.c.Keys.Grid
	if m.editing {
		switch kp.String() {
		case "enter":
			m.editing = false
			m.edit.Blur()
			return nil
		case "esc":
			m.editing = false
			m.edit.Blur()
			m.edit.SetValue("")
			return m.setFilter("")
		case "up", "down", "pgup", "pgdown":
		default:
			if m.edit.Update(kp) {
				return m.setFilter(m.edit.Value())
			}
			return nil
		}
	}
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
		m.cur = m.count() - 1
	case key.Matches(kp, k.RowStart):
		m.col = 0
	case key.Matches(kp, k.RowEnd):
		m.col = len(m.cols) - 1
	case key.Matches(kp, k.Expand):
		return m.open(OpenCell)
	case key.Matches(kp, k.Record):
		return m.open(OpenRecord)
	case key.Matches(kp, k.Pager):
		return m.open(OpenPager)
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
	case key.Matches(kp, k.Sort):
		return m.cycleSort()
	case key.Matches(kp, k.Filter):
		m.editing = true
		m.edit.SetValue(m.filterText)
		m.edit.Focus()
	case key.Matches(kp, k.Widen):
		m.user[m.col] = min(m.width(m.col)+widthStep, max(maxColWidth, m.w-m.gutterWidth()))
	case key.Matches(kp, k.Narrow):
		m.user[m.col] = max(minColWidth, m.width(m.col)-widthStep)
	case key.Matches(kp, k.AutoWidth):
		m.user[m.col] = 0
	default:
		return nil
	}
	m.clamp()
	return nil
}

// open asks the app to show the cursor's cell or row.
func (m *Model) open(o Open) tea.Cmd {
	e, ok := m.expand(o)
	if !ok {
		return nil
	}
	return func() tea.Msg { return e }
}

func (m *Model) expand(o Open) (ExpandMsg, bool) {
	r := m.row()
	if r == nil {
		return ExpandMsg{}, false
	}
	return ExpandMsg{Columns: m.cols, Row: r, Col: m.col, RowNum: m.index(m.cur) + 1, Pos: m.cur + 1, Count: m.count(), Open: o}, true
}

// Step moves the cursor d rows (in display order) and returns the row it
// lands on, for the record view; ok is false when there is no row.
func (m *Model) Step(d int) (ExpandMsg, bool) {
	m.cur += d
	m.clamp()
	return m.expand(OpenRecord)
}

// cycleSort sorts by the cursor's column: ascending, then descending, then
// as the rows came.
func (m *Model) cycleSort() tea.Cmd {
	if m.running {
		return func() tea.Msg {
			return StatusMsg{Text: "rows are still arriving — sort when the query has finished (ctrl+c stops it)"}
		}
	}
	switch {
	case m.ord.col != m.col:
		m.ord.col, m.ord.desc = m.col, false
	case !m.ord.desc:
		m.ord.desc = true
	default:
		m.ord.col, m.ord.desc = -1, false
	}
	cmd := m.recompute()
	if m.more && m.ord.col >= 0 {
		n := format.Count(int64(len(m.rows)))
		note := func() tea.Msg {
			return StatusMsg{Text: "sorted the " + n + " rows kept, not the whole result — ORDER BY in the SQL sorts every row"}
		}
		return tea.Batch(cmd, note)
	}
	return cmd
}

// setFilter shows only the rows whose text contains s, ignoring case.
func (m *Model) setFilter(s string) tea.Cmd {
	low := strings.ToLower(s)
	m.filterText = s
	if low == m.ord.filter {
		return nil
	}
	m.ord.filter = low
	return m.recompute()
}

// clearOrder drops the sort and the filter.
func (m *Model) clearOrder() {
	m.stopPending()
	m.gen++
	m.ord = order{col: -1}
	m.filterText = ""
	m.view, m.hasView = nil, false
	m.editing = false
	m.edit.SetValue("")
	m.edit.Blur()
}

func (m *Model) stopPending() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.pending = false
}

// recompute orders the rows for the current sort and filter: at once for
// a few rows, in a tea.Cmd for many (the grid keeps showing the old order
// until the new one arrives as a ViewMsg).
func (m *Model) recompute() tea.Cmd {
	m.stopPending()
	m.gen++
	m.cur, m.off = 0, 0
	if !m.ord.active() {
		m.view, m.hasView = nil, false
		return nil
	}
	n := len(m.rows)
	rows, o, gen := m.rows[:n:n], m.ord, m.gen
	if n <= syncRows {
		v, _ := computeView(context.Background(), rows, o)
		m.view, m.hasView = v, true
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel, m.pending = cancel, true
	return func() tea.Msg {
		v, err := computeView(ctx, rows, o)
		if err != nil {
			return nil // a newer order replaced this one
		}
		return ViewMsg{gen: gen, upto: n, view: v}
	}
}

func (m *Model) applyView(msg ViewMsg) {
	if msg.gen != m.gen {
		return
	}
	m.cancel, m.pending = nil, false
	m.view, m.hasView = msg.view, true
	if m.ord.filter != "" {
		m.appendMatches(msg.upto)
	}
	m.clamp()
}

// appendMatches adds the rows from index from on that match the filter
// (rows that arrived after the view was computed; only a filter, never a
// sort, is active while rows arrive).
func (m *Model) appendMatches(from int) {
	var ok bool
	for i := from; i < len(m.rows); i++ {
		if ok, m.scratch = rowMatches(m.rows[i], m.ord.filter, m.scratch); ok {
			m.view = append(m.view, int32(i))
		}
	}
}

func copyCmd(s, what string) tea.Cmd {
	return tea.Batch(tea.SetClipboard(s), func() tea.Msg { return CopiedMsg{What: what} })
}

func (m *Model) row() query.Row {
	if m.cur < 0 || m.cur >= m.count() {
		return nil
	}
	return m.rows[m.index(m.cur)]
}

// CellTitle names a cell for the cell view and the pager: its column and
// its row (1-based, in the result as it came).
func CellTitle(col query.Column, rowNum int) string {
	return format.PrintableLine(col.Name) + " · row " + format.Count(int64(rowNum))
}

// CellText is a value as text for the clipboard and the cell view: NULL
// is empty, blobs are hex.
func CellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []byte:
		return hex.EncodeToString(v)
	}
	return format.Value(v)
}

// formatValue renders one value for a cell, looking at no more of a long
// text than a cell can show.
func formatValue(v any, limit int) (text string, null, right bool) {
	switch v := v.(type) {
	case nil:
		return "NULL", true, false
	case int64, float64:
		return format.Value(v), false, true
	case string:
		return format.PrintableLine(format.ClipBytes(v, 4*limit+4)), false, false
	case []byte:
		return format.Blob(v), true, false
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
		w := m.width(c)
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
		name := format.PrintableLine(m.cols[vc.i].Name)
		hs := st.GridHeader
		if vc.i == m.col && m.focused {
			hs = hs.Foreground(st.Accent.GetForeground())
		}
		var cell string
		switch {
		case vc.i == m.ord.col && vc.w >= 3:
			arrow := " " + sortArrow(m.ord.desc)
			if m.numeric[vc.i] > 0 {
				cell = common.FitRight(ansi.Truncate(name, vc.w-2, "…")+arrow, vc.w)
			} else {
				cell = common.Fit(ansi.Truncate(name, vc.w-2, "…")+arrow, vc.w)
			}
		case m.numeric[vc.i] > 0:
			cell = common.FitRight(name, vc.w)
		default:
			cell = common.Fit(name, vc.w)
		}
		hb.WriteString(hs.Render(cell))
		rb.WriteString(st.GridRule.Render(strings.Repeat("─", vc.w)))
	}
	left, right := "", ""
	if m.offC > 0 {
		left = "‹"
	}
	if len(vis) > 0 && vis[len(vis)-1].i < len(m.cols)-1 || (len(vis) > 0 && vis[len(vis)-1].w < m.width(vis[len(vis)-1].i)) {
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
	bh := m.bodyHeight()
	n := m.count()
	switch {
	case len(m.rows) == 0:
		msg := "(no rows)"
		if m.running {
			msg = "waiting for rows…"
		}
		out = append(out, st.Dim.Render(msg))
	case n == 0:
		out = append(out, st.Dim.Render("(no rows match)"))
	}
	for i := m.off; i < n && i < m.off+bh; i++ {
		ri := m.index(i)
		r := m.rows[ri]
		isCur := i == m.cur && m.focused
		var rowStyle lipgloss.Style
		if isCur {
			rowStyle = st.GridCursorRow
		}
		var b strings.Builder
		b.WriteString(st.GridRowNum.Inherit(rowStyle).Render(common.FitRight(strconv.Itoa(ri+1), gw-1) + " "))
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
			switch {
			case rightAlign && ansi.StringWidth(txt) > vc.w:
				// Never the first digits of a number: a cut number reads
				// as another number.
				cell = strings.Repeat("#", vc.w)
			case rightAlign:
				cell = common.FitRight(txt, vc.w)
			default:
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
	if m.barShown() {
		body := common.Block(strings.Join(out, "\n"), m.w, m.h-1)
		return body + "\n" + m.filterBar()
	}
	return common.Block(strings.Join(out, "\n"), m.w, m.h)
}

// filterBar is the filter's line: what is typed and how many rows match.
func (m *Model) filterBar() string {
	st := m.c.Styles
	var info string
	switch {
	case m.pending:
		info = "filtering " + format.Count(int64(len(m.rows))) + " rows…"
	case m.ord.filter == "":
		info = "type to filter · enter keeps · esc clears"
	default:
		kept := format.Plural(int64(len(m.rows)), "row")
		if m.more {
			kept = format.Count(int64(len(m.rows))) + " kept rows"
		}
		info = format.Count(int64(m.count())) + " of " + kept + " match"
		switch {
		case m.w < 72:
			// The footer lists the keys; the text needs the room.
		case m.editing:
			info += " · enter keeps · esc clears"
		default:
			info += " · / changes"
		}
	}
	info = " " + info
	iw := ansi.StringWidth(info)
	if m.editing {
		ew := max(min(m.w, 16), m.w-iw)
		return common.Fit(m.edit.View(ew)+st.Dim.Render(info), m.w)
	}
	return common.Fit(st.Dim.Render("/ ")+format.PrintableLine(m.filterText)+st.Dim.Render(" ·"+info), m.w)
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Grid
	if m.editing {
		return common.ModeHelp("keep filter", "clear filter")
	}
	return []key.Binding{common.Short(k.Expand, "cell"), common.Short(k.Record, "row"), common.Short(k.Pager, "pager"),
		common.Short(k.Sort, "sort"), common.Short(k.Filter, "filter"), common.Short(k.Widen, "wider"), common.Short(k.CopyCell, "copy")}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Grid
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right},
		{k.PageUp, k.PageDn, k.Top, k.Bottom, k.RowStart, k.RowEnd},
		{k.Expand, k.Record, k.Pager},
		{k.Sort, k.Filter},
		{k.Widen, k.Narrow, k.AutoWidth},
		{k.CopyCell, k.CopyRow, m.c.Keys.Global.Export},
	}
}
