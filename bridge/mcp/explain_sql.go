package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var explainSQL = tool{
	name: tools.NameExplainSQL,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("sql", mcpgo.Required()),
		outputSchema[tools.Plan](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		sql, err := a.need("sql")
		if err != nil {
			return nil, err
		}
		p, err := tools.ExplainSQL(ctx, d, sql)
		if err != nil {
			return nil, err
		}
		return structured(p), nil
	},
}
