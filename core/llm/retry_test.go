package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// providerCase drives the same retry scenarios through both providers.
type providerCase struct {
	name   string
	keyVar string
	ok     string // a 200 body
	// errBody renders the provider's error JSON.
	errBody func(typ, msg string) string
	build   func(t *testing.T, f *fakeServer, cfg Config, opts ...Option) Provider
}

var providerCases = []providerCase{
	{
		name:   ProviderAnthropic,
		keyVar: EnvAnthropicKey,
		ok:     anthropicTextReply,
		errBody: func(typ, msg string) string {
			return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_1"}`
		},
		build: func(t *testing.T, f *fakeServer, cfg Config, opts ...Option) Provider {
			cfg.Provider = ProviderAnthropic
			return newTestProvider(t, f, cfg, opts...)
		},
	},
	{
		name:   ProviderOpenAI,
		keyVar: EnvOpenAIKey,
		ok:     openAITextReply,
		errBody: func(typ, msg string) string {
			return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":null}}`
		},
		build: func(t *testing.T, f *fakeServer, cfg Config, opts ...Option) Provider {
			cfg.Provider, cfg.OpenAIKey = ProviderOpenAI, testOpenAIKey
			return newTestProvider(t, f, cfg, opts...)
		},
	},
}

var question = Request{Messages: []Message{UserText("How many artists?")}}

func TestRetries(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			tests := []struct {
				name     string
				script   func() []http.HandlerFunc
				attempts int
			}{
				{"429 retry-after 0 then 200", func() []http.HandlerFunc {
					return []http.HandlerFunc{
						jsonReply(429, pc.errBody("rate_limit_error", "slow down"), "retry-after", "0"),
						jsonReply(200, pc.ok),
					}
				}, 2},
				{"429 retry-after-ms then 200", func() []http.HandlerFunc {
					return []http.HandlerFunc{
						jsonReply(429, pc.errBody("rate_limit_error", "slow down"), "retry-after-ms", "15"),
						jsonReply(200, pc.ok),
					}
				}, 2},
				{"500 twice then 200", func() []http.HandlerFunc {
					return []http.HandlerFunc{
						jsonReply(500, pc.errBody("api_error", "boom")),
						jsonReply(500, pc.errBody("api_error", "boom")),
						jsonReply(200, pc.ok),
					}
				}, 3},
				{"529 overloaded then 200", func() []http.HandlerFunc {
					return []http.HandlerFunc{
						jsonReply(529, pc.errBody("overloaded_error", "Overloaded")),
						jsonReply(200, pc.ok),
					}
				}, 2},
				{"503 then 200", func() []http.HandlerFunc {
					return []http.HandlerFunc{jsonReply(503, pc.errBody("api_error", "unavailable")), jsonReply(200, pc.ok)}
				}, 2},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					f := newFakeServer(t, tt.script()...)
					var rec CallRecord
					p := pc.build(t, f, Config{}, WithTrace(func(r CallRecord) { rec = r }))
					resp := complete(t, p, question)
					if resp.Text == "" {
						t.Errorf("empty Text")
					}
					if f.count() != tt.attempts {
						t.Errorf("server saw %d requests, want %d", f.count(), tt.attempts)
					}
					if rec.Attempts != tt.attempts || rec.Outcome != OutcomeOK {
						t.Errorf("trace: attempts = %d, outcome = %q", rec.Attempts, rec.Outcome)
					}
				})
			}
		})
	}
}

func TestRetryAfterMsIsHonoured(t *testing.T) {
	f := newFakeServer(t,
		jsonReply(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "retry-after-ms", "150"),
		jsonReply(200, anthropicTextReply))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic}, WithBackoff(time.Millisecond, time.Second))
	if _, err := p.Complete(context.Background(), question); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if gap := f.request(1).At.Sub(f.request(0).At); gap < 140*time.Millisecond {
		t.Errorf("retried after %v, want ≥ 150ms as retry-after-ms asked", gap)
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	f := newFakeServer(t,
		jsonReply(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "retry-after", "3600"),
		jsonReply(200, anthropicTextReply))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic}, WithBackoff(time.Millisecond, 50*time.Millisecond))
	start := time.Now()
	if _, err := p.Complete(context.Background(), question); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v; a single wait must be capped", d)
	}
	if f.count() != 2 {
		t.Errorf("requests = %d, want 2", f.count())
	}
}

// clientError is an error reply of a status and the provider's error type.
type clientError struct {
	status int
	typ    string
}

// eachClientError runs fn as a subtest for each provider and each of errs,
// against a server that answers the error (with msg) and then 200, so that
// a retry would succeed.
func eachClientError(t *testing.T, errs []clientError, msg string, fn func(t *testing.T, pc providerCase, status int, f *fakeServer)) {
	for _, pc := range providerCases {
		for _, e := range errs {
			t.Run(pc.name+"/"+http.StatusText(e.status), func(t *testing.T) {
				f := newFakeServer(t, jsonReply(e.status, pc.errBody(e.typ, msg)), jsonReply(200, pc.ok))
				fn(t, pc, e.status, f)
			})
		}
	}
}

func TestAuthFailsFast(t *testing.T) {
	eachClientError(t, []clientError{{401, "authentication_error"}, {403, "permission_error"}}, "invalid x-api-key", func(t *testing.T, pc providerCase, status int, f *fakeServer) {
		var rec CallRecord
		// Default backoff: a retry would show in the elapsed time.
		p := pc.build(t, f, Config{}, WithTrace(func(r CallRecord) { rec = r }), WithBackoff(time.Second, 30*time.Second))
		start := time.Now()
		_, err := p.Complete(context.Background(), question)
		elapsed := time.Since(start)
		if err == nil {
			t.Fatal("Complete succeeded")
		}
		if elapsed > 5*time.Second {
			t.Errorf("took %v, want < 5s", elapsed)
		}
		if f.count() != 1 {
			t.Errorf("attempts = %d, want 1", f.count())
		}
		if !errors.Is(err, ErrAuth) {
			t.Errorf("err = %v, want ErrAuth", err)
		}
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != status {
			t.Errorf("err = %#v", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, pc.keyVar) || !strings.HasPrefix(msg, pc.name+": ") {
			t.Errorf("message %q should name %s", msg, pc.keyVar)
		}
		if status == 401 && msg != pc.name+": authentication failed (401) — check "+pc.keyVar {
			t.Errorf("message = %q", msg)
		}
		if rec.Outcome != OutcomeError || rec.StatusCode != status || rec.Attempts != 1 {
			t.Errorf("trace = %+v", rec)
		}
	})
}

func TestNoRetryOnClientErrors(t *testing.T) {
	eachClientError(t, []clientError{{400, "invalid_request_error"}, {404, "not_found_error"}}, "model: nope", func(t *testing.T, pc providerCase, status int, f *fakeServer) {
		p := pc.build(t, f, Config{})
		_, err := p.Complete(context.Background(), question)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != status || ae.Message != "model: nope" {
			t.Fatalf("err = %v", err)
		}
		if f.count() != 1 {
			t.Errorf("attempts = %d, want 1", f.count())
		}
		if status == 404 && !strings.Contains(err.Error(), "check the model name") {
			t.Errorf("404 message lacks the hint: %q", err)
		}
	})
}

func TestRetriesRunOut(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			f := newFakeServer(t, jsonReply(500, pc.errBody("api_error", "boom")))
			p := pc.build(t, f, Config{MaxRetries: 2})
			_, err := p.Complete(context.Background(), question)
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != 500 || ae.Attempts != 3 {
				t.Fatalf("err = %v", err)
			}
			if f.count() != 3 {
				t.Errorf("attempts = %d, want 3", f.count())
			}
			if !strings.Contains(err.Error(), "gave up after 3 attempts") {
				t.Errorf("message = %q", err)
			}
		})
	}
}

func TestRetriesDisabled(t *testing.T) {
	f := newFakeServer(t, jsonReply(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), jsonReply(200, anthropicTextReply))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic, MaxRetries: -1})
	_, err := p.Complete(context.Background(), question)
	if !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	if f.count() != 1 {
		t.Errorf("attempts = %d, want 1", f.count())
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			f := newFakeServer(t, hang, jsonReply(200, pc.ok))
			p := pc.build(t, f, Config{Timeout: 200 * time.Millisecond})
			resp := complete(t, p, question)
			if resp.Text == "" || f.count() != 2 {
				t.Errorf("Text = %q, attempts = %d", resp.Text, f.count())
			}
		})
	}
}

func TestEveryAttemptTimesOut(t *testing.T) {
	f := newFakeServer(t, hang)
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic, Timeout: 50 * time.Millisecond, MaxRetries: 1})
	_, err := p.Complete(context.Background(), question)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an attempt timeout must not look like the caller's deadline")
	}
	if f.count() != 2 {
		t.Errorf("attempts = %d, want 2", f.count())
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	p, err := NewOpenAI(Config{OpenAIBaseURL: url + "/v1", MaxRetries: 1}, fast()...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), question)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), "is the server running?") || !strings.Contains(err.Error(), "2 attempts") {
		t.Errorf("message = %q", err)
	}
}

func TestCancelDuringSlowResponse(t *testing.T) {
	for _, pc := range providerCases {
		for _, streaming := range []bool{false, true} {
			name := pc.name + "/plain"
			if streaming {
				name = pc.name + "/streaming"
			}
			t.Run(name, func(t *testing.T) {
				script := hang
				if streaming {
					// The stream starts, then the server goes quiet.
					script = func(w http.ResponseWriter, r *http.Request) {
						w.Header().Set("Content-Type", "text/event-stream")
						w.WriteHeader(200)
						if pc.name == ProviderAnthropic {
							w.Write([]byte(event("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`)))
						} else {
							w.Write([]byte(chunk(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`)))
						}
						w.(http.Flusher).Flush()
						hang(w, r)
					}
				}
				f := newFakeServer(t, script)
				var rec CallRecord
				p := pc.build(t, f, Config{}, WithTrace(func(r CallRecord) { rec = r }))
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(100*time.Millisecond, cancel)
				req := question
				if streaming {
					req.OnText = func(string) {}
				}
				completeUntilDone(t, p, f, ctx, req, context.Canceled)
				if rec.Outcome != OutcomeCanceled || rec.Streamed != streaming {
					t.Errorf("trace = %+v", rec)
				}
			})
		}
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	f := newFakeServer(t, jsonReply(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "retry-after", "20"))
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic}, WithBackoff(time.Millisecond, 30*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	completeUntilDone(t, p, f, ctx, question, context.DeadlineExceeded)
}

// completeUntilDone calls p with req under ctx, which ends during the first
// attempt or the wait after it: the call must return within 2 s of the
// start with ctx's error, want, and f must have had only that attempt.
func completeUntilDone(t *testing.T, p Provider, f *fakeServer, ctx context.Context, req Request, want error) {
	t.Helper()
	start := time.Now()
	_, err := p.Complete(ctx, req)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v, want promptly once ctx is done (the retry wait too must respect it)", d)
	}
	if !errors.Is(err, want) {
		t.Errorf("err = %v, want %v", err, want)
	}
	if f.count() != 1 {
		t.Errorf("attempts = %d, want 1", f.count())
	}
}

func TestTraceRecord(t *testing.T) {
	f := newFakeServer(t, jsonReply(500, `{"type":"error","error":{"type":"api_error","message":"boom"}}`), jsonReply(200, anthropicTextReply))
	var recs []CallRecord
	p := newTestProvider(t, f, Config{Provider: ProviderAnthropic, Model: "claude-sonnet-5-5"}, WithTrace(func(r CallRecord) { recs = append(recs, r) }))
	ctx := WithCallTags(context.Background(), CallTags{TraceID: "q1", Prompt: "v2"})
	if _, err := p.Complete(ctx, question); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("trace called %d times, want 1", len(recs))
	}
	r := recs[0]
	if r.Provider != ProviderAnthropic || r.Model != "claude-sonnet-5-5-20261001" || r.Attempts != 2 ||
		r.Outcome != OutcomeOK || r.Streamed || r.StopReason != StopEndTurn || r.Error != "" || r.TraceID != "q1" || r.Prompt != "v2" {
		t.Errorf("record = %+v", r)
	}
	if r.Usage.InputTokens != 120 || r.Usage.CacheReadTokens != 3000 || r.Usage.CostUSD <= 0 {
		t.Errorf("record usage = %+v", r.Usage)
	}
	if r.Latency <= 0 || r.Start.IsZero() {
		t.Errorf("latency = %v, start = %v", r.Latency, r.Start)
	}
	if want := f.request(1).Size; r.RequestBytes != int64(want) || want < 100 {
		t.Errorf("request bytes = %d, the server read %d", r.RequestBytes, want)
	}
}

func TestTraceRecordsRequestBytesOfEveryProvider(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			f := newFakeServer(t, jsonReply(200, pc.ok))
			var rec CallRecord
			p := pc.build(t, f, Config{}, WithTrace(func(r CallRecord) { rec = r }))
			if _, err := p.Complete(context.Background(), question); err != nil {
				t.Fatal(err)
			}
			if want := f.request(0).Size; rec.RequestBytes != int64(want) || want < 50 {
				t.Errorf("request bytes = %d, the server read %d", rec.RequestBytes, want)
			}
		})
	}
}

func TestTraceNeverHoldsTheKey(t *testing.T) {
	// A server that quotes the key back in its error message.
	f := newFakeServer(t, jsonReply(400, `{"error":{"message":"Incorrect API key provided: `+testOpenAIKey+`.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	var rec CallRecord
	p := newTestProvider(t, f, Config{Provider: ProviderOpenAI, OpenAIKey: testOpenAIKey}, WithTrace(func(r CallRecord) { rec = r }))
	_, err := p.Complete(context.Background(), question)
	if err == nil {
		t.Fatal("Complete succeeded")
	}
	if strings.Contains(err.Error(), testOpenAIKey) {
		t.Errorf("error holds the key: %q", err)
	}
	raw, _ := json.Marshal(rec)
	if strings.Contains(string(raw), testOpenAIKey) {
		t.Errorf("trace record holds the key: %s", raw)
	}
	if !strings.Contains(rec.Error, "[REDACTED]") || rec.StatusCode != 400 {
		t.Errorf("record = %+v", rec)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"retry-after": "2"}, 2 * time.Second, true},
		{"fractional seconds", map[string]string{"retry-after": "0.5"}, 500 * time.Millisecond, true},
		{"milliseconds win", map[string]string{"retry-after": "2", "retry-after-ms": "250"}, 250 * time.Millisecond, true},
		{"http date", map[string]string{"retry-after": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second, true},
		{"garbage", map[string]string{"retry-after": "soon"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	p := retryPolicy{maxRetries: 10, base: 100 * time.Millisecond, max: time.Second}
	for n, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		if n >= 4 {
			want = time.Second
		}
		for range 50 {
			d := p.wait(n, nil)
			if d < want/2 || d > want {
				t.Fatalf("wait(%d) = %v, want within [%v, %v]", n, d, want/2, want)
			}
		}
	}
	h := http.Header{"Retry-After": []string{"120"}}
	if d := p.wait(0, h); d != time.Second {
		t.Errorf("retry-after 120 s gave %v, want the 1 s cap", d)
	}
}

func TestRetryableStatus(t *testing.T) {
	for status, want := range map[int]bool{
		400: false, 401: false, 403: false, 404: false, 422: false,
		408: true, 409: true, 429: true, 500: true, 502: true, 503: true, 504: true, 529: true,
	} {
		if got := retryableStatus(status, nil); got != want {
			t.Errorf("retryableStatus(%d) = %v, want %v", status, got, want)
		}
	}
	if retryableStatus(500, http.Header{"X-Should-Retry": []string{"false"}}) {
		t.Errorf("x-should-retry: false was ignored")
	}
	if retryableStatus(401, http.Header{"X-Should-Retry": []string{"true"}}) {
		t.Errorf("a 401 must never be retried")
	}
}

func TestConcurrentCalls(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			f := newFakeServer(t, jsonReply(200, pc.ok))
			var mu sync.Mutex
			records := 0
			p := pc.build(t, f, Config{}, WithTrace(func(CallRecord) { mu.Lock(); records++; mu.Unlock() }))
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() {
					if _, err := p.Complete(context.Background(), question); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if f.count() != 8 || records != 8 {
				t.Errorf("requests = %d, records = %d, want 8", f.count(), records)
			}
		})
	}
}
