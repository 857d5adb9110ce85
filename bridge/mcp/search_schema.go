package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

var searchSchema = tool{
	name: tools.NameSearchSchema,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("query", mcpgo.Required()),
		mcpgo.WithString("detail", mcpgo.Enum(tools.DetailNames, tools.DetailSummary, tools.DetailFull),
			mcpgo.DefaultString(tools.DetailSummary),
			mcpgo.Description("names is cheapest; summary adds joins; full adds cards")),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(tools.MaxSearchLimit), mcpgo.DefaultNumber(tools.DefaultSearchLimit)),
		outputSchema[tools.SearchResult](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		q, err := a.need("query")
		if err != nil {
			return nil, err
		}
		r, err := tools.SearchSchema(ctx, d, q, a.str("detail"), a.int("limit", 0))
		if err != nil {
			return nil, &argError{err.Error()}
		}
		return structured(r), nil
	},
}
