package pager_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/pager"
	"github.com/tablewise/tablewise/tui/internal/tuitest"
)

func newPager(w, h int) *pager.Model {
	p := pager.New(common.Default())
	p.SetSize(w, h)
	return p
}

func press(p *pager.Model, keys ...string) {
	for _, k := range keys {
		p.Update(tuitest.Key(k))
	}
}

// TestPagerSearch: a long text pages, / finds a word (ignoring case) and n
// goes on to the next line that has it, G shows the end.
func TestPagerSearch(t *testing.T) {
	var lines []string
	for i := 1; i <= 100; i++ {
		l := "line " + strings.Repeat("x", i%7)
		if i == 40 || i == 75 {
			l += " Needle here"
		}
		lines = append(lines, l)
	}
	p := newPager(60, 10)
	p.Open("notes · row 3", strings.Join(lines, "\n"), false)
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "lines 1–9 of 100 (9%)") {
		t.Fatalf("status:\n%s", v)
	}
	press(p, "/")
	for _, r := range "needle" {
		press(p, string(r))
	}
	press(p, "enter")
	v = ansi.Strip(p.View())
	if first := strings.Split(v, "\n")[0]; !strings.Contains(first, "Needle here") {
		t.Errorf("the first match is not at the top:\n%s", v)
	}
	if !strings.Contains(v, "match 1 of 2 lines") {
		t.Errorf("no match count:\n%s", v)
	}
	press(p, "n")
	if v = ansi.Strip(p.View()); !strings.Contains(v, "match 2 of 2 lines") || !strings.Contains(v, "lines 75–83") {
		t.Errorf("n did not go to the second match:\n%s", v)
	}
	press(p, "G")
	if v = ansi.Strip(p.View()); !strings.Contains(v, "(100%)") {
		t.Errorf("G did not show the end:\n%s", v)
	}
	press(p, "q")
	if p.Active() {
		t.Error("q did not close the pager")
	}
}

// TestPagerJSON: a JSON value is shown indented; r shows it as stored. A
// long line wraps; w cuts it instead.
func TestPagerJSON(t *testing.T) {
	p := newPager(60, 12)
	p.Open("payload", `{"a":1,"b":[true,null],"c":"`+strings.Repeat("z", 100)+`"}`, false)
	if !strings.Contains(p.Title(), "JSON, formatted") || !strings.Contains(p.Text(), "\n  \"b\": [\n    true,") {
		t.Fatalf("not formatted: %q / %q", p.Title(), p.Text())
	}
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "zzzz") || strings.Count(v, "zzzz") < 2 {
		t.Errorf("the long line did not wrap:\n%s", v)
	}
	press(p, "w")
	if v = ansi.Strip(p.View()); !strings.Contains(v, "not wrapped") {
		t.Errorf("w did not stop wrapping:\n%s", v)
	}
	press(p, "r")
	if p.Text() != `{"a":1,"b":[true,null],"c":"`+strings.Repeat("z", 100)+`"}` {
		t.Errorf("r did not show the stored text: %q", p.Text())
	}
	// Control characters never reach the terminal.
	p.Open("evil", "a\x1b[31mred\x07", false)
	if v := p.View(); strings.Contains(v, "\x1b[31m") || strings.Contains(v, "\x07") {
		t.Errorf("control characters leaked: %q", v)
	}
}

// TestPagerBound: a text over MaxBytes is shown up to it, and says so.
func TestPagerBound(t *testing.T) {
	p := newPager(80, 10)
	big := strings.Repeat("0123456789abcdef\n", pager.MaxBytes/16+100)
	p.Open("big", big, false)
	if n := len(p.Text()); n > pager.MaxBytes {
		t.Errorf("the pager holds %d bytes", n)
	}
	if v := ansi.Strip(p.View()); !strings.Contains(v, "the first 1 MB of 1.1 MB") || !strings.Contains(v, "y copies all") {
		t.Errorf("no note that the text is cut:\n%s", v)
	}
}
