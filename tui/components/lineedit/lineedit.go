// Package lineedit is a one-line text editor with a steady (non-blinking)
// cursor, used by the schema filter, the path prompts and history search.
package lineedit

import (
	"slices"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/styles"
)

// Model is a single line of editable text.
type Model struct {
	st          *styles.Styles
	Prompt      string
	Placeholder string
	value       []rune
	pos         int
	focused     bool
}

// New returns an empty editor.
func New(st *styles.Styles) *Model { return &Model{st: st} }

// Value is the text.
func (m *Model) Value() string { return string(m.value) }

// SetValue replaces the text and puts the cursor at its end.
func (m *Model) SetValue(s string) {
	m.value = []rune(strings.ReplaceAll(s, "\n", " "))
	m.pos = len(m.value)
}

// Focus gives the editor the keyboard.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keyboard away.
func (m *Model) Blur() { m.focused = false }

// Focused reports whether the editor has the keyboard.
func (m *Model) Focused() bool { return m.focused }

// Update edits the text for key presses and pastes; it reports whether
// the message changed or moved anything.
func (m *Model) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		m.insert(strings.ReplaceAll(msg.Content, "\n", " "))
		return true
	case tea.KeyPressMsg:
		switch msg.String() {
		case "left", "ctrl+b":
			m.pos = max(0, m.pos-1)
		case "right", "ctrl+f":
			m.pos = min(len(m.value), m.pos+1)
		case "home", "ctrl+a":
			m.pos = 0
		case "end", "ctrl+e":
			m.pos = len(m.value)
		case "backspace", "ctrl+h":
			if m.pos > 0 {
				m.value = append(m.value[:m.pos-1], m.value[m.pos:]...)
				m.pos--
			}
		case "delete", "ctrl+d":
			if m.pos < len(m.value) {
				m.value = append(m.value[:m.pos], m.value[m.pos+1:]...)
			}
		case "ctrl+u":
			m.value = m.value[m.pos:]
			m.pos = 0
		case "ctrl+k":
			m.value = m.value[:m.pos]
		case "ctrl+w", "alt+backspace":
			i := m.pos
			for i > 0 && unicode.IsSpace(m.value[i-1]) {
				i--
			}
			for i > 0 && !unicode.IsSpace(m.value[i-1]) {
				i--
			}
			m.value = append(m.value[:i], m.value[m.pos:]...)
			m.pos = i
		default:
			if msg.Text == "" || msg.Mod.Contains(tea.ModCtrl) || msg.Mod.Contains(tea.ModAlt) {
				return false
			}
			m.insert(msg.Text)
		}
		return true
	}
	return false
}

func (m *Model) insert(s string) {
	r := []rune(s)
	m.value = slices.Concat(m.value[:m.pos], r, m.value[m.pos:]) // a new array: slices of the old text stay unchanged
	m.pos += len(r)
}

// View renders prompt and text in w cells, scrolled so the cursor shows.
func (m *Model) View(w int) string {
	prompt := m.Prompt
	pw := ansi.StringWidth(prompt)
	avail := w - pw
	if avail < 1 {
		return common.Fit(prompt, w)
	}
	if len(m.value) == 0 && !m.focused {
		return common.Fit(prompt+m.st.Subtle.Render(m.Placeholder), w)
	}
	// Scroll so the cursor cell is visible.
	start := 0
	width := func(a, b int) int { return ansi.StringWidth(string(m.value[a:b])) }
	for width(start, m.pos)+1 > avail && start < m.pos {
		start++
	}
	var b strings.Builder
	b.WriteString(prompt)
	used := 0
	for i := start; i <= len(m.value); i++ {
		ch := " "
		if i < len(m.value) {
			ch = format.PrintableLine(string(m.value[i]))
		}
		cw := max(1, ansi.StringWidth(ch))
		if used+cw > avail {
			break
		}
		if i == m.pos && m.focused {
			b.WriteString(m.st.Cursor.Render(ch))
		} else if i < len(m.value) {
			b.WriteString(ch)
		} else {
			break
		}
		used += cw
	}
	if len(m.value) == 0 && m.Placeholder != "" {
		return common.Fit(b.String()+m.st.Subtle.Render(m.Placeholder), w)
	}
	return common.Fit(b.String(), w)
}
