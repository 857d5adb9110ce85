// Package llm puts the language-model providers tablewise can use behind one
// small interface: [Provider]. Two implementations ship here, both on the
// official SDKs:
//
//   - [Anthropic]: the Anthropic Messages API, with prompt caching on the
//     stable prefix (tools, system prompt) and on the conversation tail.
//   - [OpenAI]: OpenAI-compatible chat completions, which OpenAI itself and
//     Ollama, llama.cpp, vLLM, LM Studio and OpenRouter all speak; the base URL
//     picks the server.
//
// [Config], [ConfigFromEnv], [Select] and [New] choose and build a provider from
// the environment or flags; "offline" (the built-in planner in core/offline) is
// a valid choice that [New] answers with [ErrOffline].
//
// Every Complete call retries what is worth retrying (429, 5xx, 529, timeouts,
// dropped connections) with exponential backoff and jitter, honours
// retry-after headers, fails fast on authentication errors with a message that
// names the variable to fix, and reports usage with a cost estimate. The SDKs'
// own retries are switched off so attempts are never multiplied.
//
// The package returns plain data and never writes to a terminal.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Role is who wrote a message.
type Role string

// Message roles. Tool results travel in user messages, as the Anthropic API
// has them; the OpenAI provider turns them into role "tool" messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of a conversation.
type Message struct {
	Role    Role
	Content []Part
}

// Part is one piece of a message: [Text], [ToolCall], [ToolResult] or
// [Thinking]. The set is closed; switch on the concrete type.
type Part interface{ isPart() }

// Text is plain text.
type Text struct {
	Text string
}

// ToolCall is the model asking to run a tool. It appears in assistant messages
// and in [Response.ToolCalls].
type ToolCall struct {
	// ID links the call to its [ToolResult].
	ID string
	// Name is the tool's name.
	Name string
	// Input is the tool's arguments as the model sent them. When InputErr is
	// nil it is a JSON object; otherwise it holds the raw bytes as received,
	// which may be empty or not JSON at all.
	Input json.RawMessage
	// InputErr is set when Input is not a JSON object (a model produced broken
	// or truncated arguments). Complete does not fail for this: the caller
	// should answer the call with an error [ToolResult] so the model can try
	// again. When such a call is sent back in the history, "{}" goes in its
	// place, because the APIs only accept a JSON object there.
	InputErr error
}

// ToolResult answers a [ToolCall]. It appears in user messages.
type ToolResult struct {
	// CallID is the [ToolCall.ID] this result answers.
	CallID string
	// Content is what the tool returned, as text (usually JSON).
	Content string
	// IsError marks a failed tool run; the model sees it as an error.
	IsError bool
}

// Thinking is the model's reasoning as a provider returned it. Anthropic
// requires thinking blocks to be sent back unchanged in the assistant turn that
// carries tool calls, so [Response.Content] keeps them; the OpenAI provider
// drops them. Callers should neither show nor edit them.
type Thinking struct {
	// Text is the (possibly summarised) reasoning.
	Text string
	// Signature is the provider's integrity token for Text.
	Signature string
	// Redacted holds the encrypted data of a redacted thinking block; Text and
	// Signature are empty then.
	Redacted string
}

// isPart seals Part to the types of this package.
func (Text) isPart()       {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}
func (Thinking) isPart()   {}

// UserText returns a user message holding text.
func UserText(text string) Message {
	return Message{Role: RoleUser, Content: []Part{Text{Text: text}}}
}

// ToolResults returns the user message that answers a model's tool calls.
func ToolResults(results ...ToolResult) Message {
	parts := make([]Part, len(results))
	for i, r := range results {
		parts[i] = r
	}
	return Message{Role: RoleUser, Content: parts}
}

// Tool describes a tool the model may call.
type Tool struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema object ({"type": "object", "properties":
	// ..., "required": [...]}). A nil schema means "no arguments".
	InputSchema map[string]any
}

// Request is one model call.
type Request struct {
	// System is the system prompt. Anthropic caches it (and the tools) as the
	// stable prefix, so keep what changes per question out of it.
	System   string
	Messages []Message
	Tools    []Tool
	// MaxTokens caps the answer; 0 means [DefaultMaxTokens].
	MaxTokens int
	// Temperature is sent when set, to the OpenAI provider only: the Anthropic
	// API version that anthropic-sdk-go v2 speaks (2026-10-21) rejects
	// temperature with a 400 error, so the Anthropic provider ignores it.
	Temperature *float64
	// OnText, when set, makes the provider stream and receive each piece of
	// answer text as it arrives, on the goroutine that called Complete. The
	// Response still holds the whole answer. A call that has already streamed
	// text is not retried, so OnText never sees text twice.
	OnText func(delta string)
}

// DefaultMaxTokens is the answer cap when [Request.MaxTokens] is 0. It leaves
// room for models that think before they answer.
const DefaultMaxTokens = 8192

// Stop reasons, the same for every provider.
const (
	StopEndTurn   = "end_turn"   // the model finished its answer
	StopToolUse   = "tool_use"   // the model wants tool calls run
	StopMaxTokens = "max_tokens" // the answer hit MaxTokens
	StopRefusal   = "refusal"    // the provider's safety system stopped it
)

// Response is a model's reply.
type Response struct {
	// Text is the answer text: every [Text] part of Content, concatenated.
	Text string
	// ToolCalls are the tool calls in Content, in order.
	ToolCalls []ToolCall
	// Content is the whole assistant turn in order; [Response.Message] puts it
	// back into the history.
	Content []Part
	// StopReason is one of the Stop constants, or the provider's own word for
	// a reason they do not cover.
	StopReason string
	Usage      Usage
	// Model is the model that answered, as the server named it.
	Model string
	// RequestBytes is the size of the request's body (its last attempt).
	RequestBytes int64
}

// Message returns the assistant message to append to the history before the
// next call.
func (r *Response) Message() Message {
	return Message{Role: RoleAssistant, Content: append([]Part(nil), r.Content...)}
}

// Usage counts the tokens of one or more calls.
type Usage struct {
	// InputTokens are input tokens billed at the base rate: neither read from
	// nor written to the prompt cache. The whole prompt is InputTokens +
	// CacheReadTokens + CacheWriteTokens.
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	// CostUSD is an estimate from a small built-in price table (see
	// [PriceFor]); 0 when the model is not in it.
	CostUSD float64 `json:"cost_usd"`
}

// Add adds v to u, for totals over several calls.
func (u *Usage) Add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheWriteTokens += v.CacheWriteTokens
	u.CostUSD += v.CostUSD
}

// Provider is a language model behind one call. Implementations are safe
// for concurrent use.
type Provider interface {
	// Name is the provider kind: "anthropic" or "openai".
	Name() string
	// Model is the model the provider asks for.
	Model() string
	// Complete sends req and returns the model's reply. Errors are wrapped
	// with the provider's name; branch on them with errors.Is (ErrAuth,
	// ErrRateLimited, ErrTimeout, context.Canceled) or errors.As (*APIError).
	Complete(ctx context.Context, req Request) (*Response, error)
}

// newResponse fills Text and ToolCalls from content.
func newResponse(content []Part, stop, model string, usage Usage) *Response {
	r := &Response{Content: content, StopReason: stop, Model: model, Usage: usage}
	var text strings.Builder
	for _, p := range content {
		switch p := p.(type) {
		case Text:
			text.WriteString(p.Text)
		case ToolCall:
			r.ToolCalls = append(r.ToolCalls, p)
		}
	}
	r.Text = text.String()
	return r
}

// ErrInvalidToolInput is wrapped by [ToolCall.InputErr] when a model sent tool
// arguments that are not a JSON object.
var ErrInvalidToolInput = errors.New("tool arguments are not a JSON object")

// toolCall builds a ToolCall from arguments as received. Empty arguments
// (some servers send "" for a call without any) become "{}".
func toolCall(id, name string, raw []byte) ToolCall {
	c := ToolCall{ID: id, Name: name, Input: json.RawMessage(raw)}
	if len(bytes.TrimSpace(raw)) == 0 {
		c.Input = json.RawMessage(`{}`)
		return c
	}
	c.InputErr = checkToolInput(raw)
	return c
}

// checkToolInput reports why raw is not usable as tool arguments, or nil.
func checkToolInput(raw []byte) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return fmt.Errorf("%w: they are empty", ErrInvalidToolInput)
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidToolInput, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%w: got %s", ErrInvalidToolInput, jsonKind(v))
	}
	return nil
}

// jsonKind names the JSON type of a decoded value, for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a JSON value"
}

// sendableInput is the tool input to put back in the history: the call's
// input when it is a JSON object, else "{}".
func sendableInput(c ToolCall) json.RawMessage {
	if c.InputErr != nil || checkToolInput(c.Input) != nil {
		return json.RawMessage(`{}`)
	}
	return c.Input
}

// maxTokens is req.MaxTokens or the default.
func maxTokens(req Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return DefaultMaxTokens
}
