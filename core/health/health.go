// Package health judges a database's schema and data without changing
// them: deterministic findings (a table without a primary key, a foreign
// key without an index, duplicate indexes, rows that break a declared
// foreign key, values that disagree with their column's type, columns that
// could be NOT NULL, very wide tables), each with a severity, a code, the
// objects, why it matters and the fix as SQL for the user to run.
//
// Every statement it runs is a read through core/db (so the guard vets it)
// with its own time limit inside the caller's deadline; a table larger
// than Options.SampleRows is judged on a sample and the finding says so. A
// check that runs out of time is named in the report's notes, never
// silently dropped.
package health

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

// Severity says how much a finding matters.
type Severity string

// Severities, most serious first.
const (
	Error   Severity = "error"   // the data is wrong: rows break a rule
	Warning Severity = "warning" // the schema invites wrong data or slow queries
	Info    Severity = "info"    // an improvement worth considering
)

// Codes of the findings.
const (
	NoPrimaryKey     = "no-primary-key"
	UnindexedFK      = "fk-without-index"
	DuplicateIndex   = "duplicate-index"
	RedundantIndex   = "redundant-index"
	OrphanRows       = "orphan-rows"
	TypeMismatch     = "type-mismatch"
	MixedDateFormats = "mixed-date-formats"
	NotNullCandidate = "not-null-candidate"
	WideTable        = "wide-table"
)

// Finding is one problem found.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	// Objects names what the finding is about: "orders",
	// "orders.customer_id", "index idx_a".
	Objects []string `json:"objects"`
	// Why says in one line what is wrong and why it matters.
	Why string `json:"why"`
	// Fix is SQL that repairs it (or, where the engine cannot change a
	// table in place, the SQL that shows the rows and a comment on what
	// to do). tablewise never runs it.
	Fix string `json:"fix"`
	// Sampled: the finding comes from a sample of the table's rows.
	Sampled bool `json:"sampled,omitempty"`
}

// Report is the result of Check.
type Report struct {
	Database string    `json:"database"`
	Engine   string    `json:"engine"`
	Tables   int       `json:"tables_checked"`
	Findings []Finding `json:"findings"`
	// Notes say what was sampled or left out for time.
	Notes []string `json:"notes,omitempty"`
}

// Options tune Check.
type Options struct {
	// Tables limits the checks to these tables (all when empty).
	Tables []string
	// SampleRows: a table with more rows is judged on its first
	// SampleRows rows (default 100,000).
	SampleRows int64
	// QueryTimeout bounds each statement (default 5 s).
	QueryTimeout time.Duration
	// WideColumns: a table with more columns is reported as wide
	// (default 50).
	WideColumns int
}

func (o *Options) defaults() {
	if o.SampleRows <= 0 {
		o.SampleRows = 100_000
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = 5 * time.Second
	}
	if o.WideColumns <= 0 {
		o.WideColumns = 50
	}
}

// Check runs every check on d's tables within ctx.
func Check(ctx context.Context, d *db.DB, opt Options) (*Report, error) {
	opt.defaults()
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	var tables []*catalog.Table
	if len(opt.Tables) == 0 {
		for _, t := range cat.Tables {
			if t.Kind == "table" {
				tables = append(tables, t)
			}
		}
	} else {
		for _, n := range opt.Tables {
			t, err := tools.LookupTable(cat, n)
			if err != nil {
				return nil, err // a *tools.NotFoundError naming the nearest tables
			}
			tables = append(tables, t)
		}
	}
	c := &checker{ctx: ctx, d: d, cat: cat, opt: opt, eng: d.Engine().Name(), tables: tables}
	c.rep = &Report{Database: d.Label(), Engine: d.Dialect().Name(), Tables: len(tables), Findings: []Finding{}}
	for _, t := range tables {
		if ctx.Err() != nil {
			c.note("%s: not checked, the deadline passed", t.Name)
			continue
		}
		c.primaryKey(t)
		c.indexes(t)
		c.foreignKeys(t)
		c.wide(t)
		c.columns(t)
	}
	if ctx.Err() == nil {
		c.server()
	}
	slices.SortStableFunc(c.rep.Findings, func(a, b Finding) int { return rank(a.Severity) - rank(b.Severity) })
	return c.rep, nil
}

// Text renders the report for people: a summary line, then each finding
// with its why and its fix. Names and values in it come from the
// database: a terminal renderer passes it through format.Printable.
func (r *Report) Text() string {
	w := &strings.Builder{}
	fmt.Fprintf(w, "Health of %s (%s): %s checked, %s.\n", r.Database, r.Engine,
		format.Plural(int64(r.Tables), "table"), format.Plural(int64(len(r.Findings)), "finding"))
	for _, f := range r.Findings {
		fmt.Fprintf(w, "\n%-7s %s  %s\n", f.Severity, f.Code, strings.Join(f.Objects, ", "))
		fmt.Fprintf(w, "  %s\n", f.Why)
		fmt.Fprintf(w, "  fix:\n    %s\n", strings.ReplaceAll(f.Fix, "\n", "\n    "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "\ntablewise only reads the database: it runs none of these fixes.")
	}
	return w.String()
}

func rank(s Severity) int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

type checker struct {
	ctx context.Context
	d   *db.DB
	cat *catalog.Catalog
	opt Options
	eng string // the engine's name: sqlite, postgres, mysql
	rep *Report
	// tables are the tables checked.
	tables []*catalog.Table
}

func (c *checker) add(f Finding) { c.rep.Findings = append(c.rep.Findings, f) }

func (c *checker) note(f string, args ...any) {
	c.rep.Notes = append(c.rep.Notes, fmt.Sprintf(f, args...))
}

func (c *checker) q(name string) string { return c.d.Dialect().QuoteIdentIfNeeded(name) }

// query runs one bounded read; a failure becomes a note naming what was
// not checked.
func (c *checker) query(what, sql string, maxRows int) *query.Result {
	res, err := query.Collect(c.ctx, c.d, sql, query.Options{MaxRows: maxRows, Timeout: c.opt.QueryTimeout})
	if err != nil {
		if errors.Is(err, query.ErrDeadline) || c.ctx.Err() != nil {
			c.note("%s: not checked, it took longer than %s", what, format.Seconds(c.opt.QueryTimeout))
		} else {
			c.note("%s: not checked: %v", what, err)
		}
		return nil
	}
	return res
}

// sampled reports whether t is judged on a sample, and the FROM clause
// that reads what is judged.
func (c *checker) from(t *catalog.Table) (string, bool) {
	name := c.q(t.Name)
	if t.RowCount >= 0 && t.RowCount <= c.opt.SampleRows {
		return name, false
	}
	return fmt.Sprintf("(SELECT * FROM %s %s) AS s", name, c.d.Dialect().Limit(int(c.opt.SampleRows))), true
}

func (c *checker) primaryKey(t *catalog.Table) {
	if len(t.PrimaryKey) > 0 {
		return
	}
	f := Finding{Severity: Warning, Code: NoPrimaryKey, Objects: []string{t.Name},
		Why: "the table has no primary key: rows cannot be told apart or referenced, and duplicates go unnoticed"}
	key := c.keyCandidate(t)
	switch {
	case c.eng == "sqlite" && key != "":
		f.Fix = fmt.Sprintf("-- SQLite cannot add a primary key to an existing table: recreate %s with PRIMARY KEY (%s), copying its rows", c.q(t.Name), c.q(key))
	case c.eng == "sqlite":
		f.Fix = fmt.Sprintf("-- SQLite cannot add a primary key to an existing table: recreate %s with an INTEGER PRIMARY KEY column, copying its rows", c.q(t.Name))
	case key != "":
		f.Fix = fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s);", c.q(t.Name), c.q(key))
	default:
		f.Fix = fmt.Sprintf("-- no unique NOT NULL column to promote: add a key column to %s, then ALTER TABLE %s ADD PRIMARY KEY (…);", c.q(t.Name), c.q(t.Name))
	}
	c.add(f)
}

// keyCandidate is a single NOT NULL column with a unique index, or "".
func (c *checker) keyCandidate(t *catalog.Table) string {
	for _, ix := range t.Indexes {
		if !ix.Unique || len(ix.Columns) != 1 {
			continue
		}
		for _, col := range t.Columns {
			if strings.EqualFold(col.Name, ix.Columns[0]) && col.NotNull {
				return col.Name
			}
		}
	}
	return ""
}

// indexed reports whether some index of t (or its primary key) starts
// with cols, in any order.
func indexed(t *catalog.Table, cols []string) bool {
	covers := func(lead []string) bool {
		if len(lead) < len(cols) {
			return false
		}
		for _, c := range cols {
			if !slices.ContainsFunc(lead[:len(cols)], func(x string) bool { return strings.EqualFold(x, c) }) {
				return false
			}
		}
		return true
	}
	if covers(t.PrimaryKey) {
		return true
	}
	for _, ix := range t.Indexes {
		if covers(ix.Columns) {
			return true
		}
	}
	return false
}

func (c *checker) indexes(t *catalog.Table) {
	all := slices.Clone(t.Indexes)
	if len(t.PrimaryKey) > 0 && !slices.ContainsFunc(all, func(ix catalog.Index) bool { return ix.Origin == "pk" }) {
		all = append(all, catalog.Index{Name: "PRIMARY KEY", Unique: true, Columns: t.PrimaryKey, Origin: "pk"})
	}
	// keeps reports whether b is the one to keep of two indexes with the
	// same columns: the one that enforces something, else the first.
	keeps := func(a, b catalog.Index, ai, bi int) bool {
		if (a.Origin == "pk") != (b.Origin == "pk") {
			return b.Origin == "pk"
		}
		if a.Unique != b.Unique {
			return b.Unique
		}
		return bi < ai
	}
	reported := map[int]bool{}
	for i, a := range all {
		if a.Origin == "pk" {
			continue
		}
		for j, b := range all {
			if i == j || reported[i] || reported[j] {
				continue
			}
			switch {
			case equalFold(a.Columns, b.Columns) && keeps(a, b, i, j):
				reported[i] = true
				c.add(Finding{Severity: Warning, Code: DuplicateIndex, Objects: []string{t.Name, "index " + a.Name, "index " + b.Name},
					Why: fmt.Sprintf("index %s has the same columns (%s) as %s: every write maintains both and queries use one", a.Name, strings.Join(a.Columns, ", "), b.Name),
					Fix: c.dropIndex(t, a),
				})
			case !a.Unique && len(a.Columns) < len(b.Columns) && equalFold(a.Columns, b.Columns[:len(a.Columns)]):
				reported[i] = true
				c.add(Finding{Severity: Info, Code: RedundantIndex, Objects: []string{t.Name, "index " + a.Name, "index " + b.Name},
					Why: fmt.Sprintf("index %s (%s) is a prefix of %s (%s), which serves the same lookups", a.Name, strings.Join(a.Columns, ", "), b.Name, strings.Join(b.Columns, ", ")),
					Fix: c.dropIndex(t, a),
				})
			}
		}
	}
}

func (c *checker) dropIndex(t *catalog.Table, ix catalog.Index) string {
	if ix.Origin == "u" {
		return fmt.Sprintf("-- %s comes from a UNIQUE constraint: drop the constraint from %s's definition instead", ix.Name, c.q(t.Name))
	}
	if c.eng == "mysql" {
		return fmt.Sprintf("DROP INDEX %s ON %s;", c.q(ix.Name), c.q(t.Name))
	}
	return fmt.Sprintf("DROP INDEX %s;", c.q(ix.Name))
}

func equalFold(a, b []string) bool {
	return slices.EqualFunc(a, b, strings.EqualFold)
}

func (c *checker) foreignKeys(t *catalog.Table) {
	for _, fk := range t.ForeignKeys {
		obj := t.Name + "." + strings.Join(fk.Columns, ",")
		if !indexed(t, fk.Columns) {
			cols := make([]string, len(fk.Columns))
			for i, col := range fk.Columns {
				cols[i] = c.q(col)
			}
			c.add(Finding{Severity: Warning, Code: UnindexedFK, Objects: []string{obj, fk.RefTable},
				Why: fmt.Sprintf("the foreign key %s → %s has no index: joins from %s and deletes in %s scan the whole table", obj, fk.RefTable, fk.RefTable, fk.RefTable),
				Fix: fmt.Sprintf("CREATE INDEX %s ON %s (%s);", c.q(catalog.IndexName(t.Name, fk.Columns)), c.q(t.Name), strings.Join(cols, ", ")),
			})
		}
		c.orphans(t, fk, obj)
	}
}

// orphans counts the rows of t whose foreign key fk points at no row.
func (c *checker) orphans(t *catalog.Table, fk catalog.ForeignKey, obj string) {
	parent := c.cat.Table(fk.RefTable)
	if parent == nil {
		c.add(Finding{Severity: Error, Code: OrphanRows, Objects: []string{obj, fk.RefTable},
			Why: fmt.Sprintf("the foreign key %s refers to %s, which does not exist", obj, fk.RefTable),
			Fix: fmt.Sprintf("-- create %s, or recreate %s without the reference", c.q(fk.RefTable), c.q(t.Name)),
		})
		return
	}
	refs := fk.RefColumns
	if len(refs) == 0 {
		refs = parent.PrimaryKey
	}
	if len(refs) == 0 && c.eng == "sqlite" {
		refs = []string{"rowid"}
	}
	if len(refs) != len(fk.Columns) {
		c.note("%s: the reference to %s names %d columns for %d; not checked for orphans", obj, fk.RefTable, len(refs), len(fk.Columns))
		return
	}
	from, sampled := c.from(t)
	var notNull, match []string
	for i, col := range fk.Columns {
		notNull = append(notNull, "c."+c.q(col)+" IS NOT NULL")
		match = append(match, "p."+c.q(refs[i])+" = c."+c.q(col))
	}
	if sampled {
		from = strings.TrimSuffix(from, " AS s")
	} else {
		from = c.q(t.Name)
	}
	where := fmt.Sprintf("%s AND NOT EXISTS (SELECT 1 FROM %s AS p WHERE %s)", strings.Join(notNull, " AND "), c.q(parent.Name), strings.Join(match, " AND "))
	sql := fmt.Sprintf("SELECT count(*) FROM %s AS c WHERE %s", from, where)
	res := c.query("orphans of "+obj, sql, 1)
	if res == nil || len(res.Rows) != 1 {
		return
	}
	n, _ := res.Rows[0][0].(int64)
	if n == 0 {
		return
	}
	in := ""
	if sampled {
		in = fmt.Sprintf(" (in a sample of %s)", format.Plural(c.opt.SampleRows, "row"))
	}
	c.add(Finding{Severity: Error, Code: OrphanRows, Objects: []string{obj, fk.RefTable}, Sampled: sampled,
		Why: fmt.Sprintf("%s of %s%s %s to no row of %s: joins silently drop them", format.Plural(n, "row"), t.Name, in, verb(n, "refers", "refer"), parent.Name),
		Fix: fmt.Sprintf("SELECT * FROM %s AS c WHERE %s;\n-- then correct or remove those rows%s", c.q(t.Name), where, c.enforceHint()),
	})
}

func (c *checker) enforceHint() string {
	if c.eng == "sqlite" {
		return ", and have the application run PRAGMA foreign_keys = ON so SQLite enforces the key"
	}
	return ""
}

func (c *checker) wide(t *catalog.Table) {
	if len(t.Columns) <= c.opt.WideColumns {
		return
	}
	c.add(Finding{Severity: Info, Code: WideTable, Objects: []string{t.Name},
		Why: fmt.Sprintf("%s has %d columns (more than %d): wide rows are slow to read and hard to understand; columns that are often empty or belong together may be a table of their own", t.Name, len(t.Columns), c.opt.WideColumns),
		Fix: fmt.Sprintf("-- move rarely used or repeating columns of %s into a table keyed by its primary key", c.q(t.Name)),
	})
}

// minRowsForNotNull: a nullable column is a NOT NULL candidate only when
// at least this many rows show it is always filled.
const minRowsForNotNull = 10

// dateSample is how many values of a date column are read for their
// formats.
const dateSample = 1000

// columns checks the values of t's columns: nullable columns that are
// never NULL, and (SQLite, which stores any value in any column) values
// whose storage class disagrees with the declared type, and date columns
// that mix formats.
func (c *checker) columns(t *catalog.Table) {
	from, sampled := c.from(t)
	var exprs []string
	var nullable []catalog.Column
	for _, col := range t.Columns {
		if col.Hidden || col.NotNull || col.PK > 0 {
			continue
		}
		nullable = append(nullable, col)
		exprs = append(exprs, "count("+c.q(col.Name)+")")
	}
	type affinity struct {
		col   catalog.Column
		allow string
	}
	var typed []affinity
	if c.eng == "sqlite" {
		for _, col := range t.Columns {
			if col.Hidden {
				continue
			}
			if allow := storageAllowed(col.Type); allow != "" {
				typed = append(typed, affinity{col, allow})
				exprs = append(exprs, fmt.Sprintf("sum(typeof(%s) NOT IN (%s))", c.q(col.Name), allow))
			}
		}
	}
	if len(exprs) == 0 {
		return
	}
	res := c.query("the columns of "+t.Name, fmt.Sprintf("SELECT count(*), %s FROM %s", strings.Join(exprs, ", "), from), 1)
	if res == nil || len(res.Rows) != 1 {
		return
	}
	row := res.Rows[0]
	total := engine.Int64(row[0])
	in := ""
	if sampled {
		in = fmt.Sprintf(" in a sample of %s", format.Plural(c.opt.SampleRows, "row"))
	}
	if total >= minRowsForNotNull {
		var full []string
		var fixes []string
		for i, col := range nullable {
			if engine.Int64(row[1+i]) == total {
				full = append(full, col.Name)
				fixes = append(fixes, c.setNotNull(t, col))
			}
		}
		if len(full) > 0 {
			objs := make([]string, len(full))
			for i, n := range full {
				objs[i] = t.Name + "." + n
			}
			c.add(Finding{Severity: Info, Code: NotNullCandidate, Objects: objs, Sampled: sampled,
				Why: fmt.Sprintf("%s %s allowed to be NULL but never NULL in %s%s: declaring NOT NULL keeps it so and tells readers", format.Plural(int64(len(full)), "column"), verb(int64(len(full)), "is", "are"), format.Plural(total, "row"), in),
				Fix: strings.Join(fixes, "\n"),
			})
		}
	}
	for i, a := range typed {
		n := engine.Int64(row[1+len(nullable)+i])
		if n == 0 {
			continue
		}
		examples := c.examples(t, a.col, fmt.Sprintf("typeof(%s) NOT IN (%s)", c.q(a.col.Name), a.allow))
		c.add(Finding{Severity: Warning, Code: TypeMismatch, Objects: []string{t.Name + "." + a.col.Name}, Sampled: sampled,
			Why: fmt.Sprintf("%s of %s.%s (declared %s)%s %s a value of another type%s: comparisons and sums treat them differently", format.Plural(n, "row"), t.Name, a.col.Name, a.col.Type, in, verb(n, "holds", "hold"), examples),
			Fix: fmt.Sprintf("SELECT rowid, %s FROM %s WHERE typeof(%s) NOT IN (%s);\n-- then store them as %s, or correct the declared type",
				c.q(a.col.Name), c.q(t.Name), c.q(a.col.Name), a.allow, strings.ToUpper(a.col.Type)),
		})
	}
	if c.eng == "sqlite" {
		for _, col := range t.Columns {
			if isDateType(col.Type) {
				c.dateFormats(t, col)
			}
		}
	}
}

func verb(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (c *checker) setNotNull(t *catalog.Table, col catalog.Column) string {
	switch c.eng {
	case "postgres":
		return fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;", c.q(t.Name), c.q(col.Name))
	case "mysql":
		return fmt.Sprintf("ALTER TABLE %s MODIFY %s %s NOT NULL;", c.q(t.Name), c.q(col.Name), col.Type)
	}
	return fmt.Sprintf("-- SQLite cannot change a column in place: recreate %s with %s %s NOT NULL", c.q(t.Name), c.q(col.Name), col.Type)
}

// storageAllowed lists, as SQL string literals, the storage classes a
// column of SQLite declared type decl should hold (by SQLite's affinity
// rules), or "" when any is expected.
func storageAllowed(decl string) string {
	t := strings.ToUpper(decl)
	switch {
	case strings.Contains(t, "INT"):
		return "'integer', 'null'"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"), t == "", strings.Contains(t, "BLOB"):
		return ""
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "'real', 'integer', 'null'"
	case isDateType(t), strings.Contains(t, "BOOL"):
		return ""
	}
	// NUMERIC affinity (NUMERIC, DECIMAL…).
	return "'real', 'integer', 'null'"
}

func isDateType(decl string) bool {
	t := strings.ToUpper(decl)
	return strings.Contains(t, "DATE") || strings.Contains(t, "TIME")
}

// examples lists up to three values of col that match cond, for a
// finding's explanation: ` (for example "12a", "n/a")`.
func (c *checker) examples(t *catalog.Table, col catalog.Column, cond string) string {
	res := c.query("examples of "+t.Name+"."+col.Name,
		fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s %s", c.q(col.Name), c.q(t.Name), cond, c.d.Dialect().Limit(3)), 3)
	if res == nil || len(res.Rows) == 0 {
		return ""
	}
	var vals []string
	for _, r := range res.Rows {
		vals = append(vals, fmt.Sprintf("%q", format.ClipRunes(format.PrintableLine(format.Value(r[0])), 40)))
	}
	return " (for example " + strings.Join(vals, ", ") + ")"
}

// dateFormats reports a date column whose values are written in more than
// one format ("2024-03-05" beside "03/05/2024" or "2024-03-05 10:00").
func (c *checker) dateFormats(t *catalog.Table, col catalog.Column) {
	res := c.query("the date formats of "+t.Name+"."+col.Name,
		fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL %s", c.q(col.Name), c.q(t.Name), c.q(col.Name), c.d.Dialect().Limit(dateSample)), dateSample)
	if res == nil {
		return
	}
	shapes := map[string]int{}
	example := map[string]string{}
	for _, r := range res.Rows {
		s := shape(format.Value(r[0]))
		if shapes[s] == 0 {
			example[s] = format.Value(r[0])
		}
		shapes[s]++
	}
	if len(shapes) < 2 {
		return
	}
	keys := make([]string, 0, len(shapes))
	for k := range shapes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return shapes[b] - shapes[a] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d like %q", shapes[k], format.ClipRunes(format.PrintableLine(example[k]), 40)))
	}
	sampled := len(res.Rows) == dateSample
	in := ""
	if sampled {
		in = fmt.Sprintf(" (in the first %d values)", dateSample)
	}
	c.add(Finding{Severity: Warning, Code: MixedDateFormats, Objects: []string{t.Name + "." + col.Name}, Sampled: sampled,
		Why: fmt.Sprintf("%s.%s mixes %d date formats%s: %s; sorting, comparing and grouping by period give wrong answers", t.Name, col.Name, len(shapes), in, strings.Join(parts, ", ")),
		Fix: fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY 1 ORDER BY 2 DESC;\n-- rewrite every value as ISO 8601 (%q)", c.q(col.Name), c.q(t.Name), example[keys[0]]),
	})
}

// shape is a value's format: each run of digits becomes 9, letters a.
// "2024-03-05" and "1999-12-31" share 9-9-9; "3/5/2024" is 9/9/9.
func shape(s string) string {
	var b strings.Builder
	last := rune(0)
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			r = '9'
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			if r != 'T' && r != 'Z' {
				r = 'a'
			}
		}
		if r == last && (r == '9' || r == 'a') {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	return b.String()
}
