package migrate

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

// SchemaContext is what someone writing a migration needs to know of the
// tables it touches: their definitions as the database has them (columns,
// keys both ways, indexes, row counts; no rows), in the engine's dialect.
type SchemaContext struct {
	Engine string                    `json:"engine"`
	Tables []*tools.TableDescription `json:"tables"`
	// Missing lists the names the migration or the caller gives that the
	// database does not have: tables the migration creates, or typos.
	Missing []string `json:"missing,omitempty"`
}

var (
	touchRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:ALTER\s+TABLE(?:\s+IF\s+EXISTS)?(?:\s+ONLY)?|DROP\s+TABLE(?:\s+IF\s+EXISTS)?|TRUNCATE(?:\s+TABLE)?|INSERT\s+INTO|UPDATE|DELETE\s+FROM|REFERENCES|INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(?:\S+\s+)?ON(?:\s+ONLY)?)\s+("(?:[^"]|"")+"|` + "`[^`]+`" + `|\[[^\]]+\]|[\w$.]+)`)
	})
	createRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bCREATE\s+(?:TEMP\s+|TEMPORARY\s+|UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|` + "`[^`]+`" + `|\[[^\]]+\]|[\w$.]+)`)
	})
)

// Schema describes the tables a migration (sql) touches, and those named
// in tables, for whoever writes it. Names the database does not have are
// listed, never an error: a migration may create them.
func Schema(ctx context.Context, d *db.DB, sql string, tables []string) (*SchemaContext, error) {
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := &SchemaContext{Engine: d.Dialect().Name(), Tables: []*tools.TableDescription{}}
	var names []string
	add := func(list *[]string, name string) {
		if name != "" && !slices.ContainsFunc(*list, func(s string) bool { return strings.EqualFold(s, name) }) {
			*list = append(*list, name)
		}
	}
	for _, m := range createRe().FindAllStringSubmatch(sql, -1) {
		if n := catalog.Unquote(m[1]); cat.Table(n) == nil {
			add(&out.Missing, n)
		}
	}
	for _, m := range touchRe().FindAllStringSubmatch(sql, -1) {
		switch strings.ToUpper(m[1]) {
		case "CASCADE", "SET", "RESTRICT", "NO": // ON UPDATE CASCADE, not a table
			continue
		}
		add(&names, catalog.Unquote(m[1]))
	}
	for _, t := range tables {
		add(&names, strings.TrimSpace(t))
	}
	for _, n := range names {
		t := cat.Table(n)
		if t == nil {
			add(&out.Missing, n)
			continue
		}
		desc, err := tools.DescribeTable(ctx, d, t.Name)
		if err != nil {
			return nil, err
		}
		// The schema, not the data: a migration's author needs no rows.
		desc.SampleColumns, desc.SampleRows, desc.Flags = nil, nil, nil
		if !slices.ContainsFunc(out.Tables, func(x *tools.TableDescription) bool { return x.Name == desc.Name }) {
			out.Tables = append(out.Tables, desc)
		}
	}
	return out, nil
}

// Text renders the context compactly: each table as describe_table shows
// it, then the tables to be created and the unknown names.
func (c *SchemaContext) Text() string {
	var b strings.Builder
	b.WriteString("engine: " + c.Engine + "\n")
	for _, t := range c.Tables {
		b.WriteString("\n" + t.Text())
		if !strings.HasSuffix(t.Text(), "\n") {
			b.WriteString("\n")
		}
	}
	if len(c.Missing) > 0 {
		b.WriteString("\nnot in the database (yet): " + strings.Join(c.Missing, ", ") + "\n")
	}
	if len(c.Tables) == 0 && len(c.Missing) == 0 {
		b.WriteString("the migration names no table\n")
	}
	return b.String()
}
