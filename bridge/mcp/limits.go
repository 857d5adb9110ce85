package mcp

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/tablewise/tablewise/core/fault"
)

// Bounds that keep the server's memory flat whatever its clients do. A
// run_sql result may be 8 MB of values, and building its response costs a
// few times that in Go memory, so the number of tool calls that run at once
// is what bounds the server.
const (
	// DefaultMaxConcurrentCalls is how many tool calls run at once.
	DefaultMaxConcurrentCalls = 4
	// callSlotWait is how long a call waits for a free slot before it is
	// answered "busy".
	callSlotWait = 3 * time.Second
	// maxBodyBytes bounds a request body: one JSON-RPC message with at most
	// 100 KB of SQL fits several times over, however it is escaped.
	maxBodyBytes = 512 << 10

	// maxInFlight bounds the POST requests handled at once over HTTP (each
	// holds its body); more are answered 503 with Retry-After.
	maxInFlight = 64
	// maxSessions bounds the sessions remembered; the least recently used
	// one is ended (as a DELETE would) to make room.
	maxSessions = 1000

	// maxStreams bounds the GET streams held open at once (each holds a
	// connection, its buffers and a goroutine until the client leaves):
	// one per remembered session. More are answered 503 with Retry-After.
	maxStreams = maxSessions
)

// bodyTimeout bounds reading a request body, so that a client cannot hold a
// request open by dripping its body (a variable for tests).
var bodyTimeout = 10 * time.Second

// busyError answers a tool call that found no free slot in time.
func busyError(running int) error {
	return fault.New(fault.Limit, fmt.Sprintf("server busy: %d tool calls are already running", running), "retry in a moment; the call did not run")
}

// callSlots bounds the tool calls that run at once.
type callSlots struct {
	ch   chan struct{}
	wait time.Duration
}

func newCallSlots(n int, wait time.Duration) *callSlots {
	return &callSlots{ch: make(chan struct{}, n), wait: wait}
}

// acquire takes a slot, waiting at most c.wait, and returns its release.
func (c *callSlots) acquire(ctx context.Context) (release func(), err error) {
	select {
	case c.ch <- struct{}{}:
	default:
		t := time.NewTimer(c.wait)
		defer t.Stop()
		select {
		case c.ch <- struct{}{}:
		case <-t.C:
			return nil, busyError(cap(c.ch))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return sync.OnceFunc(func() { <-c.ch }), nil
}

// slotHolder keeps the call slots taken while serving one HTTP request
// until its response is written: building and writing a big response
// costs more memory than running the query.
type slotHolder struct {
	mu       sync.Mutex
	releases []func()
}

type slotHolderKey struct{}

// holdUntilWritten hands release to the HTTP request that ctx belongs to,
// if any, and reports whether it did.
func holdUntilWritten(ctx context.Context, release func()) bool {
	h, ok := ctx.Value(slotHolderKey{}).(*slotHolder)
	if !ok {
		return false
	}
	h.mu.Lock()
	h.releases = append(h.releases, release)
	h.mu.Unlock()
	return true
}

func (h *slotHolder) releaseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.releases {
		r()
	}
	h.releases = nil
}

// limitRequests bounds a POST request before the MCP handler sees it: at
// most maxInFlight at once (503 beyond), a body of at most maxBodyBytes
// (413) read within bodyTimeout (408), a write deadline of writeTimeout for
// the response, and the call slots its tool calls take held until the
// response is written. At most maxStreams GET streams are open at once
// (503 beyond); DELETE passes through.
func limitRequests(writeTimeout time.Duration, next http.Handler) http.Handler {
	inFlight := make(chan struct{}, maxInFlight)
	streams := make(chan struct{}, maxStreams)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			select {
			case streams <- struct{}{}:
				defer func() { <-streams }()
			default:
				w.Header().Set("Retry-After", "1")
				http.Error(w, fmt.Sprintf("server busy: %d streams are already open; retry in a moment", maxStreams), http.StatusServiceUnavailable)
				return
			}
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case inFlight <- struct{}{}:
			defer func() { <-inFlight }()
		default:
			w.Header().Set("Retry-After", "1")
			writeRPCError(w, http.StatusServiceUnavailable, -32000, fmt.Sprintf("server busy: %d requests are already being handled; retry in a moment", maxInFlight))
			return
		}
		rc := http.NewResponseController(w)
		body, status, err := readBody(rc, r)
		if err != nil {
			// The rest of the body is not waited for: the connection
			// closes after the answer.
			w.Header().Set("Connection", "close")
			writeRPCError(w, status, -32700, err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		h := &slotHolder{}
		defer h.releaseAll()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotHolderKey{}, h)))
	})
}

// readBody reads r's body within bodyTimeout and up to maxBodyBytes. Once
// the body is read, net/http lifts the read deadline itself as it starts
// watching the connection for the client going away.
func readBody(rc *http.ResponseController, r *http.Request) (body []byte, status int, err error) {
	if r.Body == nil {
		return nil, 0, nil
	}
	_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
	n := r.ContentLength
	if n < 0 || n > maxBodyBytes {
		n = 0
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+1))
	_, err = buf.ReadFrom(io.LimitReader(r.Body, maxBodyBytes+1))
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil, http.StatusRequestTimeout, fmt.Errorf("request body not received within %s", bodyTimeout)
	case err != nil:
		return nil, http.StatusBadRequest, fmt.Errorf("read request body: %v", err)
	case buf.Len() > maxBodyBytes:
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("request body too large: over %d KiB (SQL is limited to 100 KB)", maxBodyBytes>>10)
	}
	return buf.Bytes(), 0, nil
}

// writeRPCError answers with HTTP status and a JSON-RPC error a client can
// parse.
func writeRPCError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
}

// sessions is the server's SessionIdManager: it remembers the sessions it
// started (at most maxSessions, the least recently used ended first), so
// that a request naming any other session is answered 404 Not Found, as
// the streamable HTTP transport requires (the client then starts a new
// session). mcp-go's default only checks an ID's form.
type sessions struct {
	mu    sync.Mutex
	byID  map[string]*list.Element
	order *list.List // most recently used first
	max   int
	// end, when set, ends an evicted session's transport state; it runs
	// in its own goroutine.
	end func(id string)
}

var _ server.SessionIdManager = (*sessions)(nil)

func newSessions(max int) *sessions {
	return &sessions{byID: map[string]*list.Element{}, order: list.New(), max: max}
}

func (s *sessions) Generate() string {
	id := "mcp-session-" + rand.Text()
	s.mu.Lock()
	s.byID[id] = s.order.PushFront(id)
	var evicted []string
	for s.order.Len() > s.max {
		e := s.order.Back()
		s.order.Remove(e)
		old := e.Value.(string)
		delete(s.byID, old)
		evicted = append(evicted, old)
	}
	end := s.end
	s.mu.Unlock()
	if end != nil {
		for _, id := range evicted {
			go end(id)
		}
	}
	return id
}

// Validate accepts a session it started and has not ended.
func (s *sessions) Validate(id string) (isTerminated bool, err error) {
	if !s.known(id) {
		return false, fmt.Errorf("unknown session %q", id)
	}
	return false, nil
}

func (s *sessions) known(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[id]
	if ok {
		s.order.MoveToFront(e)
	}
	return ok
}

// Terminate forgets the session (a client's DELETE, the idle sweeper or an
// eviction).
func (s *sessions) Terminate(id string) (isNotAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byID[id]; ok {
		s.order.Remove(e)
		delete(s.byID, id)
	}
	return false, nil
}

// len is how many sessions are remembered.
func (s *sessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// requireKnownSession answers 404 to a GET or DELETE that names a session
// the server does not know (mcp-go checks only POSTs). The 2026-07-28
// protocol has no sessions and never sends the header.
func requireKnownSession(ss *sessions, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		if id != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) && !ss.known(id) {
			http.Error(w, "unknown or ended session: start a new one with initialize", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// endSession ends a session's transport state in st as a client's DELETE
// would.
func endSession(st http.Handler, id string) {
	req, err := http.NewRequest(http.MethodDelete, EndpointPath, nil)
	if err != nil {
		return
	}
	req.Header.Set(server.HeaderKeySessionID, id)
	st.ServeHTTP(discardResponse{http.Header{}}, req)
}

// discardResponse is a ResponseWriter that drops what is written.
type discardResponse struct{ h http.Header }

func (d discardResponse) Header() http.Header         { return d.h }
func (d discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (d discardResponse) WriteHeader(int)             {}
