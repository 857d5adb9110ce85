package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var sampleValues = coreTool(tools.NameSampleValues, func(ctx context.Context, d *db.DB, a args) (*tools.ValueSample, error) {
	return tools.SampleValues(ctx, d, a.str("table"), a.str("column"), a.str("like"), a.int("limit", 0))
},
	mcpgo.WithString("table", mcpgo.Required()),
	mcpgo.WithString("column", mcpgo.Required()),
	mcpgo.WithString("like", mcpgo.Description("substring or LIKE pattern")),
	mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(tools.MaxSampleLimit), mcpgo.DefaultNumber(tools.DefaultSampleLimit)))
