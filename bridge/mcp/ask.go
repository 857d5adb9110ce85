package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

// ask answers a question with the question agent; it is served only when
// Options.NewAgent is set (a model provider is configured).
var ask = tool{
	name: tools.NameAsk,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("question", mcpgo.Required()),
		mcpgo.WithString("thread_id"),
		outputSchema[askResult](),
	},
	// The agent's own wall-time budget ends the question first.
	timeout: 100 * time.Second,
	handle: func(ctx context.Context, s *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		q, err := a.need("question")
		if err != nil {
			return nil, err
		}
		ag, th := s.askers.get(d, a.str("thread_id"))
		b, err := ag.AskIn(ctx, th, q, nil)
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

// askers keeps one agent per database and the threads clients name.
type askers struct {
	newAgent func(*db.DB) *agent.Agent
	mu       sync.Mutex
	agents   map[*db.DB]*agent.Agent
	threads  map[string]*agent.Thread
}

// maxThreads bounds the threads kept; past it the oldest are forgotten.
const maxThreads = 1000

func (k *askers) get(d *db.DB, thread string) (*agent.Agent, *agent.Thread) {
	k.mu.Lock()
	defer k.mu.Unlock()
	ag := k.agents[d]
	if ag == nil {
		ag = k.newAgent(d)
		k.agents[d] = ag
	}
	if thread == "" {
		return ag, &agent.Thread{} // a question on its own
	}
	key := d.Label() + "\x00" + thread
	th := k.threads[key]
	if th == nil {
		if len(k.threads) >= maxThreads {
			for key := range k.threads { // forget an arbitrary thread
				delete(k.threads, key)
				break
			}
		}
		th = &agent.Thread{}
		k.threads[key] = th
	}
	return ag, th
}
