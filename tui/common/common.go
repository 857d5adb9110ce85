// Package common holds what every component of the explorer shares: the
// Component interface, the styles and key bindings, and text helpers that
// keep every line exactly as wide as its pane.
package common

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/keymap"
	"github.com/tablewise/tablewise/tui/styles"
)

// Component is one pane of the explorer. Components are pointers and
// change in place; Update returns the work to do next.
type Component interface {
	Update(msg tea.Msg) tea.Cmd
	// View renders the component at the size SetSize gave it.
	View() string
	SetSize(width, height int)
	// ShortHelp lists the few bindings that matter now (the footer).
	ShortHelp() []key.Binding
	// FullHelp lists every binding, in groups (the ? overlay).
	FullHelp() [][]key.Binding
}

// Short is b with a shorter description, for the footer.
func Short(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// Default is what components are built with by default: the default
// styles and key map.
func Default() Common {
	km := keymap.Default()
	return Common{Styles: styles.Default(), Keys: &km}
}

// Hint is a binding of the one key k, shown in help as k with desc: for
// the keys of a mode (a filter or a search being typed) that the key map
// does not name.
func Hint(k, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc))
}

// ModeHelp is the short help of such a mode: the bindings in first, then
// enter described as enter and esc described as esc.
func ModeHelp(enter, esc string, first ...key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(first)+2)
	out = append(out, first...)
	return append(out, Hint("enter", enter), Hint("esc", esc))
}

// Focusable is a component that knows whether it has the keyboard.
type Focusable interface {
	Focus()
	Blur()
	Focused() bool
}

// Common is what every component is built with.
type Common struct {
	Styles *styles.Styles
	Keys   *keymap.KeyMap
}

// Fit makes s exactly w cells wide: truncated with "…" or padded with
// spaces. s may hold ANSI styles.
func Fit(s string, w int) string { return fit(s, w, false) }

// FitRight is Fit with the text aligned right.
func FitRight(s string, w int) string { return fit(s, w, true) }

func fit(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	pad := strings.Repeat(" ", w-sw)
	if right {
		return pad + s
	}
	return s + pad
}

// Block makes text exactly w cells wide and h lines tall.
func Block(text string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	out := make([]string, h)
	for i := range out {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out[i] = Fit(l, w)
	}
	return strings.Join(out, "\n")
}

// Wrap soft-wraps plain or styled text at w cells, breaking at spaces when
// it can and inside words when it must.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		wrapped := ansi.Wrap(para, w, " ")
		out = append(out, strings.Split(wrapped, "\n")...)
	}
	return out
}

// Explain splits an error into what happened and what to do next
// (core/fault), with refusals saying so.
func Explain(err error) (msg, hint string) {
	if err == nil {
		return "", ""
	}
	kind, msg, hint := fault.Explain(err)
	if kind == fault.Refused {
		msg = "refused: " + msg
	}
	return msg, hint
}

// ErrorBlock renders an error and its hint as wrapped lines.
func ErrorBlock(st *styles.Styles, err error, w int) []string {
	msg, hint := Explain(err)
	var out []string
	for i, l := range Wrap(format.Printable(msg), max(1, w-2)) {
		p := "  "
		if i == 0 {
			p = "✗ "
		}
		out = append(out, st.Error.Render(p+l))
	}
	if strings.TrimSpace(hint) == "" {
		return out
	}
	for i, l := range Wrap(format.Printable(hint), max(1, w-8)) {
		p := "        "
		if i == 0 {
			p = "  hint: "
		}
		out = append(out, st.Hint.Render(p+l))
	}
	return out
}

// Title renders a pane's title line: "─ Title ─ info ───…", w cells wide.
func Title(st *styles.Styles, title, info string, w int, focused bool) string {
	ts, rs := st.PaneTitle, st.PaneRule
	if focused {
		ts, rs = st.PaneTitleFocused, st.PaneRuleFocused
	}
	left := rs.Render("─ ") + ts.Render(title)
	if info != "" {
		left += rs.Render(" ─ ") + st.Dim.Render(info)
	}
	return TitleRule(left+" ", rs, w)
}

// TitleRule ends a pane's title line: left, then the rule drawn in rs out
// to w cells (left clipped where it is as wide as that already).
func TitleRule(left string, rs lipgloss.Style, w int) string {
	lw := ansi.StringWidth(left)
	if lw >= w {
		return ansi.Truncate(left, w, "…")
	}
	return left + rs.Render(strings.Repeat("─", w-lw))
}

// Overlay draws box over base with its top-left corner at (x, y). Both are
// blocks of lines; cells of base under the box are replaced.
func Overlay(base, box string, x, y int) string {
	bl := strings.Split(base, "\n")
	for i, line := range strings.Split(box, "\n") {
		row := y + i
		if row < 0 || row >= len(bl) {
			continue
		}
		w := ansi.StringWidth(line)
		orig := bl[row]
		ow := ansi.StringWidth(orig)
		left := ansi.Truncate(orig, x, "")
		if lw := ansi.StringWidth(left); lw < x {
			left += strings.Repeat(" ", x-lw)
		}
		right := ""
		if x+w < ow {
			right = ansi.TruncateLeft(orig, x+w, "")
		}
		bl[row] = left + "\x1b[m" + line + "\x1b[m" + right
	}
	return strings.Join(bl, "\n")
}

// Box draws text in a rounded border with a title, exactly w x h cells.
func Box(st *styles.Styles, title, text string, w, h int) string {
	if w < 4 || h < 2 {
		return ""
	}
	bs := st.OverlayBorder
	inner := w - 4
	title = ansi.Truncate(title, max(0, w-6), "…")
	fill := max(0, w-5-ansi.StringWidth(title))
	var lines []string
	lines = append(lines, bs.Render("╭─ ")+st.OverlayTitle.Render(title)+bs.Render(" "+strings.Repeat("─", fill)+"╮"))
	body := strings.Split(text, "\n")
	for i := 0; i < h-2; i++ {
		l := ""
		if i < len(body) {
			l = body[i]
		}
		lines = append(lines, bs.Render("│ ")+Fit(l, inner)+bs.Render(" │"))
	}
	lines = append(lines, bs.Render("╰"+strings.Repeat("─", w-2)+"╯"))
	return strings.Join(lines, "\n")
}
