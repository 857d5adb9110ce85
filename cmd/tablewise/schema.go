package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/tools"
)

func runSchema(ctx context.Context, args []string, s *streams) error {
	fs, rf := newReportFlags("schema")
	names, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	d, cat, err := s.openCatalog(ctx, rf.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	tables := cat.Tables
	if len(names) > 0 {
		tables = nil
		for _, n := range names {
			t, err := tools.LookupTable(cat, n)
			if err != nil {
				return noSuchTable("schema", err)
			}
			tables = append(tables, t)
		}
	}
	if rf.format == "json" {
		return writeJSON(s, struct {
			Database string           `json:"database"`
			Tables   []*catalog.Table `json:"tables"`
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

// noSuchTable is the usage error of a command given a table that does not
// exist (a *tools.NotFoundError): its name, the nearest names and where to
// see them all. Other errors pass through.
func noSuchTable(cmd string, err error) error {
	var nf *tools.NotFoundError
	if !errors.As(err, &nf) {
		return err
	}
	hint := "tablewise schema lists every table"
	if len(nf.Nearest) > 0 {
		hint = "did you mean " + strings.Join(nf.Nearest, ", ") + "? (" + hint + ")"
	}
	return usagef("%s: %s — %s", cmd, format.PrintableLine(nf.Message()), hint)
}

// writeTableCard prints one table: its columns with types and keys, the
// foreign keys both ways, indexes and row count.
func writeTableCard(out io.Writer, cat *catalog.Catalog, t *catalog.Table) {
	// Names, types and comments come from the database: the card is made
	// printable as a whole before it reaches the terminal.
	w := &strings.Builder{}
	defer func() { io.WriteString(out, format.Printable(w.String())) }()
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

func rowCount(t *catalog.Table) string {
	switch {
	case t.RowCount < 0:
		return "row count unknown"
	case t.RowCountEstimated:
		return fmt.Sprintf("about %s rows", format.Count(t.RowCount))
	case t.RowCount == 1:
		return "1 row"
	}
	return format.Count(t.RowCount) + " rows"
}

// printSchemaSummary lists tables with row and column counts, and a
// command to try on dbPath ("" for the built-in sample).
func printSchemaSummary(ctx context.Context, d *db.DB, dbPath string, s *streams) error {
	cat, err := d.Catalog(ctx)
	if err != nil {
		return err
	}
	w := 0
	for _, t := range cat.Tables {
		w = max(w, len(format.PrintableLine(t.Name)))
	}
	for _, t := range cat.Tables {
		fmt.Fprintf(s.out, "  %-*s  %-5s  %3d columns  %s\n", w, format.PrintableLine(t.Name), t.Kind, len(t.Columns), rowCount(t))
	}
	if t := firstTable(cat); t != nil {
		dl := d.Dialect()
		on := ""
		if dbPath != "" {
			on = "--db " + shellWord(dbPath) + " "
		}
		sql := "SELECT * FROM " + format.PrintableLine(dl.QuoteIdentIfNeeded(t.Name)) + " " + dl.Limit(5)
		arg := `"` + sql + `"`
		if strings.ContainsAny(sql, "\"$`\\!") { // a quoted name ("Album"): single quotes for the shell
			arg = "'" + strings.ReplaceAll(sql, "'", `'\''`) + "'"
		}
		fmt.Fprintln(s.out, "\nTry:  tablewise sql "+format.PrintableLine(on)+arg)
	}
	return nil
}

// firstTable is the first table, else the first view, nil when there is
// neither.
func firstTable(cat *catalog.Catalog) *catalog.Table {
	for _, t := range cat.Tables {
		if t.Kind == "table" {
			return t
		}
	}
	if len(cat.Tables) > 0 {
		return cat.Tables[0]
	}
	return nil
}

// shellWord quotes w for a POSIX shell when it holds anything but
// letters, digits and . _ / , : = + -.
func shellWord(w string) string {
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._/,:=+-", c)) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}
