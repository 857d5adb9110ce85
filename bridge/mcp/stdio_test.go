package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

func TestServeStdio(t *testing.T) {
	s := newServer(t, sampleDB(t))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW) }()

	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))), client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	res := mcptest.Initialize(t, c, "stdio-test")
	assert.Equal(t, "tablewise", res.ServerInfo.Name)
	assert.Equal(t, "test", res.ServerInfo.Version)

	r := okResult[tools.SQLResult](t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT count(*) FROM orders"}))
	assert.Equal(t, float64(11887), r.Rows[0][0])

	inW.Close() // the client hangs up: the server returns cleanly
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(timeout):
		t.Fatal("ServeStdio did not return when its input ended")
	}
	c.Close()
}

func TestServeStdioStopsOnCancel(t *testing.T) {
	s := newServer(t, sampleDB(t))
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, io.Discard) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(timeout):
		t.Fatal("ServeStdio did not stop on cancel")
	}
}

// rawStdio serves s on pipes and returns a function that sends one line
// and a channel of the lines the server writes.
func rawStdio(t *testing.T, s *Server) (send func(string), lines <-chan string, hangUp func(), done <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() { errc <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	send = func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { inW.Close(); outR.Close() })
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if l := <-out; !strings.Contains(l, `"serverInfo"`) {
		t.Fatalf("initialize answered %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, out, func() { inW.Close() }, errc
}

// slowSQL returns its first row at once and then runs until its deadline.
const slowSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 1 OR x = -1"

func next(t *testing.T, lines <-chan string, within time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the server closed its output")
		}
		return l
	case <-time.After(within):
		t.Fatalf("no answer within %v", within)
	}
	return ""
}

// TestServeStdioSlowCallDoesNotBlock: while a call runs, the next messages
// are read and answered: a ping is answered first, and a
// notifications/cancelled for the slow call ends it long before its
// deadline.
func TestServeStdioSlowCallDoesNotBlock(t *testing.T) {
	send, lines, _, _ := rawStdio(t, newServer(t, sampleDB(t)))
	start := time.Now()
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"` + slowSQL + `"}}}`)
	send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if l := next(t, lines, 3*time.Second); !strings.Contains(l, `"id":8`) {
		t.Fatalf("first answer %s, want the ping's", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	l := next(t, lines, 4*time.Second)
	if !strings.Contains(l, `"id":7`) {
		t.Fatalf("answer %s, want the cancelled call's", l)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the cancelled call answered after %v (its deadline is %v)", took, tools.Timeout)
	}
}

// TestServeStdioAnswersBeforeReturning: when the client hangs up during a
// call, the call is cancelled and its answer still written before
// ServeStdio returns.
func TestServeStdioAnswersBeforeReturning(t *testing.T) {
	send, lines, hangUp, done := rawStdio(t, newServer(t, sampleDB(t)))
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"` + slowSQL + `"}}}`)
	time.Sleep(50 * time.Millisecond)
	hangUp()
	if l := next(t, lines, 3*time.Second); !strings.Contains(l, `"id":9`) {
		t.Fatalf("answer %s, want the call's", l)
	}
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(timeout):
		t.Fatal("ServeStdio did not return")
	}
}

// TestServeStdioReadsCatalogAhead: serving starts reading the catalog at
// once, before any call needs it, so that the first calls of many clients
// do not all wait for one read (data/testdata/mcp-clients.sh).
func TestServeStdioReadsCatalogAhead(t *testing.T) {
	read := make(chan struct{}, 1)
	s, err := New(Options{Databases: []*db.DB{sampleDB(t)}, Version: "test", Logger: slog.New(seenHandler{catalogAheadMsg, read})})
	require.NoError(t, err)
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, io.Discard) }()
	// The read of the sample's whole catalog takes 0.2 s, and 7 s under
	// the race detector on a loaded machine: the wait is for the read to
	// happen with no call, not for its speed.
	select {
	case <-read:
	case <-time.After(60 * time.Second):
		t.Fatal("the catalog was not read before any call")
	}
	inW.Close()
	require.NoError(t, <-done)
}

// seenHandler is a slog.Handler that signals seen when a record with
// message msg is logged without an error attribute.
type seenHandler struct {
	msg  string
	seen chan struct{}
}

func (h seenHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h seenHandler) Handle(_ context.Context, r slog.Record) error {
	failed := false
	r.Attrs(func(a slog.Attr) bool {
		failed = failed || a.Key == "err"
		return true
	})
	if r.Message == h.msg && !failed {
		select {
		case h.seen <- struct{}{}:
		default:
		}
	}
	return nil
}
func (h seenHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h seenHandler) WithGroup(string) slog.Handler      { return h }

// TestEncodeLineIsMarshal: every message goes out as json.Marshal writes
// it, a tool's answer (written from its own MarshalJSON) included.
func TestEncodeLineIsMarshal(t *testing.T) {
	tricky := "<b> & \u2028\u2029 \"quoted\" \\ \x7f é\n\t"
	structured := mcpgo.NewToolResultStructured(map[string]any{"rows": []any{[]any{1, tricky, nil}}, "html": "<&>"}, tricky)
	withMeta := mcpgo.NewToolResultText(tricky)
	withMeta.Meta = &mcpgo.Meta{AdditionalFields: map[string]any{"k": "<v>"}}
	raw := mcpgo.NewToolResultText("x")
	raw.RawStructuredContent = json.RawMessage(`{ "a" : [1, 2,"<"] }`)
	results := []*mcpgo.CallToolResult{
		structured, withMeta, raw,
		mcpgo.NewToolResultError(tricky),
		mcpgo.NewToolResultText(""),
		{},
	}
	var msgs []mcpgo.JSONRPCMessage
	for _, id := range []any{1, int64(1) << 53, "id-<&>", nil} {
		for _, r := range results {
			msgs = append(msgs, mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(id), r), mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(id), *r))
		}
		msgs = append(msgs,
			mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(id), (*mcpgo.CallToolResult)(nil)),
			mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(id), mcpgo.EmptyResult{}),
			mcpgo.NewJSONRPCError(mcpgo.NewRequestId(id), mcpgo.INTERNAL_ERROR, tricky, nil))
	}
	msgs = append(msgs, mcpgo.NewLoggingMessageNotification(mcpgo.LoggingLevelInfo, Name, tricky))
	for _, m := range msgs {
		want, err := json.Marshal(m)
		require.NoError(t, err)
		got, err := encodeLine(m)
		require.NoError(t, err)
		assert.Equal(t, string(want)+"\n", string(got))
	}
	bad := mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(1), mcpgo.NewToolResultStructured(math.NaN(), "x"))
	_, want := json.Marshal(bad)
	_, got := encodeLine(bad)
	require.Error(t, want)
	assert.Equal(t, want.Error(), got.Error())
}
