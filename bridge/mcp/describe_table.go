package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var describeTable = coreTool(tools.NameDescribeTable, func(ctx context.Context, d *db.DB, a args) (*tools.TableDescription, error) {
	t, err := tools.DescribeTable(ctx, d, a.str("table"))
	if err != nil {
		return nil, err
	}
	t.Bound(a.str("columns"), 0)
	return t, nil
}, mcpgo.WithString("table", mcpgo.Required()),
	mcpgo.WithString("columns"))
