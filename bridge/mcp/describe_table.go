package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var describeTable = tool{
	name: tools.NameDescribeTable,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("table", mcpgo.Required()),
		outputSchema[tools.TableDescription](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		name, err := a.need("table")
		if err != nil {
			return nil, err
		}
		t, err := tools.DescribeTable(ctx, d, name)
		if err != nil {
			return nil, err
		}
		return structured(t), nil
	},
}
