// Package common holds what every component of the explorer shares: the
// Component interface, the styles and key bindings, and text helpers that
// keep every line exactly as wide as its pane.
package common

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
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
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// FitRight is Fit with the text aligned right.
func FitRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return strings.Repeat(" ", w-sw) + s
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

// Sanitize makes database or model text safe and one line: control
// characters (escape sequences included) become visible symbols so they can
// never drive the terminal, newlines become ↵ and tabs a space.
func Sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString("↵")
		case r == '\r':
		case r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError:
			b.WriteRune('�')
		case r < 0x20 || r == 0x7f:
			b.WriteRune(rune(0x2400 + r%0x80)) // ␛ and friends
		case r >= 0x80 && r < 0xa0, r == 0x200b, r == 0x2028, r == 0x2029, r == 0xfeff:
			b.WriteRune('�')
		case !unicode.IsPrint(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r):
			b.WriteRune('�')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SanitizeMultiline is Sanitize that keeps newlines.
func SanitizeMultiline(s string) string {
	parts := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, p := range parts {
		parts[i] = Sanitize(p)
	}
	return strings.Join(parts, "\n")
}

// Count formats n with thousands separators: 100,000.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if len(s) <= 3 {
		if neg {
			return "-" + s
		}
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Plural is "1 row" or "12 rows" with thousands separators.
func Plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Count(n) + " " + word + "s"
}

// Explain splits an error into what happened and what to do next, for
// the errors the core returns with hints.
func Explain(err error) (msg, hint string) {
	if err == nil {
		return "", ""
	}
	var (
		rej *guard.Rejection
		se  *guard.SQLError
		le  *query.LimitError
	)
	switch {
	case errors.As(err, &rej):
		return "refused: " + rej.Reason, rej.Hint
	case errors.As(err, &se):
		return se.Msg, se.Hint
	case errors.As(err, &le):
		return le.Msg, le.Hint
	case errors.Is(err, guard.ErrEmpty):
		return err.Error(), "type a SELECT, WITH or VALUES statement, or a question"
	}
	return err.Error(), ""
}

// ErrorBlock renders an error and its hint as wrapped lines.
func ErrorBlock(st *styles.Styles, err error, w int) []string {
	msg, hint := Explain(err)
	var out []string
	for i, l := range Wrap(SanitizeMultiline(msg), max(1, w-2)) {
		p := "  "
		if i == 0 {
			p = "✗ "
		}
		out = append(out, st.Error.Render(p+l))
	}
	if strings.TrimSpace(hint) == "" {
		return out
	}
	for i, l := range Wrap(SanitizeMultiline(hint), max(1, w-8)) {
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
	left += " "
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
