package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
)

func runSchema(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("schema")
	dbPath := fs.String("db", "", "SQLite database file or file: URI (default: the built-in sample)")
	format := fs.String("format", "text", "output format: text or json")
	names, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usagef("schema: unknown format %q (choose text or json)", *format)
	}
	d, err := openDB(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	cat, err := d.Catalog(ctx)
	if err != nil {
		return err
	}
	tables := cat.Tables
	if len(names) > 0 {
		tables = nil
		for _, n := range names {
			t := cat.Table(n)
			if t == nil {
				hint := "tablewise schema lists every table"
				if near := guard.Nearest(n, cat.TableNames(), 3); len(near) > 0 {
					hint = "did you mean " + strings.Join(near, ", ") + "? (" + hint + ")"
				}
				return usagef("schema: no such table: %s — %s", n, hint)
			}
			tables = append(tables, t)
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Database string      `json:"database"`
			Tables   []*db.Table `json:"tables"`
		}{d.Label(), tables})
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(s.out)
		}
		writeTableCard(s.out, cat, t)
	}
	return nil
}

// writeTableCard prints one table: its columns with types and keys, the
// foreign keys both ways, indexes and row count.
func writeTableCard(w io.Writer, cat *db.Catalog, t *db.Table) {
	fmt.Fprintf(w, "%s %s (%s)\n", t.Kind, t.Name, rowCount(t))
	fk := map[string]string{}
	for _, f := range t.ForeignKeys {
		for i, c := range f.Columns {
			ref := f.RefTable
			if i < len(f.RefColumns) {
				ref += "." + f.RefColumns[i]
			}
			fk[c] = ref
		}
	}
	nameW, typeW := 0, 0
	for _, c := range t.Columns {
		nameW, typeW = max(nameW, len(c.Name)), max(typeW, len(c.Type))
	}
	for _, c := range t.Columns {
		var marks []string
		if c.PK > 0 {
			marks = append(marks, "PK")
		}
		if ref, ok := fk[c.Name]; ok {
			marks = append(marks, "FK → "+ref)
		}
		if c.NotNull {
			marks = append(marks, "NOT NULL")
		}
		line := fmt.Sprintf("  %-*s  %-*s  %s", nameW, c.Name, typeW, c.Type, strings.Join(marks, ", "))
		if c.Comment != "" {
			line += "  -- " + c.Comment
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	for _, r := range cat.ReferencedBy(t.Name) {
		fmt.Fprintf(w, "  ← %s.%s\n", r.Table, strings.Join(r.Columns, ", "))
	}
	for _, ix := range t.Indexes {
		if ix.Origin == "pk" {
			continue
		}
		u := ""
		if ix.Unique {
			u = "unique "
		}
		fmt.Fprintf(w, "  %sindex %s (%s)\n", u, ix.Name, strings.Join(ix.Columns, ", "))
	}
}

func rowCount(t *db.Table) string {
	switch {
	case t.RowCount < 0:
		return "row count unknown"
	case t.RowCountEstimated:
		return fmt.Sprintf("about %s rows", thousands(t.RowCount))
	case t.RowCount == 1:
		return "1 row"
	}
	return thousands(t.RowCount) + " rows"
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// printSchemaSummary lists tables with row and column counts.
func printSchemaSummary(ctx context.Context, d *db.DB, s *streams) error {
	cat, err := d.Catalog(ctx)
	if err != nil {
		return err
	}
	w := 0
	for _, t := range cat.Tables {
		w = max(w, len(t.Name))
	}
	for _, t := range cat.Tables {
		fmt.Fprintf(s.out, "  %-*s  %-5s  %3d columns  %s\n", w, t.Name, t.Kind, len(t.Columns), rowCount(t))
	}
	fmt.Fprintln(s.out, "\nTry:  tablewise sql \"SELECT * FROM "+firstTable(cat)+" LIMIT 5\"")
	return nil
}

func firstTable(cat *db.Catalog) string {
	for _, t := range cat.Tables {
		if t.Kind == "table" {
			return db.QuoteIdentIfNeeded(t.Name)
		}
	}
	return "sqlite_schema"
}
