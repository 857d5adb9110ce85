package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var listTables = coreTool(tools.NameListTables, func(ctx context.Context, d *db.DB, a args) (*tools.TableList, error) {
	return tools.ListTables(ctx, d, tools.ListOptions{Pattern: a.str("pattern"), Limit: a.int("limit", 0), Offset: a.int("offset", 0)})
},
	mcpgo.WithString("pattern"),
	mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(tools.MaxListLimit)),
	mcpgo.WithInteger("offset", mcpgo.Min(0)))
