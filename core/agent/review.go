package agent

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/tools"
	"github.com/tablewise/tablewise/core/trace"
	"github.com/tablewise/tablewise/core/verify"
)

// ReviewPrompt is the version of the reviewer's prompts
// (review/README.md).
const ReviewPrompt = "v1"

//go:embed review/v*/*
var reviewFiles embed.FS

type reviewTexts struct {
	system         string
	Request        string `json:"request"`         // {{question}} {{cards}} {{sql}}
	Revised        string `json:"revised"`         // {{reason}} {{sql}} {{result}}
	RevisionFailed string `json:"revision_failed"` // {{reason}} {{error}}
}

var loadReview = sync.OnceValues(func() (*reviewTexts, error) {
	dir := "review/" + ReviewPrompt
	sys, err := reviewFiles.ReadFile(dir + "/system.txt")
	if err != nil {
		return nil, fmt.Errorf("review prompt: %w", err)
	}
	raw, err := reviewFiles.ReadFile(dir + "/texts.json")
	if err != nil {
		return nil, fmt.Errorf("review prompt: %w", err)
	}
	t := &reviewTexts{system: strings.TrimSuffix(string(sys), "\n")}
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("review prompt: %w", err)
	}
	return t, nil
})

// reviewStep is what the loop does after a review.
type reviewStep int

const (
	reviewDone     reviewStep = iota // give the answer
	reviewAgain                      // the model answers again from what msgs now hold
	reviewEscalate                   // the reviewer objected twice: retry with the stronger model
)

// verdict is the reviewer's reply.
type verdict struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	SQL     string `json:"sql"`
}

// review has the SQL the answer rests on reviewed by an isolated model
// call that sees only the question, the schema cards of the tables the
// SQL reads and the SQL. An approval ends it; a revision runs through the
// guard like any statement and the model answers again from its result; a
// second objection asks for escalation. The returned messages go to the
// answering model.
func (r *run) review(ctx context.Context) (reviewStep, []llm.Message) {
	a, b := r.a, r.b
	if a.opt.NoReview || !r.ranSQL || b.SQL == "" {
		return reviewDone, nil
	}
	rv := b.Checks.Review
	if rv == nil {
		rv = &answer.Review{Prompt: ReviewPrompt}
		b.Checks.Review = rv
	}
	if b.Usage.ModelCalls >= a.opt.Budgets.ModelCalls {
		rv.Verdict, rv.Reason = answer.ReviewSkipped, fmt.Sprintf("the limit of %d model calls was reached before a review", a.opt.Budgets.ModelCalls)
		b.Flags = append(b.Flags, "this answer was not reviewed: "+rv.Reason)
		return reviewDone, nil
	}
	texts, err := loadReview()
	if err != nil {
		rv.Verdict, rv.Reason = answer.ReviewSkipped, err.Error()
		return reviewDone, nil
	}
	sql := b.SQL
	v, err := r.askReviewer(ctx, texts, sql)
	rv.Rounds++
	if err != nil {
		rv.Verdict, rv.Reason = answer.ReviewSkipped, err.Error()
		b.Flags = append(b.Flags, "this answer was not reviewed: "+rv.Reason)
		r.traceReview(sql, false, "skipped: "+rv.Reason)
		return reviewDone, nil
	}
	if v.Verdict != "revise" || strings.TrimSpace(v.SQL) == "" || verify.Fingerprint(v.SQL) == verify.Fingerprint(sql) {
		rv.Verdict, rv.Fingerprint = answer.ReviewApproved, verify.Fingerprint(sql)
		r.traceReview(sql, true, "approved")
		return reviewDone, nil
	}
	reason := strings.TrimSpace(v.Reason)
	if reason == "" {
		reason = "no reason given"
	}
	rv.Verdict, rv.Reason, rv.Fingerprint = answer.ReviewRevised, reason, ""
	r.traceReview(sql, false, "revised: "+reason)
	r.revisions++
	rv.Revisions++
	if r.revisions > 1 {
		if r.canEscalate() {
			r.escalateWhy = "the review objected twice (" + reason + ")"
			return reviewEscalate, nil
		}
		b.Flags = append(b.Flags, "an independent review still objects to this SQL: "+reason)
		return reviewDone, nil
	}
	if rv.Original == "" {
		rv.Original = sql
	}
	res := r.runSQL(ctx, v.SQL)
	r.b.Steps = append(r.b.Steps, answer.Step{Tool: "review", Input: format.ClipBytes(v.SQL, 300), OK: !res.isError, Summary: format.ClipBytes("revised: "+reason, 160)})
	if res.isError {
		return reviewAgain, []llm.Message{llm.UserText(fill(texts.RevisionFailed, "reason", reason, "error", res.content))}
	}
	r.reviewChanged = reason
	return reviewAgain, []llm.Message{llm.UserText(fill(texts.Revised, "reason", reason, "sql", v.SQL, "result", res.content))}
}

// askReviewer makes the review call and reads its verdict.
func (r *run) askReviewer(ctx context.Context, texts *reviewTexts, sql string) (verdict, error) {
	a := r.a
	cards := ""
	if cat, err := a.d.Catalog(ctx); err == nil {
		var cs []string
		for _, t := range verify.Tables(sql, cat) {
			cs = append(cs, tools.SchemaCard(a.d.Dialect(), t))
		}
		cards = strings.Join(cs, "\n")
	}
	if cards == "" {
		cards = "(the statement names no table of the database)"
	}
	tags := llm.CallTagsFrom(ctx)
	tags.Role = "review"
	req := llm.Request{
		System:   fill(texts.system, "dialect", a.d.Dialect().Name()),
		Messages: []llm.Message{llm.UserText(fill(texts.Request, "question", r.b.Question, "cards", cards, "sql", sql))},
	}
	t0 := time.Now()
	resp, err := r.model.Complete(llm.WithCallTags(ctx, tags), req)
	r.b.Timings.ModelMS += time.Since(t0).Milliseconds()
	if err != nil {
		return verdict{}, fmt.Errorf("the review call failed: %w", err)
	}
	r.count(resp.Usage, true)
	return parseVerdict(resp.Text)
}

// parseVerdict reads the JSON object of a reviewer's reply, which may be
// wrapped in prose or a code fence.
func parseVerdict(text string) (verdict, error) {
	var v verdict
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return v, errors.New("the review's reply held no verdict")
	}
	if err := json.Unmarshal([]byte(text[i:j+1]), &v); err != nil {
		return v, fmt.Errorf("the review's reply could not be read: %v", err)
	}
	v.Verdict = strings.ToLower(strings.TrimSpace(v.Verdict))
	if v.Verdict != "approve" && v.Verdict != "revise" {
		return v, fmt.Errorf("the review's verdict %q is neither approve nor revise", v.Verdict)
	}
	return v, nil
}

func (r *run) traceReview(sql string, ok bool, summary string) {
	r.a.opt.Trace.Write(trace.Event{Kind: "review", TraceID: r.b.TraceID, Prompt: r.b.PromptVersion, Question: r.b.Question, Input: format.ClipBytes(sql, 2000), OK: ok, Summary: format.ClipBytes(summary, 300)})
}

// canEscalate: a stronger model is configured and has not been tried.
func (r *run) canEscalate() bool { return r.a.opt.Escalate != nil && !r.escalated }

// escalate retries the question from the start with the stronger model:
// its own repair, tool-call and review allowances, the same model-call
// budget and wall time; nothing the first model ran carries over. It
// returns the first messages to send.
func (r *run) escalate() []llm.Message {
	a, b := r.a, r.b
	r.escalated = true
	r.model = a.opt.Escalate
	r.failedSQL, r.toolCalls, r.revisions, r.pushedBack = 0, 0, 0, false
	r.reviewChanged = ""
	// The answer rests on what the stronger model runs, nothing before.
	r.ranSQL, r.lastResult = false, nil
	b.SQL, b.Columns, b.Rows, b.RowCount, b.Truncated, b.Chart, b.Flags = "", nil, nil, 0, false, nil, nil
	b.Checks.Escalated = r.model.Model()
	b.Checks.Review, b.Checks.Literals, b.Checks.Notes = nil, nil, nil
	b.Provider, b.Model = r.model.Name(), r.model.Model()
	b.Steps = append(b.Steps, answer.Step{Tool: "escalate", Input: r.model.Model(), OK: true, Summary: format.ClipBytes(r.escalateWhy, 160)})
	a.opt.Trace.Write(trace.Event{Kind: "escalate", TraceID: b.TraceID, Prompt: b.PromptVersion, Question: b.Question, Input: r.model.Name() + "/" + r.model.Model(), OK: true, Summary: format.ClipBytes(r.escalateWhy, 300)})
	if r.onText != nil {
		r.onText("\n")
	}
	return append([]llm.Message(nil), r.first...)
}

// count adds one call's usage to the question's total and to its model's
// share.
func (r *run) count(u llm.Usage, review bool) {
	b := r.b
	in := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	b.Usage.ModelCalls++
	b.Usage.InputTokens += in
	b.Usage.OutputTokens += u.OutputTokens
	b.Usage.CostUSD += u.CostUSD
	var m *answer.ModelUsage
	for i := range b.Checks.Models {
		if x := &b.Checks.Models[i]; x.Provider == r.model.Name() && x.Model == r.model.Model() {
			m = x
		}
	}
	if m == nil {
		b.Checks.Models = append(b.Checks.Models, answer.ModelUsage{Provider: r.model.Name(), Model: r.model.Model()})
		m = &b.Checks.Models[len(b.Checks.Models)-1]
	}
	m.ModelCalls++
	if review {
		m.ReviewCalls++
	}
	m.InputTokens += in
	m.OutputTokens += u.OutputTokens
	m.CostUSD += u.CostUSD
}
