// Package trace writes one JSON line per model call and per tool call, so a
// question's cost and path can be read afterwards. Secrets never reach it:
// model call records come from core/llm with keys redacted, and tool inputs
// are SQL and names.
package trace

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/config"
	"github.com/tablewise/tablewise/core/llm"
)

// Event is one line of the trace.
type Event struct {
	Time time.Time `json:"time"`
	// Kind is "model", "tool", "review" (the independent review of an
	// answer's SQL: Input the SQL, OK approved, Summary the verdict and
	// reason) or "escalate" (Summary: to which model, and why).
	Kind     string `json:"kind"`
	TraceID  string `json:"trace_id,omitempty"`
	Question string `json:"question,omitempty"`
	// Prompt is the version of the agent's prompts ("v1").
	Prompt string `json:"prompt,omitempty"`
	// Model calls.
	Model *llm.CallRecord `json:"model,omitempty"`
	// Tool calls.
	Tool    string `json:"tool,omitempty"`
	Input   string `json:"input,omitempty"`
	OK      bool   `json:"ok"`
	Summary string `json:"summary,omitempty"`
	// Notes are what checking a statement's result found (core/verify):
	// literals that do not occur, empty results, joins repeating rows.
	Notes     []string `json:"notes,omitempty"`
	LatencyMS int64    `json:"latency_ms"`
}

// Writer appends events as JSON lines. It is safe for concurrent use; a nil
// *Writer discards everything.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	c   io.Closer
	enc *json.Encoder
}

// New writes to w.
func New(w io.Writer) *Writer { return &Writer{w: w, enc: json.NewEncoder(w)} }

// Open appends to the file at path, creating it (and its directory).
func Open(path string) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// O_NONBLOCK: opening a named pipe for writing waits in the kernel
	// until a reader opens it, where no deadline or signal reaches; with
	// it, a pipe nobody reads is an error at once (it changes nothing for
	// a file).
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("trace %s: %w", path, atomicfile.NoReader(path, nil))
	}
	if err != nil {
		return nil, err
	}
	t := New(f)
	t.c = f
	return t, nil
}

// DefaultPath is where traces go unless configured: tablewise/trace.jsonl
// in the state directory.
func DefaultPath() string {
	return filepath.Join(config.StateDir(), "tablewise", "trace.jsonl")
}

// Write appends one event.
func (t *Writer) Write(e Event) {
	if t == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.enc.Encode(e)
}

// ModelCall records a model call; pass it to llm.WithTrace.
func (t *Writer) ModelCall(r llm.CallRecord) {
	if t == nil {
		return
	}
	t.Write(Event{Time: r.Start, Kind: "model", TraceID: r.TraceID, Prompt: r.Prompt, Model: &r, OK: r.Outcome == llm.OutcomeOK, LatencyMS: r.Latency.Milliseconds()})
}

// NewID returns a new trace id: 16 random hex digits.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Close closes the file Open opened.
func (t *Writer) Close() error {
	if t == nil || t.c == nil {
		return nil
	}
	return t.c.Close()
}
