package mcp

import (
	"context"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestServerNamesItsEngines: what the server tells a client about itself
// (its title, the instructions the client gives its model, the prompts'
// text) names the SQL dialect of each database it serves, so a model over
// PostgreSQL is not told to write SQLite.
func TestServerNamesItsEngines(t *testing.T) {
	pg, err := db.Open(context.Background(), servers.PostgresSample(t), db.Options{Label: "shop"})
	require.NoError(t, err)
	t.Cleanup(func() { pg.Close() })
	dialect := pg.Dialect().Name() // "PostgreSQL 15"
	require.Contains(t, dialect, "PostgreSQL")

	c, init := connectInit(t, newServer(t, pg))
	assert.Equal(t, "tablewise — read-only SQL over "+dialect, init.ServerInfo.Title)
	assert.Contains(t, init.Instructions, "the "+dialect+` database "shop"`)
	assert.NotContains(t, init.Instructions, "SQLite")

	var req mcpgo.GetPromptRequest
	for _, name := range []string{"explore-database", "answer-question"} {
		req.Params.Name = name
		req.Params.Arguments = map[string]string{"question": "How many orders?"}
		res, err := c.GetPrompt(context.Background(), req)
		require.NoError(t, err, name)
		tc, ok := mcpgo.AsTextContent(res.Messages[0].Content)
		require.True(t, ok)
		assert.Contains(t, tc.Text, "the "+dialect+` database "shop"`, name)
		assert.NotContains(t, tc.Text, "SQLite", name)
	}

	// Two engines: each database is named with its own.
	m := newServer(t, sampleDB(t), pg)
	assert.Contains(t, instructions(m.dbs), "2 databases (sample: SQLite, shop: "+dialect+")")
	assert.Equal(t, "tablewise — read-only SQL over SQLite and "+dialect, title(m.dbs))
}
