package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

// askTool answers a question through Options.Ask: the question agent when
// a model provider is configured, else the offline planner. A thread_id
// names a conversation of the database the call is about.
var askTool = tool{
	name: tools.NameAsk,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("question", mcpgo.Required()),
		mcpgo.WithString("thread_id"),
		// The whole bundle comes back; to keep tools/list small the schema
		// names only what a client acts on first (the row count, columns,
		// chart, flags and diagnostics come too).
		outputSchema[askResult]("status", "answer", "sql", "rows", "follow_ups", "clarification"),
	},
	// The agent's own wall-time budget ends the question first.
	timeout: 100 * time.Second,
	handle: func(ctx context.Context, s *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		q := a.str("question")
		conv := ask.Conversation{DB: d}
		if th := a.str("thread_id"); th != "" {
			conv.Key = d.Label() + "\x00" + th
		}
		b, err := s.ask.Ask(ctx, q, conv, nil)
		if err != nil {
			if b == nil {
				return nil, err
			}
			res := structured(askResult{*b})
			res.IsError = true
			return res, nil
		}
		return structured(askResult{*b}), nil
	},
}

// askResult is the answer bundle with a compact text rendering.
type askResult struct {
	answer.Bundle
}

// Text renders the bundle for a model: answer, SQL and the first rows.
func (r askResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.Status, r.Answer)
	if r.SQL != "" {
		fmt.Fprintf(&b, "SQL: %s\n", strings.TrimSpace(r.SQL))
		cols := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			cols[i] = c.Name
		}
		fmt.Fprintf(&b, "%d rows%s; columns: %s\n", r.RowCount, map[bool]string{true: " (more exist)"}[r.Truncated], strings.Join(cols, ", "))
		for i, row := range r.Rows {
			if i == 10 {
				break
			}
			fmt.Fprintf(&b, "%v\n", row)
		}
	}
	for _, f := range r.Flags {
		fmt.Fprintf(&b, "⚠ %s\n", f)
	}
	if r.Clarification != nil && len(r.Clarification.Options) > 0 {
		fmt.Fprintf(&b, "options: %s\n", strings.Join(r.Clarification.Options, " | "))
	}
	return b.String()
}
