package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var sampleValues = tool{
	name: tools.NameSampleValues,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("table", mcpgo.Required()),
		mcpgo.WithString("column", mcpgo.Required()),
		mcpgo.WithString("like", mcpgo.Description("substring or LIKE pattern")),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(tools.MaxSampleLimit), mcpgo.DefaultNumber(tools.DefaultSampleLimit)),
		outputSchema[tools.ValueSample](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		table, err := a.need("table")
		if err != nil {
			return nil, err
		}
		column, err := a.need("column")
		if err != nil {
			return nil, err
		}
		v, err := tools.SampleValues(ctx, d, table, column, a.str("like"), a.int("limit", 0))
		if err != nil {
			return nil, err
		}
		return structured(v), nil
	},
}
