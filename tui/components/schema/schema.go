// Package schema is the sidebar: the database's tables and views with
// their row counts, expandable to columns with types and key markers.
package schema

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/lineedit"
)

// PreviewMsg asks the app to show a table's rows.
type PreviewMsg struct{ Table string }

// InsertMsg asks the app to insert text into the input.
type InsertMsg struct{ Text string }

// item is one visible line: a table, or a column of it.
type item struct {
	table *catalog.Table
	col   int // -1 for the table line
}

// Model is the schema tree.
type Model struct {
	c         common.Common
	cat       *catalog.Catalog
	dl        engine.Dialect // quotes inserted names
	err       error
	expanded  map[string]bool
	filter    *lineedit.Model
	filtering bool
	items     []item
	cursor    int
	offset    int
	w, h      int
	focused   bool
}

var _ common.Component = (*Model)(nil)

// New returns an empty tree (loading).
func New(c common.Common) *Model {
	f := lineedit.New(c.Styles)
	f.Prompt = "/ "
	f.Placeholder = "filter tables and columns"
	return &Model{c: c, expanded: map[string]bool{}, filter: f}
}

// SetCatalog shows cat; dl quotes the names it inserts. Given the
// catalog read again after the schema changed (or the whole catalog after
// the names alone), the tree keeps the user's place: the expanded tables,
// the filter, a cursor on the first line there, else the selected table
// or column (by name; when the table is gone, the line where it was) on
// the same row of the view.
func (m *Model) SetCatalog(cat *catalog.Catalog, dl engine.Dialect, err error) {
	m.cat, m.dl, m.err = cat, dl, err
	cursor, row := m.cursor, m.cursor-m.offset
	for cursor > 0 && cursor < len(m.items) && m.items[cursor].col >= 0 {
		cursor-- // to the selected table's line
	}
	top := m.cursor == 0
	switch found := m.rebuild(); {
	case top:
		m.cursor = 0
	case !found:
		m.cursor = cursor
	default:
		m.offset = max(0, m.cursor-row)
	}
	m.clamp()
}

// Catalog returns the catalog shown, or nil while loading.
func (m *Model) Catalog() *catalog.Catalog { return m.cat }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
}

// Focus implements common.Focusable.
func (m *Model) Focus() { m.focused = true }

// Blur implements common.Focusable.
func (m *Model) Blur() { m.focused = false; m.filtering = false; m.filter.Blur() }

// Focused implements common.Focusable.
func (m *Model) Focused() bool { return m.focused }

// Filtering reports whether the filter line has the keyboard (so letters
// are text, not commands).
func (m *Model) Filtering() bool { return m.filtering }

// rebuild lists the lines the catalog, the filter and the expanded
// tables show, and puts the cursor on the line selected before: the same
// column of the same table, else that table, else the first line. It
// reports whether that table is still listed.
func (m *Model) rebuild() bool {
	sel, selCol := m.Selected()
	m.items = m.items[:0]
	if m.cat == nil {
		return false
	}
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	for _, t := range m.cat.Tables {
		tableHit := q == "" || strings.Contains(strings.ToLower(t.Name), q)
		var cols []int
		for i, c := range t.Columns {
			if q != "" && !tableHit && strings.Contains(strings.ToLower(c.Name), q) {
				cols = append(cols, i)
			}
		}
		if !tableHit && len(cols) == 0 {
			continue
		}
		m.items = append(m.items, item{table: t, col: -1})
		switch {
		case m.expanded[t.Name]:
			for i := range t.Columns {
				m.items = append(m.items, item{table: t, col: i})
			}
		case len(cols) > 0:
			for _, i := range cols {
				m.items = append(m.items, item{table: t, col: i})
			}
		}
	}
	m.cursor = 0
	found := false
	for i, it := range m.items {
		if sel == nil || it.table.Name != sel.Name || it.table.Schema != sel.Schema {
			continue
		}
		if it.col < 0 {
			m.cursor, found = i, true
		} else if it.table.Columns[it.col].Name == selCol {
			m.cursor = i
			break
		}
	}
	m.clamp()
	return found
}

func (m *Model) listHeight() int {
	h := m.h
	if m.filtering || m.filter.Value() != "" {
		h--
	}
	return max(0, h)
}

func (m *Model) clamp() {
	if m.cursor >= len(m.items) {
		m.cursor = len(m.items) - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
	lh := m.listHeight()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if lh > 0 && m.cursor >= m.offset+lh {
		m.offset = m.cursor - lh + 1
	}
	if m.offset > max(0, len(m.items)-lh) {
		m.offset = max(0, len(m.items)-lh)
	}
}

// Selected returns the table under the cursor and the column name (empty
// on a table line).
func (m *Model) Selected() (*catalog.Table, string) {
	if m.cursor >= len(m.items) {
		return nil, ""
	}
	it := m.items[m.cursor]
	if it.col < 0 {
		return it.table, ""
	}
	return it.table, it.table.Columns[it.col].Name
}

// Click moves the cursor to the line at row y of the view.
func (m *Model) Click(y int) {
	if m.filtering || m.filter.Value() != "" {
		y--
	}
	if i := m.offset + y; y >= 0 && i < len(m.items) {
		m.cursor = i
	}
}

// Scroll moves the cursor by n lines (mouse wheel).
func (m *Model) Scroll(n int) {
	m.cursor += n
	m.clamp()
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if m.filtering {
		switch msg := msg.(type) {
		case tea.KeyPressMsg:
			switch msg.String() {
			case "esc":
				m.filter.SetValue("")
				m.filtering = false
				m.filter.Blur()
				m.rebuild()
				return nil
			case "enter", "down", "up", "tab":
				m.filtering = false
				m.filter.Blur()
				m.clamp()
				return nil
			}
		}
		if m.filter.Update(msg) {
			m.rebuild()
		}
		return nil
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	return m.key(kp)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys.Schema
	switch {
	case key.Matches(msg, k.Up):
		m.cursor--
	case key.Matches(msg, k.Down):
		m.cursor++
	case key.Matches(msg, k.PageUp):
		m.cursor -= max(1, m.listHeight()-1)
	case key.Matches(msg, k.PageDn):
		m.cursor += max(1, m.listHeight()-1)
	case msg.String() == "home" || msg.String() == "g":
		m.cursor = 0
	case msg.String() == "end" || msg.String() == "G":
		m.cursor = len(m.items) - 1
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		if m.filter.Value() != "" {
			m.filter.SetValue("")
			m.rebuild()
		}
	case key.Matches(msg, k.Expand):
		if t, col := m.Selected(); t != nil && col == "" {
			m.expanded[t.Name] = !m.expanded[t.Name]
			m.rebuild()
		}
	case key.Matches(msg, k.Collapse):
		if t, _ := m.Selected(); t != nil {
			m.expanded[t.Name] = false
			m.rebuild()
			for i, it := range m.items {
				if it.table == t && it.col == -1 {
					m.cursor = i
				}
			}
		}
	case key.Matches(msg, k.Preview), key.Matches(msg, k.Insert):
		// On a column both insert its name; on a table enter previews
		// its rows and a inserts its name.
		t, col := m.Selected()
		switch {
		case t == nil:
			return nil
		case col != "":
			return insert(m.dl.QuoteIdentIfNeeded(col))
		case key.Matches(msg, k.Preview):
			name := t.Name
			return func() tea.Msg { return PreviewMsg{Table: name} }
		}
		return insert(m.dl.QuoteIdentIfNeeded(t.Name))
	default:
		return nil
	}
	m.clamp()
	return nil
}

func insert(s string) tea.Cmd { return func() tea.Msg { return InsertMsg{Text: s} } }

// Summary is the tree's title info: "9 tables · 2 views", shortened to
// fit in w cells.
func (m *Model) Summary(w int) string {
	if m.cat == nil {
		return ""
	}
	var t, v int64
	for _, x := range m.cat.Tables {
		if x.Kind == "view" {
			v++
		} else {
			t++
		}
	}
	s := format.Plural(t, "table")
	if v > 0 {
		s += " · " + format.Plural(v, "view")
	}
	if len([]rune(s)) > w {
		s = format.Plural(t, "table")
	}
	if len([]rune(s)) > w {
		s = format.Count(t)
	}
	return s
}

// View implements common.Component.
func (m *Model) View() string {
	st := m.c.Styles
	var lines []string
	if m.filtering || m.filter.Value() != "" {
		lines = append(lines, m.filter.View(m.w))
	}
	switch {
	case m.err != nil:
		lines = append(lines, common.ErrorBlock(st, m.err, m.w)...)
	case m.cat == nil:
		lines = append(lines, st.Dim.Render(" reading the catalog…"))
	case len(m.items) == 0 && m.filter.Value() != "":
		lines = append(lines, st.Dim.Render(" no table or column matches"))
	case len(m.items) == 0:
		lines = append(lines, st.Dim.Render(" no tables"))
	}
	lh := m.listHeight()
	for i := m.offset; i < len(m.items) && i < m.offset+lh; i++ {
		lines = append(lines, m.line(i))
	}
	return common.Block(strings.Join(lines, "\n"), m.w, m.h)
}

func (m *Model) line(i int) string {
	st := m.c.Styles
	it := m.items[i]
	t := it.table
	selected := i == m.cursor
	var s string
	if it.col < 0 {
		icon := "▸ "
		if m.expanded[t.Name] {
			icon = "▾ "
		}
		name := format.PrintableLine(t.Name)
		nameStyle := st.TableName
		if t.Kind == "view" {
			icon = "▹ "
			if m.expanded[t.Name] {
				icon = "▿ "
			}
			nameStyle = st.ViewName
		}
		count := rowCount(t)
		avail := m.w - 2 - len([]rune(count)) - 2
		s = icon + nameStyle.Render(common.Fit(name, max(1, avail))) + "  " + st.Count.Render(count)
	} else {
		c := t.Columns[it.col]
		branch := "├ "
		if it.col == len(t.Columns)-1 || (i+1 < len(m.items) && m.items[i+1].table != t) || i+1 == len(m.items) {
			branch = "└ "
		}
		s = "  " + st.Dim.Render(branch) + format.PrintableLine(c.Name)
		if mk := markers(t, c); mk != "" {
			s += " " + st.Key.Render(mk)
		}
		if c.Type != "" {
			s += " " + st.ColType.Render(strings.ToLower(format.PrintableLine(c.Type)))
		}
	}
	s = common.Fit(s, m.w)
	if selected && m.focused {
		return st.Select.Render(s)
	}
	return s
}

func rowCount(t *catalog.Table) string {
	switch {
	case t.RowCount < 0:
		return "?"
	case t.RowCountEstimated:
		return "~" + format.Count(t.RowCount)
	}
	return format.Count(t.RowCount)
}

// markers are "PK", "FK→table" for a column.
func markers(t *catalog.Table, c catalog.Column) string {
	var mk []string
	if c.PK > 0 {
		mk = append(mk, "PK")
	}
	for _, fk := range t.ForeignKeys {
		for _, fc := range fk.Columns {
			if strings.EqualFold(fc, c.Name) {
				mk = append(mk, "FK→"+fk.RefTable)
			}
		}
	}
	sort.Strings(mk[min(len(mk), 1):])
	return strings.Join(mk, " ")
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Schema
	if m.filtering {
		return common.ModeHelp("keep filter", "clear")
	}
	return []key.Binding{common.Short(k.Preview, "rows"), k.Expand, k.Filter}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Schema
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDn},
		{k.Preview, k.Expand, k.Collapse, k.Insert},
		{k.Filter, k.ClearFilter},
	}
}
