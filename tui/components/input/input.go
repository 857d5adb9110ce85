// Package input is the box where SQL and questions are typed: it grows to
// several lines, highlights SQL, completes table and column names, and
// keeps a history across sessions. ctrl+o turns it into a multi-line
// editor: a taller box with line numbers where enter adds a line (with the
// line's indentation) and alt+enter, ctrl+enter or f5 runs — as does enter
// after a statement that ends with a semicolon.
package input

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/lineedit"
	"github.com/tablewise/tablewise/tui/syntax"
)

// Mode says how the text runs: as SQL or as a question.
type Mode int

// Modes. ModeAuto decides from the text (guard.LooksLikeSQL).
const (
	ModeAuto Mode = iota
	ModeSQL
	ModeAsk
)

// SubmitMsg is the text the user ran.
type SubmitMsg struct {
	Text string
	SQL  bool
}

// HistoryErrMsg reports that the history file could not be written.
type HistoryErrMsg struct{ Err error }

// gutter is the width of the prompt column.
const gutter = 2

// indent is what tab inserts in the editor where there is nothing to
// complete.
const indent = "  "

// Model is the input box.
type Model struct {
	c        common.Common
	buf      []rune
	pos      int
	goal     int // wanted column for up/down, -1 none
	focused  bool
	forced   Mode
	w        int
	maxLines int
	offset   int  // first visual line shown
	editor   bool // the multi-line editor: enter adds a line

	hist    *History
	histIdx int // == hist.Len() when editing the draft
	draft   string

	comp      *Completer
	compStart int
	compList  []string
	compIdx   int // -1: list shown, nothing chosen yet

	searching   bool
	search      *lineedit.Model
	searchIdx   int
	searchSaved []rune
}

var _ common.Component = (*Model)(nil)

// New returns an empty input using hist (which may be nil).
func New(c common.Common, hist *History) *Model {
	if hist == nil {
		hist, _ = OpenHistory("", 0)
	}
	s := lineedit.New(c.Styles)
	s.Prompt = "history search: "
	return &Model{c: c, hist: hist, histIdx: hist.Len(), goal: -1, comp: NewCompleter(nil, nil), maxLines: 6, search: s}
}

// SetCatalog gives the completer its names.
func (m *Model) SetCatalog(cat *catalog.Catalog, dl engine.Dialect) { m.comp = NewCompleter(cat, dl) }

// History returns the history.
func (m *Model) History() *History { return m.hist }

// Value is the text.
func (m *Model) Value() string { return string(m.buf) }

// SetValue replaces the text, cursor at the end.
func (m *Model) SetValue(s string) {
	m.buf = []rune(normalize(s))
	m.pos = len(m.buf)
	m.goal = -1
	m.closeCompletion()
}

// Insert types s at the cursor.
func (m *Model) Insert(s string) {
	r := []rune(normalize(s))
	m.buf = slices.Concat(m.buf[:m.pos], r, m.buf[m.pos:]) // a new array: slices of the old text stay unchanged
	m.pos += len(r)
	m.goal = -1
}

func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// SetMode forces a mode (ModeAuto lets the text decide).
func (m *Model) SetMode(mode Mode) { m.forced = mode }

// Forced returns the forced mode, ModeAuto when none is.
func (m *Model) Forced() Mode { return m.forced }

// IsSQL reports whether the text runs as SQL.
func (m *Model) IsSQL() bool {
	switch m.forced {
	case ModeSQL:
		return true
	case ModeAsk:
		return false
	}
	return guard.LooksLikeSQL(string(m.buf))
}

// ModeLabel names the current mode for the pane title: "SQL", "ask", with
// "(forced)" when ctrl+t chose it.
func (m *Model) ModeLabel() (label string, sql, forced bool) {
	sql = m.IsSQL()
	label = "ask"
	t := strings.TrimSpace(string(m.buf))
	switch {
	case len(t) > 1 && (t[0] == '.' || t[0] == '\\') && !strings.Contains(t, "\n"):
		return "command", false, m.forced != ModeAuto
	case sql:
		label = "SQL"
	case m.forced == ModeAuto && strings.TrimSpace(string(m.buf)) == "":
		label = "SQL or ask"
	}
	return label, sql, m.forced != ModeAuto
}

// Focus implements common.Focusable.
func (m *Model) Focus() { m.focused = true }

// Blur implements common.Focusable.
func (m *Model) Blur() {
	m.focused = false
	m.closeCompletion()
	if m.searching {
		m.endSearch(true)
	}
}

// Focused implements common.Focusable.
func (m *Model) Focused() bool { return m.focused }

// Editor reports whether the multi-line editor is on.
func (m *Model) Editor() bool { return m.editor }

// SetEditor turns the multi-line editor on or off.
func (m *Model) SetEditor(on bool) {
	m.editor = on
	m.closeCompletion()
}

// Busy reports whether a completion list or history search is open (esc
// closes it rather than leaving the input).
func (m *Model) Busy() bool { return m.compList != nil || m.searching }

// SetSize implements common.Component; h is the most lines the text may
// take.
func (m *Model) SetSize(w, h int) {
	m.w = w
	m.maxLines = max(1, h)
}

// Height is how many lines the input wants: its text lines (up to the
// maximum) plus one for an open completion list or search.
func (m *Model) Height() int {
	n := min(len(m.layout()), m.maxLines)
	if m.editor {
		n = m.maxLines
	}
	if m.compList != nil || m.searching {
		n++
	}
	return max(1, n)
}

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if !m.focused {
		return nil
	}
	if m.searching {
		return m.updateSearch(msg)
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		m.closeCompletion()
		m.Insert(msg.Content)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys.Input
	if m.compList != nil {
		switch {
		case key.Matches(msg, k.Complete):
			m.cycleCompletion(1)
			return nil
		case msg.String() == "shift+tab":
			m.cycleCompletion(-1)
			return nil
		case msg.String() == "esc":
			m.closeCompletion()
			return nil
		}
		m.closeCompletion()
		if msg.String() == "enter" {
			return nil // enter accepts the chosen name
		}
	}
	if m.editor {
		switch {
		case key.Matches(msg, k.EditorRun):
			return m.submit()
		case key.Matches(msg, k.Run):
			if m.completeStatement() {
				return m.submit()
			}
			m.Insert("\n" + m.lineIndent())
			return nil
		case key.Matches(msg, k.Complete):
			if !m.complete() {
				m.Insert(indent)
			}
			return nil
		case key.Matches(msg, k.HistPrev):
			m.vertical(-1)
			return nil
		case key.Matches(msg, k.HistNext):
			m.vertical(1)
			return nil
		}
	}
	switch {
	case key.Matches(msg, k.Editor):
		m.SetEditor(!m.editor)
	case key.Matches(msg, k.Run):
		return m.submit()
	case key.Matches(msg, k.Newline):
		m.Insert("\n")
	case key.Matches(msg, k.EditorRun):
		return m.submit()
	case key.Matches(msg, k.ToggleMode):
		m.forced = (m.forced + 1) % 3
	case key.Matches(msg, k.Complete):
		m.complete()
	case key.Matches(msg, k.HistPrev):
		if m.row() == 0 {
			m.historyMove(-1)
		} else {
			m.vertical(-1)
		}
	case key.Matches(msg, k.HistNext):
		if m.row() == m.lastRow() {
			m.historyMove(1)
		} else {
			m.vertical(1)
		}
	case key.Matches(msg, k.Search):
		m.startSearch()
	case key.Matches(msg, k.Clear):
		m.SetValue("")
		m.histIdx = m.hist.Len()
	case key.Matches(msg, k.Left):
		m.pos = max(0, m.pos-1)
		m.goal = -1
	case key.Matches(msg, k.Right):
		m.pos = min(len(m.buf), m.pos+1)
		m.goal = -1
	case key.Matches(msg, k.WordLeft):
		m.pos = m.wordLeft()
		m.goal = -1
	case key.Matches(msg, k.WordRight):
		m.pos = m.wordRight()
		m.goal = -1
	case key.Matches(msg, k.Home):
		m.pos = m.lineStart(m.pos)
		m.goal = -1
	case key.Matches(msg, k.End):
		m.pos = m.lineEnd(m.pos)
		m.goal = -1
	case key.Matches(msg, k.Backspace):
		if m.pos > 0 {
			m.delete(m.pos-1, m.pos)
		}
	case key.Matches(msg, k.Delete):
		if m.pos < len(m.buf) {
			m.delete(m.pos, m.pos+1)
		}
	case key.Matches(msg, k.DeleteWordBack):
		m.delete(m.wordLeft(), m.pos)
	case key.Matches(msg, k.KillToStart):
		m.delete(m.lineStart(m.pos), m.pos)
	case key.Matches(msg, k.KillEnd):
		end := m.lineEnd(m.pos)
		if end == m.pos && end < len(m.buf) {
			end++ // at a line end, join the next line
		}
		m.delete(m.pos, end)
	default:
		if msg.Text != "" && !msg.Mod.Contains(tea.ModCtrl) && !msg.Mod.Contains(tea.ModAlt) {
			m.Insert(msg.Text)
		}
	}
	return nil
}

// completeStatement reports whether enter in the editor runs the text: it
// ends with a semicolon and the cursor is after it.
func (m *Model) completeStatement() bool {
	text := strings.TrimRight(string(m.buf[m.pos:]), " \t\n")
	if text != "" {
		return false
	}
	before := strings.TrimRight(string(m.buf[:m.pos]), " \t\n")
	return strings.HasSuffix(before, ";")
}

// lineIndent is the leading spaces and tabs of the cursor's line.
func (m *Model) lineIndent() string {
	start := m.lineStart(m.pos)
	end := start
	for end < m.pos && (m.buf[end] == ' ' || m.buf[end] == '\t') {
		end++
	}
	return string(m.buf[start:end])
}

func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(string(m.buf))
	if text == "" {
		return nil
	}
	sql := m.IsSQL()
	var cmds []tea.Cmd
	if err := m.hist.Add(text); err != nil {
		cmds = append(cmds, func() tea.Msg { return HistoryErrMsg{Err: err} })
	}
	if !m.editor {
		// The editor keeps the text to change and run again.
		m.SetValue("")
	}
	m.histIdx = m.hist.Len()
	m.draft = ""
	cmds = append(cmds, func() tea.Msg { return SubmitMsg{Text: text, SQL: sql} })
	return tea.Sequence(cmds...)
}

func (m *Model) delete(from, to int) {
	if from >= to {
		return
	}
	m.buf = append(m.buf[:from:from], m.buf[to:]...)
	m.pos = from
	m.goal = -1
}

func (m *Model) lineStart(p int) int {
	for p > 0 && m.buf[p-1] != '\n' {
		p--
	}
	return p
}

func (m *Model) lineEnd(p int) int {
	for p < len(m.buf) && m.buf[p] != '\n' {
		p++
	}
	return p
}

func (m *Model) wordLeft() int {
	p := m.pos
	for p > 0 && !isIdentRune(m.buf[p-1]) {
		p--
	}
	for p > 0 && isIdentRune(m.buf[p-1]) {
		p--
	}
	return p
}

func (m *Model) wordRight() int {
	p := m.pos
	for p < len(m.buf) && !isIdentRune(m.buf[p]) {
		p++
	}
	for p < len(m.buf) && isIdentRune(m.buf[p]) {
		p++
	}
	return p
}

// row is the logical line of the cursor; lastRow the last logical line.
func (m *Model) row() int {
	n := 0
	for _, r := range m.buf[:m.pos] {
		if r == '\n' {
			n++
		}
	}
	return n
}

func (m *Model) lastRow() int {
	n := 0
	for _, r := range m.buf {
		if r == '\n' {
			n++
		}
	}
	return n
}

// vertical moves the cursor one logical line up or down, keeping the
// column.
func (m *Model) vertical(d int) {
	start := m.lineStart(m.pos)
	col := m.pos - start
	if m.goal >= 0 {
		col = m.goal
	}
	var ns int
	if d < 0 {
		if start == 0 {
			return
		}
		ns = m.lineStart(start - 1)
	} else {
		end := m.lineEnd(m.pos)
		if end == len(m.buf) {
			return
		}
		ns = end + 1
	}
	m.pos = min(ns+col, m.lineEnd(ns))
	m.goal = col
}

func (m *Model) historyMove(d int) {
	n := m.hist.Len()
	next := m.histIdx + d
	if next < 0 || next > n {
		return
	}
	if m.histIdx == n {
		m.draft = string(m.buf)
	}
	m.histIdx = next
	if next == n {
		m.SetValue(m.draft)
	} else {
		m.SetValue(m.hist.At(next))
	}
	if d > 0 {
		// Coming down, start at the top so the next ↓ moves on at once
		// only from the last line.
		m.pos = m.lineEnd(0)
		if m.lastRow() == 0 {
			m.pos = len(m.buf)
		}
	}
}

// --- completion ---

// complete completes the word before the cursor; it reports whether there
// was anything to complete.
func (m *Model) complete() bool {
	start, word, cands := m.comp.Complete(m.buf, m.pos)
	switch len(cands) {
	case 0:
		return false
	case 1:
		m.replaceWord(start, cands[0])
		return true
	}
	if p := commonPrefix(cands); len([]rune(p)) > len([]rune(word)) && !strings.HasPrefix(p, `"`) {
		m.replaceWord(start, p)
	}
	m.compStart, m.compList, m.compIdx = start, cands, -1
	return true
}

func (m *Model) replaceWord(start int, s string) {
	m.delete(start, m.pos)
	m.Insert(s)
}

func (m *Model) cycleCompletion(d int) {
	n := len(m.compList)
	if m.compIdx < 0 && d < 0 {
		m.compIdx = n - 1
	} else {
		m.compIdx = ((m.compIdx+d)%n + n) % n
	}
	m.replaceWord(m.compStart, m.compList[m.compIdx])
}

func (m *Model) closeCompletion() { m.compList, m.compIdx = nil, -1 }

// Completions returns the open completion list and the chosen index.
func (m *Model) Completions() ([]string, int) { return m.compList, m.compIdx }

// --- history search (ctrl+r) ---

func (m *Model) startSearch() {
	m.searching = true
	m.searchSaved = append([]rune(nil), m.buf...)
	m.searchIdx = m.hist.Len()
	m.search.SetValue("")
	m.search.Focus()
}

func (m *Model) endSearch(restore bool) {
	m.searching = false
	m.search.Blur()
	if restore {
		m.buf = m.searchSaved
		m.pos = len(m.buf)
	}
	m.searchSaved = nil
}

// Searching reports whether history search is open.
func (m *Model) Searching() bool { return m.searching }

func (m *Model) updateSearch(msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch kp.String() {
		case "esc", "ctrl+g", "ctrl+c":
			m.endSearch(true)
			return nil
		case "enter", "tab", "right", "left", "ctrl+a", "ctrl+e":
			m.endSearch(false)
			m.histIdx = m.hist.Len()
			return nil
		case "ctrl+r", "up":
			if i := m.hist.Search(m.search.Value(), m.searchIdx); i >= 0 {
				m.show(i)
			}
			return nil
		case "down":
			for i := m.searchIdx + 1; i < m.hist.Len(); i++ {
				if strings.Contains(strings.ToLower(m.hist.At(i)), strings.ToLower(m.search.Value())) {
					m.show(i)
					break
				}
			}
			return nil
		}
	}
	if m.search.Update(msg) {
		if i := m.hist.Search(m.search.Value(), m.hist.Len()); i >= 0 {
			m.show(i)
		} else {
			m.searchIdx = m.hist.Len()
		}
	}
	return nil
}

func (m *Model) show(i int) {
	m.searchIdx = i
	m.buf = []rune(m.hist.At(i))
	m.pos = len(m.buf)
}

// --- rendering ---

// vline is one screen line of text: runes [start, end) of buf.
type vline struct {
	start, end int
	hard       bool // ends at a newline or the end of the text
}

func (m *Model) textWidth() int { return max(2, m.w-m.gutterWidth()) }

// gutterWidth is the prompt column's width: "❯ ", or the line numbers in
// the editor.
func (m *Model) gutterWidth() int {
	if !m.editor {
		return gutter
	}
	return max(2, len(strconv.Itoa(m.lastRow()+1))) + 1
}

// layout wraps the text into screen lines. One cell is kept free at the
// end of each line for the cursor.
func (m *Model) layout() []vline {
	limit := m.textWidth() - 1
	var out []vline
	start, w := 0, 0
	brk := -1 // rune after the last space on this line: a word-wrap point
	for i := 0; i < len(m.buf); i++ {
		r := m.buf[i]
		if r == '\n' {
			out = append(out, vline{start, i, true})
			start, w, brk = i+1, 0, -1
			continue
		}
		rw := runeWidth(r)
		if w+rw > limit && i > start {
			end := i
			if brk > start && r != ' ' {
				end = brk
			}
			out = append(out, vline{start, end, false})
			start, brk = end, -1
			w = 0
			for _, rr := range m.buf[start:i] {
				w += runeWidth(rr)
			}
		}
		w += rw
		if r == ' ' {
			brk = i + 1
		}
	}
	out = append(out, vline{start, len(m.buf), true})
	return out
}

func runeWidth(r rune) int {
	if r < 0x20 {
		return 1
	}
	return max(1, ansi.StringWidth(string(r)))
}

func (m *Model) cursorLine(lines []vline) int {
	for i, l := range lines {
		if m.pos >= l.start && (m.pos < l.end || (m.pos == l.end && l.hard)) {
			return i
		}
	}
	return len(lines) - 1
}

// View implements common.Component.
func (m *Model) View() string {
	st := m.c.Styles
	lines := m.layout()
	cl := m.cursorLine(lines)
	textLines := min(len(lines), m.maxLines)
	if cl < m.offset {
		m.offset = cl
	}
	if cl >= m.offset+textLines {
		m.offset = cl - textLines + 1
	}
	m.offset = min(m.offset, max(0, len(lines)-textLines))

	sql := m.IsSQL()
	var kinds []syntax.Kind
	if sql {
		kinds = syntax.Kinds(string(m.buf))
	}
	promptStyle := st.Accent
	if !sql {
		promptStyle = st.Param
	}
	var out []string
	gw := m.gutterWidth()
	lineNo := 1
	if m.offset < len(lines) {
		for _, r := range m.buf[:lines[m.offset].start] {
			if r == '\n' {
				lineNo++
			}
		}
	}
	for li := m.offset; li < m.offset+textLines; li++ {
		l := lines[li]
		g := "  "
		switch {
		case m.editor:
			num := ""
			if li > m.offset && l.start > 0 && m.buf[l.start-1] == '\n' {
				lineNo++
			}
			if l.start == 0 || m.buf[l.start-1] == '\n' {
				num = strconv.Itoa(lineNo)
			}
			g = st.Dim.Render(common.FitRight(num, gw-1) + " ")
		case li == 0:
			g = promptStyle.Render("❯ ")
		case m.offset > 0 && li == m.offset:
			g = st.Dim.Render("↑ ")
		}
		var b strings.Builder
		b.WriteString(g)
		if len(m.buf) == 0 {
			if m.focused {
				b.WriteString(st.Cursor.Render(" "))
			}
			ph := "SQL or a question, then enter"
			switch {
			case m.editor:
				ph = "SQL over several lines: enter adds a line, alt+enter or f5 runs (so does enter after a closing ;)"
			case !m.focused:
				ph = "SQL or a question (i to edit)"
			}
			b.WriteString(st.Subtle.Render(ansi.Truncate(ph, max(0, m.w-m.gutterWidth()-1), "…")))
			out = append(out, common.Fit(b.String(), m.w))
			continue
		}
		run := []rune{}
		var runStyle syntax.Kind = 255
		flush := func() {
			if len(run) == 0 {
				return
			}
			s := format.PrintableLine(string(run))
			if style, ok := syntax.Style(st, runStyle); ok && sql {
				s = style.Render(s)
			}
			b.WriteString(s)
			run = run[:0]
		}
		for i := l.start; i < l.end; i++ {
			k := syntax.Plain
			if kinds != nil && i < len(kinds) {
				k = kinds[i]
			}
			if i == m.pos && m.focused {
				flush()
				b.WriteString(st.Cursor.Render(format.PrintableLine(string(m.buf[i]))))
				runStyle = 255
				continue
			}
			if k != runStyle {
				flush()
				runStyle = k
			}
			run = append(run, m.buf[i])
		}
		flush()
		if m.focused && m.pos == l.end && li == cl {
			b.WriteString(st.Cursor.Render(" "))
		}
		out = append(out, common.Fit(b.String(), m.w))
	}
	for m.editor && len(out) < m.maxLines {
		out = append(out, common.Fit(st.Dim.Render(strings.Repeat(" ", gw-1)+"~"), m.w))
	}
	switch {
	case m.searching:
		q := m.search
		q.Prompt = st.Dim.Render("history search: ")
		if m.searchIdx >= m.hist.Len() && q.Value() != "" {
			q.Prompt = st.Hint.Render("history search (no match): ")
		}
		out = append(out, q.View(m.w))
	case m.compList != nil:
		out = append(out, m.completionLine())
	}
	return strings.Join(out, "\n")
}

func (m *Model) completionLine() string {
	st := m.c.Styles
	var b strings.Builder
	b.WriteString(st.Dim.Render("  "))
	used := m.gutterWidth()
	// Start the window so the chosen item shows.
	first := 0
	if m.compIdx > 0 {
		w := 0
		for i := m.compIdx; i >= 0; i-- {
			w += ansi.StringWidth(m.compList[i]) + 2
			if w > m.w-m.gutterWidth()-4 {
				first = i + 1
				break
			}
		}
	}
	if first > 0 {
		b.WriteString(st.Dim.Render("… "))
		used += 2
	}
	for i := first; i < len(m.compList); i++ {
		c := format.PrintableLine(m.compList[i])
		cw := ansi.StringWidth(c) + 2
		if used+cw > m.w {
			b.WriteString(st.Dim.Render("…"))
			break
		}
		if i == m.compIdx {
			b.WriteString(st.Select.Render(c))
		} else {
			b.WriteString(st.Dim.Render(c))
		}
		b.WriteString("  ")
		used += cw
	}
	return common.Fit(b.String(), m.w)
}

// CursorPos returns the cursor's cell within the view (for mouse and
// tests).
func (m *Model) CursorPos() (x, y int) {
	lines := m.layout()
	cl := m.cursorLine(lines)
	l := lines[cl]
	x = m.gutterWidth()
	for i := l.start; i < m.pos && i < l.end; i++ {
		x += runeWidth(m.buf[i])
	}
	return x, cl - m.offset
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Input
	if m.searching {
		return common.ModeHelp("accept", "cancel", common.Hint("ctrl+r", "older match"))
	}
	if m.compList != nil {
		return common.ModeHelp("accept", "close", common.Hint("tab", "next name"))
	}
	if m.editor {
		return []key.Binding{common.Short(k.EditorRun, "run"), common.Short(k.Run, "new line"), common.Short(k.Editor, "one-line input"), k.Complete}
	}
	if len(m.buf) == 0 {
		return []key.Binding{k.Run, k.Newline, common.Short(k.Editor, "editor"), k.HistPrev}
	}
	return []key.Binding{k.Run, k.Newline, common.Short(k.Editor, "editor"), k.ToggleMode, k.Complete}
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Input
	return [][]key.Binding{
		{k.Run, k.Newline, k.Editor, k.EditorRun, k.ToggleMode, k.Complete, k.Leave},
		{k.HistPrev, k.HistNext, k.Search, k.Clear},
		{k.WordLeft, k.WordRight, k.Home, k.End},
		{k.DeleteWordBack, k.KillToStart, k.KillEnd},
	}
}
