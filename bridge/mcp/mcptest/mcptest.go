// Package mcptest holds what the tests of the MCP server and of the
// tablewise mcp command share. Only tests import it.
package mcptest

import (
	"context"
	"testing"

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
	res, err := c.Initialize(ctx, init)
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
