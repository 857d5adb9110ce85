// Package answer holds what every front door renders: the Bundle a question
// produces and the declarative ChartSpec.
package answer

import "github.com/tablewise/tablewise/core/query"

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
	// Error is what went wrong when Status is error.
	Error string `json:"error,omitempty"`
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
