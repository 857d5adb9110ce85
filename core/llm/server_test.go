package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer is an httptest server that answers with a script of handlers,
// one per request (the last one repeats), and records every request: the
// decoded JSON body, the headers and the path. It stands in for the Anthropic
// and OpenAI APIs at the process boundary; the SDK clients talk to it over
// real HTTP.
type fakeServer struct {
	t      *testing.T
	srv    *httptest.Server
	script []http.HandlerFunc

	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Size   int // bytes of the body
	At     time.Time
}

func newFakeServer(t *testing.T, script ...http.HandlerFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read request body: %v", err)
	}
	var body map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			f.t.Errorf("request body is not JSON: %v\n%s", err, raw)
		}
	}
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Size: len(raw), At: time.Now()})
	f.mu.Unlock()
	h := f.script[min(n, len(f.script)-1)]
	h(w, r)
}

// count is how many requests arrived.
func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// request returns request i (0-based).
func (f *fakeServer) request(i int) recorded {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.requests) {
		f.t.Fatalf("request %d never arrived (%d requests)", i, len(f.requests))
	}
	return f.requests[i]
}

// client is an HTTP client that sends every request to this server, whatever
// host the URL names, so a provider can keep its real default base URL.
func (f *fakeServer) redirectingClient() *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme = "http"
		r.URL.Host = strings.TrimPrefix(f.srv.URL, "http://")
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (fn roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return fn(r) }

// jsonReply answers with status and a JSON body; headers come in pairs.
func jsonReply(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// sseReply answers with a text/event-stream of raw SSE frames, flushing each.
func sseReply(frames ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		fl, _ := w.(http.Flusher)
		for _, fr := range frames {
			io.WriteString(w, fr)
			if fl != nil {
				fl.Flush()
			}
		}
	}
}

// hang waits until the client gives up on the request (or 10 s pass).
func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// event is an Anthropic SSE frame: "event: <type>" and its JSON data.
func event(typ, data string) string {
	return fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data)
}

// chunk is an OpenAI SSE frame: "data: <json>".
func chunk(data string) string {
	return fmt.Sprintf("data: %s\n\n", data)
}

// get walks decoded JSON: get(body, "messages", 0, "content") etc.
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: want an object, got %T (%v)", p, v, v)
			}
			v, ok = m[k]
			if !ok {
				t.Fatalf("no key %q in %v", k, m)
			}
		case int:
			a, ok := v.([]any)
			if !ok {
				t.Fatalf("at %v: want an array, got %T (%v)", p, v, v)
			}
			if k >= len(a) {
				t.Fatalf("index %d out of range (%d items)", k, len(a))
			}
			v = a[k]
		}
	}
	return v
}

// has reports whether object v has key k.
func has(v any, k string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[k]
	return ok
}

// Keys the tests' providers send.
const (
	testAnthropicKey = "sk-ant-test-0123456789"
	testOpenAIKey    = "sk-proj-test-0123456789"
)

// newTestProvider builds cfg.Provider against f: Anthropic with f's URL as
// its base URL (and a test key where cfg has none), OpenAI with f as a
// compatible server.
func newTestProvider(t *testing.T, f *fakeServer, cfg Config, opts ...Option) Provider {
	t.Helper()
	if cfg.Provider == ProviderAnthropic {
		if cfg.AnthropicKey == "" {
			cfg.AnthropicKey = testAnthropicKey
		}
		cfg.AnthropicBaseURL = f.srv.URL
	} else {
		cfg.OpenAIBaseURL = f.srv.URL + "/v1"
	}
	p, err := New(cfg, fast(append([]Option{WithHTTPClient(f.srv.Client())}, opts...)...)...)
	if err != nil {
		t.Fatalf("new %s provider: %v", cfg.Provider, err)
	}
	return p
}

// fast are options for tests: tiny backoff.
func fast(extra ...Option) []Option {
	return append([]Option{WithBackoff(time.Millisecond, 20*time.Millisecond)}, extra...)
}
