// Package detail shows one cell in full and the whole row it belongs to,
// or — as the record view — one row a field a line, stepping through the
// rows of the result.
package detail

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/grid"
)

// CopiedMsg reports what went to the clipboard.
type CopiedMsg struct{ What string }

// StepMsg asks for the row Delta rows after (or before) the one shown.
type StepMsg struct{ Delta int }

// PagerMsg asks to show a value in the pager.
type PagerMsg struct {
	Title, Text string
}

// Model is the cell view and the record view.
type Model struct {
	c          common.Common
	cols       []query.Column
	row        query.Row
	col        int // the cell shown, or the field selected in the record view
	rowNum     int
	pos, count int
	record     bool
	off        int
	w, h       int
	active     bool
}

var _ common.Component = (*Model)(nil)

// New returns a closed cell view.
func New(c common.Common) *Model { return &Model{c: c} }

// Open shows column col of row: the cell view, or the record view when
// e asks for it.
func (m *Model) Open(e grid.ExpandMsg) {
	m.cols, m.row, m.col, m.rowNum, m.off, m.active = e.Columns, e.Row, e.Col, e.RowNum, 0, true
	m.pos, m.count, m.record = e.Pos, e.Count, e.Open == grid.OpenRecord
}

// Show replaces the record view's row, keeping the selected field.
func (m *Model) Show(e grid.ExpandMsg) {
	m.row, m.rowNum, m.pos, m.count = e.Row, e.RowNum, e.Pos, e.Count
}

// Record reports whether the record view is open.
func (m *Model) Record() bool { return m.active && m.record }

// Active reports whether the view is open.
func (m *Model) Active() bool { return m.active }

// Close closes the view.
func (m *Model) Close() { m.active = false }

// Title names the cell, or the row in the record view.
func (m *Model) Title() string {
	if m.record {
		t := "row " + format.Count(int64(m.pos)) + " of " + format.Count(int64(m.count))
		if m.pos != m.rowNum {
			t += " (result row " + format.Count(int64(m.rowNum)) + ")"
		}
		return t + " · ←/→ rows"
	}
	if m.col >= len(m.cols) {
		return ""
	}
	return grid.CellTitle(m.cols[m.col], m.rowNum)
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Update implements common.Component. The keys both views share, paging
// and copying, come first; the rest are the cell view's or the record
// view's own.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if cmd, ok := m.pageOrCopy(kp); ok {
		return cmd
	}
	if m.record {
		return m.updateRecord(kp)
	}
	k := m.c.Keys
	switch {
	case key.Matches(kp, k.Grid.Pager):
		return m.pager()
	case key.Matches(kp, k.Overlay.Close), key.Matches(kp, k.Grid.Expand):
		m.active = false
	case key.Matches(kp, k.Overlay.Up):
		m.off = max(0, m.off-1)
	case key.Matches(kp, k.Overlay.Down):
		m.off++
	}
	return nil
}

func (m *Model) updateRecord(kp tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	switch {
	case key.Matches(kp, k.Record.Close):
		m.active = false
	case key.Matches(kp, k.Record.Up):
		m.col = max(0, m.col-1)
		m.follow()
	case key.Matches(kp, k.Record.Down):
		m.col = min(len(m.cols)-1, m.col+1)
		m.follow()
	case key.Matches(kp, k.Record.Prev):
		return func() tea.Msg { return StepMsg{Delta: -1} }
	case key.Matches(kp, k.Record.Next):
		return func() tea.Msg { return StepMsg{Delta: 1} }
	case key.Matches(kp, k.Record.Pager):
		return m.pager()
	}
	return nil
}

// pageOrCopy handles the keys the cell and the row view share: paging
// and copying. It reports whether kp was one of them; none of them is
// bound to anything else in either view.
func (m *Model) pageOrCopy(kp tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.c.Keys
	switch {
	case kp.String() == "pgup":
		m.off = max(0, m.off-m.h)
	case kp.String() == "pgdown", kp.String() == "space":
		m.off += m.h
	case key.Matches(kp, k.Grid.CopyCell):
		return m.copyCell(), true
	case key.Matches(kp, k.Grid.CopyRow):
		return m.copyRow(), true
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) pager() tea.Cmd {
	if m.col >= len(m.row) || m.col >= len(m.cols) {
		return nil
	}
	msg := PagerMsg{Title: grid.CellTitle(m.cols[m.col], m.rowNum), Text: grid.CellText(m.row[m.col])}
	return func() tea.Msg { return msg }
}

func (m *Model) copyCell() tea.Cmd {
	return tea.Batch(tea.SetClipboard(grid.CellText(m.row[m.col])), func() tea.Msg { return CopiedMsg{What: "cell"} })
}

func (m *Model) copyRow() tea.Cmd {
	parts := make([]string, len(m.row))
	for i, v := range m.row {
		parts[i] = grid.CellText(v)
	}
	return tea.Batch(tea.SetClipboard(strings.Join(parts, "\t")), func() tea.Msg { return CopiedMsg{What: "row"} })
}

// follow scrolls the record view so the selected field shows.
func (m *Model) follow() {
	lines, starts := m.fieldLines(true)
	if m.col >= len(starts) {
		return
	}
	first, last := starts[m.col], len(lines)-1
	if m.col+1 < len(starts) {
		last = starts[m.col+1] - 1
	}
	if first < m.off {
		m.off = first
	}
	if last >= m.off+m.h {
		m.off = max(first, last-m.h+1)
	}
}

// fieldLines is the row, one field a line: each field's name beside its
// value; starts[i] is field i's first line. The record view (marked) marks
// the selected field in a gutter of its own; the cell view lists the row
// under the cell without one.
func (m *Model) fieldLines(marked bool) (out []string, starts []int) {
	st := m.c.Styles
	nw := 0
	for _, c := range m.cols {
		nw = max(nw, ansi.StringWidth(format.PrintableLine(c.Name)))
	}
	nw = max(0, min(nw, m.w/3))
	gutter := ""
	if marked {
		gutter = "  "
	}
	for i, c := range m.cols {
		if i >= len(m.row) {
			break
		}
		starts = append(starts, len(out))
		vl := m.value(m.row[i], max(8, m.w-nw-2-len(gutter)))
		for j, l := range vl {
			mark, name := gutter, strings.Repeat(" ", nw)
			if j == 0 {
				name = st.Dim.Render(common.Fit(format.PrintableLine(c.Name), nw))
				if marked && i == m.col {
					mark = st.Marker.Render("› ")
					name = st.Select.Render(common.Fit(format.PrintableLine(c.Name), nw))
				}
			}
			out = append(out, mark+name+"  "+l)
		}
	}
	return out, starts
}

// value is v's lines for the views, w cells wide.
func (m *Model) value(v any, w int) []string {
	st := m.c.Styles
	switch v := v.(type) {
	case nil:
		return []string{st.Null.Render("NULL")}
	case []byte:
		return common.Wrap(st.Dim.Render("blob, "+format.Plural(int64(len(v)), "byte")+": ")+grid.CellText(v), w)
	}
	return common.Wrap(format.Printable(grid.CellText(v)), w)
}

func (m *Model) lines() []string {
	fields, _ := m.fieldLines(m.record)
	if m.record {
		return fields
	}
	st := m.c.Styles
	var out []string
	if m.col < len(m.row) {
		c := m.cols[m.col]
		out = append(out, st.Heading.Render(format.PrintableLine(c.Name))+" "+st.Dim.Render(strings.ToLower(c.Type)))
		out = append(out, m.value(m.row[m.col], m.w)...)
		out = append(out, "")
	}
	out = append(out, st.Heading.Render("row "+format.Count(int64(m.rowNum))))
	return append(out, fields...)
}

// View implements common.Component.
func (m *Model) View() string {
	l := m.lines()
	m.off = min(m.off, max(0, len(l)-m.h))
	return common.Block(strings.Join(l[m.off:], "\n"), m.w, m.h)
}

// PreferredHeight is the content's height.
func (m *Model) PreferredHeight() int { return len(m.lines()) }

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys
	if m.record {
		return []key.Binding{common.Short(k.Record.Next, "next row"), common.Short(k.Record.Prev, "previous row"), common.Short(k.Record.Down, "field"), common.Short(k.Record.Pager, "pager"), k.Grid.CopyCell, k.Record.Close}
	}
	return []key.Binding{common.Short(k.Grid.Pager, "pager"), k.Grid.CopyCell, k.Grid.CopyRow, k.Overlay.Down, k.Overlay.Close}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys
	if m.record {
		return [][]key.Binding{{k.Record.Up, k.Record.Down, k.Record.Prev, k.Record.Next}, {k.Record.Pager, k.Grid.CopyCell, k.Grid.CopyRow, k.Record.Close}}
	}
	return [][]key.Binding{{k.Overlay.Up, k.Overlay.Down}, {k.Grid.Pager, k.Grid.CopyCell, k.Grid.CopyRow, k.Overlay.Close}}
}
