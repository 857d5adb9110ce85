package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/shared/constant"
)

// Anthropic is a [Provider] on the Anthropic Messages API
// (github.com/anthropics/anthropic-sdk-go/v2).
type Anthropic struct {
	base
	client anthropic.Client
}

var _ Provider = (*Anthropic)(nil)

// nonStreamingMaxTokens is the largest MaxTokens sent without streaming: the
// SDK refuses non-streaming calls that may take more than ten minutes
// (about 21,000 tokens, less for a few models it lists).
const nonStreamingMaxTokens = 16384

// mustStream reports whether a call for maxTokens must stream even without
// OnText, because the SDK would refuse it otherwise.
func mustStream(model string, maxTokens int64) bool {
	if limit, ok := constant.ModelNonStreamingTokens[model]; ok && maxTokens > int64(limit) {
		return true
	}
	return maxTokens > nonStreamingMaxTokens
}

// NewAnthropic builds the Anthropic provider from cfg.AnthropicKey,
// cfg.AnthropicBaseURL and cfg.Model (default [DefaultAnthropicModel]). A
// missing key is a [*MissingKeyError]. The SDK reads nothing from the
// environment and does not retry: this package does both.
func NewAnthropic(cfg Config, opts ...Option) (*Anthropic, error) {
	if cfg.AnthropicKey == "" {
		return nil, &MissingKeyError{Provider: ProviderAnthropic, Var: EnvAnthropicKey}
	}
	b := buildBase(ProviderAnthropic, cfg.Model, DefaultAnthropicModel, EnvAnthropicKey,
		cfg.AnthropicKey, cfg.AnthropicBaseURL, cfg, opts)
	sdkOpts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.AnthropicKey),
		option.WithMaxRetries(0),
		option.WithMiddleware(countRequest),
	}
	if cfg.AnthropicBaseURL != "" {
		sdkOpts = append(sdkOpts, option.WithBaseURL(cfg.AnthropicBaseURL))
	}
	if b.httpClient != nil {
		sdkOpts = append(sdkOpts, option.WithHTTPClient(b.httpClient))
	}
	return &Anthropic{base: b, client: anthropic.NewClient(sdkOpts...)}, nil
}

// Complete sends req to the Messages API; it streams when req.OnText is set.
func (a *Anthropic) Complete(ctx context.Context, req Request) (*Response, error) {
	params, err := a.params(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.name, err)
	}
	streaming := req.OnText != nil || mustStream(a.model, params.MaxTokens)
	return a.run(ctx, streaming, func(ctx context.Context) (*Response, bool, error) {
		if streaming {
			return a.stream(ctx, params, req.OnText)
		}
		msg, err := a.client.Messages.New(ctx, params)
		if err != nil {
			return nil, false, err
		}
		return anthropicResponse(msg, nil), false, nil
	})
}

// params translates req into the SDK's request. Prompt caching: one
// breakpoint on the last tool, one on the system prompt (together the stable
// prefix) and one on the last block of the conversation, so each turn of a
// tool loop reads the turns before it from the cache.
func (a *Anthropic) params(req Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(a.model),
		MaxTokens: int64(maxTokens(req)),
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{
			Text:         req.System,
			CacheControl: anthropic.NewCacheControlEphemeralParam(),
		}}
	}
	for _, t := range req.Tools {
		tool := anthropic.ToolParam{
			Name:        t.Name,
			InputSchema: anthropicSchema(t.InputSchema),
		}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	if n := len(p.Tools); n > 0 {
		p.Tools[n-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	for i, m := range req.Messages {
		blocks, err := anthropicBlocks(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		if len(blocks) == 0 {
			continue // the API rejects empty messages; an empty turn says nothing
		}
		switch m.Role {
		case RoleUser:
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		case RoleAssistant:
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	if n := len(p.Messages); n > 0 {
		last := p.Messages[n-1]
		var blocks []anthropic.ContentBlockParamUnion
		if last.OfUser != nil {
			blocks = last.OfUser.Content
		} else if last.OfAssistant != nil {
			blocks = last.OfAssistant.Content
		}
		for i := len(blocks) - 1; i >= 0; i-- {
			if cc := blocks[i].GetCacheControl(); cc != nil {
				*cc = anthropic.NewCacheControlEphemeralParam()
				break
			}
		}
	}
	return p, nil
}

// anthropicBlocks translates one message's parts. Tool results go first, as
// the API requires them at the start of a user turn.
func anthropicBlocks(m Message) ([]anthropic.ContentBlockParamUnion, error) {
	var results, others []anthropic.ContentBlockParamUnion
	for _, part := range m.Content {
		switch p := part.(type) {
		case Text:
			if strings.TrimSpace(p.Text) == "" {
				continue // the API rejects empty text blocks
			}
			others = append(others, anthropic.NewTextBlock(p.Text))
		case ToolCall:
			others = append(others, anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{
				ID:    p.ID,
				Name:  p.Name,
				Input: sendableInput(p),
			}})
		case ToolResult:
			results = append(results, anthropic.NewToolResultBlock(p.CallID, p.Content, p.IsError))
		case Thinking:
			if p.Redacted != "" {
				others = append(others, anthropic.NewRedactedThinkingBlock(p.Redacted))
			} else {
				others = append(others, anthropic.NewThinkingBlock(p.Signature, p.Text))
			}
		default:
			return nil, fmt.Errorf("unsupported part %T", part)
		}
	}
	return append(results, others...), nil
}

// anthropicSchema splits a JSON schema object into the SDK's fields.
func anthropicSchema(s map[string]any) anthropic.ToolInputSchemaParam {
	out := anthropic.ToolInputSchemaParam{}
	for k, v := range s {
		switch k {
		case "type":
			// always "object"
		case "properties":
			out.Properties = v
		case "required":
			switch r := v.(type) {
			case []string:
				out.Required = r
			case []any:
				for _, x := range r {
					if name, ok := x.(string); ok {
						out.Required = append(out.Required, name)
					}
				}
			}
		default:
			if out.ExtraFields == nil {
				out.ExtraFields = map[string]any{}
			}
			out.ExtraFields[k] = v
		}
	}
	if out.Properties == nil {
		out.Properties = map[string]any{}
	}
	return out
}

// stream makes one streaming request, passes text deltas to onText and
// accumulates the events into the final message. The raw tool input is
// collected here too: the SDK's accumulator replaces input that is not valid
// JSON with "{}", and the caller needs to see what the model sent.
func (a *Anthropic) stream(ctx context.Context, params anthropic.MessageNewParams, onText func(string)) (*Response, bool, error) {
	s := a.client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	var (
		msg      anthropic.Message
		rawInput = map[int]*strings.Builder{}
		emitted  bool
		stopped  bool
	)
	for s.Next() {
		ev := s.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, emitted, fmt.Errorf("stream: %w", err)
		}
		switch ev.Type {
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if onText != nil && ev.Delta.Text != "" {
					emitted = true
					onText(ev.Delta.Text)
				}
			case "input_json_delta":
				b := rawInput[int(ev.Index)]
				if b == nil {
					b = &strings.Builder{}
					rawInput[int(ev.Index)] = b
				}
				b.WriteString(ev.Delta.PartialJSON)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := s.Err(); err != nil {
		return nil, emitted, err
	}
	if !stopped {
		return nil, emitted, errStreamCut
	}
	raw := make(map[int]string, len(rawInput))
	for i, b := range rawInput {
		raw[i] = b.String()
	}
	return anthropicResponse(&msg, raw), emitted, nil
}

// anthropicResponse translates a message. rawInput, when set, holds the
// streamed tool input per content block index.
func anthropicResponse(msg *anthropic.Message, rawInput map[int]string) *Response {
	var content []Part
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			content = append(content, Text{Text: b.Text})
		case "tool_use":
			input := []byte(b.Input)
			if s, ok := rawInput[i]; ok {
				input = []byte(s)
			}
			content = append(content, toolCall(b.ID, b.Name, input))
		case "thinking":
			content = append(content, Thinking{Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			content = append(content, Thinking{Redacted: b.Data})
		}
	}
	u := msg.Usage
	usage := Usage{
		InputTokens:      int(u.InputTokens),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(u.CacheReadInputTokens),
		CacheWriteTokens: int(u.CacheCreationInputTokens),
	}
	return newResponse(content, anthropicStop(string(msg.StopReason)), string(msg.Model), usage)
}

// anthropicStop maps Anthropic's stop reasons onto the shared ones.
func anthropicStop(r string) string {
	switch r {
	case "end_turn", "stop_sequence":
		return StopEndTurn
	case "tool_use":
		return StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return StopMaxTokens
	case "refusal":
		return StopRefusal
	}
	return r
}
