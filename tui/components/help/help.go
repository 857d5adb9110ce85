// Package help renders key help: the footer line with the bindings that
// matter now, and the overlay with every binding of the focused pane.
package help

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/tui/common"
)

// Model renders help for whatever bindings it is given.
type Model struct {
	c     common.Common
	h     help.Model
	short []key.Binding
	full  [][]key.Binding
	title string
	w     int
}

var _ common.Component = (*Model)(nil)

// New returns a help view.
func New(c common.Common) *Model {
	h := help.New()
	h.Styles = help.Styles{
		Ellipsis:       c.Styles.HelpSep,
		ShortKey:       c.Styles.HelpKey,
		ShortDesc:      c.Styles.HelpDesc,
		ShortSeparator: c.Styles.HelpSep,
		FullKey:        c.Styles.HelpKey,
		FullDesc:       c.Styles.HelpDesc,
		FullSeparator:  c.Styles.HelpSep,
	}
	h.ShortSeparator = " · "
	h.FullSeparator = "   "
	return &Model{c: c, h: h}
}

// Set gives the bindings to show; title names the pane they belong to.
func (m *Model) Set(title string, short []key.Binding, full [][]key.Binding) {
	m.title, m.short, m.full = title, short, full
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, _ int) {
	m.w = w
	m.h.SetWidth(w)
}

// Update implements common.Component.
func (m *Model) Update(tea.Msg) tea.Cmd { return nil }

// View implements common.Component: the footer line.
func (m *Model) View() string {
	return common.Fit(" "+m.h.ShortHelpView(m.short), m.w)
}

// Section is a titled list of bindings for the overlay.
type Section struct {
	Title  string
	Groups [][]key.Binding
}

// Overlay renders every binding in groups: the focused pane's, then more
// sections, then the global ones, one group per line block, as text for a
// box of width w.
func (m *Model) Overlay(w int, global [][]key.Binding, more ...Section) string {
	st := m.c.Styles
	var out []string
	section := func(title string, groups [][]key.Binding) {
		out = append(out, st.Heading.Render(title))
		kw := 0
		for _, g := range groups {
			for _, b := range g {
				if b.Enabled() {
					kw = max(kw, ansi.StringWidth(b.Help().Key))
				}
			}
		}
		// Lay the bindings out in as many columns as fit.
		var items []string
		for _, g := range groups {
			for _, b := range g {
				if !b.Enabled() || b.Help().Key == "" {
					continue
				}
				items = append(items, st.HelpKey.Render(common.Fit(b.Help().Key, kw))+"  "+st.HelpDesc.Render(b.Help().Desc))
			}
		}
		iw := 0
		for _, it := range items {
			iw = max(iw, ansi.StringWidth(it))
		}
		cols := max(1, (w+3)/(iw+3))
		rows := (len(items) + cols - 1) / cols
		for r := 0; r < rows; r++ {
			var line strings.Builder
			for c := 0; c < cols; c++ {
				i := c*rows + r
				if i >= len(items) {
					break
				}
				if c > 0 {
					line.WriteString("   ")
				}
				line.WriteString(common.Fit(items[i], iw))
			}
			out = append(out, line.String())
		}
		out = append(out, "")
	}
	if len(m.full) > 0 {
		section(m.title, m.full)
	}
	for _, s := range more {
		section(s.Title, s.Groups)
	}
	section("Everywhere", global)
	return strings.Join(out, "\n")
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding { return m.short }

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding { return m.full }
