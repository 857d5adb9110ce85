// Package answer holds what every front door renders: the Bundle a question
// produces and the declarative ChartSpec.
package answer

import (
	"fmt"
	"strings"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// Chart kinds.
const (
	KindBar       = "bar"
	KindHBar      = "hbar"
	KindLine      = "line"
	KindScatter   = "scatter"
	KindPie       = "pie"
	KindHistogram = "histogram"
)

// Kinds lists every chart kind, in the order help texts show them.
var Kinds = []string{KindBar, KindHBar, KindLine, KindScatter, KindPie, KindHistogram}

// ChartSpec is a chart as data: what to draw from which result columns. The
// host never runs model-written code; a spec is validated against the result
// it is drawn from.
type ChartSpec struct {
	Kind   string `json:"kind"`
	X      string `json:"x"`
	Y      string `json:"y,omitempty"`
	Series string `json:"series,omitempty"`
	Title  string `json:"title,omitempty"`
}

// Status says how a question ended.
type Status string

// Statuses.
const (
	// StatusAnswered: the answer rests on SQL that ran.
	StatusAnswered Status = "answered"
	// StatusClarify: the question is ambiguous; Clarification asks back.
	StatusClarify Status = "clarify"
	// StatusRefused: the question is beyond what can be answered (the
	// offline planner could not map it, or it asks to write).
	StatusRefused Status = "refused"
	// StatusBudget: a budget (model calls, tool calls, repairs, time) ran
	// out before an answer.
	StatusBudget Status = "budget"
	// StatusError: something failed (provider down, bad key…).
	StatusError Status = "error"
)

// Bundle is everything a front door shows for one question.
type Bundle struct {
	Question string `json:"question"`
	Status   Status `json:"status"`
	// Answer is the plain-text answer, or why there is none.
	Answer string `json:"answer"`
	// SQL is exactly the last statement that ran and produced Rows.
	SQL     string         `json:"sql,omitempty"`
	Columns []query.Column `json:"columns,omitempty"`
	// Rows is a preview of the result (50 rows unless configured); RowCount
	// counts the rows the query returned, up to its cap, and Truncated says
	// more exist. Re-run SQL for the whole result.
	Rows      []query.Row `json:"rows,omitempty"`
	RowCount  int         `json:"row_count"`
	Truncated bool        `json:"truncated,omitempty"`
	Chart     *ChartSpec  `json:"chart,omitempty"`
	// FollowUps are questions worth asking next (up to 5).
	FollowUps     []string       `json:"follow_ups,omitempty"`
	Clarification *Clarification `json:"clarification,omitempty"`
	// Flags are warnings the reader should see, e.g. a row that looks like
	// an instruction (shown as data, never obeyed).
	Flags    []string `json:"flags,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Model    string   `json:"model,omitempty"`
	Usage    Usage    `json:"usage"`
	Timings  Timings  `json:"timings"`
	// Steps lists the tool calls made, in order, for the trace line.
	Steps []Step `json:"steps,omitempty"`
	// TraceID names this question's lines in the trace file.
	TraceID string `json:"trace_id,omitempty"`
	// PromptVersion is the version of the agent's prompts that answered
	// ("v1"); empty for the offline planner.
	PromptVersion string `json:"prompt_version,omitempty"`
	// Error is what went wrong when Status is error.
	Error string `json:"error,omitempty"`
	// Checks is how the answer was checked before it was given: literals
	// verified against the data, notes on the result, the review and the
	// escalation. Nil when nothing was checked.
	Checks *Checks `json:"checks,omitempty"`
}

// Checks records how an answer was checked before it was given.
type Checks struct {
	// Literals are the comparisons of a column with a text literal in the
	// statements that ran, each checked against the column's values.
	Literals []Literal `json:"literals,omitempty"`
	// Notes are what the checks told the model (or the reader): a literal
	// that does not occur, an empty result, a join that multiplies rows.
	Notes []string `json:"notes,omitempty"`
	// Review is the independent review of the final SQL; nil when none ran.
	Review *Review `json:"review,omitempty"`
	// Escalated names the model the question was retried with, when the
	// first model's repairs ran out or its SQL was rejected twice.
	Escalated string `json:"escalated,omitempty"`
	// Models splits Usage by model, in the order they were first called.
	Models []ModelUsage `json:"models,omitempty"`
}

// Literal is one comparison of a column with a text literal ("=", "IN",
// "LIKE"), checked against the column's values.
type Literal struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	// Func is lower, upper or trim when the column is compared through it.
	Func  string `json:"func,omitempty"`
	Op    string `json:"op"`
	Value string `json:"value"`
	// Found says whether some row matches; Closest, when not, lists up to
	// five values of the column that are close to Value.
	Found   bool     `json:"found"`
	Closest []string `json:"closest,omitempty"`
	// Unchecked says why the values could not be read (a timeout); Found
	// is then meaningless.
	Unchecked string `json:"unchecked,omitempty"`
}

// Review verdicts.
const (
	ReviewApproved = "approved"
	ReviewRevised  = "revised"
	// ReviewSkipped: the review could not run (the model-call budget was
	// spent) or its reply could not be read; Reason says which.
	ReviewSkipped = "skipped"
)

// Review is the independent review of an answer's SQL: a model call that
// sees only the question, the schema cards of the tables used and the SQL.
type Review struct {
	// Verdict of the last review round: approved, revised or skipped.
	Verdict string `json:"verdict"`
	// Reason is the reviewer's reason for its last revision.
	Reason string `json:"reason,omitempty"`
	// Rounds counts the review calls made; Revisions those that revised.
	Rounds    int `json:"rounds"`
	Revisions int `json:"revisions"`
	// Original is the SQL the first revision replaced; empty when no
	// review changed the SQL.
	Original string `json:"original,omitempty"`
	// Fingerprint is the normalized fingerprint of the SQL the last
	// approving round read; it equals the fingerprint of the bundle's SQL.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Prompt is the version of the reviewer's prompt.
	Prompt string `json:"prompt,omitempty"`
}

// ModelUsage is the part of a question's usage one model had.
type ModelUsage struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// ModelCalls counts every call to the model, ReviewCalls those that
	// were reviews.
	ModelCalls   int     `json:"model_calls"`
	ReviewCalls  int     `json:"review_calls,omitempty"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Turn is one finished exchange of a conversation: a question and the
// answer text it got. Earlier turns give a follow-up question its context.
type Turn struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Clarification is a question back to the user.
type Clarification struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
}

// Usage counts model use for one question.
type Usage struct {
	ModelCalls   int     `json:"model_calls"`
	ToolCalls    int     `json:"tool_calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// MaxRequestBytes is the largest model request's body, in bytes.
	MaxRequestBytes int64 `json:"max_request_bytes,omitempty"`
}

// Timings in milliseconds.
type Timings struct {
	TotalMS int64 `json:"total_ms"`
	ModelMS int64 `json:"model_ms"`
	SQLMS   int64 `json:"sql_ms"`
}

// Step is one tool call.
type Step struct {
	Tool    string `json:"tool"`
	Input   string `json:"input,omitempty"`
	OK      bool   `json:"ok"`
	Summary string `json:"summary,omitempty"`
}

// Summary is the one-line account of how an answer was checked before it
// was given, for every front door: the review's verdict, the literals
// checked against the data (and how many no row holds), the escalation
// with each model's calls; "" when nothing was (c may be nil).
func (c *Checks) Summary() string {
	if c == nil {
		return ""
	}
	var parts []string
	if rv := c.Review; rv != nil {
		switch {
		case rv.Verdict == ReviewApproved && rv.Revisions > 0:
			parts = append(parts, "reviewed: the review changed the SQL")
		case rv.Verdict == ReviewApproved:
			parts = append(parts, "reviewed: approved")
		case rv.Verdict == ReviewRevised:
			parts = append(parts, "reviewed: still objected to")
		default:
			parts = append(parts, "not reviewed")
		}
	}
	if n := len(c.Literals); n > 0 {
		missing := 0
		for _, l := range c.Literals {
			if !l.Found && l.Unchecked == "" {
				missing++
			}
		}
		s := format.Plural(int64(n), "value") + " checked against the data"
		if missing > 0 {
			s += fmt.Sprintf(" (%d not found)", missing)
		}
		parts = append(parts, s)
	}
	if c.Escalated != "" {
		parts = append(parts, "escalated to "+c.Escalated)
	}
	if len(c.Models) > 1 {
		var ms []string
		for _, m := range c.Models {
			ms = append(ms, fmt.Sprintf("%s %s", m.Model, format.Plural(int64(m.ModelCalls), "call")))
		}
		parts = append(parts, strings.Join(ms, ", "))
	}
	return strings.Join(parts, " · ")
}
