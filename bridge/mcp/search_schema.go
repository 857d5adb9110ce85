package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var searchSchema = coreTool(tools.NameSearchSchema, func(ctx context.Context, d *db.DB, a args) (*tools.SearchResult, error) {
	r, err := tools.SearchSchema(ctx, d, a.str("query"), a.str("detail"), a.int("limit", 0))
	if err != nil {
		return nil, argError(err.Error())
	}
	return r, nil
},
	mcpgo.WithString("query", mcpgo.Required()),
	mcpgo.WithString("detail", mcpgo.Enum(tools.DetailNames, tools.DetailSummary, tools.DetailFull),
		mcpgo.DefaultString(tools.DetailSummary),
		mcpgo.Description("names is cheapest; summary adds joins; full adds cards")),
	mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(tools.MaxSearchLimit), mcpgo.DefaultNumber(tools.DefaultSearchLimit)))
