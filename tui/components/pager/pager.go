// Package pager shows one long text — a cell's value, the schema's CREATE
// statements — a screen at a time, like less: scrolling, search with n/N,
// wrapped or cut lines, and JSON formatted for reading.
package pager

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/lineedit"
	"github.com/tablewise/tablewise/tui/syntax"
)

// CopiedMsg reports that the text went to the clipboard.
type CopiedMsg struct{}

// MaxBytes is how much of a text the pager lays out; y still copies all
// of it.
const MaxBytes = 1 << 20

// Model is the pager.
type Model struct {
	c      common.Common
	title  string
	raw    string // the text as given (made printable)
	pretty string // JSON formatted; "" when the text is not JSON
	orig   string // the text as given, for the clipboard
	sql    bool   // highlight as SQL
	cut    bool   // only the first MaxBytes are shown
	asRaw  bool
	wrap   bool
	lines  []string
	lw     int // width the lines were laid out for; -1: lay out again
	off    int
	xoff   int
	w, h   int
	active bool

	searching bool
	search    *lineedit.Model
	re        *regexp.Regexp
	matches   []int // lines with a match
	note      string
}

var _ common.Component = (*Model)(nil)

// New returns a closed pager.
func New(c common.Common) *Model {
	s := lineedit.New(c.Styles)
	s.Prompt = "/"
	return &Model{c: c, search: s, wrap: true}
}

// Open shows text under title; sql highlights it as SQL.
func (m *Model) Open(title, text string, sql bool) {
	m.title, m.orig, m.sql = title, text, sql
	m.cut = len(text) > MaxBytes
	if m.cut {
		text = format.ClipBytes(text, MaxBytes-len(format.Ellipsis))
	}
	m.raw = format.Printable(text)
	m.pretty = ""
	if !m.cut {
		m.pretty = prettyJSON(text)
	}
	m.asRaw = false
	m.wrap = true
	m.off, m.xoff, m.lw = 0, 0, -1
	m.searching, m.re, m.matches, m.note = false, nil, nil, ""
	m.search.SetValue("")
	m.active = true
}

// prettyJSON is text indented when it is a JSON object or array, else "".
func prettyJSON(text string) string {
	t := strings.TrimSpace(text)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, []byte(t), "", "  ") != nil {
		return ""
	}
	return format.Printable(b.String())
}

// Active reports whether the pager is open.
func (m *Model) Active() bool { return m.active }

// Title is the pager's title with what it shows.
func (m *Model) Title() string {
	t := format.PrintableLine(m.title)
	if m.pretty != "" && !m.asRaw {
		t += " · JSON, formatted"
	}
	return t
}

// Text is the text shown (for tests).
func (m *Model) Text() string {
	if m.pretty != "" && !m.asRaw {
		return m.pretty
	}
	return m.raw
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) {
	if w != m.w {
		m.lw = -1
	}
	m.w, m.h = w, h
}

func (m *Model) bodyHeight() int { return max(1, m.h-1) }

// layout splits the text into screen lines for the width.
func (m *Model) layout() {
	if m.lw == m.w && m.lines != nil {
		return
	}
	text := m.Text()
	if m.wrap {
		m.lines = common.Wrap(text, max(1, m.w))
	} else {
		m.lines = strings.Split(text, "\n")
	}
	m.lw = m.w
	m.findMatches()
}

func (m *Model) findMatches() {
	m.matches = nil
	if m.re == nil {
		return
	}
	for i, l := range m.lines {
		if m.re.MatchString(l) {
			m.matches = append(m.matches, i)
		}
	}
}

func (m *Model) maxOff() int { return max(0, len(m.lines)-m.bodyHeight()) }

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if m.searching {
		return m.updateSearch(msg)
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	m.layout()
	k := m.c.Keys.Pager
	page := max(1, m.bodyHeight()-1)
	switch {
	case key.Matches(kp, k.Close):
		m.active = false
		return nil
	case key.Matches(kp, k.Up):
		m.off--
	case key.Matches(kp, k.Down):
		m.off++
	case key.Matches(kp, k.PageUp):
		m.off -= page
	case key.Matches(kp, k.PageDn):
		m.off += page
	case key.Matches(kp, k.Top):
		m.off = 0
	case key.Matches(kp, k.Bottom):
		m.off = m.maxOff()
	case key.Matches(kp, k.Search):
		m.searching = true
		m.search.SetValue("")
		m.search.Focus()
	case key.Matches(kp, k.NextMatch):
		m.jump(1)
	case key.Matches(kp, k.PrevMatch):
		m.jump(-1)
	case key.Matches(kp, k.Wrap):
		m.wrap = !m.wrap
		m.lw, m.xoff = -1, 0
	case key.Matches(kp, k.Raw):
		if m.pretty != "" {
			m.asRaw = !m.asRaw
			m.lw, m.off = -1, 0
		}
	case key.Matches(kp, k.Copy):
		return tea.Batch(tea.SetClipboard(m.orig), func() tea.Msg { return CopiedMsg{} })
	case kp.String() == "left" || kp.String() == "h":
		if !m.wrap {
			m.xoff = max(0, m.xoff-max(1, m.w/2))
		}
	case kp.String() == "right" || kp.String() == "l":
		if !m.wrap {
			m.xoff += max(1, m.w/2)
		}
	}
	m.layout()
	m.off = max(0, min(m.off, m.maxOff()))
	return nil
}

func (m *Model) updateSearch(msg tea.Msg) tea.Cmd {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch kp.String() {
		case "esc":
			m.searching = false
			m.search.Blur()
			return nil
		case "enter":
			m.searching = false
			m.search.Blur()
			m.setSearch(m.search.Value())
			return nil
		}
	}
	m.search.Update(msg)
	return nil
}

// setSearch finds q (ignoring case) and shows its first match at or after
// the top line.
func (m *Model) setSearch(q string) {
	m.layout()
	if q == "" {
		m.re, m.matches, m.note = nil, nil, ""
		return
	}
	m.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(q))
	m.findMatches()
	if len(m.matches) == 0 {
		m.note = "no match for “" + format.PrintableLine(q) + "”"
		return
	}
	for _, l := range m.matches {
		if l >= m.off {
			m.show(l)
			return
		}
	}
	m.show(m.matches[0])
}

// jump shows the next (d > 0) or previous match.
func (m *Model) jump(d int) {
	if len(m.matches) == 0 {
		if m.re != nil {
			m.note = "no match"
		}
		return
	}
	cur := m.off
	if d > 0 {
		for _, l := range m.matches {
			if l > cur {
				m.show(l)
				return
			}
		}
		m.show(m.matches[0])
		m.note += " (from the top)"
		return
	}
	for i := len(m.matches) - 1; i >= 0; i-- {
		if m.matches[i] < cur {
			m.show(m.matches[i])
			return
		}
	}
	m.show(m.matches[len(m.matches)-1])
	m.note += " (from the bottom)"
}

// show puts line l at the top and says which match it is.
func (m *Model) show(l int) {
	m.off = max(0, min(l, m.maxOff()))
	for i, x := range m.matches {
		if x == l {
			m.note = "match " + format.Count(int64(i+1)) + " of " + format.Count(int64(len(m.matches))) + " lines"
			break
		}
	}
}

// View implements common.Component.
func (m *Model) View() string {
	m.layout()
	st := m.c.Styles
	bh := m.bodyHeight()
	m.off = max(0, min(m.off, m.maxOff()))
	out := make([]string, 0, m.h)
	for i := m.off; i < len(m.lines) && i < m.off+bh; i++ {
		l := m.lines[i]
		if !m.wrap {
			l = ansi.Cut(l, m.xoff, m.xoff+m.w)
		}
		switch {
		case m.re != nil && m.re.MatchString(l):
			l = m.mark(l)
		case m.sql:
			l = syntax.Highlight(st, l)
		}
		out = append(out, common.Fit(l, m.w))
	}
	for len(out) < bh {
		out = append(out, st.Dim.Render("~"))
	}
	out = append(out, m.statusLine())
	return common.Block(strings.Join(out, "\n"), m.w, m.h)
}

// mark draws the matches in l in the selection style.
func (m *Model) mark(l string) string {
	st := m.c.Styles
	var b strings.Builder
	last := 0
	for _, ix := range m.re.FindAllStringIndex(l, -1) {
		b.WriteString(l[last:ix[0]])
		b.WriteString(st.Select.Render(l[ix[0]:ix[1]]))
		last = ix[1]
	}
	b.WriteString(l[last:])
	return b.String()
}

func (m *Model) statusLine() string {
	st := m.c.Styles
	if m.searching {
		return m.search.View(m.w)
	}
	n := len(m.lines)
	last := min(n, m.off+m.bodyHeight())
	pos := "lines " + strconv.Itoa(min(n, m.off+1)) + "–" + strconv.Itoa(last) + " of " + format.Count(int64(n))
	if n > 0 {
		pos += " (" + strconv.Itoa(last*100/n) + "%)"
	}
	if !m.wrap {
		pos += " · not wrapped"
	}
	if m.cut {
		pos += " · the first " + format.Bytes(MaxBytes) + " of " + format.Bytes(int64(len(m.orig))) + " (y copies all)"
	}
	if m.note != "" {
		pos += " · " + m.note
	}
	return common.Fit(st.Dim.Render(pos), m.w)
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Pager
	if m.searching {
		return common.ModeHelp("find", "cancel")
	}
	out := []key.Binding{k.PageDn, k.Search, k.NextMatch, k.Wrap}
	if m.pretty != "" {
		out = append(out, k.Raw)
	}
	return append(out, k.Copy, k.Close)
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Pager
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDn, k.Top, k.Bottom},
		{k.Search, k.NextMatch, k.PrevMatch},
		{k.Wrap, k.Raw, k.Copy, k.Close},
	}
}
