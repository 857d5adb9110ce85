package input_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/input"
	"github.com/tablewise/tablewise/tui/internal/tuitest"
	"github.com/tablewise/tablewise/tui/styles"
)

func press(m *input.Model, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		last = m.Update(tuitest.Key(k))
	}
	return last
}

func typeText(m *input.Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestHistoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tablewise", "history")
	h, err := input.OpenHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	entries := []string{"SELECT 1", "which city buys most?", "SELECT a,\n  b\nFROM \"t\" -- 'quoted'\tend", "SELECT 1"}
	for _, e := range entries {
		if err := h.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	h.Add("SELECT 1") // repeats the newest: not added
	h.Add("   ")      // blank: not added

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("file has %d lines, want 4:\n%s", len(lines), b)
	}
	for i, l := range lines {
		var s string
		if err := json.Unmarshal([]byte(l), &s); err != nil || s != entries[i] {
			t.Errorf("line %d = %s, want the JSON string of %q", i, l, entries[i])
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v, want 0600", st.Mode().Perm())
	}

	// A damaged line is skipped; the rest loads in order.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n\"SELECT 2\"\n")
	f.Close()
	h2, err := input.OpenHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := append(entries, "SELECT 2")
	if h2.Len() != len(want) {
		t.Fatalf("reloaded %d entries, want %d", h2.Len(), len(want))
	}
	for i := range want {
		if h2.At(i) != want[i] {
			t.Errorf("entry %d = %q, want %q", i, h2.At(i), want[i])
		}
	}
	if i := h2.Search("CITY", h2.Len()); i != 1 {
		t.Errorf("search found %d, want 1", i)
	}
}

func TestHistoryCompacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	var b strings.Builder
	for i := 0; i < 25; i++ {
		q, _ := json.Marshal("SELECT " + strings.Repeat("x", i))
		b.Write(q)
		b.WriteByte('\n')
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	h, err := input.OpenHistory(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() != 10 || h.At(9) != "SELECT "+strings.Repeat("x", 24) {
		t.Fatalf("kept %d entries, newest %q", h.Len(), h.At(h.Len()-1))
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 10 {
		t.Errorf("compacted file has %d lines, want 10", n)
	}
}

// TestHistoryKeys: ↑ on the first line recalls older entries, ↓ on the
// last line comes back to the draft, ctrl+r searches.
func TestHistoryKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h, _ := input.OpenHistory(path, 0)
	for _, e := range []string{"SELECT 1", "SELECT name\nFROM t", "how many orders?"} {
		h.Add(e)
	}
	m := input.New(common.Default(), h)
	m.SetSize(60, 5)
	m.Focus()
	typeText(m, "draft")
	for _, step := range []struct {
		keys       []string
		what, want string
	}{
		{[]string{"up"}, "↑", "how many orders?"},
		{[]string{"up"}, "↑↑", "SELECT name\nFROM t"},
		// The cursor is on the last line of a two-line entry: ↑ moves up a
		// line first, then recalls.
		{[]string{"up"}, "↑ inside a multi-line entry", "SELECT name\nFROM t"},
		{[]string{"up"}, "↑ from the first line", "SELECT 1"},
		{[]string{"down", "down"}, "↓", "SELECT name\nFROM t"},
		{[]string{"down", "down", "down"}, "↓ to the end (the draft back)", "draft"},
	} {
		press(m, step.keys...)
		if m.Value() != step.want {
			t.Fatalf("%s gave %q, want %q", step.what, m.Value(), step.want)
		}
	}

	// ctrl+r finds the newest match; again finds an older one; esc restores.
	press(m, "ctrl+r")
	typeText(m, "select")
	if m.Value() != "SELECT name\nFROM t" {
		t.Fatalf("search gave %q", m.Value())
	}
	if !strings.Contains(ansi.Strip(m.View()), "history search: select") {
		t.Errorf("search line not shown:\n%s", ansi.Strip(m.View()))
	}
	press(m, "ctrl+r")
	if m.Value() != "SELECT 1" {
		t.Fatalf("second ctrl+r gave %q", m.Value())
	}
	press(m, "esc")
	if m.Value() != "draft" || m.Searching() {
		t.Fatalf("esc left %q (searching %v)", m.Value(), m.Searching())
	}
	press(m, "ctrl+r")
	typeText(m, "orders")
	press(m, "enter")
	if m.Value() != "how many orders?" || m.Searching() {
		t.Fatalf("enter accepted %q", m.Value())
	}

	// Running saves to the file for the next session.
	msg := runCmd(press(m, "enter"))
	if s, ok := msg.(input.SubmitMsg); !ok || s.Text != "how many orders?" || s.SQL {
		t.Fatalf("enter sent %#v", msg)
	}
	typeText(m, "SELECT 3")
	if msg := runCmd(press(m, "enter")); msg.(input.SubmitMsg).SQL != true {
		t.Errorf("SELECT did not run as SQL: %#v", msg)
	}
	h2, _ := input.OpenHistory(path, 0)
	if h2.At(h2.Len()-1) != "SELECT 3" {
		t.Errorf("newest saved entry %q", h2.At(h2.Len()-1))
	}
}

// runCmd runs cmd and returns its last message (sequences flattened).
func runCmd(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	v := reflectSlice(msg)
	if v == nil {
		return msg
	}
	var last tea.Msg
	for _, c := range v {
		if c != nil {
			last = runCmd(c)
		}
	}
	return last
}

func reflectSlice(msg tea.Msg) []tea.Cmd {
	if b, ok := msg.(tea.BatchMsg); ok {
		return b
	}
	return seqCmds(msg)
}

func testCatalog() *catalog.Catalog {
	return &catalog.Catalog{Tables: []*catalog.Table{
		{Name: "customers", Kind: "table", Columns: []catalog.Column{{Name: "customer_id"}, {Name: "name"}, {Name: "country_id"}}},
		{Name: "countries", Kind: "table", Columns: []catalog.Column{{Name: "country_id"}, {Name: "name"}, {Name: "iso_code"}}},
		{Name: "orders", Kind: "table", Columns: []catalog.Column{{Name: "order_id"}, {Name: "customer_id"}, {Name: "order_date"}}},
		{Name: "order_items", Kind: "table", Columns: []catalog.Column{{Name: "order_id"}, {Name: "quantity"}}},
		{Name: "promo codes", Kind: "table", Columns: []catalog.Column{{Name: "promo_code_id"}, {Name: "code"}}},
	}}
}

func TestComplete(t *testing.T) {
	c := input.NewCompleter(testCatalog(), testdb.Sample(t).Dialect())
	cases := []struct {
		text string // | marks the cursor
		want []string
	}{
		{"SELECT * FROM cust|", []string{"customers", "customer_id"}},
		{"SELECT * FROM orders o WHERE o.ord|", []string{"order_id", "order_date"}},
		{"SELECT c.| FROM customers AS c", []string{"customer_id", "name", "country_id"}},
		{"SELECT * FROM pro|", []string{`"promo codes"`, "promo_code_id"}},
		{"SELECT * FROM \"promo codes\" WHERE \"promo codes\".co|", []string{"code"}},
		{"SELECT count(*) FROM orders WHERE or|", []string{"orders", "order_items", "order_id", "order_date"}},
		{"SELECT qua| FROM order_items", []string{"quantity"}},
		{"SELECT | FROM t", nil},
		{"SELECT zzz|", nil},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			i := strings.Index(tc.text, "|")
			text := []rune(strings.Replace(tc.text, "|", "", 1))
			pos := len([]rune(tc.text[:i]))
			_, _, got := c.Complete(text, pos)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// completing is a focused input, w×h, that completes the names of
// testCatalog.
func completing(t *testing.T, w, h int) *input.Model {
	m := input.New(common.Default(), nil)
	m.SetCatalog(testCatalog(), testdb.Sample(t).Dialect())
	m.SetSize(w, h)
	m.Focus()
	return m
}

// TestTabCompletes: one candidate completes at once; several complete
// their common prefix, list them, and tab cycles.
func TestTabCompletes(t *testing.T) {
	m := completing(t, 80, 5)
	typeText(m, "SELECT * FROM customers WHERE coun")
	press(m, "tab")
	if m.Value() != "SELECT * FROM customers WHERE countr" {
		t.Fatalf("tab gave %q, want the common prefix of countries and country_id", m.Value())
	}
	list, _ := m.Completions()
	if strings.Join(list, ",") != "countries,country_id" {
		t.Fatalf("list %q", list)
	}
	if !strings.Contains(ansi.Strip(m.View()), "countries  country_id") {
		t.Errorf("list not shown:\n%s", ansi.Strip(m.View()))
	}
	press(m, "tab")
	if !strings.HasSuffix(m.Value(), "WHERE countries") {
		t.Fatalf("tab 2 gave %q", m.Value())
	}
	press(m, "tab")
	if !strings.HasSuffix(m.Value(), "WHERE country_id") {
		t.Fatalf("tab 3 gave %q", m.Value())
	}
	press(m, "enter") // accepts, does not run
	if l, _ := m.Completions(); l != nil || !strings.HasSuffix(m.Value(), "country_id") {
		t.Fatalf("enter left list %v, text %q", l, m.Value())
	}
	// A name that needs quoting is completed quoted.
	typeText(m, " AND promo")
	press(m, "tab", "tab")
	if !strings.HasSuffix(m.Value(), `AND "promo codes"`) {
		t.Errorf("tab gave %q", m.Value())
	}
}

// TestEditing: newlines grow the box, ctrl+t forces the mode, ctrl+w
// deletes a word, and SQL is highlighted while questions are not.
func TestEditing(t *testing.T) {
	st := styles.Default()
	m := input.New(common.Default(), nil)
	m.SetSize(40, 6)
	m.Focus()
	typeText(m, "SELECT 1")
	press(m, "ctrl+j")
	typeText(m, "FROM t")
	press(m, "alt+enter")
	typeText(m, "WHERE x")
	if m.Value() != "SELECT 1\nFROM t\nWHERE x" || m.Height() != 3 {
		t.Fatalf("value %q height %d", m.Value(), m.Height())
	}
	kw := strings.SplitN(st.Keyword.Render("X"), "X", 2)[0]
	if !strings.Contains(m.View(), kw+"SELECT") {
		t.Errorf("SQL not highlighted: %q", m.View())
	}
	if label, sql, forced := m.ModeLabel(); label != "SQL" || !sql || forced {
		t.Errorf("mode %q %v %v", label, sql, forced)
	}
	press(m, "ctrl+t", "ctrl+t") // auto → SQL → ask
	if label, sql, forced := m.ModeLabel(); label != "ask" || sql || !forced {
		t.Errorf("forced mode %q %v %v", label, sql, forced)
	}
	if strings.Contains(m.View(), kw+"SELECT") {
		t.Error("text forced to a question is still highlighted as SQL")
	}
	press(m, "ctrl+t")
	press(m, "ctrl+w")
	if m.Value() != "SELECT 1\nFROM t\nWHERE " {
		t.Errorf("ctrl+w left %q", m.Value())
	}
	// A long line wraps at word boundaries and every line fits.
	m.SetValue("")
	typeText(m, "SELECT customer_id, name, email, phone, country_id FROM customers")
	for i, l := range strings.Split(m.View(), "\n") {
		if w := ansi.StringWidth(l); w != 40 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "country_id FROM") && !strings.Contains(v, "  country_id") {
		t.Errorf("a word was split:\n%s", v)
	}
	// Paste keeps newlines.
	m.SetValue("")
	m.Update(tea.PasteMsg{Content: "SELECT 1\r\nFROM t"})
	if m.Value() != "SELECT 1\nFROM t" {
		t.Errorf("paste gave %q", m.Value())
	}
}

// TestEditor: ctrl+o opens the multi-line editor: a box of fixed height
// with line numbers, where enter adds a line keeping the indentation, tab
// indents where there is nothing to complete, ↑ moves up a line (not into
// the history), and alt+enter, ctrl+enter, f5 — or enter after a closing
// semicolon — run the text, which stays for the next change.
func TestEditor(t *testing.T) {
	m := completing(t, 60, 8)
	typeText(m, "SELECT 1")
	press(m, "enter")
	m.SetValue("")
	press(m, "ctrl+o")
	if !m.Editor() || m.Height() != 8 {
		t.Fatalf("ctrl+o: editor %v, height %d", m.Editor(), m.Height())
	}
	typeText(m, "SELECT name,")
	if cmd := press(m, "enter"); cmd != nil {
		if msg := runCmd(cmd); msg != nil {
			t.Fatalf("enter in the editor ran the text: %#v", msg)
		}
	}
	press(m, "tab")
	typeText(m, "email")
	press(m, "enter")
	typeText(m, "FROM customers")
	if want := "SELECT name,\n  email\n  FROM customers"; m.Value() != want {
		t.Fatalf("editor text %q, want %q", m.Value(), want)
	}
	v := ansi.Strip(m.View())
	for _, want := range []string{" 1 SELECT name,", " 2   email", " 3   FROM customers", " ~"} {
		if !strings.Contains(v, want) {
			t.Errorf("editor view lacks %q:\n%s", want, v)
		}
	}
	if n := len(strings.Split(v, "\n")); n != 8 {
		t.Errorf("the editor is %d lines tall, want 8", n)
	}
	press(m, "up")
	press(m, "up")
	press(m, "up")
	if m.Value() != "SELECT name,\n  email\n  FROM customers" {
		t.Errorf("↑ on the first line went into the history: %q", m.Value())
	}
	for _, k := range []string{"alt+enter", "ctrl+enter", "f5"} {
		msg, ok := runCmd(press(m, k)).(input.SubmitMsg)
		if !ok || msg.Text != "SELECT name,\n  email\n  FROM customers" || !msg.SQL {
			t.Errorf("%s sent %#v", k, msg)
		}
		if m.Value() == "" {
			t.Errorf("%s cleared the editor", k)
		}
	}
	// Enter after a closing semicolon runs.
	m.SetValue("SELECT 2;")
	if msg, ok := runCmd(press(m, "enter")).(input.SubmitMsg); !ok || msg.Text != "SELECT 2;" {
		t.Errorf("enter after ; sent %#v", msg)
	}
	press(m, "ctrl+o")
	if m.Editor() || m.Height() != 1 {
		t.Errorf("ctrl+o again: editor %v, height %d", m.Editor(), m.Height())
	}
}
