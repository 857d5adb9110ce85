// Package agent answers a plain-language question about a database with a
// model that calls tools: it grounds the model in the schema, runs the SQL
// the model writes through the guard, feeds results back as data, repairs
// failed SQL, asks for clarification when needed, checks that stated numbers
// rest on a query that ran, checks each result against the data
// (core/verify), has the SQL an answer rests on reviewed by an isolated
// model call, retries once with a stronger model when configured, and
// stops cleanly when a budget runs out. The result is an answer.Bundle.
package agent

import (
	"context"
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
	"github.com/tablewise/tablewise/core/verify"
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
	// MaxRows caps the rows a bundle keeps; default 1,000.
	MaxRows int
	// SQLTimeout bounds each statement; default 10s.
	SQLTimeout time.Duration
	// SchemaBudget is the most characters of schema cards put in the
	// system prompt; bigger schemas get retrieved cards per question.
	// Default 24,000 (about 6,000 tokens). The cards must also fit beside
	// the instructions and the tools within RequestBytes (budget.go),
	// which is the tighter bound unless this one is set lower.
	SchemaBudget int
	// Trace receives tool-call events (model calls are traced by the
	// provider's llm.WithTrace hook). May be nil.
	Trace *trace.Writer
	// Prompt is the prompt version (prompts/README.md); default
	// DefaultPrompt. An unknown version makes every question fail with an
	// error wrapping ErrUnknownPrompt (CheckPrompt tells beforehand).
	Prompt string
	// Checks bound the queries that check each result against the data
	// (core/verify); zero takes its defaults.
	Checks verify.Options
	// NoReview skips the independent review of the SQL an answer rests on
	// (--review=false). The review is on by default: one isolated model
	// call per answer, two when it revises.
	NoReview bool
	// Escalate, when set, is a stronger model the question is retried
	// with, once, from the start, when the repairs of failed SQL run out or
	// the review objects twice (--escalate-model). Its calls count against
	// the same model-call budget.
	Escalate llm.Provider
}

func (o *Options) defaults() {
	b := &o.Budgets
	orDefault(&b.ModelCalls, 12)
	orDefault(&b.ToolCalls, 10)
	orDefault(&b.FailedSQL, 3)
	orDefault(&b.Wall, 90*time.Second)
	orDefault(&o.PreviewRows, 50)
	orDefault(&o.BundleRows, 50)
	orDefault(&o.MaxRows, 1000)
	orDefault(&o.SQLTimeout, 10*time.Second)
	orDefault(&o.SchemaBudget, 24_000)
}

// orDefault sets *v to def when it is zero or negative.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Agent answers questions about one database with one model.
type Agent struct {
	d      *db.DB
	model  llm.Provider
	schema SchemaTools
	opt    Options
	prompt *prompt
	tools  []llm.Tool // the prompt's tools for this database's dialect
	// promptErr is why Options.Prompt could not be loaded.
	promptErr error

	promptMu sync.Mutex
	system   string
	retrieve bool // schema too big for the prompt: retrieve cards per question
}

// New returns an agent over d that asks model, using schema for the schema
// tools.
func New(d *db.DB, model llm.Provider, schema SchemaTools, opt Options) *Agent {
	opt.defaults()
	a := &Agent{d: d, model: model, schema: schema, opt: opt}
	a.prompt, a.promptErr = loadPrompt(opt.Prompt)
	if a.promptErr == nil {
		a.tools = a.prompt.toolsFor(d.Dialect().Name())
	}
	return a
}

// Ask answers question on its own, with no earlier exchanges. onText, when
// set, receives the model's text as it streams.
func (a *Agent) Ask(ctx context.Context, question string, onText func(string)) (*answer.Bundle, error) {
	return a.AskAfter(ctx, nil, question, onText)
}

// AskAfter answers question as the next in a conversation whose earlier
// exchanges are prior, oldest first: the model sees them before the
// question. The caller keeps the conversation (core/ask bounds it and asks
// one question of it at a time); the agent keeps nothing between questions
// but its system prompt. The error is non-nil only when the question could
// not be worked on at all (the provider failed, the schema could not be
// read); every other ending is a Bundle with its Status.
//
// The question's trace id is the one ctx carries (llm.CallTags), or a new
// one; every model-call and tool-call line of the trace carries it, with
// the prompt version.
func (a *Agent) AskAfter(ctx context.Context, prior []answer.Turn, question string, onText func(string)) (*answer.Bundle, error) {
	start := time.Now()
	if a.promptErr != nil {
		return nil, a.promptErr
	}
	tags := llm.CallTagsFrom(ctx)
	if tags.TraceID == "" {
		tags.TraceID = trace.NewID()
	}
	tags.Prompt = a.prompt.version
	ctx = llm.WithCallTags(ctx, tags)
	r := &run{a: a, model: a.model, b: &answer.Bundle{Question: question, Provider: a.model.Name(), Model: a.model.Model(), TraceID: tags.TraceID, PromptVersion: tags.Prompt, Checks: &answer.Checks{}}, onText: onText}
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
		if cards, err := a.retrieveCards(ctx, question); err == nil && cards != "" {
			user = question + fill(a.prompt.texts.RetrievedCards, "cards", cards)
		}
	}
	msgs := make([]llm.Message, 0, 2*len(prior)+1)
	for _, t := range prior {
		msgs = append(msgs, llm.UserText(t.Question), llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text{Text: t.Answer}}})
	}
	msgs = append(msgs, llm.UserText(user))
	r.first = append([]llm.Message(nil), msgs...)

	ctx, cancel := context.WithTimeout(ctx, a.opt.Budgets.Wall)
	defer cancel()
	if err := r.loop(ctx, system, msgs); err != nil {
		r.b.Status, r.b.Error = answer.StatusError, err.Error()
		return r.b, err
	}
	return r.b, nil
}

// run is one question's state.
type run struct {
	a      *Agent
	b      *answer.Bundle
	onText func(string)
	// model answers: the agent's model, or its Escalate model once the
	// question has been escalated.
	model llm.Provider
	// first are the messages the question started with, for escalation.
	first []llm.Message

	lastResult *query.Result
	ranSQL     bool
	pushedBack bool
	// Per attempt (escalation starts them again): failed statements, tool
	// calls, review objections.
	failedSQL int
	toolCalls int
	revisions int

	escalated   bool
	escalateWhy string
	// reviewChanged is the reason of a review's revision that ran.
	reviewChanged string
	// notes are the checks of the statement the current tool call ran,
	// for its trace line.
	notes []string
}

var digits = regexp.MustCompile(`\d`)

func (r *run) loop(ctx context.Context, system string, msgs []llm.Message) error {
	a, b := r.a, r.b
	tools := a.tools
	for {
		if b.Usage.ModelCalls >= a.opt.Budgets.ModelCalls {
			return r.stop(fmt.Sprintf("reached the limit of %d model calls before an answer", a.opt.Budgets.ModelCalls))
		}
		req := llm.Request{System: system, Messages: fit(system, tools, msgs), Tools: tools}
		if r.onText != nil {
			req.OnText = r.onText
		}
		t0 := time.Now()
		resp, err := r.model.Complete(ctx, req)
		b.Timings.ModelMS += time.Since(t0).Milliseconds()
		if resp != nil {
			b.Usage.MaxRequestBytes = max(b.Usage.MaxRequestBytes, resp.RequestBytes)
		}
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return r.stop(fmt.Sprintf("ran out of time (%s) before an answer", a.opt.Budgets.Wall))
			}
			b.Status = answer.StatusError
			b.Answer = "The model could not be reached: " + err.Error()
			return err
		}
		r.count(resp.Usage, false)
		msgs = append(msgs, resp.Message())

		if len(resp.ToolCalls) == 0 {
			text := strings.TrimSpace(resp.Text)
			// Verification: numbers must rest on a query that ran.
			if !r.ranSQL && digits.MatchString(text) && !r.pushedBack {
				r.pushedBack = true
				if r.onText != nil {
					r.onText("\n")
				}
				msgs = append(msgs, llm.UserText(a.prompt.texts.NumbersWithoutQuery))
				continue
			}
			switch step, more := r.review(ctx); step {
			case reviewAgain:
				if r.onText != nil {
					r.onText("\n")
				}
				msgs = append(msgs, more...)
				continue
			case reviewEscalate:
				msgs = r.escalate()
				continue
			}
			r.finish(text)
			return nil
		}

		var results []llm.ToolResult
		stopNow, restart := false, false
		for _, call := range resp.ToolCalls {
			if stopNow {
				results = append(results, llm.ToolResult{CallID: call.ID, Content: "not run: the question has ended", IsError: true})
				continue
			}
			if r.toolCalls >= a.opt.Budgets.ToolCalls {
				return r.stop(fmt.Sprintf("reached the limit of %d tool calls before an answer", a.opt.Budgets.ToolCalls))
			}
			b.Usage.ToolCalls++
			r.toolCalls++
			res := r.call(ctx, call)
			results = append(results, llm.ToolResult{CallID: call.ID, Content: res.content, IsError: res.isError})
			if res.clarify != nil {
				b.Status = answer.StatusClarify
				b.Clarification = res.clarify
				b.Answer = res.clarify.Question
				stopNow = true
			}
			if r.failedSQL >= a.opt.Budgets.FailedSQL {
				why := fmt.Sprintf("%d SQL attempts failed; the last error was: %s", r.failedSQL, res.content)
				if !r.canEscalate() {
					return r.stop(why)
				}
				r.escalateWhy = fmt.Sprintf("%d SQL attempts failed", r.failedSQL)
				restart = true
				break
			}
			if ctx.Err() != nil {
				return r.stop(fmt.Sprintf("ran out of time (%s) before an answer", a.opt.Budgets.Wall))
			}
		}
		if stopNow {
			return nil
		}
		if restart {
			msgs = r.escalate()
			continue
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
	if r.escalated {
		b.Flags = append(b.Flags, fmt.Sprintf("answered by %s after %s", r.model.Model(), r.escalateWhy))
	}
	if rv := b.Checks.Review; rv != nil && rv.Verdict == answer.ReviewApproved {
		if r.reviewChanged != "" {
			b.Flags = append(b.Flags, "an independent review changed the SQL: "+r.reviewChanged)
		}
		if rv.Fingerprint != verify.Fingerprint(b.SQL) {
			// Nothing runs between an approval and the answer; this would be
			// a defect, and the reader hears of it.
			rv.Verdict = answer.ReviewSkipped
			b.Flags = append(b.Flags, "the SQL shown is not the text the review approved")
		}
	}
}
