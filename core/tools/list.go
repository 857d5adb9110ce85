package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/tablewise/tablewise/core/db"
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
}

// TableList is what ListTables returns.
type TableList struct {
	Tables []TableSummary `json:"tables"`
}

// ListTables lists every table and view with its row count, column count
// and a one-line description. Tables come first, then views, each by name.
func ListTables(ctx context.Context, d *db.DB) (*TableList, error) {
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := &TableList{Tables: []TableSummary{}}
	for _, kind := range []string{"table", "view"} {
		for _, t := range cat.Tables {
			if t.Kind != kind {
				continue
			}
			out.Tables = append(out.Tables, TableSummary{
				Name:              t.Name,
				Kind:              t.Kind,
				RowCount:          t.RowCount,
				RowCountEstimated: t.RowCountEstimated,
				Columns:           len(t.Columns),
				Description:       Describe(cat, t),
			})
		}
	}
	return out, nil
}

// Describe is a one-line description of t: its leading comment if it has
// one, else derived from its shape: "12 columns; references customers,
// employees; referenced by order_items" or "view, 4 columns; reads orders".
func Describe(cat *db.Catalog, t *db.Table) string {
	if c := tableComment(t.SQL); c != "" {
		return clip(c, 200)
	}
	parts := []string{plural(len(t.Columns), "column")}
	if t.Kind == "view" {
		parts[0] = "view, " + parts[0]
		if r := viewReads(cat, t); len(r) > 0 {
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

var fromJoin = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+("(?:[^"]|"")+"|\[[^\]]+\]|` + "`[^`]+`" + `|[\p{L}_][\p{L}\p{N}_$]*)`)

// viewReads names the tables and views a view's definition reads from.
func viewReads(cat *db.Catalog, t *db.Table) []string {
	var out []string
	for _, m := range fromJoin.FindAllStringSubmatch(t.SQL, -1) {
		if r := cat.Table(unquote(m[1])); r != nil && r != t {
			out = appendUnique(out, ident(r.Name))
		}
	}
	return out
}

// Text renders the list one table per line:
//
//	orders  table  11,887 rows  12 cols  references customers, …
func (l *TableList) Text() string {
	var b strings.Builder
	w := 0
	for _, t := range l.Tables {
		w = max(w, len(ident(t.Name)))
	}
	fmt.Fprintf(&b, "tables and views: %d\n", len(l.Tables))
	for _, t := range l.Tables {
		fmt.Fprintf(&b, "%-*s  %-5s  %s, %d cols — %s\n", w, ident(t.Name), t.Kind, rowCountText(t.RowCount, t.RowCountEstimated), t.Columns, t.Description)
	}
	return b.String()
}
