package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var runSQL = coreTool(tools.NameRunSQL, func(ctx context.Context, d *db.DB, a args) (*tools.SQLResult, error) {
	return tools.RunSQL(ctx, d, a.str("sql"), a.int("max_rows", 0))
},
	mcpgo.WithString("sql", mcpgo.Required()),
	mcpgo.WithInteger("max_rows", mcpgo.Min(1), mcpgo.Max(tools.MaxMaxRows), mcpgo.DefaultNumber(tools.DefaultMaxRows)))
