package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Provider kinds, as --provider and TABLEWISE_PROVIDER spell them.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
	ProviderOffline   = "offline"
)

// Default models, used when neither TABLEWISE_MODEL nor --model names one.
const (
	// DefaultAnthropicModel is the Anthropic default. (claude-sonnet-4-5
	// reaches end of life on 2026-11-30 per anthropic-sdk-go v2.15.0; its
	// named successor is claude-sonnet-5-5.)
	DefaultAnthropicModel = "claude-sonnet-5-5"
	// DefaultOpenAIModel is the OpenAI default. A local server (Ollama,
	// llama.cpp…) usually needs TABLEWISE_MODEL set to a model it has.
	DefaultOpenAIModel = "gpt-4.1-mini"
)

// Defaults for Config fields left zero.
const (
	// DefaultTimeout bounds one HTTP attempt, streaming included.
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxRetries is how many times a failed call is tried again.
	DefaultMaxRetries = 3
)

// Environment variables ConfigFromEnv reads.
const (
	EnvProvider         = "TABLEWISE_PROVIDER"
	EnvModel            = "TABLEWISE_MODEL"
	EnvAnthropicKey     = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"
)

// ErrOffline is what [New] returns when the selected provider is "offline":
// no model is used and the built-in planner (core/offline) answers instead.
var ErrOffline = errors.New("offline: no model provider selected")

// ErrUnknownProvider is wrapped by the error for a provider name that is not
// one of anthropic, openai, offline.
var ErrUnknownProvider = errors.New("unknown provider")

// ErrMissingKey is matched (errors.Is) by a [*MissingKeyError].
var ErrMissingKey = errors.New("API key is not set")

// MissingKeyError says that the explicitly chosen provider has no API key.
type MissingKeyError struct {
	Provider string // "anthropic" or "openai"
	Var      string // the environment variable to set
}

// Error names the variable and the way out:
// "ANTHROPIC_API_KEY is not set — export it or pick another --provider".
func (e *MissingKeyError) Error() string {
	if e.Provider == ProviderOpenAI {
		return fmt.Sprintf("%s is not set — export it (or set %s for a local server) or pick another --provider", e.Var, EnvOpenAIBaseURL)
	}
	return fmt.Sprintf("%s is not set — export it or pick another --provider", e.Var)
}

// Is makes errors.Is(err, ErrMissingKey) true.
func (e *MissingKeyError) Is(target error) bool { return target == ErrMissingKey }

// Config chooses and configures a provider. The zero value selects offline.
type Config struct {
	// Provider is anthropic, openai or offline; empty chooses by the keys
	// present (see [Select]).
	Provider string
	// Model overrides the provider's default model.
	Model string

	AnthropicKey     string
	AnthropicBaseURL string // empty: https://api.anthropic.com
	OpenAIKey        string
	// OpenAIBaseURL points the OpenAI provider at any OpenAI-compatible
	// server, e.g. http://localhost:11434/v1 for Ollama. Empty:
	// https://api.openai.com/v1.
	OpenAIBaseURL string

	// Timeout bounds each HTTP attempt, streaming included; 0 means
	// [DefaultTimeout]. The caller's context bounds the whole call.
	Timeout time.Duration
	// MaxRetries is how many times a failed call is tried again; 0 means
	// [DefaultMaxRetries] and a negative value disables retries.
	MaxRetries int
}

// ConfigFromEnv reads TABLEWISE_PROVIDER, TABLEWISE_MODEL, ANTHROPIC_API_KEY,
// ANTHROPIC_BASE_URL, OPENAI_API_KEY and OPENAI_BASE_URL through getenv
// (os.Getenv in production, a map lookup in tests). Surrounding whitespace is
// trimmed. Flags override the result field by field.
func ConfigFromEnv(getenv func(string) string) Config {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	return Config{
		Provider:         get(EnvProvider),
		Model:            get(EnvModel),
		AnthropicKey:     get(EnvAnthropicKey),
		AnthropicBaseURL: get(EnvAnthropicBaseURL),
		OpenAIKey:        get(EnvOpenAIKey),
		OpenAIBaseURL:    get(EnvOpenAIBaseURL),
	}
}

// Select decides which provider cfg asks for: the explicit cfg.Provider when
// set (anthropic, openai or offline, in any case; anything else is an error
// wrapping [ErrUnknownProvider]); otherwise anthropic when its key is set,
// else openai when its key or base URL is set, else offline.
func Select(cfg Config) (kind string, err error) {
	switch p := strings.ToLower(strings.TrimSpace(cfg.Provider)); p {
	case ProviderAnthropic, ProviderOpenAI, ProviderOffline:
		return p, nil
	case "":
	default:
		return "", fmt.Errorf("%w %q — valid providers: %s, %s, %s",
			ErrUnknownProvider, cfg.Provider, ProviderAnthropic, ProviderOpenAI, ProviderOffline)
	}
	switch {
	case cfg.AnthropicKey != "":
		return ProviderAnthropic, nil
	case cfg.OpenAIKey != "" || cfg.OpenAIBaseURL != "":
		return ProviderOpenAI, nil
	default:
		return ProviderOffline, nil
	}
}

// Option adjusts how [New] builds a provider.
type Option func(*options)

// options collects what Option values set.
type options struct {
	httpClient  *http.Client
	trace       func(CallRecord)
	backoffBase time.Duration
	backoffMax  time.Duration
}

// WithHTTPClient makes the provider send its requests through c (tests use
// an httptest server's client).
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.httpClient = c }
}

// WithTrace calls fn once per Complete, when it returns, with what happened.
// fn runs on the caller's goroutine, so calls made at once call it at once;
// it must be safe for that and must not block for long.
func WithTrace(fn func(CallRecord)) Option {
	return func(o *options) { o.trace = fn }
}

// WithBackoff sets the retry backoff: the first wait is about base, doubling
// with each retry, and no single wait (retry-after included) exceeds max.
// Defaults: 500 ms and 30 s. Tests pass a few milliseconds.
func WithBackoff(base, max time.Duration) Option {
	return func(o *options) {
		if base > 0 {
			o.backoffBase = base
		}
		if max > 0 {
			o.backoffMax = max
		}
	}
}

// New builds the provider cfg selects (see [Select]). For offline it returns
// [ErrOffline]; for an explicitly chosen provider without a key, a
// [*MissingKeyError] naming the variable to set. An OpenAI-compatible base URL
// needs no key: local servers do not check one.
func New(cfg Config, opts ...Option) (Provider, error) {
	kind, err := Select(cfg)
	if err != nil {
		return nil, err
	}
	// Return a nil interface, not a nil *Anthropic inside one, on error.
	switch kind {
	case ProviderAnthropic:
		p, err := NewAnthropic(cfg, opts...)
		if err != nil {
			return nil, err
		}
		return p, nil
	case ProviderOpenAI:
		p, err := NewOpenAI(cfg, opts...)
		if err != nil {
			return nil, err
		}
		return p, nil
	default:
		return nil, ErrOffline
	}
}

// buildBase gathers what both providers share.
func buildBase(name, model, defaultModel, keyVar, secret, baseURL string, cfg Config, opts []Option) base {
	o := options{backoffBase: 500 * time.Millisecond, backoffMax: 30 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if model == "" {
		model = defaultModel
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	return base{
		name:       name,
		model:      model,
		keyVar:     keyVar,
		secret:     secret,
		baseURL:    baseURL,
		timeout:    timeout,
		httpClient: o.httpClient,
		trace:      o.trace,
		policy:     retryPolicy{maxRetries: retries, base: o.backoffBase, max: o.backoffMax},
	}
}
