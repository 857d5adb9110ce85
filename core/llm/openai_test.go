package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const openAIToolReply = `{
  "id": "chatcmpl-1",
  "object": "chat.completion",
  "created": 1764500000,
  "model": "gpt-4.1-mini-2025-04-14",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "refusal": null,
      "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "run_sql", "arguments": "{\"sql\":\"SELECT COUNT(*) FROM Artist\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "run_sql", "arguments": "{\"sql\": \"SELECT"}}
      ]
    },
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 2200, "completion_tokens": 40, "total_tokens": 2240,
            "prompt_tokens_details": {"cached_tokens": 2048, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0}}
}`

const openAITextReply = `{
  "id": "chatcmpl-2", "object": "chat.completion", "created": 1764500001, "model": "gpt-4.1-mini-2025-04-14",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "There are 275 artists."}, "logprobs": null, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 300, "completion_tokens": 8, "total_tokens": 308}
}`

func TestOpenAIToolCallsAndRequestShape(t *testing.T) {
	f := newFakeServer(t, jsonReply(200, openAIToolReply))
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, OpenAIKey: testOpenAIKey})
	resp := complete(t, p, toolLoopRequest(500, 0))
	if resp.StopReason != StopToolUse || resp.Text != "" {
		t.Errorf("StopReason = %q, Text = %q", resp.StopReason, resp.Text)
	}
	if len(resp.ToolCalls) != 2 {
		t.Fatalf("ToolCalls = %+v", resp.ToolCalls)
	}
	good, bad := resp.ToolCalls[0], resp.ToolCalls[1]
	var args map[string]string
	if good.ID != "call_1" || good.Name != "run_sql" || good.InputErr != nil ||
		json.Unmarshal(good.Input, &args) != nil || args["sql"] != "SELECT COUNT(*) FROM Artist" {
		t.Errorf("ToolCalls[0] = %+v (%s)", good, good.Input)
	}
	if bad.ID != "call_2" || !errors.Is(bad.InputErr, ErrInvalidToolInput) || string(bad.Input) != `{"sql": "SELECT` {
		t.Errorf("ToolCalls[1] = %+v (%s), InputErr = %v", bad, bad.Input, bad.InputErr)
	}
	wantUsage(t, resp.Usage, Usage{InputTokens: 152, OutputTokens: 40, CacheReadTokens: 2048})
	// gpt-4.1-mini: $0.40 in, $1.60 out, $0.10 cached per MTok.
	wantCost(t, resp.Usage, (152*0.40+40*1.60+2048*0.10)/1e6)

	r := f.request(0)
	if r.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", r.Path)
	}
	if r.Header.Get("Authorization") != "Bearer "+testOpenAIKey {
		t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
	}
	b := r.Body
	if get(t, b, "model") != DefaultOpenAIModel || get(t, b, "temperature") != 0.0 {
		t.Errorf("model = %v, temperature = %v", get(t, b, "model"), b["temperature"])
	}
	// A compatible server gets max_tokens, which they all understand.
	if get(t, b, "max_tokens") != 500.0 || has(b, "max_completion_tokens") {
		t.Errorf("max_tokens = %v, max_completion_tokens present = %v", b["max_tokens"], has(b, "max_completion_tokens"))
	}
	if has(b, "stream") || has(b, "stream_options") {
		t.Errorf("streaming fields on a non-streaming call")
	}
	// Tools as functions.
	tool := get(t, b, "tools", 1)
	if get(t, tool, "type") != "function" || get(t, tool, "function", "name") != "run_sql" ||
		get(t, tool, "function", "description") != "Run one read-only SELECT." ||
		get(t, tool, "function", "parameters", "properties", "sql", "type") != "string" ||
		get(t, tool, "function", "parameters", "required", 0) != "sql" {
		t.Errorf("tools[1] = %v", tool)
	}
	if get(t, b, "tools", 0, "function", "parameters", "type") != "object" {
		t.Errorf("a tool without a schema got %v", get(t, b, "tools", 0, "function", "parameters"))
	}
	// Messages: system first, then user, assistant with tool_calls, tool result.
	msgs := get(t, b, "messages").([]any)
	if len(msgs) != 4 {
		t.Fatalf("messages = %v", msgs)
	}
	if get(t, msgs, 0, "role") != "system" || get(t, msgs, 0, "content") != testSystem {
		t.Errorf("messages[0] = %v", msgs[0])
	}
	if get(t, msgs, 1, "role") != "user" || get(t, msgs, 1, "content") != "How many artists are there?" {
		t.Errorf("messages[1] = %v", msgs[1])
	}
	call := get(t, msgs, 2, "tool_calls", 0)
	if get(t, msgs, 2, "role") != "assistant" || get(t, msgs, 2, "content") != "Let me count them." ||
		get(t, call, "id") != "toolu_01" || get(t, call, "type") != "function" ||
		get(t, call, "function", "name") != "run_sql" ||
		get(t, call, "function", "arguments") != `{"sql":"SELECT COUNT(*) FROM Artists"}` {
		t.Errorf("messages[2] = %v", msgs[2])
	}
	if get(t, msgs, 3, "role") != "tool" || get(t, msgs, 3, "tool_call_id") != "toolu_01" ||
		get(t, msgs, 3, "content") != "Error: no such table: Artists" {
		t.Errorf("messages[3] = %v", msgs[3])
	}
}

func TestOpenAIText(t *testing.T) {
	f := newFakeServer(t, jsonReply(200, openAITextReply))
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, OpenAIKey: testOpenAIKey})
	resp := complete(t, p, Request{Messages: []Message{UserText("How many artists?")}})
	if resp.Text != "There are 275 artists." || resp.StopReason != StopEndTurn || len(resp.ToolCalls) != 0 {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage.InputTokens != 300 || resp.Usage.OutputTokens != 8 || resp.Model != "gpt-4.1-mini-2025-04-14" {
		t.Errorf("Usage = %+v, Model = %q", resp.Usage, resp.Model)
	}
	if has(f.request(0).Body, "temperature") {
		t.Errorf("temperature sent although unset")
	}
}

// openAIToolStream is a streamed reply with two tool calls whose arguments
// are split across chunks, then a finish chunk, a usage chunk and [DONE].
var openAIToolStream = []string{
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"run_sql","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"sql\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"SELECT COUNT(*)"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" FROM Artist\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"describe_table","arguments":"{\"tab"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"le\": \"Artist\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}`),
	chunk(`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini-2025-04-14","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":31,"total_tokens":931,"prompt_tokens_details":{"cached_tokens":512}}}`),
	"data: [DONE]\n\n",
}

func TestOpenAIStreamingToolCalls(t *testing.T) {
	f := newFakeServer(t, sseReply(openAIToolStream...))
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, OpenAIKey: testOpenAIKey})
	var deltas []string
	resp := complete(t, p, Request{
		Messages: []Message{UserText("How many artists?")},
		Tools:    sqlTools,
		OnText:   func(d string) { deltas = append(deltas, d) },
	})
	if len(deltas) != 0 || resp.Text != "" {
		t.Errorf("OnText saw %q, Text = %q", deltas, resp.Text)
	}
	if resp.StopReason != StopToolUse || len(resp.ToolCalls) != 2 {
		t.Fatalf("StopReason = %q, ToolCalls = %+v", resp.StopReason, resp.ToolCalls)
	}
	a, b := resp.ToolCalls[0], resp.ToolCalls[1]
	if a.ID != "call_a" || a.Name != "run_sql" || a.InputErr != nil || string(a.Input) != `{"sql": "SELECT COUNT(*) FROM Artist"}` {
		t.Errorf("ToolCalls[0] = %+v (%s)", a, a.Input)
	}
	if b.ID != "call_b" || b.Name != "describe_table" || b.InputErr != nil || string(b.Input) != `{"table": "Artist"}` {
		t.Errorf("ToolCalls[1] = %+v (%s)", b, b.Input)
	}
	wantUsage(t, resp.Usage, Usage{InputTokens: 388, OutputTokens: 31, CacheReadTokens: 512})
	body := f.request(0).Body
	if get(t, body, "stream") != true || get(t, body, "stream_options", "include_usage") != true {
		t.Errorf("stream = %v, stream_options = %v", body["stream"], body["stream_options"])
	}
}

func TestOpenAIStreamingText(t *testing.T) {
	text := func(s string) string {
		js, _ := json.Marshal(s)
		return chunk(`{"id":"c-t","object":"chat.completion.chunk","created":1,"model":"llama3.1:8b","choices":[{"index":0,"delta":{"content":` + string(js) + `},"finish_reason":null}]}`)
	}
	f := newFakeServer(t, sseReply(
		chunk(`{"id":"c-t","object":"chat.completion.chunk","created":1,"model":"llama3.1:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`),
		text("There are "), text("275"), text(" artists."),
		chunk(`{"id":"c-t","object":"chat.completion.chunk","created":1,"model":"llama3.1:8b","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		chunk(`{"id":"c-t","object":"chat.completion.chunk","created":1,"model":"llama3.1:8b","choices":[],"usage":{"prompt_tokens":70,"completion_tokens":6,"total_tokens":76}}`),
		"data: [DONE]\n\n",
	))
	// A local server: base URL, no key.
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, Model: "llama3.1:8b"})
	var deltas []string
	resp := complete(t, p, Request{
		Messages: []Message{UserText("How many artists?")},
		OnText:   func(d string) { deltas = append(deltas, d) },
	})
	if strings.Join(deltas, "|") != "There are |275| artists." || resp.Text != "There are 275 artists." {
		t.Errorf("OnText saw %q, Text = %q", deltas, resp.Text)
	}
	if resp.StopReason != StopEndTurn || resp.Usage.InputTokens != 70 || resp.Usage.OutputTokens != 6 {
		t.Errorf("StopReason = %q, Usage = %+v", resp.StopReason, resp.Usage)
	}
	if resp.Usage.CostUSD != 0 {
		t.Errorf("a local model has cost %g", resp.Usage.CostUSD)
	}
	r := f.request(0)
	if r.Header.Get("Authorization") != "Bearer "+noKey {
		t.Errorf("Authorization = %q, want the placeholder key", r.Header.Get("Authorization"))
	}
	if get(t, r.Body, "model") != "llama3.1:8b" {
		t.Errorf("model = %v", r.Body["model"])
	}
}

func TestOpenAIStreamingToleratesChangingChunkIDs(t *testing.T) {
	f := newFakeServer(t, sseReply(
		chunk(`{"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`),
		chunk(`{"id":"b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}`),
		"data: [DONE]\n\n",
	))
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, Model: "m"})
	resp := complete(t, p, Request{Messages: []Message{UserText("hi")}, OnText: func(string) {}})
	if resp.Text != "Hello" {
		t.Errorf("Text = %q", resp.Text)
	}
}

func TestOpenAIOwnAPIGetsMaxCompletionTokens(t *testing.T) {
	f := newFakeServer(t, jsonReply(200, openAITextReply))
	// No base URL: the real default, https://api.openai.com/v1, reached
	// through a client that sends everything to the fake server.
	p, err := NewOpenAI(Config{OpenAIKey: testOpenAIKey}, fast(WithHTTPClient(f.redirectingClient()))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), Request{Messages: []Message{UserText("q")}, MaxTokens: 321}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	r := f.request(0)
	if r.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", r.Path)
	}
	if get(t, r.Body, "max_completion_tokens") != 321.0 || has(r.Body, "max_tokens") {
		t.Errorf("body = %v, want max_completion_tokens only", r.Body)
	}
}

func TestOpenAIMissingIDsAndEmptyArguments(t *testing.T) {
	f := newFakeServer(t, jsonReply(200, `{
	  "id": "x", "object": "chat.completion", "created": 1, "model": "qwen3",
	  "choices": [{"index": 0, "message": {"role": "assistant", "content": "",
	    "tool_calls": [{"type": "function", "function": {"name": "list_tables", "arguments": ""}}]},
	    "finish_reason": "stop"}]
	}`))
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, Model: "qwen3"})
	resp := complete(t, p, Request{Messages: []Message{UserText("q")}, Tools: sqlTools})
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("ToolCalls = %+v", resp.ToolCalls)
	}
	c := resp.ToolCalls[0]
	if c.ID != "call_0" || c.InputErr != nil || string(c.Input) != "{}" {
		t.Errorf("ToolCall = %+v (%s)", c, c.Input)
	}
	if resp.StopReason != StopToolUse {
		t.Errorf("StopReason = %q, want tool_use", resp.StopReason)
	}
}

func TestOpenAIStreamingCutIsRetried(t *testing.T) {
	// The connection drops before any finish_reason or [DONE].
	cut := sseReply(openAIToolStream[:3]...)
	f := newFakeServer(t, cut, sseReply(openAIToolStream...))
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, OpenAIKey: testOpenAIKey})
	resp := complete(t, p, Request{Messages: []Message{UserText("q")}, Tools: sqlTools, OnText: func(string) {}})
	if f.count() != 2 || len(resp.ToolCalls) != 2 {
		t.Errorf("attempts = %d, ToolCalls = %+v", f.count(), resp.ToolCalls)
	}
}
