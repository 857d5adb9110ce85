package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/tablewise/tablewise/core/tick"
)

// Sentinels matched by errors.Is on what Complete returns.
var (
	// ErrAuth: the server refused the API key (401) or its permissions (403).
	ErrAuth = errors.New("authentication failed")
	// ErrRateLimited: the server kept answering 429 until retries ran out.
	ErrRateLimited = errors.New("rate limited")
	// ErrTimeout: every attempt ran past Config.Timeout.
	ErrTimeout = errors.New("model call timed out")
	// ErrUnreachable: the server could not be reached (refused, reset, DNS).
	ErrUnreachable = errors.New("model server unreachable")
)

// APIError is a call the server answered with an error status.
type APIError struct {
	Provider   string // "anthropic" or "openai"
	StatusCode int    // HTTP status; for an error event inside a stream, the status it stands for
	Type       string // the provider's error type, e.g. "overloaded_error"
	// Message is the provider's explanation, with the API key redacted.
	Message string
	// KeyVar is the environment variable holding the key, for auth errors.
	KeyVar string
	// Attempts is how many requests the call made.
	Attempts int
	err      error // the SDK's error
}

// Error says what failed and, for auth errors, which variable to fix:
// "anthropic: authentication failed (401) — check ANTHROPIC_API_KEY".
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	switch {
	case e.StatusCode == http.StatusUnauthorized:
		fmt.Fprintf(&b, "authentication failed (401) — check %s", e.KeyVar)
		return b.String()
	case e.StatusCode == http.StatusForbidden:
		fmt.Fprintf(&b, "access denied (403) — check %s and what it is allowed to use", e.KeyVar)
		if e.Message != "" {
			fmt.Fprintf(&b, ": %s", e.Message)
		}
		return b.String()
	case e.StatusCode == http.StatusTooManyRequests:
		b.WriteString("rate limited (429)")
	case e.StatusCode == 529 || e.Type == "overloaded_error":
		fmt.Fprintf(&b, "overloaded (%d)", e.StatusCode)
	case e.StatusCode >= 500:
		fmt.Fprintf(&b, "server error (%d)", e.StatusCode)
	case e.StatusCode == http.StatusNotFound:
		b.WriteString("not found (404)")
	default:
		fmt.Fprintf(&b, "request failed (%d)", e.StatusCode)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.StatusCode == http.StatusNotFound {
		b.WriteString(" — check the model name (--model, TABLEWISE_MODEL) and the base URL")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the SDK's error (*anthropic.Error or *openai.Error).
func (e *APIError) Unwrap() error { return e.err }

// Is matches ErrAuth for 401/403 and ErrRateLimited for 429.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrAuth:
		return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	}
	return false
}

// Outcomes of a call in a [CallRecord].
const (
	OutcomeOK       = "ok"
	OutcomeError    = "error"
	OutcomeCanceled = "canceled"
)

// CallRecord describes one Complete call for the trace (see [WithTrace]). It
// never holds an API key.
type CallRecord struct {
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Start    time.Time `json:"start"`
	// Latency is the whole call, retries and waits included.
	Latency    time.Duration `json:"latency_ns"`
	Attempts   int           `json:"attempts"`
	Streamed   bool          `json:"streamed"`
	Usage      Usage         `json:"usage"`
	StopReason string        `json:"stop_reason,omitempty"`
	ToolCalls  int           `json:"tool_calls"`
	// RequestBytes is the size of the last request's body: what the
	// prompt, the conversation and the tools cost on the wire.
	RequestBytes int64 `json:"request_bytes,omitempty"`
	// Outcome is OutcomeOK, OutcomeError or OutcomeCanceled.
	Outcome string `json:"outcome"`
	// TraceID, Prompt and Role are the CallTags of the call's context.
	TraceID string `json:"trace_id,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	Role    string `json:"role,omitempty"`
	// StatusCode is the HTTP status of the last failed attempt, if any.
	StatusCode int `json:"status_code,omitempty"`
	// Error is the returned error's text, with the API key redacted.
	Error string `json:"error,omitempty"`
}

// base is what both providers share: identity, retry policy, trace hook.
type base struct {
	name       string
	model      string
	keyVar     string
	secret     string // the API key, only ever used for redaction
	baseURL    string
	timeout    time.Duration
	httpClient *http.Client
	trace      func(CallRecord)
	policy     retryPolicy
}

// Name returns the provider kind.
func (b *base) Name() string { return b.name }

// Model returns the model the provider asks for.
func (b *base) Model() string { return b.model }

// attemptFunc runs one request. streamed reports whether any text already
// reached OnText, which rules out a retry.
type attemptFunc func(ctx context.Context) (resp *Response, streamed bool, err error)

// run makes one call: attempts with retries, the final error in words, the
// cost estimate and the trace record.
func (b *base) run(ctx context.Context, streaming bool, attempt attemptFunc) (*Response, error) {
	start := time.Now()
	size := new(atomic.Int64)
	ctx = context.WithValue(ctx, requestSizeKey{}, size)
	resp, attempts, err := b.attempts(ctx, attempt)
	var status int
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) {
			status = ae.StatusCode
		}
	} else {
		resp.RequestBytes = size.Load()
		resp.Usage.CostUSD = EstimateCost(resp.Model, resp.Usage)
		if resp.Usage.CostUSD == 0 {
			resp.Usage.CostUSD = EstimateCost(b.model, resp.Usage)
		}
	}
	if b.trace != nil {
		tags := CallTagsFrom(ctx)
		rec := CallRecord{
			TraceID:    tags.TraceID,
			Prompt:     tags.Prompt,
			Role:       tags.Role,
			Provider:   b.name,
			Model:      b.model,
			Start:      start,
			Latency:    time.Since(start),
			Attempts:   attempts,
			Streamed:   streaming,
			Outcome:    OutcomeOK,
			StatusCode: status,
		}
		rec.RequestBytes = size.Load()
		if resp != nil {
			rec.Usage = resp.Usage
			rec.StopReason = resp.StopReason
			rec.ToolCalls = len(resp.ToolCalls)
			if resp.Model != "" {
				rec.Model = resp.Model
			}
		}
		if err != nil {
			rec.Outcome = OutcomeError
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				rec.Outcome = OutcomeCanceled
			}
			rec.Error = b.redact(err.Error())
		}
		b.trace(rec)
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// attempts runs attempt until it succeeds, fails for good or runs out of
// retries, and returns the error in words.
func (b *base) attempts(ctx context.Context, attempt attemptFunc) (*Response, int, error) {
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, n, fmt.Errorf("%s: %w", b.name, err)
		}
		actx, cancel := context.WithTimeout(ctx, b.timeout)
		resp, streamed, err := attempt(actx)
		timedOut := actx.Err() != nil
		cancel()
		if err == nil {
			return resp, n + 1, nil
		}
		if ctx.Err() != nil {
			// The caller gave up; whatever the attempt saw follows from that.
			return nil, n + 1, fmt.Errorf("%s: %w", b.name, ctx.Err())
		}
		f := classify(err, timedOut)
		if !f.retryable || streamed || n >= b.policy.maxRetries {
			return nil, n + 1, b.describe(err, f, n+1)
		}
		if err := tick.Sleep(ctx, b.policy.wait(n, f.header)); err != nil {
			return nil, n + 1, fmt.Errorf("%s: %w", b.name, err)
		}
	}
}

// describe turns a failed call's error into one that says what to do.
func (b *base) describe(err error, f failure, attempts int) error {
	switch {
	case f.status != 0:
		return &APIError{
			Provider:   b.name,
			StatusCode: f.status,
			Type:       f.errType,
			Message:    b.redact(f.message),
			KeyVar:     b.keyVar,
			Attempts:   attempts,
			err:        err,
		}
	case f.timeout:
		return fmt.Errorf("%s: no answer within %s (%s): %w", b.name, b.timeout, countAttempts(attempts), ErrTimeout)
	case f.unreachable:
		hint := ""
		if b.name == ProviderOpenAI && b.baseURL != "" {
			hint = fmt.Sprintf(" — is the server running? (%s)", EnvOpenAIBaseURL)
		}
		return fmt.Errorf("%s: cannot reach %s%s (%s): %w: %w", b.name, redactURL(b.baseURL), hint, countAttempts(attempts), ErrUnreachable, err)
	default:
		return fmt.Errorf("%s: %w", b.name, err)
	}
}

// countAttempts is "1 attempt" or "n attempts".
func countAttempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return strconv.Itoa(n) + " attempts"
}

// redact removes the API key from s.
func (b *base) redact(s string) string {
	if len(b.secret) >= 8 {
		s = strings.ReplaceAll(s, b.secret, "[REDACTED]")
	}
	return s
}

// redactURL hides any user:password in u; empty u means the default server.
func redactURL(u string) string {
	if u == "" {
		return "the API"
	}
	if p, err := url.Parse(u); err == nil {
		return p.Redacted()
	}
	return u
}

// failure is what a failed attempt says about retrying.
type failure struct {
	retryable   bool
	status      int         // 0 when no HTTP status came back
	errType     string      // provider error type
	message     string      // provider error message
	header      http.Header // response headers, for retry-after
	timeout     bool        // the attempt ran past Config.Timeout
	unreachable bool        // connection-level failure
}

// classify decides whether err is worth another attempt. timedOut reports
// that the attempt's own deadline expired (the caller's context is alive).
func classify(err error, timedOut bool) failure {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		f := failure{status: ae.StatusCode, errType: string(ae.Type()), message: ae.Message}
		if ae.Response != nil {
			f.header = ae.Response.Header
		}
		// An error event inside a 200 stream: its type says what it stands for.
		if f.status < 400 {
			f.status = statusForType(f.errType)
		}
		f.retryable = retryableStatus(f.status, f.header)
		return f
	}
	var oe *openai.Error
	if errors.As(err, &oe) {
		f := failure{status: oe.StatusCode, errType: oe.Type, message: oe.Message}
		if oe.Response != nil {
			f.header = oe.Response.Header
		}
		f.retryable = retryableStatus(f.status, f.header)
		return f
	}
	if timedOut || errors.Is(err, context.DeadlineExceeded) {
		return failure{retryable: true, timeout: true}
	}
	if errors.Is(err, errStreamCut) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return failure{retryable: true}
	}
	var ne net.Error
	var ue *url.Error
	var oe2 *net.OpError
	if errors.As(err, &oe2) || errors.As(err, &ue) || errors.As(err, &ne) {
		return failure{retryable: true, unreachable: true}
	}
	return failure{}
}

// errStreamCut: a stream ended without its final event.
var errStreamCut = errors.New("stream ended before the reply was complete")

// statusForType maps an Anthropic error type to the status it stands for.
func statusForType(t string) int {
	switch t {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "api_error":
		return http.StatusInternalServerError
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "invalid_request_error":
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// retryableStatus: 408, 409, 429 and 5xx (529 included) are retried, unless
// the server says otherwise with x-should-retry. 401/403/404/400 never are:
// trying again cannot fix a key, a permission, a model name or a request.
func retryableStatus(status int, h http.Header) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return false
	}
	switch h.Get("x-should-retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// retryPolicy is exponential backoff with jitter, capped per wait.
type retryPolicy struct {
	maxRetries int
	base       time.Duration
	max        time.Duration
}

// wait is how long to wait before retry n+1 (n counts from 0): the server's
// retry-after-ms or retry-after when given, else base·2ⁿ with equal jitter;
// never more than max.
func (p retryPolicy) wait(n int, h http.Header) time.Duration {
	if d, ok := retryAfter(h, time.Now()); ok {
		return min(max(d, 0), p.max)
	}
	d := p.base << min(n, 30)
	if d <= 0 || d > p.max {
		d = p.max
	}
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter reads retry-after-ms (milliseconds) or retry-after (seconds or
// an HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := strings.TrimSpace(h.Get("retry-after")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			return time.Duration(s * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return t.Sub(now), true
		}
	}
	return 0, false
}

// requestSizeKey carries, in a call's context, where countRequest records
// the size of the request's body.
type requestSizeKey struct{}

// countRequest is the SDK middleware that records each request's body
// size for the call's trace record.
func countRequest(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if p, ok := req.Context().Value(requestSizeKey{}).(*atomic.Int64); ok && req.ContentLength > 0 {
		p.Store(req.ContentLength)
	}
	return next(req)
}
