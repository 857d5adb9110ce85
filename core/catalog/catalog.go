// Package catalog describes a database's tables and views as plain data:
// columns, keys, indexes, row counts and sample rows. It knows no engine:
// each engine (core/engine/...) reads its own catalog into these types, and
// everything above the engine seam reads only them.
package catalog

import "strings"

// Catalog describes a database's tables and views.
type Catalog struct {
	Tables []*Table `json:"tables"`
	byName map[string]*Table
}

// New returns a catalog of tables, in the order given. Lookups by name are
// case-insensitive; a table in a named schema is also found as
// "schema.name". When two tables share a name, the first one wins.
func New(tables []*Table) *Catalog {
	c := &Catalog{Tables: tables, byName: make(map[string]*Table, len(tables))}
	for _, t := range tables {
		c.index(strings.ToLower(t.Name), t)
		if t.Schema != "" {
			c.index(strings.ToLower(t.Schema+"."+t.Name), t)
		}
	}
	return c
}

func (c *Catalog) index(key string, t *Table) {
	if _, ok := c.byName[key]; !ok {
		c.byName[key] = t
	}
}

// Table is one table or view.
type Table struct {
	// Schema is the table's namespace ("public" in PostgreSQL, the
	// database in MySQL); "" for SQLite's main database.
	Schema string `json:"schema,omitempty"`
	Name   string `json:"name"`
	// Kind is "table", "view", "materialized view" or VirtualTable.
	Kind string `json:"kind"`
	// SQL is the statement that created the table, when the engine keeps
	// one (SQLite does).
	SQL     string   `json:"sql,omitempty"`
	Comment string   `json:"comment,omitempty"`
	Columns []Column `json:"columns"`
	// PrimaryKey lists the primary-key columns in key order.
	PrimaryKey  []string     `json:"primary_key,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	Indexes     []Index      `json:"indexes,omitempty"`
	// Checks are the CHECK (column IN (…)) constraints: the values a
	// column allows.
	Checks []Check `json:"checks,omitempty"`
	// RowCount is exact unless RowCountEstimated; -1 when unknown (a view
	// too slow to count).
	RowCount          int64 `json:"row_count"`
	RowCountEstimated bool  `json:"row_count_estimated,omitempty"`
	// Sample holds up to SampleRows rows, values as query rows hold them.
	Sample [][]any `json:"sample,omitempty"`
}

// VirtualTable is the Kind of a table a module provides (SQLite's
// CREATE VIRTUAL TABLE: FTS5, R*Tree…). It is queried as a table is, but
// has no indexes or keys of its own, and its module may be missing from
// the build that reads it: then its columns and rows are unknown.
const VirtualTable = "virtual table"

// Column is one column of a table or view.
type Column struct {
	Name    string  `json:"name"`
	Type    string  `json:"type"`
	NotNull bool    `json:"not_null,omitempty"`
	Default *string `json:"default,omitempty"`
	// PK is the column's position in the primary key (1-based), 0 if none.
	PK      int    `json:"pk,omitempty"`
	Hidden  bool   `json:"hidden,omitempty"`
	Comment string `json:"comment,omitempty"`
}

// ForeignKey is a reference from Columns of this table to RefColumns of
// RefTable (RefColumns empty: RefTable's primary key).
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// Index is one index of a table.
type Index struct {
	Name    string   `json:"name"`
	Unique  bool     `json:"unique,omitempty"`
	Columns []string `json:"columns"`
	// Origin: "c" CREATE INDEX, "u" UNIQUE constraint, "pk" PRIMARY KEY.
	Origin string `json:"origin"`
}

// Check is a CHECK (column IN (…)) constraint: the column and the values
// it allows, as written.
type Check struct {
	Column string   `json:"column"`
	Values []string `json:"values"`
}

// SampleRows is how many rows a catalog samples per table.
const SampleRows = 3

// SampleMaxBytes caps the bytes of one table's sample rows: a table or a
// view may hold values of any size the engine allows.
const SampleMaxBytes = 1 << 20

// Table returns the table or view called name (case-insensitive), or nil.
func (c *Catalog) Table(name string) *Table {
	return c.byName[strings.ToLower(name)]
}

// TableNames lists every table and view name.
func (c *Catalog) TableNames() []string {
	out := make([]string, len(c.Tables))
	for i, t := range c.Tables {
		out[i] = t.Name
	}
	return out
}

// ColumnNames lists the columns of table, or nil.
func (c *Catalog) ColumnNames(table string) []string {
	t := c.Table(table)
	if t == nil {
		return nil
	}
	return t.ColumnNames()
}

// ColumnNames lists the table's columns in table order.
func (t *Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		out[i] = col.Name
	}
	return out
}

// ReferencedBy lists the foreign keys of other tables that point at table,
// as "other.col → table.col" pairs.
func (c *Catalog) ReferencedBy(table string) []Reference {
	var out []Reference
	for _, t := range c.Tables {
		for _, fk := range t.ForeignKeys {
			if strings.EqualFold(fk.RefTable, table) {
				out = append(out, Reference{Table: t.Name, ForeignKey: fk})
			}
		}
	}
	return out
}

// Reference is a foreign key of Table.
type Reference struct {
	Table string
	ForeignKey
}

// Unquote removes the identifier quotes a user, a model or a CREATE text
// may put around a name: "a ""b""", `a`, [a].
func Unquote(s string) string {
	if len(s) >= 2 {
		switch {
		case s[0] == '"' && s[len(s)-1] == '"':
			return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		case s[0] == '`' && s[len(s)-1] == '`', s[0] == '[' && s[len(s)-1] == ']':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// IndexName is the name tablewise proposes for an index of table on cols
// (in fixes and advice it shows, never creates): orders_customer_id_idx.
func IndexName(table string, cols []string) string {
	return strings.ToLower(table + "_" + strings.Join(cols, "_") + "_idx")
}
