// Package answer is the pane that shows a question's answer: the text as
// it streams, the SQL that ran, follow-up questions and clarification
// options to pick, and a trace line.
package answer

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	coreanswer "github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/syntax"
)

// AskMsg asks a question (a follow-up was chosen).
type AskMsg struct{ Question string }

// ClarifyMsg answers a clarification question with one of its options.
type ClarifyMsg struct {
	Question string // the original question
	Asked    string // what the clarification asked
	Option   string
}

// EditSQLMsg puts SQL in the input for editing.
type EditSQLMsg struct{ SQL string }

// CopiedMsg reports that the SQL went to the clipboard.
type CopiedMsg struct{}

const labelW = 5

// maxSQLLines is how many lines of SQL the pane shows; e puts all of it in
// the input.
const maxSQLLines = 3

// Model is the answer pane.
type Model struct {
	c        common.Common
	question string
	text     strings.Builder
	bundle   *coreanswer.Bundle
	err      error
	running  bool
	sel      int
	off      int
	w, h     int
	focused  bool
	elapsed  time.Duration
}

var _ common.Component = (*Model)(nil)

// New returns an empty pane.
func New(c common.Common) *Model { return &Model{c: c} }

// Start shows question as asked and waiting.
func (m *Model) Start(question string) {
	*m = Model{c: m.c, w: m.w, h: m.h, focused: m.focused, question: question, running: true}
}

// AppendText adds streamed answer text.
func (m *Model) AppendText(delta string) { m.text.WriteString(delta) }

// Finish shows the bundle (or err).
func (m *Model) Finish(b *coreanswer.Bundle, err error, elapsed time.Duration) {
	m.running = false
	m.bundle, m.err, m.elapsed = b, err, elapsed
	m.sel, m.off = 0, 0
}

// Active reports whether the pane has anything to show.
func (m *Model) Active() bool { return m.question != "" }

// Running reports whether the answer is still coming.
func (m *Model) Running() bool { return m.running }

// Bundle is the finished answer, or nil.
func (m *Model) Bundle() *coreanswer.Bundle { return m.bundle }

// Question is the question shown.
func (m *Model) Question() string { return m.question }

// Clear empties the pane.
func (m *Model) Clear() { *m = Model{c: m.c, w: m.w, h: m.h, focused: m.focused} }

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Focus implements common.Focusable.
func (m *Model) Focus() { m.focused = true }

// Blur implements common.Focusable.
func (m *Model) Blur() { m.focused = false }

// Focused implements common.Focusable.
func (m *Model) Focused() bool { return m.focused }

// choices are the selectable lines: clarification options, then
// follow-ups.
func (m *Model) choices() (opts, follow []string) {
	if m.bundle == nil {
		return nil, nil
	}
	if m.bundle.Clarification != nil {
		opts = m.bundle.Clarification.Options
	}
	return opts, m.bundle.FollowUps
}

func (m *Model) nChoices() int {
	o, f := m.choices()
	return len(o) + len(f)
}

// PreferredHeight is how many lines the content takes at width w.
func (m *Model) PreferredHeight(w int) int {
	lines, _ := m.render(w)
	return len(lines)
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := m.c.Keys.Answer
	n := m.nChoices()
	switch {
	case key.Matches(kp, k.Up):
		if m.sel > 0 {
			m.sel--
		}
	case key.Matches(kp, k.Down):
		if m.sel < n-1 {
			m.sel++
		}
	case key.Matches(kp, k.PageUp):
		m.off = max(0, m.off-max(1, m.h-1))
		return nil
	case key.Matches(kp, k.PageDn):
		m.off += max(1, m.h-1)
		return nil
	case key.Matches(kp, k.Choose):
		return m.choose()
	case key.Matches(kp, k.EditSQL):
		if m.bundle != nil && m.bundle.SQL != "" {
			sql := m.bundle.SQL
			return func() tea.Msg { return EditSQLMsg{SQL: sql} }
		}
	case key.Matches(kp, k.CopySQL):
		if m.bundle != nil && m.bundle.SQL != "" {
			return tea.Batch(tea.SetClipboard(m.bundle.SQL), func() tea.Msg { return CopiedMsg{} })
		}
	}
	m.follow()
	return nil
}

// choose acts on the selected choice: answers the clarification with the
// option, or asks the follow-up.
func (m *Model) choose() tea.Cmd {
	opts, follow := m.choices()
	switch {
	case m.sel < len(opts):
		c := ClarifyMsg{Question: m.question, Asked: m.bundle.Clarification.Question, Option: opts[m.sel]}
		return func() tea.Msg { return c }
	case m.sel-len(opts) < len(follow):
		q := follow[m.sel-len(opts)]
		return func() tea.Msg { return AskMsg{Question: q} }
	}
	return nil
}

// Click handles a click on line y of the view: a choice is selected and
// chosen.
func (m *Model) Click(y int) tea.Cmd {
	_, at := m.render(m.w)
	for i, line := range at {
		if line-m.off == y {
			m.sel = i
			return m.choose()
		}
	}
	return nil
}

// Scroll scrolls by n lines.
func (m *Model) Scroll(n int) {
	m.off = max(0, m.off+n)
}

// follow scrolls so the selected choice shows.
func (m *Model) follow() {
	_, at := m.render(m.w)
	if m.sel < len(at) {
		line := at[m.sel]
		if line < m.off {
			m.off = line
		}
		if line >= m.off+m.h {
			m.off = line - m.h + 1
		}
	}
}

// render lays the content out at width w and returns the lines and the
// line of each choice.
func (m *Model) render(w int) (lines []string, choiceLines []int) {
	st := m.c.Styles
	tw := max(8, w-labelW)
	label := func(s string) string { return st.Dim.Render(common.Fit(s, labelW)) }
	// labelled adds ls, the first with lab in the margin.
	labelled := func(lab string, ls []string) {
		for i, l := range ls {
			p := strings.Repeat(" ", labelW)
			if i == 0 {
				p = label(lab)
			}
			lines = append(lines, p+l)
		}
	}
	block := func(lab string, text string, style func(string) string) {
		ls := common.Wrap(text, tw)
		if style != nil {
			for i, l := range ls {
				ls[i] = style(l)
			}
		}
		labelled(lab, ls)
	}
	if m.question == "" {
		return nil, nil
	}
	block("Q", format.Printable(m.question), func(s string) string { return st.Bold.Render(s) })
	text := m.text.String()
	b := m.bundle
	if b != nil && strings.TrimSpace(b.Answer) != "" {
		text = b.Answer
	}
	switch {
	case m.err != nil:
		labelled("A", common.ErrorBlock(st, m.err, tw))
	case text != "":
		block("A", format.Printable(strings.TrimSpace(text)), nil)
	case m.running:
		block("A", "thinking…", func(s string) string { return st.Dim.Render(s) })
	}
	if m.running && text != "" {
		lines[len(lines)-1] += st.Dim.Render(" ▍")
	}
	if b == nil {
		return lines, nil
	}
	if b.Status == coreanswer.StatusError && b.Error != "" && m.err == nil {
		block("", "✗ "+format.PrintableLine(b.Error), func(s string) string { return st.Error.Render(s) })
	}
	for _, f := range b.Flags {
		block("", "⚠ "+format.PrintableLine(f), func(s string) string { return st.Warn.Render(s) })
	}
	if c := b.Checks.Summary(); c != "" {
		block("", "✓ "+format.PrintableLine(c), func(s string) string { return st.Subtle.Render(s) })
	}
	if b.Checks != nil {
		for i, n := range b.Checks.Notes {
			if i == maxNotes {
				break
			}
			block("", "· "+format.PrintableLine(n), func(s string) string { return st.Hint.Render(s) })
		}
	}
	if b.SQL != "" {
		// Compact: whitespace collapsed, so the SQL takes few lines; e puts
		// it in the input as written.
		compact := strings.Join(strings.Fields(format.Printable(b.SQL)), " ")
		hl := common.Wrap(syntax.Highlight(st, compact), tw)
		if len(hl) > maxSQLLines {
			hl = hl[:maxSQLLines]
			hl[maxSQLLines-1] = ansi.Truncate(hl[maxSQLLines-1], tw-len(" … e shows all")-1, "") + st.Dim.Render(" … e shows all")
		}
		labelled("SQL", hl)
	}
	marker := func(i int) string {
		if i != m.sel {
			return "  "
		}
		if m.focused {
			return st.Marker.Render("› ")
		}
		return st.Dim.Render("› ")
	}
	opts, follow := m.choices()
	if b.Clarification != nil {
		block("?", format.Printable(b.Clarification.Question), func(s string) string { return st.Hint.Render(s) })
		for i, o := range opts {
			choiceLines = append(choiceLines, len(lines))
			lines = append(lines, strings.Repeat(" ", labelW)+common.Fit(marker(i)+format.PrintableLine(o), tw))
		}
		if len(opts) == 0 {
			block("", "type your answer in the input", func(s string) string { return st.Dim.Render(s) })
		}
	}
	for i, f := range follow {
		lab := strings.Repeat(" ", labelW)
		if i == 0 {
			lab = label("next")
		}
		choiceLines = append(choiceLines, len(lines))
		lines = append(lines, lab+common.Fit(marker(len(opts)+i)+format.PrintableLine(f), tw))
	}
	if tr := Trace(b, m.elapsed); tr != "" {
		block("", tr, func(s string) string { return st.Subtle.Render(s) })
	}
	return lines, choiceLines
}

// maxNotes is the most notes of the checks the pane shows.
const maxNotes = 3

// Trace is the one-line account of a question: provider and model, model
// and tool calls, tokens, cost and time.
func Trace(b *coreanswer.Bundle, elapsed time.Duration) string {
	var parts []string
	if b.Provider != "" {
		p := b.Provider
		if b.Model != "" {
			p += " " + b.Model
		}
		parts = append(parts, p)
	}
	u := b.Usage
	parts = append(parts, format.Plural(int64(u.ModelCalls), "model call"), format.Plural(int64(u.ToolCalls), "tool call"))
	if u.InputTokens+u.OutputTokens > 0 {
		parts = append(parts, fmt.Sprintf("%s→%s tokens", format.Count(int64(u.InputTokens)), format.Count(int64(u.OutputTokens))))
	}
	if u.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", u.CostUSD))
	}
	d := time.Duration(b.Timings.TotalMS) * time.Millisecond
	if d == 0 {
		d = elapsed
	}
	parts = append(parts, format.Seconds(d))
	return "trace: " + strings.Join(parts, " · ")
}

// View implements common.Component.
func (m *Model) View() string {
	lines, _ := m.render(m.w)
	m.off = max(0, min(m.off, len(lines)-m.h))
	if m.off > 0 {
		lines = lines[m.off:]
	}
	return common.Block(strings.Join(lines, "\n"), m.w, m.h)
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Answer
	var out []key.Binding
	if m.nChoices() > 0 {
		out = append(out, common.Short(k.Down, "next"), common.Short(k.Choose, "ask it"))
	}
	if m.bundle != nil && m.bundle.SQL != "" {
		out = append(out, common.Short(k.EditSQL, "edit SQL"), common.Short(k.CopySQL, "copy SQL"))
	}
	return out
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Answer
	return [][]key.Binding{{k.Up, k.Down, k.Choose}, {k.EditSQL, k.CopySQL}, {k.PageUp, k.PageDn}}
}
