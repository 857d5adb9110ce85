// Package statusbar is the line under the panes: the database, what is
// running, the last message, and the result's row count and time.
package statusbar

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
)

// Kind of message.
type Kind int

// Message kinds.
const (
	Info Kind = iota
	OK
	Error
)

// Model is the status bar.
type Model struct {
	c       common.Common
	db      string
	busy    string
	spinner string
	msg     string
	kind    Kind
	right   string
	w       int
}

var _ common.Component = (*Model)(nil)

// New returns a status bar for the database called label.
func New(c common.Common, label string) *Model { return &Model{c: c, db: label} }

// SetBusy shows what is running ("" when nothing is) with a spinner frame.
func (m *Model) SetBusy(text, spinner string) { m.busy, m.spinner = text, spinner }

// SetMessage shows a message until the next one.
func (m *Model) SetMessage(kind Kind, msg string) { m.kind, m.msg = kind, msg }

// Message returns the message shown.
func (m *Model) Message() string { return m.msg }

// SetRight sets the right-hand info (row count, time).
func (m *Model) SetRight(s string) { m.right = s }

// SetSize implements common.Component.
func (m *Model) SetSize(w, _ int) { m.w = w }

// Update implements common.Component.
func (m *Model) Update(tea.Msg) tea.Cmd { return nil }

// View implements common.Component.
func (m *Model) View() string {
	st := m.c.Styles
	left := st.StatusDB.Render(" " + format.PrintableLine(m.db) + " ")
	var mid string
	switch {
	case m.busy != "":
		mid = st.StatusBusy.Render(m.spinner + " " + m.busy)
	case m.msg != "":
		s := st.Status
		switch m.kind {
		case OK:
			s = st.StatusOK
		case Error:
			s = st.StatusError
		}
		mid = s.Render(format.PrintableLine(m.msg))
	}
	right := st.Status.Render(m.right + " ")
	avail := m.w - ansi.StringWidth(left) - ansi.StringWidth(right) - 1
	if avail < 10 || (m.busy == "" && ansi.StringWidth(mid) > avail) {
		// A message that does not fit takes the whole line.
		right = ""
		avail = m.w - ansi.StringWidth(left) - 1
	}
	return common.Fit(left+" "+common.Fit(mid, max(0, avail))+right, m.w)
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding { return nil }
