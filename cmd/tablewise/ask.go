package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/llm"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/trace"
	"github.com/tablewise/tablewise/tui/styles"
	"github.com/tablewise/tablewise/tui/syntax"
)

// modelFlags are the flags every command that asks questions takes.
type modelFlags struct {
	provider string
	model    string
	trace    string
	prompt   string
	review   bool
	escalate string
}

func (m *modelFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
}) {
	fs.StringVar(&m.provider, "provider", "", "anthropic, openai or offline (default: TABLEWISE_PROVIDER, else by the keys that are set)")
	fs.StringVar(&m.model, "model", "", "model name (default: TABLEWISE_MODEL, else the provider's default)")
	fs.StringVar(&m.trace, "trace", "", "append a JSON line per model and tool call to this file (default: the state directory's tablewise/trace.jsonl)")
	fs.StringVar(&m.prompt, "prompt", "", "the agent's prompt version: "+strings.Join(ask.PromptVersions(), ", ")+" (default "+ask.DefaultPrompt+")")
	fs.BoolVar(&m.review, "review", true, "have a separate model call review the SQL of each model answer before it is given (--review=false skips it)")
	fs.StringVar(&m.escalate, "escalate-model", "", "a stronger model of the same provider to retry a question with, once, when its SQL repairs run out or the review objects twice (default: TABLEWISE_ESCALATE_MODEL)")
}

// newAskService builds the answer service the flags and the environment
// select, keeping conversations in store and the planner's value indexes
// in the state directory. A provider it cannot build is bad
// input (exit 2), and so is a trace file that one of dbs owns: the trace
// is appended to, so it must never be a database or a file SQLite keeps
// beside one.
func newAskService(mf modelFlags, getenv func(string) string, store ask.Store, dbs ...*db.DB) (*ask.Service, error) {
	tracePath := mf.trace
	if tracePath == "" {
		tracePath = trace.DefaultPath()
	}
	for _, d := range dbs {
		if err := d.CheckOutput(tracePath); err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
	}
	svc, err := ask.New(ask.Config{Provider: mf.provider, Model: mf.model, TracePath: mf.trace, Prompt: mf.prompt, NoReview: !mf.review, EscalateModel: mf.escalate, Getenv: getenv, Store: store, IndexDir: ask.DefaultIndexDir()})
	if errors.Is(err, llm.ErrUnknownProvider) || errors.Is(err, llm.ErrMissingKey) || errors.Is(err, ask.ErrUnknownPrompt) {
		return nil, usagef("%v", err)
	}
	return svc, err
}

func runAsk(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("ask")
	var dbPath string
	dbFlag(fs, &dbPath)
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
	if err := textOrJSON(fs, *format); err != nil {
		return err
	}
	d, err := s.openDB(ctx, dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	svc, err := newAskService(mf, s.getenv, ask.NewFileStore(ask.DefaultThreadDir()), d)
	if err != nil {
		return err
	}
	defer svc.Close()
	b, err := svc.Ask(ctx, question, ask.Conversation{DB: d, Key: *threadID}, nil)
	if errors.Is(err, ask.ErrBadKey) {
		return usagef("ask: --thread %q: %v", *threadID, ask.ErrBadKey)
	}
	if err != nil {
		if b != nil && *format == "json" {
			_ = writeJSON(s, b)
		}
		return err
	}
	if *format == "json" {
		if err := writeJSON(s, b); err != nil {
			return err
		}
	} else {
		printBundle(s, b)
	}
	if b.Status == answer.StatusBudget {
		return fault.New(fault.Limit, b.Answer, "")
	}
	return nil
}

// printBundle writes a bundle for a person: answer, SQL, a preview, chart,
// follow-ups and a trace line.
func printBundle(s *streams, b *answer.Bundle) {
	w := s.out
	fmt.Fprintln(w, format.Printable(b.Answer))
	if b.Clarification != nil && len(b.Clarification.Options) > 0 {
		for _, o := range b.Clarification.Options {
			fmt.Fprintf(w, "  • %s\n", format.PrintableLine(o))
		}
	}
	for _, f := range b.Flags {
		fmt.Fprintf(w, "⚠ %s\n", format.PrintableLine(f))
	}
	if c := b.Checks.Summary(); c != "" {
		fmt.Fprintf(w, "✓ %s\n", format.PrintableLine(c))
	}
	if b.SQL != "" {
		sql := format.Printable(strings.TrimSpace(b.SQL))
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
		fmt.Fprintf(w, "\nChart: %s of %s by %s", format.PrintableLine(b.Chart.Kind), format.PrintableLine(b.Chart.Y), format.PrintableLine(b.Chart.X))
		if b.Chart.Title != "" {
			fmt.Fprintf(w, " — %s", format.PrintableLine(b.Chart.Title))
		}
		fmt.Fprintln(w)
	}
	if len(b.FollowUps) > 0 {
		fmt.Fprintln(w, "\nFollow-ups:")
		for _, f := range b.FollowUps {
			fmt.Fprintf(w, "  • %s\n", format.PrintableLine(f))
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
		line = append(line, format.Plural(int64(b.Usage.ModelCalls), "model call"))
	}
	line = append(line, strings.Replace(format.Plural(int64(queries), "query"), "querys", "queries", 1))
	if b.Usage.ModelCalls > 0 {
		line = append(line, fmt.Sprintf("%s+%s tokens", format.Count(int64(b.Usage.InputTokens)), format.Count(int64(b.Usage.OutputTokens))))
		if b.Usage.CostUSD > 0 {
			line = append(line, fmt.Sprintf("$%.4f", b.Usage.CostUSD))
		}
	}
	line = append(line, format.Seconds(time.Duration(b.Timings.TotalMS)*time.Millisecond))
	who := b.Provider
	if b.Model != "" {
		who += "/" + b.Model
	}
	if who != "" {
		line = append(line, who)
	}
	return strings.Join(line, " · ")
}
