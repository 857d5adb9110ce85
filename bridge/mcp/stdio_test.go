package mcp

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/tools"
)

func TestServeStdio(t *testing.T) {
	s := newServer(t, sampleDB(t))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW) }()

	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))), client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: "stdio-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	require.NoError(t, err)
	assert.Equal(t, "tablewise", res.ServerInfo.Name)
	assert.Equal(t, "test", res.ServerInfo.Version)

	r := okResult[tools.SQLResult](t, call(t, c, "run_sql", map[string]any{"sql": "SELECT count(*) FROM orders"}))
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
