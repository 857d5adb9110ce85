package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// complete sends req through p and fails the test on an error.
func complete(t *testing.T, p Provider, req Request) *Response {
	t.Helper()
	resp, err := p.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return resp
}

// wantUsage checks the tokens of got (its cost aside) against want.
func wantUsage(t *testing.T, got, want Usage) {
	t.Helper()
	got.CostUSD = 0
	if got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
}

// wantCost checks the cost of got, to within rounding, against want dollars.
func wantCost(t *testing.T, got Usage, want float64) {
	t.Helper()
	if d := got.CostUSD - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("CostUSD = %g, want %g", got.CostUSD, want)
	}
}

// sqlTools are tools shaped like the agent's.
var sqlTools = []Tool{
	{
		Name:        "list_tables",
		Description: "List every table.",
	},
	{
		Name:        "run_sql",
		Description: "Run one read-only SELECT.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"sql": map[string]any{"type": "string", "description": "one SELECT statement"},
			},
			"required":             []string{"sql"},
			"additionalProperties": false,
		},
	},
}

// toolLoopHistory is a question, a tool call and its (failed) result.
var toolLoopHistory = []Message{
	UserText("How many artists are there?"),
	{Role: RoleAssistant, Content: []Part{
		Text{Text: "Let me count them."},
		ToolCall{ID: "toolu_01", Name: "run_sql", Input: json.RawMessage(`{"sql":"SELECT COUNT(*) FROM Artists"}`)},
	}},
	ToolResults(ToolResult{CallID: "toolu_01", Content: "no such table: Artists", IsError: true}),
}

// testSystem is the system prompt of toolLoopRequest.
const testSystem = "You answer questions about a SQLite database."

// toolLoopRequest asks to go on from toolLoopHistory with sqlTools.
func toolLoopRequest(maxTokens int, temperature float64) Request {
	return Request{
		System:      testSystem,
		Messages:    toolLoopHistory,
		Tools:       sqlTools,
		MaxTokens:   maxTokens,
		Temperature: &temperature,
	}
}

const anthropicTextReply = `{
  "id": "msg_01",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-5-5-20261001",
  "content": [{"type": "text", "text": "There are 275 artists."}],
  "stop_reason": "end_turn",
  "stop_sequence": null,
  "usage": {"input_tokens": 120, "output_tokens": 9, "cache_creation_input_tokens": 1500, "cache_read_input_tokens": 3000}
}`

func TestAnthropicTextAndRequestShape(t *testing.T) {
	f := newFakeServer(t, jsonReply(200, anthropicTextReply))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	resp := complete(t, p, toolLoopRequest(1000, 0.2))
	if resp.Text != "There are 275 artists." {
		t.Errorf("Text = %q", resp.Text)
	}
	if resp.StopReason != StopEndTurn || len(resp.ToolCalls) != 0 {
		t.Errorf("StopReason = %q, ToolCalls = %v", resp.StopReason, resp.ToolCalls)
	}
	if resp.Model != "claude-sonnet-5-5-20261001" {
		t.Errorf("Model = %q", resp.Model)
	}
	wantUsage(t, resp.Usage, Usage{InputTokens: 120, OutputTokens: 9, CacheWriteTokens: 1500, CacheReadTokens: 3000})
	// claude-sonnet-5-5: $2 in, $10 out, $0.10 cache read, $2.50 cache write per MTok.
	wantCost(t, resp.Usage, (120*2+9*10+3000*0.10+1500*2.50)/1e6)

	if f.count() != 1 {
		t.Fatalf("requests = %d, want 1", f.count())
	}
	r := f.request(0)
	if r.Path != "/v1/messages" {
		t.Errorf("path = %q", r.Path)
	}
	if got := r.Header.Get("Authorization") + r.Header.Get("X-Api-Key"); !strings.Contains(got, testAnthropicKey) {
		t.Errorf("the key was not sent: Authorization=%q X-Api-Key=%q", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
	}
	b := r.Body
	if get(t, b, "model") != DefaultAnthropicModel {
		t.Errorf("model = %v", get(t, b, "model"))
	}
	if get(t, b, "max_tokens") != 1000.0 {
		t.Errorf("max_tokens = %v", get(t, b, "max_tokens"))
	}
	if has(b, "temperature") {
		t.Errorf("temperature was sent; API 2026-10-21 rejects it")
	}
	if has(b, "stream") {
		t.Errorf("stream was sent on a non-streaming call")
	}
	// System prompt: one text block with a cache breakpoint.
	if get(t, b, "system", 0, "text") != testSystem {
		t.Errorf("system = %v", get(t, b, "system"))
	}
	if get(t, b, "system", 0, "cache_control", "type") != "ephemeral" {
		t.Errorf("system cache_control = %v", get(t, b, "system", 0))
	}
	// Tools: input_schema as given; the cache breakpoint on the last tool only.
	if get(t, b, "tools", 0, "name") != "list_tables" || get(t, b, "tools", 1, "name") != "run_sql" {
		t.Errorf("tools = %v", get(t, b, "tools"))
	}
	if get(t, b, "tools", 0, "input_schema", "type") != "object" {
		t.Errorf("tools[0].input_schema = %v", get(t, b, "tools", 0, "input_schema"))
	}
	if has(get(t, b, "tools", 0), "cache_control") {
		t.Errorf("tools[0] has cache_control; only the last tool should")
	}
	if get(t, b, "tools", 1, "description") != "Run one read-only SELECT." {
		t.Errorf("tools[1].description = %v", get(t, b, "tools", 1, "description"))
	}
	if get(t, b, "tools", 1, "input_schema", "properties", "sql", "type") != "string" ||
		get(t, b, "tools", 1, "input_schema", "required", 0) != "sql" ||
		get(t, b, "tools", 1, "input_schema", "additionalProperties") != false {
		t.Errorf("tools[1].input_schema = %v", get(t, b, "tools", 1, "input_schema"))
	}
	if get(t, b, "tools", 1, "cache_control", "type") != "ephemeral" {
		t.Errorf("last tool cache_control = %v", get(t, b, "tools", 1))
	}
	// Messages: text, tool_use with its input object, tool_result with the error flag.
	if get(t, b, "messages", 0, "role") != "user" || get(t, b, "messages", 0, "content", 0, "text") != "How many artists are there?" {
		t.Errorf("messages[0] = %v", get(t, b, "messages", 0))
	}
	use := get(t, b, "messages", 1, "content", 1)
	if get(t, b, "messages", 1, "role") != "assistant" || get(t, use, "type") != "tool_use" ||
		get(t, use, "id") != "toolu_01" || get(t, use, "name") != "run_sql" ||
		get(t, use, "input", "sql") != "SELECT COUNT(*) FROM Artists" {
		t.Errorf("messages[1] = %v", get(t, b, "messages", 1))
	}
	res := get(t, b, "messages", 2, "content", 0)
	if get(t, res, "type") != "tool_result" || get(t, res, "tool_use_id") != "toolu_01" ||
		get(t, res, "is_error") != true || get(t, res, "content", 0, "text") != "no such table: Artists" {
		t.Errorf("messages[2] = %v", get(t, b, "messages", 2))
	}
	// The conversation tail carries the third cache breakpoint.
	if get(t, res, "cache_control", "type") != "ephemeral" {
		t.Errorf("last message block has no cache_control: %v", res)
	}
	if has(get(t, b, "messages", 0, "content", 0), "cache_control") {
		t.Errorf("an earlier message block has cache_control")
	}
}

func TestAnthropicToolUse(t *testing.T) {
	f := newFakeServer(t, jsonReply(200, `{
	  "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
	  "content": [
	    {"type": "thinking", "thinking": "The table is Artist.", "signature": "sig-1"},
	    {"type": "text", "text": "Let me count."},
	    {"type": "tool_use", "id": "toolu_02", "name": "run_sql", "input": {"sql": "SELECT COUNT(*) FROM Artist"}},
	    {"type": "tool_use", "id": "toolu_03", "name": "run_sql", "input": "SELECT 1"}
	  ],
	  "stop_reason": "tool_use", "stop_sequence": null,
	  "usage": {"input_tokens": 50, "output_tokens": 30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	}`), jsonReply(200, anthropicTextReply))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	req := Request{Messages: []Message{UserText("How many artists?")}, Tools: sqlTools}
	resp := complete(t, p, req)
	if resp.StopReason != StopToolUse || resp.Text != "Let me count." {
		t.Errorf("StopReason = %q, Text = %q", resp.StopReason, resp.Text)
	}
	if len(resp.ToolCalls) != 2 {
		t.Fatalf("ToolCalls = %+v", resp.ToolCalls)
	}
	good := resp.ToolCalls[0]
	if good.ID != "toolu_02" || good.Name != "run_sql" || good.InputErr != nil {
		t.Errorf("ToolCalls[0] = %+v", good)
	}
	var args struct{ SQL string }
	if err := json.Unmarshal(good.Input, &args); err != nil || args.SQL != "SELECT COUNT(*) FROM Artist" {
		t.Errorf("ToolCalls[0].Input = %s (%v)", good.Input, err)
	}
	// A string where an object belongs: surfaced, not fatal.
	bad := resp.ToolCalls[1]
	if !errors.Is(bad.InputErr, ErrInvalidToolInput) || string(bad.Input) != `"SELECT 1"` {
		t.Errorf("ToolCalls[1] = %+v, InputErr = %v", bad, bad.InputErr)
	}
	if len(resp.Content) != 4 {
		t.Fatalf("Content = %#v", resp.Content)
	}
	if th, ok := resp.Content[0].(Thinking); !ok || th.Signature != "sig-1" || th.Text != "The table is Artist." {
		t.Errorf("Content[0] = %#v", resp.Content[0])
	}

	// The reply goes back into the history unchanged: thinking block first,
	// the bad input replaced by {}.
	req.Messages = append(req.Messages, resp.Message(), ToolResults(
		ToolResult{CallID: "toolu_02", Content: `{"rows":[[275]]}`},
		ToolResult{CallID: "toolu_03", Content: "arguments are not a JSON object", IsError: true},
	))
	if _, err := p.Complete(context.Background(), req); err != nil {
		t.Fatalf("second Complete: %v", err)
	}
	b := f.request(1).Body
	asst := get(t, b, "messages", 1, "content")
	if get(t, asst, 0, "type") != "thinking" || get(t, asst, 0, "signature") != "sig-1" {
		t.Errorf("thinking block not sent back first: %v", asst)
	}
	if get(t, asst, 2, "input", "sql") != "SELECT COUNT(*) FROM Artist" {
		t.Errorf("tool_use input = %v", get(t, asst, 2))
	}
	if in, ok := get(t, asst, 3, "input").(map[string]any); !ok || len(in) != 0 {
		t.Errorf("invalid input sent back as %v, want {}", get(t, asst, 3, "input"))
	}
	if get(t, b, "messages", 2, "content", 1, "tool_use_id") != "toolu_03" {
		t.Errorf("tool results = %v", get(t, b, "messages", 2))
	}
}

// anthropicToolStream is a streamed reply: text, then a tool_use whose input
// arrives as input_json_delta fragments, then usage in message_delta.
func anthropicToolStream(toolJSON ...string) []string {
	frames := []string{
		event("message_start", `{"type":"message_start","message":{"id":"msg_s1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":1800}}}`),
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		event("ping", `{"type": "ping"}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"count."}}`),
		event("content_block_stop", `{"type":"content_block_stop","index":0}`),
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_s1","name":"run_sql","input":{}}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`),
	}
	for _, frag := range toolJSON {
		js, _ := json.Marshal(frag)
		frames = append(frames, event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":`+string(js)+`}}`))
	}
	return append(frames,
		event("content_block_stop", `{"type":"content_block_stop","index":1}`),
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}`),
		event("message_stop", `{"type":"message_stop"}`),
	)
}

func TestAnthropicStreamingToolUse(t *testing.T) {
	f := newFakeServer(t, sseReply(anthropicToolStream(`{"sql": "SELECT`, ` COUNT(*) FROM`, ` Artist"}`)...))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	var deltas []string
	resp := complete(t, p, Request{
		System:   "sys",
		Messages: []Message{UserText("How many artists?")},
		Tools:    sqlTools,
		OnText:   func(d string) { deltas = append(deltas, d) },
	})
	if strings.Join(deltas, "|") != "Let me |count." {
		t.Errorf("OnText saw %q", deltas)
	}
	if resp.Text != "Let me count." || resp.StopReason != StopToolUse {
		t.Errorf("Text = %q, StopReason = %q", resp.Text, resp.StopReason)
	}
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("ToolCalls = %+v", resp.ToolCalls)
	}
	c := resp.ToolCalls[0]
	var args map[string]string
	if c.ID != "toolu_s1" || c.Name != "run_sql" || c.InputErr != nil || json.Unmarshal(c.Input, &args) != nil ||
		args["sql"] != "SELECT COUNT(*) FROM Artist" {
		t.Errorf("ToolCall = %+v (%s)", c, c.Input)
	}
	wantUsage(t, resp.Usage, Usage{InputTokens: 25, OutputTokens: 42, CacheReadTokens: 1800})
	if resp.Usage.CostUSD <= 0 {
		t.Errorf("CostUSD = %g, want > 0", resp.Usage.CostUSD)
	}
	b := f.request(0).Body
	if get(t, b, "stream") != true {
		t.Errorf("stream = %v", get(t, b, "stream"))
	}
	if get(t, b, "system", 0, "cache_control", "type") != "ephemeral" || get(t, b, "tools", 1, "cache_control", "type") != "ephemeral" {
		t.Errorf("cache_control missing on the streaming request: %v", b)
	}
}

func TestAnthropicStreamingInvalidToolJSON(t *testing.T) {
	// The model ran out of tokens halfway through its arguments.
	frames := anthropicToolStream(`{"sql": "SELECT`, ` COUNT(*) FR`)
	f := newFakeServer(t, sseReply(frames...))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	resp, err := p.Complete(context.Background(), Request{
		Messages: []Message{UserText("How many artists?")},
		Tools:    sqlTools,
		OnText:   func(string) {},
	})
	if err != nil {
		t.Fatalf("Complete failed on broken tool arguments: %v", err)
	}
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("ToolCalls = %+v", resp.ToolCalls)
	}
	c := resp.ToolCalls[0]
	if !errors.Is(c.InputErr, ErrInvalidToolInput) {
		t.Errorf("InputErr = %v, want ErrInvalidToolInput", c.InputErr)
	}
	if string(c.Input) != `{"sql": "SELECT COUNT(*) FR` {
		t.Errorf("Input = %q, want the raw text as received", c.Input)
	}
	if c.ID != "toolu_s1" || c.Name != "run_sql" {
		t.Errorf("ToolCall = %+v", c)
	}
}

func TestAnthropicStreamingErrorEventRetriedBeforeText(t *testing.T) {
	overloaded := sseReply(
		event("message_start", `{"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`),
		event("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	)
	f := newFakeServer(t, overloaded, sseReply(anthropicToolStream(`{}`)...))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	var text strings.Builder
	resp := complete(t, p, Request{
		Messages: []Message{UserText("q")},
		OnText:   func(d string) { text.WriteString(d) },
	})
	if f.count() != 2 {
		t.Errorf("attempts = %d, want 2", f.count())
	}
	if text.String() != "Let me count." || resp.Text != "Let me count." {
		t.Errorf("OnText saw %q, Text = %q", text.String(), resp.Text)
	}
}

func TestAnthropicStreamingNotRetriedAfterText(t *testing.T) {
	broken := sseReply(
		event("message_start", `{"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`),
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"There are"}}`),
		event("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	)
	f := newFakeServer(t, broken, sseReply(anthropicToolStream(`{}`)...))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	var deltas []string
	_, err := p.Complete(context.Background(), Request{
		Messages: []Message{UserText("q")},
		OnText:   func(d string) { deltas = append(deltas, d) },
	})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 529 {
		t.Fatalf("err = %v, want an overloaded APIError", err)
	}
	if f.count() != 1 {
		t.Errorf("attempts = %d, want 1: text already reached OnText", f.count())
	}
	if strings.Join(deltas, "") != "There are" {
		t.Errorf("OnText saw %q", deltas)
	}
}

func TestAnthropicStreamingCutIsRetried(t *testing.T) {
	frames := anthropicToolStream(`{}`)
	cut := sseReply(frames[:2]...) // message_start, content_block_start, then EOF
	f := newFakeServer(t, cut, sseReply(frames...))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	resp := complete(t, p, Request{Messages: []Message{UserText("q")}, OnText: func(string) {}})
	if f.count() != 2 || resp.Text != "Let me count." {
		t.Errorf("attempts = %d, Text = %q", f.count(), resp.Text)
	}
}

func TestAnthropicSchemaConversion(t *testing.T) {
	s := anthropicSchema(map[string]any{
		"type":       "object",
		"properties": map[string]any{"table": map[string]any{"type": "string"}},
		"required":   []any{"table"},
		"$defs":      map[string]any{},
	})
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["type"] != "object" || get(t, got, "required", 0) != "table" ||
		get(t, got, "properties", "table", "type") != "string" || !has(got, "$defs") {
		t.Errorf("schema = %s", raw)
	}
	raw, _ = json.Marshal(anthropicSchema(nil))
	if string(raw) != `{"properties":{},"type":"object"}` {
		t.Errorf("nil schema = %s", raw)
	}
}

func TestAnthropicLargeMaxTokensStreams(t *testing.T) {
	f := newFakeServer(t, sseReply(anthropicToolStream(`{}`)...))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic})
	// No OnText, but the SDK refuses non-streaming calls this large.
	resp := complete(t, p, Request{Messages: []Message{UserText("q")}, MaxTokens: 64000})
	if get(t, f.request(0).Body, "stream") != true || resp.Text != "Let me count." {
		t.Errorf("stream = %v, Text = %q", f.request(0).Body["stream"], resp.Text)
	}
	if mustStream("claude-opus-4-1@20250805", 8192) || !mustStream("claude-opus-4-1@20250805", 8193) {
		t.Errorf("mustStream ignores the SDK's per-model limit")
	}
}
