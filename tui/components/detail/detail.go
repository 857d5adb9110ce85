// Package detail shows one cell in full and the whole row it belongs to.
package detail

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/grid"
)

// CopiedMsg reports what went to the clipboard.
type CopiedMsg struct{ What string }

// Model is the cell view.
type Model struct {
	c      common.Common
	cols   []query.Column
	row    query.Row
	col    int
	rowNum int
	off    int
	w, h   int
	active bool
}

var _ common.Component = (*Model)(nil)

// New returns a closed cell view.
func New(c common.Common) *Model { return &Model{c: c} }

// Open shows column col of row.
func (m *Model) Open(e grid.ExpandMsg) {
	m.cols, m.row, m.col, m.rowNum, m.off, m.active = e.Columns, e.Row, e.Col, e.RowNum, 0, true
}

// Active reports whether the view is open.
func (m *Model) Active() bool { return m.active }

// Close closes the view.
func (m *Model) Close() { m.active = false }

// Title names the cell.
func (m *Model) Title() string {
	if m.col >= len(m.cols) {
		return ""
	}
	return common.Sanitize(m.cols[m.col].Name) + " · row " + common.Count(int64(m.rowNum))
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := m.c.Keys
	switch {
	case key.Matches(kp, k.Overlay.Close), key.Matches(kp, k.Grid.Expand):
		m.active = false
	case key.Matches(kp, k.Overlay.Up):
		m.off = max(0, m.off-1)
	case key.Matches(kp, k.Overlay.Down):
		m.off++
	case kp.String() == "pgup":
		m.off = max(0, m.off-m.h)
	case kp.String() == "pgdown", kp.String() == "space":
		m.off += m.h
	case key.Matches(kp, k.Grid.CopyCell):
		return tea.Batch(tea.SetClipboard(grid.CellText(m.row[m.col])), func() tea.Msg { return CopiedMsg{What: "cell"} })
	case key.Matches(kp, k.Grid.CopyRow):
		parts := make([]string, len(m.row))
		for i, v := range m.row {
			parts[i] = grid.CellText(v)
		}
		return tea.Batch(tea.SetClipboard(strings.Join(parts, "\t")), func() tea.Msg { return CopiedMsg{What: "row"} })
	}
	return nil
}

func (m *Model) lines() []string {
	st := m.c.Styles
	var out []string
	value := func(v any, w int) []string {
		switch v := v.(type) {
		case nil:
			return []string{st.Null.Render("NULL")}
		case []byte:
			return common.Wrap(st.Dim.Render("blob, "+common.Plural(int64(len(v)), "byte")+": ")+grid.CellText(v), w)
		}
		return common.Wrap(common.SanitizeMultiline(grid.CellText(v)), w)
	}
	if m.col < len(m.row) {
		c := m.cols[m.col]
		out = append(out, st.Heading.Render(common.Sanitize(c.Name))+" "+st.Dim.Render(strings.ToLower(c.Type)))
		out = append(out, value(m.row[m.col], m.w)...)
		out = append(out, "")
	}
	out = append(out, st.Heading.Render("row "+common.Count(int64(m.rowNum))))
	nw := 0
	for _, c := range m.cols {
		nw = max(nw, ansi.StringWidth(common.Sanitize(c.Name)))
	}
	nw = min(nw, m.w/3)
	for i, c := range m.cols {
		if i >= len(m.row) {
			break
		}
		vl := value(m.row[i], max(8, m.w-nw-2))
		for j, l := range vl {
			p := strings.Repeat(" ", nw+2)
			if j == 0 {
				p = st.Dim.Render(common.Fit(common.Sanitize(c.Name), nw)) + "  "
			}
			out = append(out, p+l)
		}
	}
	return out
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
	return []key.Binding{k.Grid.CopyCell, k.Grid.CopyRow, k.Overlay.Down, k.Overlay.Close}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys
	return [][]key.Binding{{k.Overlay.Up, k.Overlay.Down}, {k.Grid.CopyCell, k.Grid.CopyRow, k.Overlay.Close}}
}
