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
		mcpgo.WithString("table", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.Description("Table or view name.")),
		mcpgo.WithString("column", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.Description("Column name.")),
		mcpgo.WithString("like", mcpgo.Description("Keep only values containing this text, or matching this LIKE pattern when it holds % or _ (case-insensitive for ASCII).")),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(tools.MaxSampleLimit), mcpgo.DefaultNumber(tools.DefaultSampleLimit),
			mcpgo.Description("Most distinct values to return.")),
		mcpgo.WithOutputSchema[tools.ValueSample](),
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
