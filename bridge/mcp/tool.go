package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/tools"
)

// tool is one MCP tool: what a client lists and what runs when it is
// called.
type tool struct {
	name string
	// doc describes the tool to a model; empty means tools.DocFor(name),
	// the words the agent uses too.
	doc tools.Doc
	// params are the tool's own input parameters (mcpgo.WithString…) and
	// its output schema (mcpgo.WithOutputSchema).
	params []mcpgo.ToolOption
	// global tools take no database argument and are served only with
	// several databases (list_databases).
	global bool
	// timeout bounds one call; 0 means defaultCallTimeout.
	timeout time.Duration
	// handle runs the tool on the database the call names (nil for global
	// tools). It returns a result, or an error that toolError turns into a
	// result when a model can act on it.
	handle func(ctx context.Context, s *Server, d *db.DB, args args) (*mcpgo.CallToolResult, error)
}

// allTools lists every tool. Adding a tool is a file and a line here.
func allTools() []tool {
	return []tool{
		listDatabases,
		listTables,
		searchSchema,
		describeTable,
		sampleValues,
		runSQL,
		explainSQL,
		makeChart,
		exportCSV,
		askTool,
	}
}

// definition is the tool as clients list it. Every tool only reads and
// touches nothing outside the database: readOnlyHint true, openWorldHint
// false. destructiveHint and idempotentHint are left out: the MCP spec
// gives them meaning only when readOnlyHint is false, and every byte of
// tools/list goes to the model with every request.
func (t tool) definition(dbs *dbSet) mcpgo.Tool {
	doc := t.doc
	if doc.Name == "" {
		doc = tools.DocFor(t.name)
	}
	opts := []mcpgo.ToolOption{
		mcpgo.WithDescription(doc.Description),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithOpenWorldHintAnnotation(false),
		func(t *mcpgo.Tool) { t.Annotations.DestructiveHint, t.Annotations.IdempotentHint = nil, nil },
	}
	if !t.global && dbs.multi() {
		opts = append(opts, mcpgo.WithString("database", mcpgo.Required(),
			mcpgo.Description("label (list_databases)"),
			mcpgo.Enum(dbs.Labels()...)))
	}
	return mcpgo.NewTool(t.name, append(opts, t.params...)...)
}

// defaultCallTimeout bounds a tool call: the statement's own deadline
// (tools.Timeout) ends it first, with a message that says so; this one also
// bounds what comes around it (waiting for a connection, drawing a chart).
const defaultCallTimeout = tools.Timeout + 5*time.Second

// callTimeout is how long one call of t may take. It is a safety behind
// the statement's own deadline and the catalog's bounds, so a race build
// stretches it as it stretches those (engine.RaceSlowdown): reading a
// 2,000-table catalog took over the 15 s of a call there.
func (s *Server) callTimeout(t tool) time.Duration {
	d := t.timeout
	if d == 0 {
		d = defaultCallTimeout
	}
	d *= engine.RaceSlowdown
	if s.maxCallTimeout > 0 && s.maxCallTimeout < d {
		d = s.maxCallTimeout
	}
	return d
}

// longestCall is the longest any tool call may take.
func (s *Server) longestCall() time.Duration {
	var d time.Duration
	for _, t := range s.tools {
		d = max(d, s.callTimeout(t))
	}
	return d
}

// handler wraps t.handle: it takes a call slot (see Options.MaxConcurrentCalls),
// bounds the call in time, resolves the database, turns errors a model can
// act on into error results, and logs the call.
func (s *Server) handler(t tool, def mcpgo.Tool) server.ToolHandlerFunc {
	names := argNames(def)
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		start := time.Now()
		callCtx, cancel := context.WithTimeout(ctx, s.callTimeout(t))
		defer cancel()
		a := args{req.GetArguments()}
		var d *db.DB
		release, err := s.slots.acquire(callCtx)
		if err == nil && !holdUntilWritten(ctx, release) {
			defer release()
		}
		if err == nil {
			err = validateArgs(def, names, a.m)
		}
		if err == nil && !t.global {
			d, err = s.dbs.Lookup(a.str("database"))
		}
		var res *mcpgo.CallToolResult
		if err == nil {
			res, err = t.handle(callCtx, s, d, a)
		}
		if err != nil {
			res, err = toolError(err)
		}
		if res != nil {
			printableText(res)
		}
		level := mcpgo.LoggingLevelInfo
		outcome := "ok"
		switch {
		case err != nil:
			level, outcome = mcpgo.LoggingLevelError, "error: "+err.Error()
			s.log.Error("tool failed", "tool", t.name, "err", err)
		case res.IsError:
			level, outcome = mcpgo.LoggingLevelWarning, "failed: "+firstLine(resultText(res))
		}
		// Best effort: a client that did not ask for logs gets none.
		_ = s.mcp.SendLogMessageToClient(ctx, mcpgo.NewLoggingMessageNotification(level, Name,
			fmt.Sprintf("%s %s in %d ms", t.name, outcome, time.Since(start).Milliseconds())))
		return res, err
	}
}

// argNames lists a tool's parameters, sorted.
func argNames(def mcpgo.Tool) []string {
	names := make([]string, 0, len(def.InputSchema.Properties))
	for n := range def.InputSchema.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// validateArgs checks arguments against the tool's input schema (names are
// its parameters, sorted), with messages a model can act on: unknown and
// missing arguments, types, enums, bounds and lengths.
func validateArgs(def mcpgo.Tool, names []string, m map[string]any) error {
	props := def.InputSchema.Properties
	for k := range m {
		if _, ok := props[k]; !ok {
			takes := "no arguments"
			if len(names) > 0 {
				takes = strings.Join(names, ", ")
			}
			return argError(fmt.Sprintf("unknown argument %q: %s takes %s", k, def.Name, takes))
		}
	}
	for _, r := range def.InputSchema.Required {
		if v, ok := m[r]; !ok || v == nil {
			return argError(fmt.Sprintf("missing required argument %s", r))
		} else if str, ok := v.(string); ok && strings.TrimSpace(str) == "" {
			return argError(fmt.Sprintf("missing required argument %s", r))
		}
	}
	for _, k := range names {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		p, _ := props[k].(map[string]any)
		switch p["type"] {
		case "string":
			str, ok := v.(string)
			if !ok {
				return argError(fmt.Sprintf("argument %s must be a string", k))
			}
			if enum := stringList(p["enum"]); len(enum) > 0 && !slices.Contains(enum, str) && !slices.Contains(enum, strings.ToLower(str)) {
				return argError(fmt.Sprintf("argument %s must be one of %s (got %q)", k, strings.Join(enum, ", "), str))
			}
			if n, ok := number(p["maxLength"]); ok && float64(len(str)) > n {
				return argError(fmt.Sprintf("argument %s is too long (at most %.0f characters)", k, n))
			}
			if len(str) > guard.MaxSQLBytes {
				return argError(fmt.Sprintf("argument %s is too long (at most %d bytes)", k, guard.MaxSQLBytes))
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				return argError(fmt.Sprintf("argument %s must be true or false", k))
			}
		case "integer":
			f, ok := number(v)
			if !ok || f != float64(int64(f)) {
				return argError(fmt.Sprintf("argument %s must be a whole number", k))
			}
			if n, ok := number(p["minimum"]); ok && f < n {
				return argError(fmt.Sprintf("argument %s must be at least %.0f (got %.0f)", k, n, f))
			}
			if n, ok := number(p["maximum"]); ok && f > n {
				return argError(fmt.Sprintf("argument %s must be at most %.0f (got %.0f)", k, n, f))
			}
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// argError is a bad tool argument: the model can fix it.
func argError(msg string) error { return fault.New(fault.Usage, msg, "") }

// readOnlyMsg leads every refusal.
const readOnlyMsg = "read-only: only a single SELECT/WITH/VALUES statement can run"

// toolError turns an error a model can act on into an error result with its
// message and hint (core/fault). Anything else (fault.Internal) is returned
// as a Go error: a bug.
func toolError(err error) (*mcpgo.CallToolResult, error) {
	kind, msg, hint := fault.Explain(err)
	switch kind {
	case fault.Internal:
		return nil, err
	case fault.Refused:
		msg = readOnlyMsg + ". Refused: " + msg + "."
		if hint == guard.ReadOnlyHint {
			hint = "rewrite it as one SELECT that reads what you need"
		}
	case fault.Database:
		msg = "SQL error: " + msg
	}
	if hint != "" {
		msg += "\nhint: " + hint
	}
	return mcpgo.NewToolResultError(msg), nil
}

// args reads tool arguments.
type args struct{ m map[string]any }

func (a args) str(key string) string {
	s, _ := a.m[key].(string)
	return s
}

func (a args) boolean(key string) bool {
	b, _ := a.m[key].(bool)
	return b
}

func (a args) int(key string, def int) int {
	switch v := a.m[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	}
	return def
}

// coreTool is a tool that wraps one core/tools call: call's result is the
// structured content (its type gives the output schema) and its compact
// text.
func coreTool[T any, P interface {
	*T
	Text() string
}](name string, call func(ctx context.Context, d *db.DB, a args) (P, error), params ...mcpgo.ToolOption) tool {
	return tool{
		name:   name,
		params: append(params, outputSchema[T]()),
		handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
			return result(call(ctx, d, a))
		},
	}
}

// result is the result of a core/tools call: its structured content and
// compact text, or its error for toolError.
func result[T interface{ Text() string }](v T, err error) (*mcpgo.CallToolResult, error) {
	if err != nil {
		return nil, err
	}
	return structured(v), nil
}

// structured is a result with structured content and its compact text.
func structured(v interface{ Text() string }) *mcpgo.CallToolResult {
	text := v.Text()
	fillNilSlices(reflect.ValueOf(v))
	return mcpgo.NewToolResultStructured(v, text)
}

// printableText makes a result's text contents safe to show in a terminal
// (format.Printable): clients print them, and they echo database values,
// names and errors. Structured content and embedded files (CSV) keep the
// values as they are.
func printableText(res *mcpgo.CallToolResult) {
	for i, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			tc.Text = format.Printable(tc.Text)
			res.Content[i] = tc
		}
	}
}

func resultText(res *mcpgo.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			return tc.Text
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
