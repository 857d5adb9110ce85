package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/tools"
)

var explainSQL = coreTool(tools.NameExplainSQL, func(ctx context.Context, d *db.DB, a args) (*engine.Plan, error) {
	return tools.ExplainSQL(ctx, d, a.str("sql"), a.boolean("analyze"))
}, mcpgo.WithString("sql", mcpgo.Required()),
	mcpgo.WithBoolean("analyze"))
