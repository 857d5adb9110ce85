package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablewise/tablewise/core/agent"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/config"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/offline"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/trace"
	"github.com/tablewise/tablewise/tui/styles"
	"github.com/tablewise/tablewise/tui/syntax"
)

// asker answers questions: the agent with a model, or the offline planner.
type asker interface {
	Ask(ctx context.Context, question string, onText func(string)) (*answer.Bundle, error)
}

// modelFlags are the flags every command that asks questions takes.
type modelFlags struct {
	provider string
	model    string
	trace    string
}

func (m *modelFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&m.provider, "provider", "", "anthropic, openai or offline (default: TABLEWISE_PROVIDER, else by the keys that are set)")
	fs.StringVar(&m.model, "model", "", "model name (default: TABLEWISE_MODEL, else the provider's default)")
	fs.StringVar(&m.trace, "trace", "", "append a JSON line per model and tool call to this file (default: the state directory's tablewise/trace.jsonl)")
}

// newProvider builds the model provider the configuration selects, with
// tracing; p is nil when it selects the offline planner. closeFn releases
// the trace file.
func newProvider(mf modelFlags, getenv func(string) string) (p llm.Provider, tw *trace.Writer, closeFn func(), err error) {
	cfg := llm.ConfigFromEnv(getenv)
	if mf.provider != "" {
		cfg.Provider = mf.provider
	}
	if mf.model != "" {
		cfg.Model = mf.model
	}
	kind, err := llm.Select(cfg)
	if err != nil {
		return nil, nil, nil, usagef("%v", err)
	}
	if kind == llm.ProviderOffline {
		return nil, nil, func() {}, nil
	}
	path := mf.trace
	if path == "" {
		path = trace.DefaultPath()
	}
	tw, err = trace.Open(path)
	if err != nil {
		tw = nil // tracing is best effort; questions still work
	}
	p, err = llm.New(cfg, llm.WithTrace(tw.ModelCall))
	if err != nil {
		tw.Close()
		var mk *llm.MissingKeyError
		if errors.As(err, &mk) {
			return nil, nil, nil, usagef("%v", err)
		}
		return nil, nil, nil, err
	}
	return p, tw, func() { tw.Close() }, nil
}

// newAsker builds the asker the configuration selects: the agent with a
// model, else the offline planner. closeFn releases the trace file.
func newAsker(d *db.DB, mf modelFlags, getenv func(string) string) (a asker, closeFn func(), err error) {
	p, tw, closeFn, err := newProvider(mf, getenv)
	if err != nil {
		return nil, nil, err
	}
	if p == nil {
		return plannerAsker{offline.New(d)}, func() {}, nil
	}
	return agent.New(d, p, agent.CoreTools(d), agent.Options{Trace: tw}), closeFn, nil
}

const noModelHelp = `no model configured — set ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL (OpenAI, Ollama, llama.cpp, vLLM, LM Studio), or pass --provider`

func runAsk(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("ask")
	dbPath := fs.String("db", "", "SQLite database file or file: URI (default: the built-in sample)")
	format := fs.String("format", "text", "text or json (the whole answer bundle)")
	threadID := fs.String("thread", "", "continue a conversation: questions with the same ID see the earlier ones (kept in the state directory)")
	var mf modelFlags
	mf.register(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "-" {
		b, err := io.ReadAll(io.LimitReader(s.in, 64<<10))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		question = strings.TrimSpace(string(b))
	}
	if question == "" {
		return usagef("ask: give a question, e.g. tablewise ask \"How many customers are there?\"\n\n%s", flagHelp(fs))
	}
	if *format != "text" && *format != "json" {
		return usagef("ask: unknown format %q (choose text or json)", *format)
	}
	d, err := openDB(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	a, closeFn, err := newAsker(d, mf, s.getenv)
	if err != nil {
		return err
	}
	defer closeFn()
	var b *answer.Bundle
	if ag, ok := a.(*agent.Agent); ok && *threadID != "" {
		b, err = askInThread(ctx, ag, *threadID, question)
	} else {
		b, err = a.Ask(ctx, question, nil)
	}
	if err != nil {
		if b != nil && *format == "json" {
			enc := json.NewEncoder(s.out)
			enc.SetIndent("", "  ")
			_ = enc.Encode(b)
		}
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(b); err != nil {
			return err
		}
	} else {
		printBundle(s, b)
	}
	if b.Status == answer.StatusBudget {
		return &budgetError{b.Answer}
	}
	return nil
}

// budgetError ends "ask" with exit 5 when a budget stopped the question.
type budgetError struct{ msg string }

func (e *budgetError) Error() string { return e.msg }

// printBundle writes a bundle for a person: answer, SQL, a preview, chart,
// follow-ups and a trace line.
func printBundle(s *streams, b *answer.Bundle) {
	w := s.out
	fmt.Fprintln(w, b.Answer)
	if b.Clarification != nil && len(b.Clarification.Options) > 0 {
		for _, o := range b.Clarification.Options {
			fmt.Fprintf(w, "  • %s\n", o)
		}
	}
	for _, f := range b.Flags {
		fmt.Fprintf(w, "⚠ %s\n", f)
	}
	if b.SQL != "" {
		sql := strings.TrimSpace(b.SQL)
		if s.outTTY && s.getenv("NO_COLOR") == "" {
			sql = syntax.Highlight(styles.Default(), sql)
		}
		fmt.Fprintf(w, "\nSQL:\n  %s\n\n", strings.ReplaceAll(sql, "\n", "\n  "))
		preview := &query.Result{Columns: b.Columns, Rows: b.Rows, RowCount: b.RowCount, Truncated: b.Truncated}
		if len(preview.Rows) > 10 {
			preview.Rows = preview.Rows[:10]
		}
		renderTable(w, preview, tableStyle{color: s.outTTY && s.getenv("NO_COLOR") == "", width: terminalWidth(w)})
	}
	if b.Chart != nil {
		fmt.Fprintf(w, "\nChart: %s of %s by %s", b.Chart.Kind, b.Chart.Y, b.Chart.X)
		if b.Chart.Title != "" {
			fmt.Fprintf(w, " — %s", b.Chart.Title)
		}
		fmt.Fprintln(w)
	}
	if len(b.FollowUps) > 0 {
		fmt.Fprintln(w, "\nFollow-ups:")
		for _, f := range b.FollowUps {
			fmt.Fprintf(w, "  • %s\n", f)
		}
	}
	fmt.Fprintf(s.err, "\n%s\n", footer(b))
}

// footer is the trace line: "2 model calls · 1 query · 5,380+134 tokens ·
// 3.4 s · anthropic/claude-…".
func footer(b *answer.Bundle) string {
	queries := 0
	for _, st := range b.Steps {
		if st.Tool == "run_sql" {
			queries++
		}
	}
	if b.Provider == "offline" && b.SQL != "" {
		queries = 1
	}
	var line []string
	if b.Usage.ModelCalls > 0 {
		line = append(line, plural(b.Usage.ModelCalls, "model call"))
	}
	line = append(line, strings.Replace(plural(queries, "query"), "querys", "queries", 1))
	if b.Usage.ModelCalls > 0 {
		line = append(line, fmt.Sprintf("%s+%s tokens", thousands(int64(b.Usage.InputTokens)), thousands(int64(b.Usage.OutputTokens))))
		if b.Usage.CostUSD > 0 {
			line = append(line, fmt.Sprintf("$%.4f", b.Usage.CostUSD))
		}
	}
	line = append(line, fmt.Sprintf("%.1f s", float64(b.Timings.TotalMS)/1000))
	who := b.Provider
	if b.Model != "" {
		who += "/" + b.Model
	}
	if who != "" {
		line = append(line, who)
	}
	return strings.Join(line, " · ")
}

// askInThread continues the thread stored under id in the state directory.
func askInThread(ctx context.Context, a *agent.Agent, id, question string) (*answer.Bundle, error) {
	if !validThreadID(id) {
		return nil, usagef("ask: --thread takes letters, digits, '-' and '_' (up to 64)")
	}
	path := filepath.Join(stateDir(), "threads", id+".json")
	var turns []agent.Turn
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &turns); err != nil {
			return nil, fmt.Errorf("read thread %s: %w", id, err)
		}
	}
	th := agent.ResumeThread(turns)
	b, err := a.AskIn(ctx, th, question, nil)
	if err != nil {
		return b, err
	}
	out, _ := json.MarshalIndent(th.Turns(), "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		_ = writeFileAtomic(path, out)
	}
	return b, nil
}

func validThreadID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// stateDir is where tablewise keeps its threads (config.StateDir's
// tablewise subdirectory).
func stateDir() string {
	return filepath.Join(config.StateDir(), "tablewise")
}
