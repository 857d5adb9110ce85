package db

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/internal/lite"
)

// Catalog describes a database's tables and views.
type Catalog struct {
	Tables []*Table `json:"tables"`
	byName map[string]*Table
}

// Table is one table or view.
type Table struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // "table" or "view"
	SQL     string   `json:"sql,omitempty"`
	Columns []Column `json:"columns"`
	// PrimaryKey lists the primary-key columns in key order.
	PrimaryKey  []string     `json:"primary_key,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	Indexes     []Index      `json:"indexes,omitempty"`
	// RowCount is exact unless RowCountEstimated; -1 when unknown (a view
	// too slow to count).
	RowCount          int64 `json:"row_count"`
	RowCountEstimated bool  `json:"row_count_estimated,omitempty"`
	// Sample holds up to SampleRows rows, values as query rows hold them.
	Sample [][]any `json:"sample,omitempty"`
}

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

// SampleRows is how many rows Catalog samples per table.
const SampleRows = 3

// Count budgets: a table whose count(*) takes longer is estimated instead.
var (
	countBudgetPerTable = 250 * time.Millisecond
	countBudgetTotal    = 2 * time.Second
)

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
	out := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		out[i] = col.Name
	}
	return out
}

var _ guard.Names = (*Catalog)(nil)

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

// Catalog reads (once, then cached) the tables, views, columns, keys,
// indexes, row counts and sample rows.
func (d *DB) Catalog(ctx context.Context) (*Catalog, error) {
	d.catMu.Lock()
	defer d.catMu.Unlock()
	if d.catalog != nil {
		return d.catalog, nil
	}
	var cat *Catalog
	err := d.Conn(ctx, func(c *lite.Conn) error {
		var err error
		cat, err = readCatalog(ctx, c)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	d.catalog = cat
	return cat, nil
}

func readCatalog(ctx context.Context, c *lite.Conn) (*Catalog, error) {
	rows, err := all(c, `SELECT type, name, coalesce(sql, '') FROM sqlite_schema
		WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY type, name COLLATE NOCASE`)
	if err != nil {
		return nil, err
	}
	cat := &Catalog{byName: map[string]*Table{}}
	for _, r := range rows {
		t := &Table{Kind: r[0].(string), Name: r[1].(string), SQL: r[2].(string)}
		if strings.HasPrefix(strings.ToUpper(t.SQL), "CREATE VIRTUAL") {
			continue // virtual tables need modules that may not be present
		}
		cat.Tables = append(cat.Tables, t)
		cat.byName[strings.ToLower(t.Name)] = t
	}
	deadline := time.Now().Add(countBudgetTotal)
	for _, t := range cat.Tables {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := describe(c, t); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		countRows(c, t, deadline)
		if t.Sample, err = all(c, "SELECT * FROM "+QuoteIdent(t.Name)+" LIMIT "+fmt.Sprint(SampleRows)); err != nil {
			t.Sample = nil // a broken view still gets its card
		}
	}
	return cat, nil
}

func describe(c *lite.Conn, t *Table) error {
	comments := columnComments(t.SQL)
	cols, err := all(c, "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo("+QuoteString(t.Name)+")")
	if err != nil {
		return err
	}
	type pkCol struct {
		name string
		pos  int
	}
	var pks []pkCol
	for _, r := range cols {
		col := Column{Name: asString(r[0]), Type: asString(r[1]), NotNull: asInt(r[2]) != 0, PK: int(asInt(r[4])), Hidden: asInt(r[5]) != 0}
		if r[3] != nil {
			s := asString(r[3])
			col.Default = &s
		}
		col.Comment = comments[strings.ToLower(col.Name)]
		if col.Hidden {
			continue
		}
		if col.PK > 0 {
			pks = append(pks, pkCol{col.Name, col.PK})
		}
		t.Columns = append(t.Columns, col)
	}
	sort.Slice(pks, func(i, j int) bool { return pks[i].pos < pks[j].pos })
	for _, p := range pks {
		t.PrimaryKey = append(t.PrimaryKey, p.name)
	}
	if t.Kind != "table" {
		return nil
	}
	fks, err := all(c, "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list("+QuoteString(t.Name)+") ORDER BY id, seq")
	if err != nil {
		return err
	}
	lastID := int64(-1)
	for _, r := range fks {
		if id := asInt(r[0]); id != lastID {
			lastID = id
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{RefTable: asString(r[2])})
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, asString(r[3]))
		if r[4] != nil {
			fk.RefColumns = append(fk.RefColumns, asString(r[4]))
		}
	}
	idx, err := all(c, "SELECT name, \"unique\", origin FROM pragma_index_list("+QuoteString(t.Name)+") ORDER BY name")
	if err != nil {
		return err
	}
	for _, r := range idx {
		ix := Index{Name: asString(r[0]), Unique: asInt(r[1]) != 0, Origin: asString(r[2])}
		icols, err := all(c, "SELECT name FROM pragma_index_info("+QuoteString(ix.Name)+") ORDER BY seqno")
		if err != nil {
			return err
		}
		for _, ic := range icols {
			ix.Columns = append(ix.Columns, asString(ic[0]))
		}
		t.Indexes = append(t.Indexes, ix)
	}
	return nil
}

// countRows counts exactly within the budget, else estimates.
func countRows(c *lite.Conn, t *Table, deadline time.Time) {
	budget := min(countBudgetPerTable, time.Until(deadline))
	t.RowCount = -1
	if budget > 0 {
		stop := c.InterruptAfter(budget, nil)
		rows, err := all(c, "SELECT count(*) FROM "+QuoteIdent(t.Name))
		stop()
		if err == nil && len(rows) == 1 {
			t.RowCount = asInt(rows[0][0])
			return
		}
	}
	if t.Kind != "table" {
		return
	}
	// max(rowid) is one b-tree descent: an upper bound, exact when no row
	// was ever deleted.
	if rows, err := all(c, "SELECT max(rowid) FROM "+QuoteIdent(t.Name)); err == nil && len(rows) == 1 && rows[0][0] != nil {
		t.RowCount = asInt(rows[0][0])
		t.RowCountEstimated = true
	}
}

// columnComments reads "-- comment" lines in a CREATE TABLE text: a
// comment on a column's own line, or comment lines just before it.
func columnComments(create string) map[string]string {
	out := map[string]string{}
	open := strings.IndexByte(create, '(')
	if open < 0 {
		return out
	}
	var pending []string
	for _, line := range strings.Split(create[open+1:], "\n") {
		line = strings.TrimSpace(line)
		code, comment, hasComment := strings.Cut(line, "--")
		code = strings.TrimSpace(code)
		comment = strings.TrimSpace(comment)
		if hasComment && strings.HasPrefix(comment, "Stats:") {
			comment = ""
		}
		if code == "" {
			if comment != "" {
				pending = append(pending, comment)
			}
			continue
		}
		var names []string
		for _, seg := range splitTopLevel(code) {
			name := leadingIdent(strings.TrimSpace(seg))
			switch strings.ToUpper(name) {
			case "", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "CONSTRAINT":
				continue
			}
			names = append(names, name)
		}
		if len(names) == 0 {
			pending = nil
			continue
		}
		if len(pending) > 0 {
			out[strings.ToLower(names[0])] = strings.Join(pending, "; ")
		}
		if comment != "" {
			last := strings.ToLower(names[len(names)-1])
			if prev := out[last]; prev != "" {
				comment = prev + "; " + comment
			}
			out[last] = comment
		}
		pending = nil
	}
	return out
}

// splitTopLevel splits a line of column definitions at commas outside
// parentheses and quotes.
func splitTopLevel(code string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '[':
			quote = ']'
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

func leadingIdent(code string) string {
	if code == "" {
		return ""
	}
	switch q := code[0]; q {
	case '"', '`', '[':
		end := byte(q)
		if q == '[' {
			end = ']'
		}
		if i := strings.IndexByte(code[1:], end); i >= 0 {
			return code[1 : i+1]
		}
		return ""
	}
	i := strings.IndexAny(code, " \t,(")
	if i < 0 {
		return strings.TrimRight(code, ",)")
	}
	return code[:i]
}

// all runs one internal catalog query through the guard and collects it.
func all(c *lite.Conn, sql string) ([][]any, error) {
	stmt, err := guard.Prepare(c, sql)
	if err != nil {
		return nil, err
	}
	defer stmt.Finalize()
	n := stmt.ColumnCount()
	var out [][]any
	for {
		more, err := stmt.Step()
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		row := make([]any, n)
		for i := range row {
			row[i] = stmt.Value(i)
		}
		out = append(out, row)
	}
}

// QuoteIdent quotes a name for SQLite: "Order Details", "order".
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteString quotes a string literal for SQLite.
func QuoteString(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

// QuoteIdentIfNeeded quotes name only when it is not a plain identifier or
// is a keyword people trip on.
func QuoteIdentIfNeeded(name string) string {
	if name == "" {
		return `""`
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return QuoteIdent(name)
		}
	}
	switch strings.ToUpper(name) {
	case "ORDER", "GROUP", "SELECT", "FROM", "WHERE", "TABLE", "INDEX", "KEY", "MATCH", "LIMIT", "OFFSET",
		"CASE", "WHEN", "END", "CHECK", "DEFAULT", "VALUES", "UNION", "JOIN", "TO", "IN", "IS", "AS", "BY",
		"ON", "NOT", "NULL", "AND", "OR", "TRANSACTION", "REFERENCES", "PRIMARY", "FOREIGN", "UNIQUE", "ALL", "SET":
		return QuoteIdent(name)
	}
	return name
}
