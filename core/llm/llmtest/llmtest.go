// Package llmtest is a scripted model server for tests: it answers each
// request with the next scripted Turn in the real wire format of the OpenAI
// chat completions API or the Anthropic Messages API, so the official SDKs
// (through core/llm) talk to it as they would to the real services.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tablewise/tablewise/core/llm"
)

// Server is a model server that answers each request with the next
// scripted Turn. It speaks the real wire format of the OpenAI chat
// completions API or the Anthropic Messages API, so the official SDKs
// (through core/llm) talk to it as they would to the real services.
type Server struct {
	t        testing.TB
	provider string // "openai" or "anthropic"
	mu       sync.Mutex
	turns    []Turn
	reqs     []map[string]any
	bodies   []int // request body sizes in bytes
	status   int   // when non-zero, every request fails with it
	approved int   // reviews answered Approve without a scripted turn
	throttle int   // this many first requests get 429 with retry-after: 0
	// URL is the base URL to give the provider: with /v1 for OpenAI.
	URL string
}

// Turn is one scripted assistant reply: text, or tool calls.
type Turn struct {
	text   string
	calls  []ToolCall
	review bool
}

// ToolCall is a scripted tool call; Args is sent as given, valid JSON or
// not.
type ToolCall struct{ Name, Args string }

// Text is a turn that answers with text.
func Text(s string) Turn { return Turn{text: s} }

// Review is a turn that answers a review — a request offering no tools
// whose system prompt holds ReviewMarker: the independent review of an
// answer's SQL (core/agent) — with text, such as {"verdict": "revise", …}.
// A review when the next turn is not a Review turn is answered Approve,
// leaving the script and the request log as they are (Approved counts
// them): scripts that do not test the review need not mention it.
func Review(text string) Turn { return Turn{text: text, review: true} }

// Approve is what the server answers a review that is not scripted.
const Approve = `{"verdict": "approve"}`

// ReviewMarker opens the system prompt of core/agent's reviewer.
const ReviewMarker = "You review one SQL statement"

// Calls is a turn that calls tools.
func Calls(c ...ToolCall) Turn { return Turn{calls: c} }

// Call is one tool call.
func Call(name, args string) ToolCall { return ToolCall{Name: name, Args: args} }

// Providers lists the wire formats the server speaks.
var Providers = []string{"openai", "anthropic"}

// EachProvider runs fn as a subtest of t, named after the wire format, for
// each of Providers.
func EachProvider(t *testing.T, fn func(t *testing.T, provider string)) {
	t.Helper()
	for _, p := range Providers {
		t.Run(p, func(t *testing.T) { fn(t, p) })
	}
}

// New starts a server for provider ("openai" or "anthropic") that plays
// turns, then keeps calling list_tables, as a runaway model would.
func New(t testing.TB, provider string, turns ...Turn) *Server {
	f := &Server{t: t, provider: provider, turns: turns}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	if provider == "openai" {
		f.URL += "/v1"
	}
	return f
}

// Provider is the wire format the server speaks.
func (f *Server) Provider() string { return f.provider }

// Key is the API key the server's clients send.
const Key = "test-key"

// Env is the environment (as llm.ConfigFromEnv reads it) that points a
// client of the server's wire format at it: its key and base URL.
func (f *Server) Env() map[string]string {
	if f.provider == llm.ProviderAnthropic {
		return map[string]string{llm.EnvAnthropicKey: Key, llm.EnvAnthropicBaseURL: f.URL}
	}
	return map[string]string{llm.EnvOpenAIKey: Key, llm.EnvOpenAIBaseURL: f.URL}
}

// Config is the configuration of a client of the server that asks for
// model: Env, with the server's wire format as the provider.
func (f *Server) Config(model string) llm.Config {
	env := f.Env()
	cfg := llm.ConfigFromEnv(func(k string) string { return env[k] })
	cfg.Provider, cfg.Model = f.provider, model
	return cfg
}

// Script replaces the turns still to play.
func (f *Server) Script(turns ...Turn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turns = append([]Turn(nil), turns...)
}

// FailWith makes every request fail with status (e.g. 401).
func (f *Server) FailWith(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

// Throttle makes the next n requests fail with 429 and retry-after: 0.
func (f *Server) Throttle(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.throttle = n
}

// Bodies returns the size in bytes of each request answered.
func (f *Server) Bodies() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.bodies...)
}

func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	if f.throttle > 0 {
		f.throttle--
		f.mu.Unlock()
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(429)
		fmt.Fprint(w, f.errorBody("rate_limit_error", "slow down"))
		return
	}
	if f.status != 0 {
		f.mu.Unlock()
		w.WriteHeader(f.status)
		fmt.Fprint(w, f.errorBody("authentication_error", "invalid x-api-key"))
		return
	}
	var tr Turn
	tools, _ := req["tools"].([]any)
	review := len(tools) == 0 && strings.HasPrefix(f.system(req), ReviewMarker)
	if review && (len(f.turns) == 0 || !f.turns[0].review) {
		// Approved on its own, and kept apart from the scripted requests,
		// so that a script's request numbers do not depend on the review.
		f.approved++
		n := len(f.reqs) + f.approved
		f.mu.Unlock()
		f.reply(w, req, n, Text(Approve))
		return
	}
	f.reqs = append(f.reqs, req)
	f.bodies = append(f.bodies, len(body))
	n := len(f.reqs) + f.approved
	if len(f.turns) == 0 {
		// Out of script: keep calling list_tables, as a runaway model would.
		tr = Calls(Call("list_tables", "{}"))
	} else {
		tr, f.turns = f.turns[0], f.turns[1:]
	}
	f.mu.Unlock()
	f.reply(w, req, n, tr)
}

// reply writes turn tr as the n-th reply to req.
func (f *Server) reply(w http.ResponseWriter, req map[string]any, n int, tr Turn) {
	// Like the real services, the reply names the model asked for.
	model, _ := req["model"].(string)
	if model == "" {
		model = "fake-model"
	}
	if f.provider == "anthropic" {
		json.NewEncoder(w).Encode(anthropicMessage(n, model, tr))
		return
	}
	json.NewEncoder(w).Encode(openAICompletion(n, model, tr))
}

func (f *Server) errorBody(kind, msg string) string {
	if f.provider == "anthropic" {
		return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, kind, msg)
	}
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q}}`, msg, kind)
}

func openAICompletion(n int, model string, tr Turn) map[string]any {
	msg := map[string]any{"role": "assistant", "content": tr.text}
	finish := "stop"
	if len(tr.calls) > 0 {
		var tcs []map[string]any
		for i, c := range tr.calls {
			tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = tcs
		msg["content"] = nil
		finish = "tool_calls"
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1764547200, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
	}
}

func anthropicMessage(n int, model string, tr Turn) map[string]any {
	var content []any
	stop := "end_turn"
	if tr.text != "" {
		content = append(content, map[string]any{"type": "text", "text": tr.text})
	}
	for i, c := range tr.calls {
		var input any
		if err := json.Unmarshal([]byte(c.Args), &input); err != nil {
			input = c.Args // a model's broken arguments arrive as a string
		}
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.Name, "input": input})
		stop = "tool_use"
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1000, "output_tokens": 50, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}
}

// Approved counts the reviews the server approved on its own (see
// Review); they are not among Requests.
func (f *Server) Approved() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.approved
}

// Requests returns the decoded requests the server answered from its
// script (reviews it approved on its own are left out: see Approved).
func (f *Server) Requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.reqs...)
}

// ToolResults returns the contents of the tool results request i carries,
// in order, whichever wire format.
func (f *Server) ToolResults(i int) []string {
	reqs := f.Requests()
	if i >= len(reqs) {
		f.t.Fatalf("only %d requests", len(reqs))
	}
	var out []string
	for _, m := range reqs[i]["messages"].([]any) {
		mm := m.(map[string]any)
		if f.provider == "openai" {
			if mm["role"] == "tool" {
				out = append(out, fmt.Sprint(mm["content"]))
			}
			continue
		}
		blocks, _ := mm["content"].([]any)
		for _, b := range blocks {
			bb := b.(map[string]any)
			if bb["type"] != "tool_result" {
				continue
			}
			switch c := bb["content"].(type) {
			case string:
				out = append(out, c)
			case []any:
				var s strings.Builder
				for _, part := range c {
					s.WriteString(fmt.Sprint(part.(map[string]any)["text"]))
				}
				out = append(out, s.String())
			}
		}
	}
	return out
}

// Texts returns every plain text of request i's messages, with roles.
func (f *Server) Texts(i int) []string {
	reqs := f.Requests()
	var out []string
	for _, m := range reqs[i]["messages"].([]any) {
		mm := m.(map[string]any)
		role := fmt.Sprint(mm["role"])
		switch c := mm["content"].(type) {
		case string:
			out = append(out, role+": "+c)
		case []any:
			for _, b := range c {
				bb := b.(map[string]any)
				if bb["type"] == "text" {
					out = append(out, role+": "+fmt.Sprint(bb["text"]))
				}
			}
		}
	}
	return out
}

// System returns the system prompt request i carries.
func (f *Server) System(i int) string { return f.system(f.Requests()[i]) }

func (f *Server) system(req map[string]any) string {
	if f.provider == "openai" {
		msgs, _ := req["messages"].([]any)
		if len(msgs) == 0 {
			return ""
		}
		if m, _ := msgs[0].(map[string]any); m["role"] == "system" || m["role"] == "developer" {
			return fmt.Sprint(m["content"])
		}
		return ""
	}
	var s strings.Builder
	switch sys := req["system"].(type) {
	case string:
		s.WriteString(sys)
	case []any:
		for _, b := range sys {
			s.WriteString(fmt.Sprint(b.(map[string]any)["text"]))
		}
	}
	return s.String()
}
