package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var listTables = tool{
	name:   tools.NameListTables,
	params: []mcpgo.ToolOption{outputSchema[tools.TableList]()},
	handle: func(ctx context.Context, _ *Server, d *db.DB, _ args) (*mcpgo.CallToolResult, error) {
		l, err := tools.ListTables(ctx, d)
		if err != nil {
			return nil, err
		}
		return structured(l), nil
	},
}
