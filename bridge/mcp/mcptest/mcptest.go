// Package mcptest holds what the tests of the MCP server and of the
// tablewise mcp command share. Only tests import it.
package mcptest

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Buffer is a bytes.Buffer safe for a server goroutine (or its logger) to
// write while the test reads.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Initialize starts c and runs the MCP handshake as the client name; an
// error fails the test.
func Initialize(t testing.TB, c *client.Client, name string) {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
}

// Call calls the tool name with args and returns its result; a Go error
// fails the test, as it means a bug (errors a model can act on are
// results).
func Call(t testing.TB, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	var req mcpgo.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v (a Go error means a bug; model-fixable errors are results)", name, err)
	}
	return res
}
