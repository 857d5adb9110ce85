package mcp

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/db"
)

// BenchmarkRunSQLPointQuery is one run_sql point query (the latency.sh
// workload) through the in-process client: the server's own work per call
// without a transport (the client's JSON work is in the figure too).
func BenchmarkRunSQLPointQuery(b *testing.B) {
	c := connect(b, benchServer(b))
	benchPointQueries(b, c)
}

// BenchmarkRunSQLPointQueryHTTP is the same over streamable HTTP on
// 127.0.0.1.
func BenchmarkRunSQLPointQueryHTTP(b *testing.B) {
	ts := httpServer(b, benchServer(b), HTTPOptions{Addr: "127.0.0.1:0"})
	tr, err := transport.NewStreamableHTTP(ts.URL + EndpointPath)
	if err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	b.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	benchPointQueries(b, c)
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
func benchServer(b *testing.B) *Server {
	s, err := New(Options{Databases: []*db.DB{sampleDB(b)}, Version: "bench"})
	require.NoError(b, err)
	return s
}
