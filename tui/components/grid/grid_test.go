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
	"github.com/tablewise/tablewise/tui/internal/tuitest"
	"github.com/tablewise/tablewise/tui/styles"
)

var cols3 = []query.Column{{Name: "id", Type: "INTEGER"}, {Name: "label", Type: "TEXT"}, {Name: "score", Type: "REAL"}}

// begun is a grid that keeps up to keep rows (0: its default), sized w×h,
// begun on the result of sql with cols.
func begun(keep, w, h int, sql string, cols []query.Column) *grid.Model {
	g := grid.New(common.Default(), keep)
	g.SetSize(w, h)
	g.Reset(sql)
	g.Begin(cols)
	return g
}

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
	big := begun(100_000, w, h, "SELECT …", cols3)
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

	small := begun(100_000, w, h, "SELECT …", cols3)
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
			g := begun(n, 120, 40, "", cols3)
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
	cols := []query.Column{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	g := begun(0, 100, 6, "", cols)
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
	if !strings.Contains(plain, "x'dead'") { // format.Blob
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
	g := begun(0, 60, 6, "", cols3)
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
	g := begun(0, 40, 5, "", cols)
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

// squares streams x, x*x for x = 1..n in the app's batch sizes.
func squares(g *grid.Model, n int64) {
	var b []query.Row
	for x := int64(1); x <= n; x++ {
		b = append(b, query.Row{x, x * x})
		if len(b) == 200 || x == n {
			g.Append(b)
			b = nil
		}
	}
}

// TestWidthsGrow: column widths follow every kept row, not the first ones,
// so the last rows of a result show their numbers whole.
func TestWidthsGrow(t *testing.T) {
	for _, n := range []int64{5_000, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := begun(0, 60, 12, "", []query.Column{{Name: "x"}, {Name: "sq"}})
			squares(g, n)
			g.Finish(false, "", 0, nil)
			g.Focus()
			g.Update(tuitest.Key("G"))
			lines := dataLines(g.View())
			last := strings.Fields(lines[len(lines)-1])
			want := []string{fmt.Sprint(n), fmt.Sprint(n), fmt.Sprint(n * n)}
			if !reflect.DeepEqual(last, want) {
				t.Errorf("last row shows %q, want %q", last, want)
			}
			for _, l := range lines {
				if strings.Contains(l, "…") {
					t.Errorf("a number is cut: %q", l)
				}
			}
		})
	}
}

// TestNumbersNeverCut: a column narrowed below its numbers shows #### (a
// spreadsheet's sign for "too narrow"), never the first digits of a
// number; > widens it again and text is still cut with an ellipsis.
func TestNumbersNeverCut(t *testing.T) {
	g := begun(0, 60, 6, "", []query.Column{{Name: "n"}, {Name: "label"}})
	g.Append([]query.Row{{int64(1234567890), strings.Repeat("abcdefghij", 8)}})
	g.Finish(false, "", 0, nil)
	g.Focus()
	row := func() string { return dataLines(g.View())[0] }
	if !strings.Contains(row(), "1234567890") {
		t.Fatalf("the number is not whole at first: %q", row())
	}
	for i := 0; i < 3; i++ {
		g.Update(tuitest.Key("<"))
	}
	r := row()
	if strings.Contains(r, "123") || !strings.Contains(r, "###") {
		t.Errorf("a narrowed number column shows %q, want #### and no digits", r)
	}
	for i := 0; i < 3; i++ {
		g.Update(tuitest.Key(">"))
	}
	if r := row(); !strings.Contains(r, "1234567890") {
		t.Errorf("widened again: %q", r)
	}
	// The text column starts at the 40-cell bound; > shows more of it.
	g.Update(tuitest.Key("l"))
	before := strings.Count(row(), "abcdefghij")
	g.Update(tuitest.Key(">"))
	g.Update(tuitest.Key(">"))
	g.Update(tuitest.Key(">"))
	if after := strings.Count(row(), "abcdefghij"); after <= before {
		t.Errorf("widening the text column showed %d repeats, before %d: %q", after, before, row())
	}
	if !strings.Contains(row(), "…") {
		t.Errorf("cut text has no ellipsis: %q", row())
	}
}

// column returns the text of column c of every shown row (the first field
// is the row number).
func column(g *grid.Model, c int) []string {
	var out []string
	for _, l := range dataLines(g.View()) {
		if strings.HasPrefix(l, "/ ") || strings.HasPrefix(l, "(") {
			continue // the filter line, a note
		}
		f := strings.Fields(l)
		if len(f) > c+1 {
			out = append(out, f[c+1])
		}
	}
	return out
}

func small(t *testing.T, cols []query.Column, rows []query.Row) *grid.Model {
	t.Helper()
	g := begun(0, 80, len(rows)+4, "", cols)
	g.Append(rows)
	g.Finish(false, "", 0, nil)
	g.Focus()
	return g
}

// TestSort: s sorts by the cursor's column ascending, again descending,
// a third time as the rows came. Numbers sort as numbers (text written as
// a number too), NULL is last both ways, text ignores case.
func TestSort(t *testing.T) {
	g := small(t, []query.Column{{Name: "v"}}, []query.Row{
		{int64(10)}, {nil}, {2.5}, {int64(2)}, {"9"}, {int64(-1)}, {"10.5"},
	})
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"10", "NULL", "2.5", "2", "9", "-1", "10.5"}) {
		t.Fatalf("before sorting %q", got)
	}
	g.Update(tuitest.Key("s"))
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"-1", "2", "2.5", "9", "10", "10.5", "NULL"}) {
		t.Errorf("ascending %q", got)
	}
	if h := strings.Split(ansi.Strip(g.View()), "\n")[0]; !strings.Contains(h, "v ↑") {
		t.Errorf("header %q has no ↑", h)
	}
	g.Update(tuitest.Key("s"))
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"10.5", "10", "9", "2.5", "2", "-1", "NULL"}) {
		t.Errorf("descending %q", got)
	}
	// The row numbers are the rows' places in the result.
	if first := strings.Fields(dataLines(g.View())[0])[0]; first != "7" {
		t.Errorf("the first sorted row is numbered %s, want 7 (10.5 came seventh)", first)
	}
	g.Update(tuitest.Key("s"))
	if got := column(g, 0); got[0] != "10" || got[1] != "NULL" {
		t.Errorf("third s did not restore the order: %q", got)
	}

	// Text: case ignored, numbers before text, NULL last.
	g = small(t, []query.Column{{Name: "name"}}, []query.Row{{"banana"}, {nil}, {"Apple"}, {"cherry"}, {int64(3)}})
	g.Update(tuitest.Key("s"))
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"3", "Apple", "banana", "cherry", "NULL"}) {
		t.Errorf("text ascending %q", got)
	}
	// A click on a column's name sorts by it.
	g = small(t, []query.Column{{Name: "a"}, {Name: "b"}}, []query.Row{{int64(1), int64(9)}, {int64(2), int64(3)}})
	g.View()
	if cmd := g.Click(8, 0); cmd != nil {
		cmd()
	}
	if got := column(g, 1); !reflect.DeepEqual(got, []string{"3", "9"}) || g.Sorted() != "b ↑" {
		t.Errorf("a click on b's name: %q, sorted %q", got, g.Sorted())
	}
	// Integers beyond float precision keep their order.
	g = small(t, []query.Column{{Name: "big"}}, []query.Row{{int64(1<<62 + 1)}, {int64(1 << 62)}})
	g.Update(tuitest.Key("s"))
	if got := column(g, 0); got[0] != fmt.Sprint(int64(1<<62)) {
		t.Errorf("big integers %q", got)
	}
}

// TestFilter: / filters rows by the text shown in any column, ignoring
// case, and says how many match; enter keeps the filter, esc clears it.
func TestFilter(t *testing.T) {
	g := small(t, []query.Column{{Name: "city"}, {Name: "n"}}, []query.Row{
		{"Berlin", int64(12)}, {"Bern", int64(7)}, {"Paris", nil}, {"Überlingen", 2.5}, {"Oslo", int64(120)},
	})
	g.Update(tuitest.Key("/"))
	if !g.Filtering() {
		t.Fatal("/ did not open the filter line")
	}
	for _, r := range "BER" {
		g.Update(tuitest.Key(string(r)))
	}
	view := ansi.Strip(g.View())
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"Berlin", "Bern", "Überlingen"}) {
		t.Errorf("filter BER shows %q", got)
	}
	if !strings.Contains(view, "3 of 5 rows match") {
		t.Errorf("no match count:\n%s", view)
	}
	g.Update(tuitest.Key("enter"))
	if g.Filtering() {
		t.Error("enter did not close the filter line")
	}
	if got := column(g, 0); len(got) != 3 {
		t.Errorf("enter dropped the filter: %q", got)
	}
	if p := g.Position(); p != "row 1 of 3 matching" {
		t.Errorf("position %q", p)
	}
	// Numbers and NULL match as they are shown.
	g.Update(tuitest.Key("/"))
	for range 3 {
		g.Update(tuitest.Key("backspace"))
	}
	for _, r := range "12" {
		g.Update(tuitest.Key(string(r)))
	}
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"Berlin", "Oslo"}) {
		t.Errorf("filter 12 shows %q", got)
	}
	g.Update(tuitest.Key("backspace"))
	g.Update(tuitest.Key("backspace"))
	for _, r := range "null" {
		g.Update(tuitest.Key(string(r)))
	}
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"Paris"}) {
		t.Errorf("filter null shows %q", got)
	}
	for _, r := range "zz" {
		g.Update(tuitest.Key(string(r)))
	}
	if v := ansi.Strip(g.View()); !strings.Contains(v, "(no rows match)") || !strings.Contains(v, "0 of 5 rows match") {
		t.Errorf("no-match view:\n%s", v)
	}
	g.Update(tuitest.Key("esc"))
	if got := column(g, 0); len(got) != 5 || g.Filter() != "" {
		t.Errorf("esc kept the filter: %q", got)
	}

	// Sort and filter together: the matches, in order.
	g.Update(tuitest.Key("l"))
	g.Update(tuitest.Key("s"))
	g.Update(tuitest.Key("s"))
	g.Update(tuitest.Key("/"))
	g.Update(tuitest.Key("e"))
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"Berlin", "Bern", "Überlingen"}) {
		t.Errorf("filter e sorted by n descending shows %q", got)
	}
}

// TestFilterWhileStreaming: rows that arrive after the filter is set are
// filtered as they come; sorting waits for the last row.
func TestFilterWhileStreaming(t *testing.T) {
	g := begun(0, 60, 20, "", []query.Column{{Name: "x"}})
	g.Append([]query.Row{{"a1"}, {"b1"}})
	g.Focus()
	g.Update(tuitest.Key("/"))
	g.Update(tuitest.Key("a"))
	g.Append([]query.Row{{"a2"}, {"b2"}, {"a3"}})
	if got := column(g, 0); !reflect.DeepEqual(got, []string{"a1", "a2", "a3"}) {
		t.Errorf("streamed rows under the filter %q", got)
	}
	g.Update(tuitest.Key("enter"))
	cmd := g.Update(tuitest.Key("s"))
	if cmd == nil {
		t.Fatal("sorting while rows arrive said nothing")
	}
	if m, ok := cmd().(grid.StatusMsg); !ok || !strings.Contains(m.Text, "still arriving") {
		t.Errorf("sorting while rows arrive: %#v", m)
	}
}

// TestOrderInBackground: a large result is sorted in a tea.Cmd; the grid
// keeps its order until the result arrives, and a result overtaken by a
// newer request is dropped.
func TestOrderInBackground(t *testing.T) {
	g := begun(0, 60, 8, "", []query.Column{{Name: "x"}, {Name: "sq"}})
	squares(g, 20_000)
	g.Finish(false, "", 0, nil)
	g.Focus()
	first := g.Update(tuitest.Key("s")) // ascending: already the order
	if first == nil || !g.Pending() {
		t.Fatal("a large sort ran inside Update")
	}
	second := g.Update(tuitest.Key("s")) // descending
	g.Update(second())
	if got := column(g, 0); got[0] != "20000" {
		t.Errorf("descending starts %q", got)
	}
	g.Update(first()) // overtaken: ignored
	if got := column(g, 0); got[0] != "20000" {
		t.Errorf("a stale order replaced the current one: %q", got)
	}
	if g.Pending() {
		t.Error("still pending")
	}
}
