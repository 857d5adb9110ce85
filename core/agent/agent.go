// Package agent answers a plain-language question about a database with a
// model that calls tools: it grounds the model in the schema, runs the SQL
// the model writes through the guard, feeds results back as data, repairs
// failed SQL, asks for clarification when needed, checks that stated numbers
// rest on a query that ran, and stops cleanly when a budget runs out. The
// result is an answer.Bundle.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/trace"
)

// Budgets bound one question.
type Budgets struct {
	ModelCalls int           // default 12
	ToolCalls  int           // default 10
	FailedSQL  int           // default 3
	Wall       time.Duration // default 90s
}

// Options configure an Agent.
type Options struct {
	Budgets Budgets
	// PreviewRows is how many rows of a result the model sees; default 50.
	PreviewRows int
	// BundleRows is how many rows the bundle keeps as a preview; default 50.
	BundleRows int
	// HistoryTurns bounds how many earlier exchanges of a thread a question
	// carries; default 10.
	HistoryTurns int
	// MaxRows caps the rows a bundle keeps; default 1,000.
	MaxRows int
	// SQLTimeout bounds each statement; default 10s.
	SQLTimeout time.Duration
	// SchemaBudget is the most characters of schema cards put in the
	// system prompt; bigger schemas get retrieved cards per question.
	// Default 24,000 (about 6,000 tokens).
	SchemaBudget int
	// Trace receives tool-call events (model calls are traced by the
	// provider's llm.WithTrace hook). May be nil.
	Trace *trace.Writer
}

func (o *Options) defaults() {
	b := &o.Budgets
	if b.ModelCalls <= 0 {
		b.ModelCalls = 12
	}
	if b.ToolCalls <= 0 {
		b.ToolCalls = 10
	}
	if b.FailedSQL <= 0 {
		b.FailedSQL = 3
	}
	if b.Wall <= 0 {
		b.Wall = 90 * time.Second
	}
	if o.PreviewRows <= 0 {
		o.PreviewRows = 50
	}
	if o.BundleRows <= 0 {
		o.BundleRows = 50
	}
	if o.HistoryTurns <= 0 {
		o.HistoryTurns = 10
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 1000
	}
	if o.SQLTimeout <= 0 {
		o.SQLTimeout = 10 * time.Second
	}
	if o.SchemaBudget <= 0 {
		o.SchemaBudget = 24_000
	}
}

// Agent answers questions about one database with one model.
type Agent struct {
	d      *db.DB
	model  llm.Provider
	schema SchemaTools
	opt    Options

	promptMu sync.Mutex
	system   string
	retrieve bool // schema too big for the prompt: retrieve cards per question

	def Thread
}

// New returns an agent over d that asks model, using schema for the schema
// tools.
func New(d *db.DB, model llm.Provider, schema SchemaTools, opt Options) *Agent {
	opt.defaults()
	return &Agent{d: d, model: model, schema: schema, opt: opt}
}

// Thread is a conversation: its questions and answers give follow-up
// questions their context. A thread answers one question at a time.
type Thread struct {
	mu      sync.Mutex
	history []llm.Message
}

// Ask answers question in the agent's default thread. onText, when set,
// receives the model's text as it streams.
func (a *Agent) Ask(ctx context.Context, question string, onText func(string)) (*answer.Bundle, error) {
	return a.AskIn(ctx, &a.def, question, onText)
}

// AskIn answers question in thread th. The error is non-nil only when the
// question could not be worked on at all (the provider failed, the schema
// could not be read); every other ending is a Bundle with its Status.
func (a *Agent) AskIn(ctx context.Context, th *Thread, question string, onText func(string)) (*answer.Bundle, error) {
	th.mu.Lock()
	defer th.mu.Unlock()
	start := time.Now()
	r := &run{a: a, b: &answer.Bundle{Question: question, Provider: a.model.Name(), Model: a.model.Model(), TraceID: newTraceID()}, onText: onText}
	defer func() {
		b := r.b
		b.Timings.TotalMS = time.Since(start).Milliseconds()
		if len(b.Rows) > a.opt.BundleRows {
			b.Rows = b.Rows[:a.opt.BundleRows]
		}
	}()

	system, retrieve, err := a.systemPrompt(ctx)
	if err != nil {
		return nil, err
	}
	user := question
	if retrieve {
		if cards, err := a.schema.SearchSchema(ctx, question); err == nil && cards != "" {
			user = question + "\n\n(Tables that may be relevant, from a schema search:)\n" + cards
		}
	}
	msgs := append(append([]llm.Message(nil), th.history...), llm.UserText(user))

	ctx, cancel := context.WithTimeout(ctx, a.opt.Budgets.Wall)
	defer cancel()
	final, err := r.loop(ctx, system, msgs)
	if err != nil {
		r.b.Status, r.b.Error = answer.StatusError, err.Error()
		return r.b, err
	}
	// Remember the exchange (question and final text, not tool traffic),
	// keeping the last HistoryTurns exchanges.
	if final != "" {
		th.history = append(th.history, llm.UserText(question), llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text{Text: final}}})
		if n := 2 * a.opt.HistoryTurns; len(th.history) > n {
			th.history = append([]llm.Message(nil), th.history[len(th.history)-n:]...)
		}
	}
	return r.b, nil
}

// run is one question's state.
type run struct {
	a      *Agent
	b      *answer.Bundle
	onText func(string)

	lastResult *query.Result
	ranSQL     bool
	failedSQL  int
	pushedBack bool
}

var digits = regexp.MustCompile(`\d`)

func (r *run) loop(ctx context.Context, system string, msgs []llm.Message) (string, error) {
	a, b := r.a, r.b
	tools := toolDefs()
	for {
		if b.Usage.ModelCalls >= a.opt.Budgets.ModelCalls {
			return "", r.stop(fmt.Sprintf("reached the limit of %d model calls before an answer", a.opt.Budgets.ModelCalls))
		}
		req := llm.Request{System: system, Messages: msgs, Tools: tools}
		if r.onText != nil {
			req.OnText = r.onText
		}
		t0 := time.Now()
		resp, err := a.model.Complete(ctx, req)
		b.Timings.ModelMS += time.Since(t0).Milliseconds()
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return "", r.stop(fmt.Sprintf("ran out of time (%s) before an answer", a.opt.Budgets.Wall))
			}
			b.Status = answer.StatusError
			b.Answer = "The model could not be reached: " + err.Error()
			return "", err
		}
		b.Usage.ModelCalls++
		b.Usage.InputTokens += resp.Usage.InputTokens + resp.Usage.CacheReadTokens + resp.Usage.CacheWriteTokens
		b.Usage.OutputTokens += resp.Usage.OutputTokens
		b.Usage.CostUSD += resp.Usage.CostUSD
		msgs = append(msgs, resp.Message())

		if len(resp.ToolCalls) == 0 {
			text := strings.TrimSpace(resp.Text)
			// Verification: numbers must rest on a query that ran.
			if !r.ranSQL && digits.MatchString(text) && !r.pushedBack {
				r.pushedBack = true
				if r.onText != nil {
					r.onText("\n")
				}
				msgs = append(msgs, llm.UserText("Your answer states numbers, but no query has run. Run the SQL with run_sql first and answer from its result."))
				continue
			}
			r.finish(text)
			return b.Answer, nil
		}

		var results []llm.ToolResult
		stopNow := false
		for _, call := range resp.ToolCalls {
			if stopNow {
				results = append(results, llm.ToolResult{CallID: call.ID, Content: "not run: the question has ended", IsError: true})
				continue
			}
			if b.Usage.ToolCalls >= a.opt.Budgets.ToolCalls {
				return "", r.stop(fmt.Sprintf("reached the limit of %d tool calls before an answer", a.opt.Budgets.ToolCalls))
			}
			b.Usage.ToolCalls++
			res := r.call(ctx, call)
			results = append(results, llm.ToolResult{CallID: call.ID, Content: res.content, IsError: res.isError})
			if res.clarify != nil {
				b.Status = answer.StatusClarify
				b.Clarification = res.clarify
				b.Answer = res.clarify.Question
				stopNow = true
			}
			if r.failedSQL >= a.opt.Budgets.FailedSQL {
				return "", r.stop(fmt.Sprintf("%d SQL attempts failed; the last error was: %s", r.failedSQL, res.content))
			}
			if ctx.Err() != nil {
				return "", r.stop(fmt.Sprintf("ran out of time (%s) before an answer", a.opt.Budgets.Wall))
			}
		}
		if stopNow {
			return b.Answer, nil
		}
		msgs = append(msgs, llm.ToolResults(results...))
		if r.onText != nil {
			r.onText("\n")
		}
	}
}

// stop ends the question on a budget, keeping what ran.
func (r *run) stop(why string) error {
	r.b.Status = answer.StatusBudget
	r.b.Answer = "Stopped: " + why + "."
	if r.lastResult != nil {
		r.b.Answer += " The last query that ran is shown below; its result was not checked as an answer."
	}
	return nil
}

var followUpLine = regexp.MustCompile(`(?im)^\s*follow[- ]?ups?\s*:\s*(.+)$`)

// finish fills the bundle from the model's final text.
func (r *run) finish(text string) {
	b := r.b
	if m := followUpLine.FindStringSubmatchIndex(text); m != nil {
		for _, q := range strings.Split(text[m[2]:m[3]], "|") {
			if q = strings.TrimSpace(q); q != "" && len(b.FollowUps) < 5 {
				b.FollowUps = append(b.FollowUps, q)
			}
		}
		text = strings.TrimSpace(text[:m[0]] + text[m[1]:])
	}
	b.Answer, b.Status = text, answer.StatusAnswered
	// Numbers that survived the push-back without a query are flagged; an
	// answer without numbers or a query explains why it cannot answer, or
	// answers from the schema alone.
	if !r.ranSQL && digits.MatchString(text) {
		b.Flags = append(b.Flags, "this answer states numbers that no query produced; treat them with care")
	}
}

func newTraceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Turn is one finished exchange of a thread.
type Turn struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Turns returns the thread's remembered exchanges, oldest first, so a front
// end can keep a thread across runs.
func (th *Thread) Turns() []Turn {
	th.mu.Lock()
	defer th.mu.Unlock()
	var out []Turn
	for i := 0; i+1 < len(th.history); i += 2 {
		out = append(out, Turn{Question: textOf(th.history[i]), Answer: textOf(th.history[i+1])})
	}
	return out
}

// ResumeThread returns a thread that remembers turns.
func ResumeThread(turns []Turn) *Thread {
	th := &Thread{}
	for _, t := range turns {
		th.history = append(th.history, llm.UserText(t.Question), llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text{Text: t.Answer}}})
	}
	return th
}

func textOf(m llm.Message) string {
	var b strings.Builder
	for _, p := range m.Content {
		if t, ok := p.(llm.Text); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
