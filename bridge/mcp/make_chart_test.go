package mcp

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
)

// image returns the decoded PNG of a result.
func imageOf(t *testing.T, res *mcpgo.CallToolResult) []byte {
	t.Helper()
	for _, c := range res.Content {
		if ic, ok := mcpgo.AsImageContent(c); ok {
			assert.Equal(t, "image/png", ic.MIMEType)
			b, err := base64.StdEncoding.DecodeString(ic.Data)
			require.NoError(t, err)
			return b
		}
	}
	t.Fatal("no image content")
	return nil
}

func TestMakeChartSuggested(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "make_chart", map[string]any{"sql": "SELECT month, revenue FROM monthly_sales ORDER BY month"})
	got := okResult[ChartResult](t, res)
	assert.True(t, got.Suggested)
	assert.Equal(t, "line", got.Spec.Kind)
	assert.Equal(t, "month", got.Spec.X)
	assert.Equal(t, "revenue", got.Spec.Y)
	assert.Equal(t, 42, got.RowCount)
	b := imageOf(t, res)
	assert.Equal(t, len(b), got.Bytes)
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, chartWidth, cfg.Width)
	assert.Equal(t, chartHeight, cfg.Height)
	assert.Contains(t, text(t, res), "line chart of month against revenue from 42 rows")
}

func TestMakeChartExplicit(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "make_chart", map[string]any{
		"sql":  "SELECT status, count(*) AS n FROM orders GROUP BY status",
		"kind": "pie", "x": "status", "y": "n", "title": "Orders by status",
	})
	got := okResult[ChartResult](t, res)
	assert.False(t, got.Suggested)
	assert.Equal(t, "Orders by status", got.Spec.Title)
	assert.Equal(t, 6, got.RowCount)
	imageOf(t, res)

	// Only a kind: x and y come from the suggestion.
	res = mcptest.Call(t, c, "make_chart", map[string]any{"sql": "SELECT status, count(*) AS n FROM orders GROUP BY status", "kind": "hbar"})
	got = okResult[ChartResult](t, res)
	assert.Equal(t, "hbar", got.Spec.Kind)
	assert.Equal(t, "status", got.Spec.X)
	assert.Equal(t, "n", got.Spec.Y)
}

func TestMakeChartErrors(t *testing.T) {
	c := sampleClient(t)
	msg := errResult(t, mcptest.Call(t, c, "make_chart", map[string]any{
		"sql": "SELECT status, count(*) AS n FROM orders GROUP BY status", "kind": "bar", "x": "status", "y": "nope",
	}))
	assert.Contains(t, msg, `y column "nope" is not in the result`)
	assert.Contains(t, msg, "hint: available columns: status, n")

	msg = errResult(t, mcptest.Call(t, c, "make_chart", map[string]any{"sql": "SELECT 'a' AS x"}))
	assert.Contains(t, msg, "no chart suits this result on its own")

	msg = errResult(t, mcptest.Call(t, c, "make_chart", map[string]any{"sql": "DELETE FROM orders"}))
	assert.Contains(t, msg, "read-only")

	msg = errResult(t, mcptest.Call(t, c, "make_chart", map[string]any{"sql": "SELECT 1 AS a, 2 AS b", "kind": "donut"}))
	assert.Contains(t, msg, "kind")
}
