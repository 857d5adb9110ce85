package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/tools"
)

// The Bearer scheme is matched in any case (RFC 7235 §2.1); the token is
// not.
func TestHTTPBearerSchemeInAnyCase(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0", Token: "s3cret"})
	for _, h := range []string{"bearer s3cret", "BEARER s3cret", "Bearer   s3cret", "bEaReR s3cret"} {
		assert.Equal(t, http.StatusOK, post(t, ts.URL, map[string]string{"Authorization": h}).StatusCode, h)
	}
	for _, h := range []string{"bearer S3CRET", "Basic s3cret", "bearers3cret", "s3cret"} {
		assert.Equal(t, http.StatusUnauthorized, post(t, ts.URL, map[string]string{"Authorization": h}).StatusCode, h)
	}
}

// serve posts one JSON-RPC message straight to h (no network) with w as the
// response, in session when it is not empty, and returns the session the
// server names (initialize starts one).
func serve(h http.Handler, w http.ResponseWriter, session, body string) string {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+EndpointPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", mcpgo.ProtocolVersion20250618)
	}
	h.ServeHTTP(w, req)
	return w.Header().Get("Mcp-Session-Id")
}

// rpc posts one JSON-RPC message with a session header.
func rpc(t *testing.T, method, url, session, msg string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url+EndpointPath, strings.NewReader(msg))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", mcpgo.ProtocolVersion20250618)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// A request naming a session the server never started, or one that ended,
// is answered 404 (streamable HTTP transport, session management), so that
// the client starts a new session; a real session works.
func TestHTTPUnknownSessionIsNotFound(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0"})
	session := newSession(t, ts.URL)
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	assert.Equal(t, http.StatusOK, rpc(t, http.MethodPost, ts.URL, session, list).StatusCode, "the real session")

	madeUp := "mcp-session-6f1c1a52-3b8e-4a0e-9d55-2f1f0c6f7a10"
	assert.Equal(t, http.StatusNotFound, rpc(t, http.MethodPost, ts.URL, madeUp, list).StatusCode, "POST, made-up session")
	assert.Equal(t, http.StatusNotFound, rpc(t, http.MethodPost, ts.URL, "anything", list).StatusCode, "POST, malformed session")
	assert.Equal(t, http.StatusNotFound, rpc(t, http.MethodGet, ts.URL, madeUp, "").StatusCode, "GET, made-up session")
	assert.Equal(t, http.StatusNotFound, rpc(t, http.MethodDelete, ts.URL, madeUp, "").StatusCode, "DELETE, made-up session")

	assert.Equal(t, http.StatusOK, rpc(t, http.MethodDelete, ts.URL, session, "").StatusCode, "ending the real session")
	assert.Equal(t, http.StatusNotFound, rpc(t, http.MethodPost, ts.URL, session, list).StatusCode, "the ended session")
}

// The sessions remembered are bounded: the least recently used one is
// ended to make room.
func TestSessionsAreBounded(t *testing.T) {
	ss := newSessions(2)
	var mu sync.Mutex
	ended := map[string]bool{}
	done := make(chan struct{}, 1)
	ss.end = func(id string) {
		mu.Lock()
		ended[id] = true
		mu.Unlock()
		done <- struct{}{}
	}
	a, b := ss.Generate(), ss.Generate()
	_, err := ss.Validate(a) // a is now the most recently used
	require.NoError(t, err)
	c := ss.Generate()
	<-done
	_, err = ss.Validate(b)
	assert.Error(t, err, "the least recently used session is gone")
	for _, id := range []string{a, c} {
		_, err := ss.Validate(id)
		assert.NoError(t, err)
	}
	mu.Lock()
	assert.Equal(t, map[string]bool{b: true}, ended)
	mu.Unlock()
	assert.Equal(t, 2, ss.len())
}

// A call that finds every slot taken waits, then is answered "busy" without
// running; once the slot is free, calls run again.
func TestCallsBeyondTheSlotsAreBusy(t *testing.T) {
	s := newServer(t, sampleDB(t))
	s.slots = newCallSlots(1, 50*time.Millisecond)
	c := connect(t, s)
	release, err := s.slots.acquire(context.Background()) // a call that runs
	require.NoError(t, err)
	msg := errResult(t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT 1"}))
	assert.Contains(t, msg, "server busy: 1 tool calls are already running")
	assert.Contains(t, msg, "retry in a moment")
	release()
	r := okResult[tools.SQLResult](t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT 1"}))
	assert.Equal(t, float64(1), r.Rows[0][0], "the slot is free again")
	assert.Empty(t, s.slots.ch)
}

// Over HTTP a call keeps its slot until its response is written: building
// and writing a big response is where the memory goes.
func TestHTTPCallHoldsItsSlotUntilWritten(t *testing.T) {
	s := newServer(t, sampleDB(t))
	s.slots = newCallSlots(1, time.Second)
	h, err := s.NewHTTPHandler(HTTPOptions{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	init := httptest.NewRecorder()
	session := serve(h, init, "", initBody)
	require.Equal(t, http.StatusOK, init.Code, init.Body.String())
	w := &slotWatcher{header: http.Header{}, slots: s.slots}
	serve(h, w, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT 1"}}}`)
	assert.Positive(t, w.writes)
	assert.Zero(t, w.freeWhileWriting, "the slot was free while the response was written")
	assert.Empty(t, s.slots.ch, "the slot is released once the response is written")
}

type slotWatcher struct {
	header                   http.Header
	slots                    *callSlots
	writes, freeWhileWriting int
}

func (w *slotWatcher) Header() http.Header { return w.header }
func (w *slotWatcher) WriteHeader(int)     {}
func (w *slotWatcher) Flush()              {}
func (w *slotWatcher) Write(p []byte) (int, error) {
	w.writes++
	if len(w.slots.ch) == 0 {
		w.freeWhileWriting++
	}
	return len(p), nil
}

// A client that drips its body is cut off at the body deadline with 408;
// the connection does not stay open.
func TestHTTPBodyDeadline(t *testing.T) {
	old := bodyTimeout
	bodyTimeout = 300 * time.Millisecond
	t.Cleanup(func() { bodyTimeout = old })
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0"})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", EndpointPath)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer within 5 s: the server waits for the body forever")
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	var msg struct {
		Error struct{ Message string } `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
	assert.Contains(t, msg.Error.Message, "request body not received within 300ms")
}

// The body deadline bounds reading the body only: a call that runs longer
// still gets its answer.
func TestHTTPBodyDeadlineDoesNotCutTheCall(t *testing.T) {
	old := bodyTimeout
	bodyTimeout = 10 * time.Millisecond
	t.Cleanup(func() { bodyTimeout = old })
	s := newServer(t, sampleDB(t))
	ts := httpServer(t, s, HTTPOptions{Addr: "127.0.0.1:0"})
	init := post(t, ts.URL, nil)
	require.Equal(t, http.StatusOK, init.StatusCode)
	// A call that outlasts the body deadline (this one takes about 20 ms,
	// and well within run_sql's 5 s deadline under the race detector on a
	// busy machine) still gets its answer.
	const slowSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100000) SELECT count(*) FROM c"
	start := time.Now()
	resp := rpc(t, http.MethodPost, ts.URL, init.Header.Get("Mcp-Session-Id"),
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"`+slowSQL+`"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body(t, resp), "100000")
	assert.Greater(t, time.Since(start), bodyTimeout, "the call did not outlast the body deadline: the test tests nothing")
}

// An evicted session is ended in mcp-go too, as a client's DELETE would
// end it: requests naming it are then answered 404.
func TestEndSessionEndsItInTheTransport(t *testing.T) {
	h, err := newServer(t, sampleDB(t)).NewHTTPHandler(HTTPOptions{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	session := serve(h, httptest.NewRecorder(), "", initBody)
	require.NotEmpty(t, session)
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	ok := httptest.NewRecorder()
	serve(h, ok, session, list)
	require.Equal(t, http.StatusOK, ok.Code)
	endSession(h.streamable, session)
	gone := httptest.NewRecorder()
	serve(h, gone, session, list)
	assert.Equal(t, http.StatusNotFound, gone.Code, gone.Body.String())
}
