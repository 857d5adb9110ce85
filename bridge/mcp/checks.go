package mcp

import (
	"context"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/advise"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/health"
	"github.com/tablewise/tablewise/core/migrate"
	"github.com/tablewise/tablewise/core/tools"
)

// The database checks: each only reads the database, and proposes fixes
// (SQL) that it never runs. They are served when Options.Checks is set
// (tablewise mcp --checks): every tool's definition goes to the model with
// every request, and most conversations about data never need these.
func checkTools() []tool {
	return []tool{validateSchema, suggestIndex, migrationContext, validateMigration}
}

// checkTimeout bounds one check: they read more than one statement does
// (a sample of every candidate index's columns, every table's foreign
// keys), each read under its own statement deadline.
const checkTimeout = time.Minute

func documented(t tool, title, description string) tool {
	t.doc = tools.Doc{Name: t.name, Title: title, Description: description}
	t.timeout = checkTimeout
	return t
}

var validateSchema = documented(coreTool("validate_schema", func(ctx context.Context, d *db.DB, a args) (*health.Report, error) {
	var tables []string
	for _, t := range strings.Split(a.str("tables"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tables = append(tables, t)
		}
	}
	return health.Check(ctx, d, health.Options{Tables: tables})
}, mcpgo.WithString("tables", mcpgo.Description("comma-separated; default all"))),
	"Validate the schema",
	"Schema and data problems, fixes as SQL (never run): missing keys, "+
		"unindexed foreign keys, orphans.")

var suggestIndex = documented(coreTool("suggest_index", func(ctx context.Context, d *db.DB, a args) (*advise.Advice, error) {
	return advise.Advise(ctx, d, a.str("sql"))
}, mcpgo.WithString("sql", mcpgo.Required())),
	"Suggest an index",
	"Indexes that would speed up a read-only statement (never made): proven by the planner "+
		"or estimated (proof).")

var validateMigration = documented(tool{
	name: "validate_migration",
	params: []mcpgo.ToolOption{mcpgo.WithString("up", mcpgo.Required()),
		mcpgo.WithString("down", mcpgo.Description("undoes up")), outputSchema[migrate.Report]()},
	handle: func(ctx context.Context, s *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		return result(migrate.Check(ctx, d, a.str("up"), a.str("down"), migrate.Options{Scratch: s.scratch}))
	},
},
	"Validate a migration",
	"Rehearse a migration on a schema copy: "+
		"what it destroys, locks, diff, if down reverts it.")

var migrationContext = documented(coreTool("migration_context", func(ctx context.Context, d *db.DB, a args) (*migrate.SchemaContext, error) {
	if strings.TrimSpace(a.str("sql")+a.str("tables")) == "" {
		return nil, argError("give sql (the migration) or tables (comma-separated names)")
	}
	return migrate.Schema(ctx, d, a.str("sql"), strings.Split(a.str("tables"), ","))
}, mcpgo.WithString("sql"),
	mcpgo.WithString("tables", mcpgo.Description("comma-separated"))),
	"Migration context",
	"The tables a migration touches: columns, keys, indexes, row counts.")
