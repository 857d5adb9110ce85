// Package prompt asks for one line of text in a dialog: a file path to
// export to or save a chart as.
package prompt

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/lineedit"
)

// DoneMsg is the answer: Value, or Cancelled.
type DoneMsg struct {
	Tag       string
	Value     string
	Cancelled bool
}

// Model is a one-line prompt.
type Model struct {
	c      common.Common
	edit   *lineedit.Model
	tag    string
	title  string
	note   string
	active bool
	w, h   int
}

var _ common.Component = (*Model)(nil)

// New returns a closed prompt.
func New(c common.Common) *Model {
	e := lineedit.New(c.Styles)
	e.Prompt = "› "
	return &Model{c: c, edit: e}
}

// Open shows the prompt with a default value; tag comes back in DoneMsg.
func (m *Model) Open(tag, title, note, value string) {
	m.tag, m.title, m.note, m.active = tag, title, note, true
	m.edit.SetValue(value)
	m.edit.Focus()
}

// Active reports whether the prompt is open.
func (m *Model) Active() bool { return m.active }

// Title is the dialog's title.
func (m *Model) Title() string { return m.title }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if !m.active {
		return nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, m.c.Keys.Overlay.Confirm):
			v := strings.TrimSpace(m.edit.Value())
			if v == "" {
				return nil
			}
			m.active = false
			d := DoneMsg{Tag: m.tag, Value: v}
			return func() tea.Msg { return d }
		case kp.String() == "esc":
			m.active = false
			d := DoneMsg{Tag: m.tag, Cancelled: true}
			return func() tea.Msg { return d }
		}
	}
	m.edit.Update(msg)
	return nil
}

// View implements common.Component: the dialog's body.
func (m *Model) View() string {
	lines := []string{m.edit.View(m.w)}
	if m.note != "" {
		lines = append(lines, "")
		for _, l := range common.Wrap(m.note, m.w) {
			lines = append(lines, m.c.Styles.Dim.Render(l))
		}
	}
	return strings.Join(lines, "\n")
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{
		m.c.Keys.Overlay.Confirm,
		common.Hint("esc", "cancel"),
	}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }
