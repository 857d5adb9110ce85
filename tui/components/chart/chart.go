// Package chart is the chart pane: the answer's chart spec or one
// suggested from the result's shape, drawn as text sized to the pane, with
// options to change kind and columns and to save a PNG.
package chart

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/charts"
	coreanswer "github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
)

// RenderedMsg carries a chart drawn in the background.
type RenderedMsg struct {
	Gen  int
	Spec coreanswer.ChartSpec
	OK   bool // false: no chart suits the result
	Text string
	Err  error
}

// SaveMsg asks the app for a path to save the PNG to.
type SaveMsg struct{}

// OpenMsg asks the app to write the PNG and show where ("open the PNG").
type OpenMsg struct{}

// SavedMsg reports a written PNG.
type SavedMsg struct {
	Path string
	Err  error
	Open bool // written for "open the PNG"
}

// Sources of a spec.
const (
	FromAnswer    = "from the answer"
	FromSuggested = "suggested"
	FromUser      = "custom"
)

// Model is the chart pane.
type Model struct {
	c        common.Common
	res      *query.Result
	spec     coreanswer.ChartSpec
	has      bool
	source   string
	text     string
	err      error
	gen      int
	pending  bool
	options  bool
	protocol charts.Protocol
	w, h     int
	rw, rh   int // the size of the last drawing
	focused  bool
}

var _ common.Component = (*Model)(nil)

// New returns an empty pane; protocol says whether the terminal can show
// images (it enables "open the PNG").
func New(c common.Common, protocol charts.Protocol) *Model {
	return &Model{c: c, protocol: protocol}
}

// Clear forgets the chart.
func (m *Model) Clear() {
	m.gen++
	m.res, m.has, m.text, m.err, m.pending, m.source = nil, false, "", nil, false, ""
}

// SetData draws a chart of res: spec when given, else the suggestion for
// the result's shape.
func (m *Model) SetData(res *query.Result, spec *coreanswer.ChartSpec) tea.Cmd {
	m.res = res
	m.err, m.text = nil, ""
	if spec != nil {
		m.spec, m.has, m.source = *spec, true, FromAnswer
	} else {
		m.has, m.source = false, FromSuggested
	}
	return m.render(spec == nil)
}

// Has reports whether there is a chart (or a chart error) to show.
func (m *Model) Has() bool { return m.has }

// Pending reports whether a chart is being drawn.
func (m *Model) Pending() bool { return m.pending }

// Spec is the chart's spec.
func (m *Model) Spec() (coreanswer.ChartSpec, bool) { return m.spec, m.has }

// Result is the data the chart draws.
func (m *Model) Result() *query.Result { return m.res }

// Describe names the chart for the pane title.
func (m *Model) Describe() string {
	if !m.has {
		return ""
	}
	s := m.spec.Kind
	if m.spec.Y != "" {
		s += " · " + m.spec.Y + " by " + m.spec.X
	} else if m.spec.X != "" {
		s += " · " + m.spec.X
	}
	return format.PrintableLine(s) + " (" + m.source + ")"
}

// Resize redraws the chart when the pane's size changed since it was
// drawn.
func (m *Model) Resize() tea.Cmd {
	if m.res == nil || !m.has || (m.w == m.rw && m.h == m.rh) || m.w < 8 || m.h < 3 {
		return nil
	}
	return m.render(false)
}

// Refresh redraws at the current size.
func (m *Model) Refresh() tea.Cmd {
	if m.res == nil || !m.has {
		return nil
	}
	return m.render(false)
}

func (m *Model) chartSize() (int, int) {
	h := m.h
	if m.options {
		h--
	}
	return m.w, h
}

func (m *Model) render(suggest bool) tea.Cmd {
	if m.res == nil {
		return nil
	}
	m.gen++
	m.pending = true
	gen, res, spec := m.gen, m.res, m.spec
	w, h := m.chartSize()
	m.rw, m.rh = m.w, m.h
	return func() tea.Msg {
		if suggest {
			s, _, err := chartspec.Complete(coreanswer.ChartSpec{}, res.Columns, res.Rows)
			if err != nil {
				return RenderedMsg{Gen: gen}
			}
			spec = s
		}
		if w < 8 || h < 2 {
			return RenderedMsg{Gen: gen, Spec: spec, OK: true}
		}
		txt, err := charts.TextWithOptions(spec, res, w, h, charts.TextOptions{Color: true})
		return RenderedMsg{Gen: gen, Spec: spec, OK: true, Text: txt, Err: err}
	}
}

// SetSize implements common.Component.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Size is the pane size last set.
func (m *Model) Size() (int, int) { return m.w, m.h }

// Focus implements common.Focusable.
func (m *Model) Focus() { m.focused = true }

// Blur implements common.Focusable.
func (m *Model) Blur() { m.focused = false }

// Focused implements common.Focusable.
func (m *Model) Focused() bool { return m.focused }

// Update implements common.Component.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case RenderedMsg:
		if msg.Gen != m.gen {
			return nil
		}
		m.pending = false
		m.has = msg.OK
		if msg.OK {
			m.spec = msg.Spec
		}
		m.text, m.err = msg.Text, msg.Err
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys.Chart
	switch {
	case key.Matches(msg, k.Options):
		m.options = !m.options
		return m.Refresh()
	case key.Matches(msg, k.Kind):
		m.ensureSpec()
		m.spec.Kind = next(coreanswer.Kinds, m.spec.Kind, false)
		return m.changed()
	case key.Matches(msg, k.X):
		m.ensureSpec()
		m.spec.X = next(m.columnNames(), m.spec.X, false)
		return m.changed()
	case key.Matches(msg, k.Y):
		m.ensureSpec()
		m.spec.Y = next(m.columnNames(), m.spec.Y, true)
		return m.changed()
	case key.Matches(msg, k.Save):
		if m.has && m.res != nil {
			return func() tea.Msg { return SaveMsg{} }
		}
	case key.Matches(msg, k.Open):
		if m.has && m.res != nil && m.protocol != charts.None {
			return func() tea.Msg { return OpenMsg{} }
		}
	}
	return nil
}

func (m *Model) ensureSpec() {
	if m.has || m.res == nil {
		return
	}
	// A bar chart of what suits one; else the first two columns, for the
	// user to change (the chart pane says what does not fit).
	spec, _, err := chartspec.Complete(coreanswer.ChartSpec{Kind: coreanswer.KindBar}, m.res.Columns, m.res.Rows)
	if err != nil {
		spec = coreanswer.ChartSpec{Kind: coreanswer.KindBar}
		if len(m.res.Columns) > 0 {
			spec.X = m.res.Columns[0].Name
		}
		if len(m.res.Columns) > 1 {
			spec.Y = m.res.Columns[1].Name
		}
	}
	m.spec, m.has = spec, true
}

func (m *Model) changed() tea.Cmd {
	m.source = FromUser
	m.spec.Title = ""
	m.options = true
	return m.render(false)
}

func (m *Model) columnNames() []string {
	if m.res == nil {
		return nil
	}
	out := make([]string, len(m.res.Columns))
	for i, c := range m.res.Columns {
		out[i] = c.Name
	}
	return out
}

// next returns the item after cur in list (wrapping); with empty, "" is
// one of the choices.
func next(list []string, cur string, empty bool) string {
	if empty {
		list = append(append([]string(nil), list...), "")
	}
	if len(list) == 0 {
		return cur
	}
	for i, s := range list {
		if strings.EqualFold(s, cur) {
			return list[(i+1)%len(list)]
		}
	}
	return list[0]
}

// View implements common.Component.
func (m *Model) View() string {
	st := m.c.Styles
	var lines []string
	if m.options {
		y := m.spec.Y
		if y == "" {
			y = "–"
		}
		opt := fmt.Sprintf("%s %s  %s %s  %s %s", st.HelpKey.Render("k"), m.spec.Kind, st.HelpKey.Render("x"), format.PrintableLine(m.spec.X), st.HelpKey.Render("y"), format.PrintableLine(y))
		opt += "  " + st.HelpKey.Render("s") + st.Dim.Render(" save PNG")
		if m.protocol != charts.None {
			opt += "  " + st.HelpKey.Render("v") + st.Dim.Render(" open PNG")
		}
		lines = append(lines, common.Fit(opt, m.w))
	}
	switch {
	case m.err != nil:
		lines = append(lines, common.ErrorBlock(st, m.err, m.w)...)
		lines = append(lines, st.Dim.Render("o: options · k kind · x / y columns"))
	case m.pending && m.text == "":
		lines = append(lines, st.Dim.Render("drawing…"))
	case !m.has:
		lines = append(lines, st.Dim.Render("no chart suits this result — press k to pick a kind"))
	default:
		lines = append(lines, m.text)
	}
	return common.Block(strings.Join(lines, "\n"), m.w, m.h)
}

// ShortHelp implements common.Component.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Chart
	out := []key.Binding{k.Options, k.Kind, k.Save}
	if m.protocol != charts.None {
		out = append(out, k.Open)
	}
	return out
}

// FullHelp implements common.Component.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Chart
	g := []key.Binding{k.Save}
	if m.protocol != charts.None {
		g = append(g, k.Open)
	}
	return [][]key.Binding{{k.Options, k.Kind, k.X, k.Y}, g}
}

// saveTimeout bounds writing a saved chart: a path that is a named pipe
// no program reads would otherwise keep the save waiting for good.
const saveTimeout = 10 * time.Second

// SavePNG draws the chart as a PNG and writes it to path, within
// saveTimeout.
func SavePNG(ctx context.Context, spec coreanswer.ChartSpec, res *query.Result, path string, open bool) tea.Cmd {
	return savePNG(ctx, spec, res, path, open, saveTimeout)
}

func savePNG(ctx context.Context, spec coreanswer.ChartSpec, res *query.Result, path string, open bool, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		b, err := charts.PNG(ctx, spec, res, charts.Options{})
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			wctx, cancel := context.WithTimeout(ctx, timeout)
			err = atomicfile.WriteFileContext(wctx, path, b, 0o644)
			cancel()
		}
		return SavedMsg{Path: path, Err: err, Open: open}
	}
}
