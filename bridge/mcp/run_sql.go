package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var runSQL = tool{
	name: tools.NameRunSQL,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("sql", mcpgo.Required()),
		mcpgo.WithInteger("max_rows", mcpgo.Min(1), mcpgo.Max(tools.MaxMaxRows), mcpgo.DefaultNumber(tools.DefaultMaxRows)),
		outputSchema[tools.SQLResult](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		sql, err := a.need("sql")
		if err != nil {
			return nil, err
		}
		r, err := tools.RunSQL(ctx, d, sql, a.int("max_rows", 0))
		if err != nil {
			return nil, err
		}
		return structured(r), nil
	},
}
