package llm

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI is a [Provider] on OpenAI-compatible chat completions
// (github.com/openai/openai-go/v3). The base URL decides the server: OpenAI
// itself, or Ollama, llama.cpp, vLLM, LM Studio, OpenRouter…
type OpenAI struct {
	base
	client openai.Client
	// newTokenField: send max_completion_tokens (OpenAI's own API, where
	// reasoning models reject max_tokens) rather than max_tokens (what every
	// compatible server understands).
	newTokenField bool
}

var _ Provider = (*OpenAI)(nil)

// openAIDefaultBaseURL is OpenAI's own API.
const openAIDefaultBaseURL = "https://api.openai.com/v1/"

// noKey is sent as the API key to servers that need none: local servers
// ignore it, and the SDK always wants one.
const noKey = "no-key"

// NewOpenAI builds the OpenAI-compatible provider from cfg.OpenAIKey,
// cfg.OpenAIBaseURL and cfg.Model (default [DefaultOpenAIModel]). Without a
// key and without a base URL it returns a [*MissingKeyError]; with a base URL
// a missing key is fine (a placeholder is sent). The SDK does not retry: this
// package does.
func NewOpenAI(cfg Config, opts ...Option) (*OpenAI, error) {
	if cfg.OpenAIKey == "" && cfg.OpenAIBaseURL == "" {
		return nil, &MissingKeyError{Provider: ProviderOpenAI, Var: EnvOpenAIKey}
	}
	b := buildBase(ProviderOpenAI, cfg.Model, DefaultOpenAIModel, EnvOpenAIKey,
		cfg.OpenAIKey, cfg.OpenAIBaseURL, cfg, opts)
	key := cfg.OpenAIKey
	if key == "" {
		key = noKey
	}
	baseURL := cfg.OpenAIBaseURL
	if baseURL == "" {
		baseURL = openAIDefaultBaseURL
	}
	// Explicit options override what the SDK reads from OPENAI_* itself.
	sdkOpts := []option.RequestOption{
		option.WithBaseURL(baseURL),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
		option.WithMiddleware(countRequest),
	}
	if b.httpClient != nil {
		sdkOpts = append(sdkOpts, option.WithHTTPClient(b.httpClient))
	}
	return &OpenAI{
		base:          b,
		client:        openai.NewClient(sdkOpts...),
		newTokenField: isOpenAIHost(baseURL),
	}, nil
}

// isOpenAIHost reports whether u is OpenAI's own API.
func isOpenAIHost(u string) bool {
	p, err := url.Parse(u)
	return err == nil && strings.EqualFold(p.Hostname(), "api.openai.com")
}

// Complete sends req as a chat completion; it streams when req.OnText is set.
func (o *OpenAI) Complete(ctx context.Context, req Request) (*Response, error) {
	params, err := o.params(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.name, err)
	}
	streaming := req.OnText != nil
	return o.run(ctx, streaming, func(ctx context.Context) (*Response, bool, error) {
		if streaming {
			return o.stream(ctx, params, req.OnText)
		}
		cc, err := o.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return nil, false, err
		}
		if len(cc.Choices) == 0 {
			return nil, false, fmt.Errorf("the server returned no choices")
		}
		return openAIResponse(cc.Choices[0].Message, cc.Choices[0].FinishReason, cc.Model, &cc.Usage), false, nil
	})
}

// params translates req into a chat completion request.
func (o *OpenAI) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(o.model)}
	if o.newTokenField {
		p.MaxCompletionTokens = openai.Int(int64(maxTokens(req)))
	} else {
		p.MaxTokens = openai.Int(int64(maxTokens(req)))
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{
			Name:       t.Name,
			Parameters: openAISchema(t.InputSchema),
		}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	for i, m := range req.Messages {
		msgs, err := openAIMessages(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, msgs...)
	}
	return p, nil
}

// openAISchema returns s, or an empty object schema for a tool without
// arguments (OpenAI requires "properties" on an object schema).
func openAISchema(s map[string]any) shared.FunctionParameters {
	if s == nil {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	}
	return shared.FunctionParameters(s)
}

// openAIMessages translates one message. A user message's tool results become
// role "tool" messages, ahead of its text; thinking parts are dropped.
func openAIMessages(m Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var (
		text  []string
		calls []openai.ChatCompletionMessageToolCallUnionParam
		out   []openai.ChatCompletionMessageParamUnion
	)
	for _, part := range m.Content {
		switch p := part.(type) {
		case Text:
			if p.Text != "" {
				text = append(text, p.Text)
			}
		case ToolCall:
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: p.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      p.Name,
						Arguments: string(sendableInput(p)),
					},
				},
			})
		case ToolResult:
			if m.Role != RoleUser {
				return nil, fmt.Errorf("a tool result in a %s message", m.Role)
			}
			content := p.Content
			if p.IsError {
				// Chat completions have no error flag; say it in words.
				content = "Error: " + content
			}
			out = append(out, openai.ToolMessage(content, p.CallID))
		case Thinking:
			// Anthropic-only; nothing to send.
		default:
			return nil, fmt.Errorf("unsupported part %T", part)
		}
	}
	joined := strings.Join(text, "\n\n")
	switch m.Role {
	case RoleUser:
		if len(calls) > 0 {
			return nil, fmt.Errorf("a tool call in a user message")
		}
		if joined != "" {
			out = append(out, openai.UserMessage(joined))
		}
	case RoleAssistant:
		if joined == "" && len(calls) == 0 {
			return out, nil
		}
		a := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if joined != "" {
			a.Content.OfString = openai.String(joined)
		}
		out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return out, nil
}

// stream makes one streaming request, passes text deltas to onText and
// assembles the reply with the SDK's ChatCompletionAccumulator, which joins
// tool-call deltas by index. Usage comes from the final usage chunk
// (stream_options.include_usage); the last one seen wins, because some
// servers repeat running totals and the accumulator would add them up.
func (o *OpenAI) stream(ctx context.Context, params openai.ChatCompletionNewParams, onText func(string)) (*Response, bool, error) {
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := o.client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var (
		acc      openai.ChatCompletionAccumulator
		usage    *openai.CompletionUsage
		emitted  bool
		finished bool
	)
	for s.Next() {
		chunk := s.Current()
		if !acc.AddChunk(chunk) {
			// Some servers give each chunk its own id; the accumulator wants one.
			if acc.ID == "" || chunk.ID == acc.ID {
				return nil, emitted, fmt.Errorf("stream: chunk %q could not be accumulated", chunk.ID)
			}
			chunk.ID = acc.ID
			if !acc.AddChunk(chunk) {
				return nil, emitted, fmt.Errorf("stream: chunk %q could not be accumulated", chunk.ID)
			}
		}
		for _, c := range chunk.Choices {
			if c.Index == 0 && c.Delta.Content != "" {
				emitted = true
				onText(c.Delta.Content)
			}
			if c.FinishReason != "" {
				finished = true
			}
		}
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			usage = &u
		}
	}
	if err := s.Err(); err != nil {
		return nil, emitted, err
	}
	if !finished || len(acc.Choices) == 0 {
		return nil, emitted, errStreamCut
	}
	model := acc.Model
	choice := acc.Choices[0]
	return openAIResponse(choice.Message, choice.FinishReason, model, usage), emitted, nil
}

// openAIResponse translates the first choice of a completion.
func openAIResponse(m openai.ChatCompletionMessage, finish, model string, u *openai.CompletionUsage) *Response {
	var content []Part
	if m.Content != "" {
		content = append(content, Text{Text: m.Content})
	}
	for i, tc := range m.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered
		}
		id := tc.ID
		if id == "" {
			// Some local servers send no ids; the tool result needs one.
			id = fmt.Sprintf("call_%d", i)
		}
		content = append(content, toolCall(id, tc.Function.Name, []byte(tc.Function.Arguments)))
	}
	var usage Usage
	if u != nil {
		cached := int(u.PromptTokensDetails.CachedTokens)
		written := int(u.PromptTokensDetails.CacheWriteTokens)
		usage = Usage{
			InputTokens:      max(int(u.PromptTokens)-cached-written, 0),
			OutputTokens:     int(u.CompletionTokens),
			CacheReadTokens:  cached,
			CacheWriteTokens: written,
		}
	}
	stop := openAIStop(finish)
	if stop == StopEndTurn && len(m.ToolCalls) > 0 {
		stop = StopToolUse // some servers say "stop" after tool calls
	}
	return newResponse(content, stop, model, usage)
}

// openAIStop maps finish reasons onto the shared stop reasons.
func openAIStop(r string) string {
	switch r {
	case "stop", "":
		return StopEndTurn
	case "tool_calls", "function_call":
		return StopToolUse
	case "length":
		return StopMaxTokens
	case "content_filter":
		return StopRefusal
	}
	return r
}
