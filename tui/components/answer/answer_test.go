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
	m := answer.New(common.Default())
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

// The pane says how an answer was checked: the review, the literals
// checked against the data, the escalation with each model's calls, and
// the checks' notes.
func TestPaneShowsChecks(t *testing.T) {
	m := answer.New(common.Default())
	m.SetSize(200, 20)
	m.Start("returned orders to Germany?")
	m.Finish(&coreanswer.Bundle{
		Status: coreanswer.StatusAnswered, Answer: "41 orders.", SQL: "SELECT count(*) FROM orders WHERE ship_country = 'Germany' AND status = 'returned'",
		Flags: []string{"an independent review changed the SQL: returned orders only"},
		Checks: &coreanswer.Checks{
			Literals:  []coreanswer.Literal{{Table: "orders", Column: "ship_country", Op: "=", Value: "Germany", Found: true}, {Table: "orders", Column: "status", Op: "=", Value: "retrned", Closest: []string{"returned"}}},
			Notes:     []string{"no row of orders.status equals 'retrned'; the closest values are 'returned'"},
			Review:    &coreanswer.Review{Verdict: coreanswer.ReviewApproved, Rounds: 2, Revisions: 1},
			Escalated: "strong-model",
			Models:    []coreanswer.ModelUsage{{Model: "small-model", ModelCalls: 3}, {Model: "strong-model", ModelCalls: 3, ReviewCalls: 1}},
		},
	}, nil, time.Second)
	v := ansi.Strip(m.View())
	for _, want := range []string{
		"⚠ an independent review changed the SQL: returned orders only",
		"✓ reviewed: the review changed the SQL · 2 values checked against the data (1 not found) · escalated to strong-model · small-model 3 calls, strong-model 3 calls",
		"· no row of orders.status equals 'retrned'; the closest values are 'returned'",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("pane lacks %q:\n%s", want, v)
		}
	}
	if got := (&coreanswer.Bundle{}).Checks.Summary(); got != "" {
		t.Errorf("an unchecked answer: %q", got)
	}
}
