// Package mcptest holds what the tests of the MCP server and of the
// tablewise mcp command share. Only tests import it.
package mcptest

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Initialize starts c and runs the MCP handshake as the client name,
// returning the server's answer; an error fails the test.
func Initialize(t testing.TB, c *client.Client, name string) *mcpgo.InitializeResult {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "1"}
	// A server that never answers fails the test instead of hanging it
	// (Start's context is the client's for its life: not bounded).
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := c.Initialize(ictx, init)
	if err != nil {
		t.Fatal(err)
	}
	return res
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
