package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// BenchmarkRunSQLPointQuery is one run_sql point query (the latency.sh
// workload) through the in-process client: the server's own work per call
// without a transport (the client's JSON work is in the figure too).
func BenchmarkRunSQLPointQuery(b *testing.B) {
	c := connect(b, benchServer(b, sampleDB(b)))
	benchPointQueries(b, c)
}

// BenchmarkRunSQLPointQueryHTTP is the same over streamable HTTP on
// 127.0.0.1.
func BenchmarkRunSQLPointQueryHTTP(b *testing.B) {
	ts := httpServer(b, benchServer(b, sampleDB(b)), HTTPOptions{Addr: "127.0.0.1:0"})
	tr, err := transport.NewStreamableHTTP(ts.URL + EndpointPath)
	if err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	b.Cleanup(func() { c.Close() })
	mcptest.Initialize(b, c, "bench")
	benchPointQueries(b, c)
}

// BenchmarkRunSQLPointQueryStdio is the same through the stdio transport
// as tablewise mcp serves it, driven with raw JSON-RPC lines: the figure
// is the server's and the transport's work per call, with no client
// decoding the answer. cpu-ns/op is the CPU time the process spent per
// call (the server's and the lines' writing and reading), which other
// work on the machine disturbs less than the wall time.
func BenchmarkRunSQLPointQueryStdio(b *testing.B) {
	benchStdio(b, benchServer(b, sampleDB(b)))
}

// BenchmarkRunSQLPointQueryStdioPostgres is the same on a PostgreSQL
// copy of the sample (latency.sh --postgres).
func BenchmarkRunSQLPointQueryStdioPostgres(b *testing.B) {
	d, err := db.Open(context.Background(), servers.PostgresSample(b), db.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { d.Close() })
	benchStdio(b, benchServer(b, d))
}

func benchStdio(b *testing.B, s *Server) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW) }()
	b.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	out := bufio.NewReader(outR)
	roundTrip := func(line string) string {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
		resp, err := out.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		b.Fatal(err)
	}
	n := 0
	for i := 0; b.Loop(); i++ {
		n++
		resp := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT * FROM customers WHERE customer_id = %d"}}}`, i+2, 1+i%2400))
		if !strings.Contains(resp, `"row_count":1`) || strings.Contains(resp, `"isError":true`) {
			b.Fatalf("answer %s", resp)
		}
	}
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		b.Fatal(err)
	}
	cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
}

func benchPointQueries(b *testing.B, c *client.Client) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var req mcpgo.CallToolRequest
		req.Params.Name = "run_sql"
		req.Params.Arguments = map[string]any{"sql": fmt.Sprintf("SELECT * FROM customers WHERE customer_id = %d", 1+i%2400)}
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// benchServer is a server as tablewise mcp builds it: unlike the tests'
// servers, it does not validate results against their output schemas.
func benchServer(b *testing.B, d *db.DB) *Server {
	s, err := New(Options{Databases: []*db.DB{d}, Version: "bench"})
	require.NoError(b, err)
	return s
}

// bigResultSQL returns 1,000 rows of 8 KiB of text each: 8.2 MB, just
// under run_sql's 8 MiB cap.
const bigResultSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000) " +
	"SELECT x, replace(hex(zeroblob(4096)), '00', 'ab') AS pad FROM c"

// BenchmarkRunSQL8MBHTTP is one run_sql call returning 8 MB through the
// streamable HTTP handler, with the response written to a sink that
// discards it: B/op is the server's own Go memory per call (no client
// decodes in this process).
func BenchmarkRunSQL8MBHTTP(b *testing.B) {
	h, err := benchServer(b, sampleDB(b)).NewHTTPHandler(HTTPOptions{Addr: "127.0.0.1:0"})
	require.NoError(b, err)
	b.Cleanup(func() { _ = h.Close(context.Background()) })
	init := httptest.NewRecorder()
	session := serve(h, init, "", initBody)
	require.Equal(b, http.StatusOK, init.Code, init.Body.String())
	call, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "run_sql", "arguments": map[string]any{"sql": bigResultSQL, "max_rows": 1000}}})
	require.NoError(b, err)
	b.ReportAllocs()
	var w discardWriter
	for b.Loop() {
		w = discardWriter{header: http.Header{}}
		serve(h, &w, session, string(call))
		if w.n < 8_000_000 || w.code != http.StatusOK {
			b.Fatalf("status %d, %d bytes", w.code, w.n)
		}
	}
	b.ReportMetric(float64(w.n)/1e6, "MB/response")
}

// discardWriter is an http.ResponseWriter that counts and drops the body.
type discardWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}
func (w *discardWriter) Flush() {}
