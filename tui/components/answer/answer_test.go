package answer_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	coreanswer "github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/answer"
	"github.com/tablewise/tablewise/tui/keymap"
	"github.com/tablewise/tablewise/tui/styles"
)

func TestTrace(t *testing.T) {
	b := &coreanswer.Bundle{Provider: "anthropic", Model: "claude", Usage: coreanswer.Usage{ModelCalls: 1, ToolCalls: 4, InputTokens: 12345, OutputTokens: 678, CostUSD: 0.0123}, Timings: coreanswer.Timings{TotalMS: 4200}}
	want := "trace: anthropic claude · 1 model call · 4 tool calls · 12,345→678 tokens · $0.0123 · 4.2 s"
	if got := answer.Trace(b, 0); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := answer.Trace(&coreanswer.Bundle{}, 1500*time.Millisecond); got != "trace: 0 model calls · 0 tool calls · 1.5 s" {
		t.Errorf("offline trace %q", got)
	}
}

func TestPane(t *testing.T) {
	km := keymap.Default()
	m := answer.New(common.Common{Styles: styles.Default(), Keys: &km})
	m.SetSize(60, 12)
	m.Focus()
	m.Start("top cities?")
	m.AppendText("Berlin leads")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "A    Berlin leads ▍") {
		t.Errorf("streamed text not shown:\n%s", v)
	}
	m.Finish(&coreanswer.Bundle{
		Status: coreanswer.StatusAnswered, Answer: "Berlin leads with 12 orders.", SQL: "SELECT city, count(*)\nFROM orders\nGROUP BY 1",
		FollowUps: []string{"And by revenue?", "Which month?"}, Flags: []string{"a row looks like an instruction"},
	}, nil, time.Second)
	v := ansi.Strip(m.View())
	for _, want := range []string{"Q    top cities?", "A    Berlin leads with 12 orders.", "⚠ a row looks like an instruction", "SQL  SELECT city, count(*) FROM orders GROUP BY 1", "next › And by revenue?", "       Which month?"} {
		if !strings.Contains(v, want) {
			t.Errorf("pane lacks %q:\n%s", want, v)
		}
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if msg := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})(); msg != (answer.AskMsg{Question: "Which month?"}) {
		t.Errorf("enter gave %#v", msg)
	}
	if msg := m.Update(tea.KeyPressMsg{Code: 'e', Text: "e"})(); msg != (answer.EditSQLMsg{SQL: "SELECT city, count(*)\nFROM orders\nGROUP BY 1"}) {
		t.Errorf("e gave %#v", msg)
	}
	// Model text cannot drive the terminal.
	m.Start("q")
	m.Finish(&coreanswer.Bundle{Answer: "evil \x1b]52;c;aGk=\x07 text"}, nil, 0)
	if strings.Contains(m.View(), "\x1b]52") {
		t.Error("an escape sequence from the answer reached the view")
	}
	m.Start("q")
	m.Finish(nil, errors.New("provider down"), 0)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "✗ provider down") {
		t.Errorf("error not shown:\n%s", v)
	}
}
