package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
)

// ColumnInfo is one column of a described table.
type ColumnInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// PK is the column's position in the primary key (1-based), 0 if none.
	PK      int     `json:"pk,omitempty"`
	NotNull bool    `json:"not_null,omitempty"`
	Default *string `json:"default,omitempty"`
	Comment string  `json:"comment,omitempty"`
	// References is the column this one points at: customers.customer_id.
	References string `json:"references,omitempty"`
	// AllowedValues lists every value a CHECK (col IN (…)) constraint
	// allows.
	AllowedValues []string `json:"allowed_values,omitempty"`
}

// ForeignKeyInfo is a foreign key from Table.Columns to RefTable.RefColumns.
type ForeignKeyInfo struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// Join is the SQL join condition the foreign key stands for, names quoted
// as dl needs.
func (fk ForeignKeyInfo) Join(dl engine.Dialect) string {
	ident := dl.QuoteIdentIfNeeded
	var conds []string
	for i, c := range fk.Columns {
		ref := "?"
		if i < len(fk.RefColumns) {
			ref = fk.RefColumns[i]
		}
		conds = append(conds, ident(fk.Table)+"."+ident(c)+" = "+ident(fk.RefTable)+"."+ident(ref))
	}
	return strings.Join(conds, " AND ")
}

// IndexInfo is one index.
type IndexInfo struct {
	Name    string   `json:"name"`
	Unique  bool     `json:"unique,omitempty"`
	Columns []string `json:"columns"`
}

// TableDescription is what DescribeTable returns.
type TableDescription struct {
	Name              string `json:"name"`
	Kind              string `json:"kind"`
	Description       string `json:"description"`
	RowCount          int64  `json:"row_count"`
	RowCountEstimated bool   `json:"row_count_estimated,omitempty"`
	// Definition is a view's CREATE VIEW text.
	Definition string       `json:"definition,omitempty"`
	Columns    []ColumnInfo `json:"columns"`
	PrimaryKey []string     `json:"primary_key"`
	// ForeignKeys are this table's references to others; ReferencedBy are
	// other tables' references to this one.
	ForeignKeys  []ForeignKeyInfo `json:"foreign_keys"`
	ReferencedBy []ForeignKeyInfo `json:"referenced_by"`
	Indexes      []IndexInfo      `json:"indexes"`
	// SampleColumns and SampleRows hold up to three rows of the table.
	SampleColumns []string `json:"sample_columns"`
	SampleRows    Rows     `json:"sample_rows"`
	// Flags mark sample values that read like instructions to a model.
	Flags []Flag `json:"flags,omitempty"`
	// ColumnsTotal, when not 0, is how many columns the table has: Columns
	// holds those matching ColumnPattern, or the first ones (Bound).
	ColumnsTotal  int    `json:"columns_total,omitempty"`
	ColumnPattern string `json:"-"`
	// JoinsOmitted counts joins left out of ForeignKeys and ReferencedBy.
	JoinsOmitted int `json:"-"`

	dl engine.Dialect // quotes names in Text
}

// DescribeTable describes one table or view: columns (type, key, not
// null, default, comment, allowed values), primary key, foreign keys both
// ways, indexes and sample rows. An unknown table is a *NotFoundError that
// names the nearest tables.
func DescribeTable(ctx context.Context, d *db.DB, table string) (*TableDescription, error) {
	cat, t, err := findTable(ctx, d, table)
	if err != nil {
		return nil, err
	}
	dl := d.Dialect()
	out := &TableDescription{
		dl:                dl,
		Name:              t.Name,
		Kind:              t.Kind,
		Description:       Describe(dl, cat, t),
		RowCount:          t.RowCount,
		RowCountEstimated: t.RowCountEstimated,
		Columns:           []ColumnInfo{},
		PrimaryKey:        append([]string{}, t.PrimaryKey...),
		ForeignKeys:       []ForeignKeyInfo{},
		ReferencedBy:      []ForeignKeyInfo{},
		Indexes:           []IndexInfo{},
		SampleColumns:     t.ColumnNames(),
		SampleRows:        Rows(sampleRows(t)),
	}
	if t.Kind != "table" {
		out.Definition = t.SQL
	}
	refs := fkTargets(dl, t)
	allowed := map[string][]string{}
	for _, ch := range t.Checks {
		allowed[strings.ToLower(ch.Column)] = ch.Values
	}
	for _, c := range t.Columns {
		out.Columns = append(out.Columns, ColumnInfo{
			Name: c.Name, Type: c.Type, PK: c.PK, NotNull: c.NotNull, Default: c.Default, Comment: c.Comment,
			References:    refs[strings.ToLower(c.Name)],
			AllowedValues: allowed[strings.ToLower(c.Name)],
		})
	}
	for _, fk := range t.ForeignKeys {
		out.ForeignKeys = append(out.ForeignKeys, fkInfo(cat, t.Name, fk))
	}
	for _, r := range cat.ReferencedBy(t.Name) {
		out.ReferencedBy = append(out.ReferencedBy, fkInfo(cat, r.Table, r.ForeignKey))
	}
	for _, ix := range t.Indexes {
		if ix.Origin == "pk" {
			continue
		}
		out.Indexes = append(out.Indexes, IndexInfo{Name: ix.Name, Unique: ix.Unique, Columns: ix.Columns})
	}
	out.Flags = ScanRows(out.SampleColumns, out.SampleRows)
	return out, nil
}

// fkInfo fills in the referenced table's primary key when a foreign key
// names no columns (REFERENCES customers).
func fkInfo(cat *catalog.Catalog, table string, fk catalog.ForeignKey) ForeignKeyInfo {
	out := ForeignKeyInfo{Table: table, Columns: fk.Columns, RefTable: fk.RefTable, RefColumns: fk.RefColumns}
	if len(out.RefColumns) == 0 {
		if rt := cat.Table(fk.RefTable); rt != nil {
			out.RefColumns = rt.PrimaryKey
		}
	}
	if out.RefColumns == nil {
		out.RefColumns = []string{}
	}
	return out
}

// Text renders the description for a model.
func (t *TableDescription) Text() string {
	ident := t.dl.QuoteIdentIfNeeded
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s — %s; %s\n", t.Kind, ident(t.Name), format.RowCount(t.RowCount, t.RowCountEstimated), t.Description)
	if t.ColumnsTotal > 0 {
		what := "the first"
		if t.ColumnPattern != "" {
			what = fmt.Sprintf("those matching %q (and the key),", t.ColumnPattern)
		}
		fmt.Fprintf(&b, "columns: %d of %d, %s; describe_table with columns=PATTERN (e.g. %s) shows others:\n", len(t.Columns), t.ColumnsTotal, what, "*date*")
	} else {
		b.WriteString("columns:\n")
	}
	for _, c := range t.Columns {
		b.WriteString("  ")
		b.WriteString(ident(c.Name))
		if c.Type != "" {
			b.WriteString(" " + c.Type)
		}
		if c.PK > 0 {
			b.WriteString(" PK")
		}
		if c.NotNull {
			b.WriteString(" NOT NULL")
		}
		if c.Default != nil {
			b.WriteString(" DEFAULT " + *c.Default)
		}
		if c.References != "" {
			b.WriteString(" → " + c.References)
		}
		if len(c.AllowedValues) > 0 {
			b.WriteString(" one of: " + strings.Join(c.AllowedValues, ", "))
		}
		if c.Comment != "" {
			b.WriteString(" -- " + c.Comment)
		}
		b.WriteByte('\n')
	}
	if len(t.PrimaryKey) > 1 {
		fmt.Fprintf(&b, "primary key: (%s)\n", joinIdents(t.dl, t.PrimaryKey))
	}
	if len(t.ForeignKeys) > 0 {
		b.WriteString("references (join on):\n")
		for _, fk := range t.ForeignKeys {
			b.WriteString("  " + fk.Join(t.dl) + "\n")
		}
	}
	if len(t.ReferencedBy) > 0 {
		b.WriteString("referenced by (join on):\n")
		for _, fk := range t.ReferencedBy {
			b.WriteString("  " + fk.Join(t.dl) + "\n")
		}
	}
	if t.JoinsOmitted > 0 {
		fmt.Fprintf(&b, "(%d more joins not listed)\n", t.JoinsOmitted)
	}
	if len(t.Indexes) > 0 {
		b.WriteString("indexes:")
		for i, ix := range t.Indexes {
			if i > 0 {
				b.WriteByte(',')
			}
			u := ""
			if ix.Unique {
				u = "unique "
			}
			fmt.Fprintf(&b, " %s%s(%s)", u, ix.Name, joinIdents(t.dl, ix.Columns))
		}
		b.WriteByte('\n')
	}
	if t.Definition != "" {
		b.WriteString("definition:\n" + t.Definition + "\n")
	}
	if len(t.SampleRows) > 0 {
		fmt.Fprintf(&b, "sample rows (%s):\n", DataNotice)
		writeRows(&b, t.SampleColumns, t.SampleRows)
		writeFlags(&b, t.Flags)
	}
	return b.String()
}

func joinIdents(dl engine.Dialect, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = dl.QuoteIdentIfNeeded(n)
	}
	return strings.Join(out, ", ")
}
