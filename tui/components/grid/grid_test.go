package grid_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/grid"
	"github.com/tablewise/tablewise/tui/keymap"
	"github.com/tablewise/tablewise/tui/styles"
)

func newCommon() common.Common {
	km := keymap.Default()
	return common.Common{Styles: styles.Default(), Keys: &km}
}

var cols3 = []query.Column{{Name: "id", Type: "INTEGER"}, {Name: "label", Type: "TEXT"}, {Name: "score", Type: "REAL"}}

// stream feeds n rows in batches the way the app does, reusing a few row
// values so a million rows cost little memory in the test itself.
func stream(g *grid.Model, n int) {
	base := make([]query.Row, 64)
	for i := range base {
		base[i] = query.Row{int64(i), fmt.Sprintf("row %d", i), float64(i) / 4}
	}
	const batch = 4096
	b := make([]query.Row, 0, batch)
	for i := 0; i < n; i++ {
		b = append(b, base[i%len(base)])
		if len(b) == batch {
			g.Append(b)
			b = make([]query.Row, 0, batch)
		}
	}
	g.Append(b)
}

func dataLines(view string) []string {
	lines := strings.Split(ansi.Strip(view), "\n")
	return lines[2:] // header and rule
}

// TestVirtualization: a million streamed rows keep exactly the cap, and
// rendering formats only the visible window: the same number of cells as
// a grid of 50 rows.
func TestVirtualization(t *testing.T) {
	const w, h = 80, 20
	big := grid.New(newCommon(), 100_000)
	big.SetSize(w, h)
	big.Reset("SELECT …")
	big.Begin(cols3)
	stream(big, 1_000_000)
	big.Finish(true, "rows", 0, nil)

	if big.Len() != 100_000 {
		t.Fatalf("kept %d rows, want the 100,000 cap", big.Len())
	}
	if !big.More() {
		t.Error("More() is false past the cap")
	}
	if s := big.Summary(); !strings.HasPrefix(s, "100,000 of more rows") {
		t.Errorf("summary %q", s)
	}

	view := big.View()
	if n := len(strings.Split(view, "\n")); n != h {
		t.Errorf("view has %d lines, want %d", n, h)
	}
	rows := dataLines(view)
	if len(rows) != h-2 {
		t.Fatalf("%d data lines, want %d", len(rows), h-2)
	}
	for i, l := range rows {
		if !strings.HasPrefix(strings.TrimSpace(l), fmt.Sprint(i+1)+" ") {
			t.Errorf("line %d is %q, want row %d", i, l, i+1)
		}
	}
	bigCells := big.Formatted()
	if bigCells != (h-2)*len(cols3) {
		t.Errorf("formatted %d cells, want %d (visible rows × columns)", bigCells, (h-2)*len(cols3))
	}

	small := grid.New(newCommon(), 100_000)
	small.SetSize(w, h)
	small.Reset("SELECT …")
	small.Begin(cols3)
	stream(small, 50)
	small.Finish(false, "", 0, nil)
	small.View()
	if small.Formatted() != bigCells {
		t.Errorf("50 rows formatted %d cells, 100,000 rows %d: render cost depends on the row count", small.Formatted(), bigCells)
	}

	// The last page renders the last rows, still one window's worth.
	big.Focus()
	big.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	last := dataLines(big.View())
	if got := strings.Fields(last[len(last)-1])[0]; got != "100000" {
		t.Errorf("last line starts %q, want row 100000", got)
	}
	if big.Formatted() != bigCells {
		t.Errorf("last page formatted %d cells", big.Formatted())
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g := grid.New(newCommon(), n)
			g.SetSize(120, 40)
			g.Reset("")
			g.Begin(cols3)
			stream(g, n)
			g.Finish(false, "", 0, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.View()
			}
		})
	}
}

func TestCells(t *testing.T) {
	st := styles.Default()
	g := grid.New(newCommon(), 0)
	g.SetSize(100, 6)
	g.Reset("")
	cols := []query.Column{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	g.Begin(cols)
	long := strings.Repeat("x", 100)
	g.Append([]query.Row{
		{nil, "NULL", int64(7)},
		{"tab\there\nnewline \x1b[31mred", long, 2.5},
		{[]byte{0xde, 0xad}, "Łódź", int64(-3)},
	})
	g.Finish(false, "", 0, nil)
	view := g.View()
	plain := ansi.Strip(view)
	lines := strings.Split(plain, "\n")
	// A NULL is drawn dim and italic; the text "NULL" is not.
	nullStart := strings.SplitN(st.Null.Render("X"), "X", 2)[0]
	if nullStart == "" {
		t.Fatal("the NULL style has no escape sequence")
	}
	if n := strings.Count(lines[2], "NULL"); n != 2 {
		t.Fatalf("row 1 shows NULL %d times: %q", n, lines[2])
	}
	if !strings.Contains(view, nullStart+"NULL") {
		t.Error("a NULL value is not drawn in the NULL style")
	}
	if strings.Count(view, nullStart+"NULL") != 1 {
		t.Error("the text 'NULL' was drawn like a NULL value")
	}
	// Control characters never reach the terminal.
	if strings.Contains(view, "\x1b[31m") || strings.Contains(plain, "\t") {
		t.Errorf("control characters leaked: %q", lines[3])
	}
	if !strings.Contains(plain, "tab here↵newline ␛[31mred") {
		t.Errorf("sanitized text not shown: %q", lines[3])
	}
	// Long text is cut with an ellipsis, numbers are right-aligned.
	if !strings.Contains(lines[3], "…") {
		t.Errorf("long cell not truncated: %q", lines[3])
	}
	if !strings.Contains(plain, "‹blob 2 B›") {
		t.Errorf("blob not summarized:\n%s", plain)
	}
	if !strings.Contains(lines[2], "  7") {
		t.Errorf("integer not right-aligned: %q", lines[2])
	}

	// Enter on a cell asks for the cell view with the whole row.
	g.Focus()
	g.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	g.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	msg := g.Update(tea.KeyPressMsg{Code: tea.KeyEnter})()
	e, ok := msg.(grid.ExpandMsg)
	if !ok || e.Col != 1 || e.RowNum != 2 || e.Row[1] != long {
		t.Errorf("expand gave %#v", msg)
	}
}

// TestCopy: y copies the cell, Y the row (tab-separated), with OSC 52.
func TestCopy(t *testing.T) {
	g := grid.New(newCommon(), 0)
	g.SetSize(60, 6)
	g.Reset("")
	g.Begin(cols3)
	g.Append([]query.Row{{int64(1), "one", nil}})
	g.Finish(false, "", 0, nil)
	g.Focus()
	g.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	if got := clipboard(t, g.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})); got != "one" {
		t.Errorf("copied cell %q", got)
	}
	if got := clipboard(t, g.Update(tea.KeyPressMsg{Code: 'y', Text: "Y", Mod: tea.ModShift})); got != "1\tone\t" {
		t.Errorf("copied row %q", got)
	}
}

// clipboard runs cmd and returns what it puts on the clipboard.
func clipboard(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command")
	}
	var msgs []tea.Msg
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		m := c()
		if b, ok := m.(tea.BatchMsg); ok {
			for _, c := range b {
				run(c)
			}
			return
		}
		msgs = append(msgs, m)
	}
	run(cmd)
	for _, m := range msgs {
		if v := reflect.ValueOf(m); reflect.TypeOf(m).Name() == "setClipboardMsg" && v.Kind() == reflect.String {
			return v.String()
		}
	}
	t.Fatalf("no clipboard message in %#v", msgs)
	return ""
}

// TestHorizontalScroll: moving right past the pane scrolls the columns.
func TestHorizontalScroll(t *testing.T) {
	var cols []query.Column
	row := query.Row{}
	for i := 0; i < 12; i++ {
		cols = append(cols, query.Column{Name: fmt.Sprintf("column_%02d", i)})
		row = append(row, fmt.Sprintf("value %02d", i))
	}
	g := grid.New(newCommon(), 0)
	g.SetSize(40, 5)
	g.Reset("")
	g.Begin(cols)
	g.Append([]query.Row{row})
	g.Finish(false, "", 0, nil)
	g.Focus()
	if h := strings.Split(ansi.Strip(g.View()), "\n")[0]; !strings.Contains(h, "column_00") || strings.Contains(h, "column_05") {
		t.Fatalf("first header %q", h)
	}
	for i := 0; i < 11; i++ {
		g.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	}
	h := strings.Split(ansi.Strip(g.View()), "\n")[0]
	if !strings.Contains(h, "column_11") || strings.Contains(h, "column_00") || !strings.HasPrefix(h, "‹") {
		t.Errorf("scrolled header %q", h)
	}
	for i, l := range strings.Split(g.View(), "\n") {
		if w := ansi.StringWidth(l); w != 40 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
}
