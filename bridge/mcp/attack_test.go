package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// newSession initializes a session at url and returns its ID.
func newSession(t *testing.T, url string) string {
	t.Helper()
	resp := post(t, url, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	return id
}

// TestHTTPGETStreamsAreBounded: a client that opens GET streams on one
// session without end must not grow the server without end. Each stream
// holds a connection, its buffers and a goroutine for as long as the
// client keeps it open (heartbeats keep it alive), so their number is
// bounded like the sessions are: past the bound a GET is answered 503 at
// once instead of being held open.
func TestHTTPGETStreamsAreBounded(t *testing.T) {
	ts := httpServer(t, newServer(t, sampleDB(t)), HTTPOptions{Addr: "127.0.0.1:0"})
	sid := newSession(t, ts.URL)
	addr := strings.TrimPrefix(ts.URL, "http://")

	open := func() (int, net.Conn) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n", EndpointPath, addr, sid)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		require.NoError(t, err, "no status line for a GET stream")
		var code int
		_, err = fmt.Sscanf(line, "HTTP/1.1 %d", &code)
		require.NoError(t, err, line)
		return code, c
	}
	var held []net.Conn
	for range maxSessions + 5 {
		code, c := open()
		t.Cleanup(func() { c.Close() })
		if code == http.StatusOK {
			held = append(held, c)
			continue
		}
		require.Equal(t, http.StatusServiceUnavailable, code)
	}
	require.LessOrEqual(t, len(held), maxSessions, "GET streams held open at once")

	// A stream the client closes gives its place back.
	held[0].Close()
	require.Eventually(t, func() bool {
		code, c := open()
		c.Close()
		return code == http.StatusOK
	}, 5*time.Second, 20*time.Millisecond)
}

// TestExportCSVOneHugeRowIsCapped: the byte cap holds for a row that
// alone passes it. Before, the cap was looked at only between rows, so
// a first row of two 4,000,000-byte values came back whole (an 8 MB CSV,
// and one of 45 MB values made the server hold over a gigabyte).
func TestExportCSVOneHugeRowIsCapped(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "export_csv", map[string]any{"sql": "SELECT printf('%.*c', 4000000, 'x') AS a, printf('%.*c', 4000000, 'y') AS b"})
	got := okResult[CSVExport](t, res)
	assert.True(t, got.Capped)
	assert.Equal(t, "bytes", got.CappedBy)
	assert.Equal(t, 0, got.RowCount)
	_, csv := csvOf(t, res)
	assert.True(t, csv == "a,b\r\n", "the header alone, not %d bytes", len(csv))
	assert.LessOrEqual(t, got.Bytes, exportMaxBytes)
}

// TestStdioLongLineIsBounded: a message on stdio is bounded like an HTTP
// request body. Before, the whole line was read into memory however long
// it was, and parsed (a 300 MB line took the server to 1.5 GB). A line
// longer than maxBodyBytes is now answered with an error and skipped as
// it streams past; the next message is served as usual.
func TestStdioLongLineIsBounded(t *testing.T) {
	s := newServer(t, sampleDB(t))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	out := bufio.NewReader(outR)
	call := func(line []byte) string {
		t.Helper()
		_, err := inW.Write(line)
		require.NoError(t, err)
		resp, err := out.ReadString('\n')
		require.NoError(t, err)
		return resp
	}
	require.Contains(t, call([]byte(initBody+"\n")), `"serverInfo"`)

	line := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT 1 -- ` + strings.Repeat("x", 32<<20) + `"}}}` + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := call(line)
	runtime.ReadMemStats(&after)
	assert.Contains(t, got, `"error"`)
	assert.Contains(t, got, "too large")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated reading a 32 MiB line")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, call([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")), "the next message is served")
}

// TestExportCSVOneHugeRowIsCappedOnPostgres: the same on PostgreSQL,
// where the driver reads a whole row into memory before any sink sees
// it: the run's own byte cap refuses the row as it arrives. Before, a row
// of two 48 MB values came back as a 96 MB CSV (689 MB resident).
func TestExportCSVOneHugeRowIsCappedOnPostgres(t *testing.T) {
	pg, err := db.Open(context.Background(), servers.PostgresSample(t), db.Options{Label: "shop"})
	require.NoError(t, err)
	t.Cleanup(func() { pg.Close() })
	c, _ := connectInit(t, newServer(t, pg))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := mcptest.Call(t, c, "export_csv", map[string]any{"sql": "SELECT repeat(md5(g::text), 1500000) AS a, repeat(md5(g::text), 1500000) AS b FROM generate_series(1, 1) AS g"})
	runtime.ReadMemStats(&after)
	got := okResult[CSVExport](t, res)
	assert.True(t, got.Capped)
	assert.Equal(t, "bytes", got.CappedBy)
	assert.Equal(t, 0, got.RowCount)
	assert.LessOrEqual(t, got.Bytes, exportMaxBytes)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(48<<20), "bytes allocated for an export capped at %d", exportMaxBytes)
}
