package llm

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"TABLEWISE_PROVIDER": " openai ",
		"TABLEWISE_MODEL":    "qwen3:8b",
		"ANTHROPIC_API_KEY":  "sk-ant-1",
		"ANTHROPIC_BASE_URL": "https://proxy.example/anthropic",
		"OPENAI_API_KEY":     "sk-2",
		"OPENAI_BASE_URL":    "http://localhost:11434/v1\n",
		"UNRELATED":          "x",
	}
	got := ConfigFromEnv(func(k string) string { return env[k] })
	want := Config{
		Provider:         "openai",
		Model:            "qwen3:8b",
		AnthropicKey:     "sk-ant-1",
		AnthropicBaseURL: "https://proxy.example/anthropic",
		OpenAIKey:        "sk-2",
		OpenAIBaseURL:    "http://localhost:11434/v1",
	}
	if got != want {
		t.Errorf("ConfigFromEnv = %+v\nwant %+v", got, want)
	}
	if empty := ConfigFromEnv(func(string) string { return "" }); empty != (Config{}) {
		t.Errorf("empty env gave %+v", empty)
	}
}

func TestSelect(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"nothing set", Config{}, ProviderOffline},
		{"anthropic key", Config{AnthropicKey: "k"}, ProviderAnthropic},
		{"openai key", Config{OpenAIKey: "k"}, ProviderOpenAI},
		{"openai base url only", Config{OpenAIBaseURL: "http://localhost:11434/v1"}, ProviderOpenAI},
		{"anthropic wins over openai", Config{AnthropicKey: "a", OpenAIKey: "o", OpenAIBaseURL: "u"}, ProviderAnthropic},
		{"anthropic base url alone is not enough", Config{AnthropicBaseURL: "https://proxy"}, ProviderOffline},
		{"explicit anthropic without key", Config{Provider: "anthropic"}, ProviderAnthropic},
		{"explicit openai beats anthropic key", Config{Provider: "openai", AnthropicKey: "a"}, ProviderOpenAI},
		{"explicit offline beats keys", Config{Provider: "offline", AnthropicKey: "a", OpenAIKey: "o"}, ProviderOffline},
		{"case and space", Config{Provider: "  Anthropic "}, ProviderAnthropic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(tt.cfg)
			if err != nil || got != tt.want {
				t.Errorf("Select = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestSelectUnknownProvider(t *testing.T) {
	for _, p := range []string{"gemini", "auto", "anthropic,openai"} {
		_, err := Select(Config{Provider: p, AnthropicKey: "k"})
		if !errors.Is(err, ErrUnknownProvider) {
			t.Fatalf("Select(%q) err = %v, want ErrUnknownProvider", p, err)
		}
		msg := err.Error()
		for _, want := range []string{`"` + p + `"`, "anthropic", "openai", "offline"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		if _, err := New(Config{Provider: p}); !errors.Is(err, ErrUnknownProvider) {
			t.Errorf("New(%q) err = %v", p, err)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantName  string
		wantModel string
		wantErr   error
		wantMsg   string
	}{
		{name: "offline", cfg: Config{}, wantErr: ErrOffline},
		{name: "explicit offline", cfg: Config{Provider: "offline", AnthropicKey: "k"}, wantErr: ErrOffline},
		{name: "anthropic by key", cfg: Config{AnthropicKey: "k"}, wantName: ProviderAnthropic, wantModel: DefaultAnthropicModel},
		{name: "anthropic with model", cfg: Config{AnthropicKey: "k", Model: "claude-haiku-5-5"}, wantName: ProviderAnthropic, wantModel: "claude-haiku-5-5"},
		{name: "openai by key", cfg: Config{OpenAIKey: "k"}, wantName: ProviderOpenAI, wantModel: DefaultOpenAIModel},
		{name: "openai local server, no key", cfg: Config{OpenAIBaseURL: "http://localhost:11434/v1", Model: "llama3.1"}, wantName: ProviderOpenAI, wantModel: "llama3.1"},
		{name: "explicit openai, base url, no key", cfg: Config{Provider: "openai", OpenAIBaseURL: "http://localhost:8080/v1"}, wantName: ProviderOpenAI, wantModel: DefaultOpenAIModel},
		{
			name: "explicit anthropic, no key", cfg: Config{Provider: "anthropic", OpenAIKey: "o"},
			wantErr: ErrMissingKey, wantMsg: "ANTHROPIC_API_KEY is not set — export it or pick another --provider",
		},
		{
			name: "explicit openai, no key, no base url", cfg: Config{Provider: "openai", AnthropicKey: "a"},
			wantErr: ErrMissingKey, wantMsg: "OPENAI_API_KEY is not set — export it (or set OPENAI_BASE_URL for a local server) or pick another --provider",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.cfg)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || p != nil {
					t.Fatalf("New = %v, %v; want %v", p, err, tt.wantErr)
				}
				if tt.wantMsg != "" && err.Error() != tt.wantMsg {
					t.Errorf("message = %q\nwant      %q", err, tt.wantMsg)
				}
				var mk *MissingKeyError
				if tt.wantErr == ErrMissingKey && (!errors.As(err, &mk) || !strings.Contains(tt.wantMsg, mk.Var)) {
					t.Errorf("err = %#v, want a *MissingKeyError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if p.Name() != tt.wantName || p.Model() != tt.wantModel {
				t.Errorf("Name, Model = %q, %q; want %q, %q", p.Name(), p.Model(), tt.wantName, tt.wantModel)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	p, err := NewAnthropic(Config{AnthropicKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if p.timeout != DefaultTimeout || p.policy.maxRetries != DefaultMaxRetries ||
		p.policy.base != 500*time.Millisecond || p.policy.max != 30*time.Second {
		t.Errorf("defaults: timeout %v, retries %d, backoff %v..%v", p.timeout, p.policy.maxRetries, p.policy.base, p.policy.max)
	}
	p, err = NewAnthropic(Config{AnthropicKey: "k", Timeout: time.Second, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if p.timeout != time.Second || p.policy.maxRetries != 0 {
		t.Errorf("timeout %v, retries %d", p.timeout, p.policy.maxRetries)
	}
	o, err := NewOpenAI(Config{OpenAIKey: "k", MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	if o.policy.maxRetries != 5 || !o.newTokenField {
		t.Errorf("retries %d, newTokenField %v", o.policy.maxRetries, o.newTokenField)
	}
	o, _ = NewOpenAI(Config{OpenAIBaseURL: "http://localhost:11434/v1"})
	if o.newTokenField {
		t.Errorf("a local server should get max_tokens")
	}
}
