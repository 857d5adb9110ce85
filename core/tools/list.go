package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
)

// TableSummary is one line of ListTables.
type TableSummary struct {
	Name string `json:"name"`
	// Kind is "table" or "view".
	Kind string `json:"kind"`
	// RowCount is -1 when unknown.
	RowCount          int64 `json:"row_count"`
	RowCountEstimated bool  `json:"row_count_estimated,omitempty"`
	Columns           int   `json:"columns"`
	// Description is the table's leading comment, or one derived from its
	// shape: "12 columns; references customers, employees".
	Description string `json:"description"`

	src *catalog.Table // until the page is cut
}

// TableList is what ListTables returns.
type TableList struct {
	Tables []TableSummary `json:"tables"`
	// Total counts the tables that match Pattern (every table without
	// one); Tables holds the page from Offset. NextOffset, when not 0, is
	// where the next page starts.
	Total      int    `json:"total"`
	Offset     int    `json:"-"`
	NextOffset int    `json:"next_offset,omitempty"`
	Pattern    string `json:"-"`

	dl  engine.Dialect   // quotes names in Text
	cat *catalog.Catalog // describes the tables of a page
}

// ListTables lists the tables and views o asks for (a name pattern, a
// page) with their row counts, column counts and one-line descriptions.
// Tables come first, then views, each by name.
func ListTables(ctx context.Context, d *db.DB, o ListOptions) (*TableList, error) {
	l, err := listAll(ctx, d)
	if err != nil {
		return nil, err
	}
	l.page(o)
	return l, nil
}

// listAll lists every table and view, without descriptions (page
// describes the tables it keeps: describing thousands costs more than
// listing them).
func listAll(ctx context.Context, d *db.DB) (*TableList, error) {
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := &TableList{Tables: []TableSummary{}, dl: d.Dialect(), cat: cat}
	for _, tables := range []bool{true, false} {
		for _, t := range cat.Tables {
			if (t.Kind == "table") != tables {
				continue
			}
			out.Tables = append(out.Tables, TableSummary{
				Name:              t.Name,
				Kind:              t.Kind,
				RowCount:          t.RowCount,
				RowCountEstimated: t.RowCountEstimated,
				Columns:           len(t.Columns),
				src:               t,
			})
		}
	}
	out.Total = len(out.Tables)
	return out, nil
}

// SummarizeTables is every table and view in at most about maxBytes (see
// TableList.Summary).
func SummarizeTables(ctx context.Context, d *db.DB, maxBytes int) (string, error) {
	l, err := listAll(ctx, d)
	if err != nil {
		return "", err
	}
	page := *l
	page.page(ListOptions{Limit: MaxListLimit})
	if text := page.Text(); page.NextOffset == 0 && len(text) <= maxBytes {
		return text, nil
	}
	return l.Summary(maxBytes), nil
}

// Describe is a one-line description of t: its leading comment if it has
// one, else derived from its shape: "12 columns; references customers,
// employees; referenced by order_items" or "view, 4 columns; reads orders".
func Describe(dl engine.Dialect, cat *catalog.Catalog, t *catalog.Table) string {
	if c := t.Comment; c != "" {
		return format.ClipRunes(c, 200)
	}
	ident := dl.QuoteIdentIfNeeded
	parts := []string{format.Plural(int64(len(t.Columns)), "column")}
	if t.Kind != "table" {
		parts[0] = t.Kind + ", " + parts[0]
		if r := viewReads(dl, cat, t); len(r) > 0 {
			parts = append(parts, "reads "+strings.Join(r, ", "))
		}
		return strings.Join(parts, "; ")
	}
	var refs []string
	for _, fk := range t.ForeignKeys {
		refs = appendUnique(refs, ident(fk.RefTable))
	}
	if len(refs) > 0 {
		parts = append(parts, "references "+strings.Join(refs, ", "))
	}
	var by []string
	for _, r := range cat.ReferencedBy(t.Name) {
		by = appendUnique(by, ident(r.Table))
	}
	if len(by) > 0 {
		parts = append(parts, "referenced by "+strings.Join(by, ", "))
	}
	return strings.Join(parts, "; ")
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return list
		}
	}
	return append(list, s)
}

var fromJoin = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+("(?:[^"]|"")+"|\[[^\]]+\]|` + "`[^`]+`" + `|[\p{L}_][\p{L}\p{N}_$]*)`)
})

// viewReads names the tables and views a view's definition reads from.
func viewReads(dl engine.Dialect, cat *catalog.Catalog, t *catalog.Table) []string {
	var out []string
	for _, m := range fromJoin().FindAllStringSubmatch(t.SQL, -1) {
		if r := cat.Table(catalog.Unquote(m[1])); r != nil && r != t {
			out = appendUnique(out, dl.QuoteIdentIfNeeded(r.Name))
		}
	}
	return out
}

// Text renders the list one table per line:
//
//	orders  table  11,887 rows  12 cols  references customers, …
func (l *TableList) Text() string {
	ident := l.dl.QuoteIdentIfNeeded
	var b strings.Builder
	w := 0
	for _, t := range l.Tables {
		w = max(w, len(ident(t.Name)))
	}
	b.WriteString(l.header() + "\n")
	for _, t := range l.Tables {
		fmt.Fprintf(&b, "%-*s  %-5s  %s, %d cols — %s\n", w, ident(t.Name), t.Kind, format.RowCount(t.RowCount, t.RowCountEstimated), t.Columns, t.Description)
	}
	return b.String()
}
