package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

const nameListDatabases = "list_databases"

var listDatabases = tool{
	name:   nameListDatabases,
	global: true,
	doc: tools.Doc{
		Name:  nameListDatabases,
		Title: "List databases",
		Description: "List the databases served: label, file, table and view counts, total rows. " +
			"Every other tool takes one of these labels as its database argument.",
	},
	params: []mcpgo.ToolOption{outputSchema[DatabaseList]()},
	handle: handleListDatabases,
}

// DatabaseInfo describes one served database.
type DatabaseInfo struct {
	Label  string `json:"label"`
	File   string `json:"file"`
	Tables int    `json:"tables"`
	Views  int    `json:"views"`
	// Rows adds up the tables' row counts (views are not counted).
	Rows int64 `json:"rows"`
}

// DatabaseList is what list_databases returns.
type DatabaseList struct {
	Databases []DatabaseInfo `json:"databases"`
}

// Text renders one database per line.
func (l *DatabaseList) Text() string {
	var b strings.Builder
	for _, d := range l.Databases {
		fmt.Fprintf(&b, "%s  %s — %d tables, %d views, %d rows\n", d.Label, d.File, d.Tables, d.Views, d.Rows)
	}
	return b.String()
}

func handleListDatabases(ctx context.Context, s *Server, _ *db.DB, _ args) (*mcpgo.CallToolResult, error) {
	out := &DatabaseList{Databases: []DatabaseInfo{}}
	for _, d := range s.dbs.list {
		cat, err := d.Catalog(ctx)
		if err != nil {
			return nil, err
		}
		info := DatabaseInfo{Label: d.Label(), File: baseName(d.Source())}
		for _, t := range cat.Tables {
			if t.Kind == "view" {
				info.Views++
				continue
			}
			info.Tables++
			if t.RowCount > 0 {
				info.Rows += t.RowCount
			}
		}
		out.Databases = append(out.Databases, info)
	}
	return structured(out), nil
}

// baseName is the last element of a path: clients see file names, not
// where the files live.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
