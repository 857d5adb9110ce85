package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/query"
)

// statSample bounds the rows read to estimate how selective a candidate
// index would be.
const statSample = 100_000

// TryIndexes implements engine.IndexTrier. The database is only read: its
// schema (tables and views, without triggers or virtual tables) and its
// planner statistics (sqlite_stat1 when ANALYZE was run, else estimates
// from row counts and a bounded sample of each candidate's columns) are
// copied into a private in-memory database without rows, where each
// candidate index is created in turn and the statement's plan read with
// EXPLAIN QUERY PLAN. sql is vetted by the guard on the real database
// first; in the copy it is only compiled, never run.
func (d *Engine) TryIndexes(ctx context.Context, sql string, specs []engine.IndexSpec) (*engine.Plan, []*engine.Plan, error) {
	stmt := stripExplain(sql)
	if err := d.Check(ctx, stmt); err != nil {
		return nil, nil, err
	}
	specStats := make([]string, len(specs))
	for i, s := range specs {
		var err error
		if specStats[i], err = d.specStat(ctx, s); err != nil {
			return nil, nil, err
		}
	}
	c, err := d.scratch(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	stop := c.InterruptAfter(explainTimeout, ctx)
	defer stop()
	plan := func() (*engine.Plan, error) {
		if err := c.Exec("ANALYZE sqlite_schema"); err != nil {
			return nil, err
		}
		rows, err := scratchRows(c, "EXPLAIN QUERY PLAN "+stmt)
		if err != nil {
			return nil, err
		}
		return planOf(stmt, rows), nil
	}
	before, err := plan()
	if err != nil {
		return nil, nil, d.scratchError(ctx, err)
	}
	after := make([]*engine.Plan, len(specs))
	for i, s := range specs {
		name := fmt.Sprintf("tablewise_candidate_%d", i+1)
		cols := make([]string, len(s.Columns))
		for j, col := range s.Columns {
			cols[j] = quoteIdent(col)
		}
		if err := c.Exec(fmt.Sprintf("CREATE INDEX %s ON %s (%s)", quoteIdent(name), quoteIdent(s.Table), strings.Join(cols, ", "))); err != nil {
			return nil, nil, fmt.Errorf("candidate index on %s (%s): %w", s.Table, strings.Join(s.Columns, ", "), err)
		}
		if err := c.Exec(statInsert(s.Table, name, specStats[i])); err != nil {
			return nil, nil, fmt.Errorf("scratch database: %w", err)
		}
		p, err := plan()
		if err != nil {
			return nil, nil, d.scratchError(ctx, err)
		}
		after[i] = p
		if err := c.Exec("DROP INDEX " + quoteIdent(name)); err != nil {
			return nil, nil, fmt.Errorf("scratch database: %w", err)
		}
		if err := c.Exec("DELETE FROM sqlite_stat1 WHERE idx = " + quoteString(name)); err != nil {
			return nil, nil, fmt.Errorf("scratch database: %w", err)
		}
	}
	return before, after, nil
}

// scratch opens a private in-memory database holding a copy of d's schema
// (tables, indexes and views; not triggers, not virtual tables) and, when
// stats, its planner statistics — no rows. Only d is read: its schema
// through the guard, as any statement.
func (d *Engine) scratch(ctx context.Context, stats bool) (*lite.Conn, error) {
	schema, err := d.schemaObjects(ctx)
	if err != nil {
		return nil, err
	}
	var rows [][3]any
	if stats {
		if rows, err = d.plannerStats(ctx); err != nil {
			return nil, err
		}
	}
	c, err := lite.Open(":memory:", lite.OpenReadWrite|lite.OpenCreate|lite.OpenMemory|lite.OpenNoMutex)
	if err != nil {
		return nil, fmt.Errorf("scratch database: %w", err)
	}
	stop := c.InterruptAfter(explainTimeout, ctx)
	defer stop()
	for _, o := range schema {
		if o.Type == "table" && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(o.SQL)), "CREATE VIRTUAL") {
			continue
		}
		// The database's own DDL, which SQLite accepted when it was
		// written; one that fails here (a view over a virtual table)
		// is left out, and a plan that needs it fails later.
		_ = c.Exec(o.SQL)
	}
	if !stats {
		return c, nil
	}
	for _, q := range []string{"ANALYZE", "DELETE FROM sqlite_stat1"} {
		if err := c.Exec(q); err != nil {
			c.Close()
			return nil, fmt.Errorf("scratch database: %w", err)
		}
	}
	for _, s := range rows {
		if err := c.Exec(statInsert(s[0], s[1], s[2])); err != nil {
			c.Close()
			return nil, fmt.Errorf("scratch database: %w", err)
		}
	}
	return c, nil
}

// schemaObjects reads d's tables, indexes and views with their SQL,
// tables first, in the order they were made.
func (d *Engine) schemaObjects(ctx context.Context) ([]engine.SchemaObject, error) {
	res, err := query.Collect(ctx, d, "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND type IN ('table', 'index', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid",
		query.Options{MaxRows: 100_000, Timeout: explainTimeout})
	if err != nil {
		return nil, err
	}
	return objectsOf(res.Rows), nil
}

func objectsOf(rows []query.Row) []engine.SchemaObject {
	out := make([]engine.SchemaObject, 0, len(rows))
	for _, r := range rows {
		o := engine.SchemaObject{}
		o.Type, _ = r[0].(string)
		o.Name, _ = r[1].(string)
		o.Table, _ = r[2].(string)
		o.SQL, _ = r[3].(string)
		out = append(out, o)
	}
	return out
}

// IndexTrial implements engine.IndexTrier.
func (d *Engine) IndexTrial() string {
	return "planned by SQLite on an in-memory copy of the schema and its statistics, without rows"
}

func (d *Engine) scratchError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return engine.ErrCatalogDeadline
	}
	return fmt.Errorf("planning on a copy of the schema: %w", err)
}

func statInsert(tbl, idx any, stat any) string {
	i := "NULL"
	if s, ok := idx.(string); ok {
		i = quoteString(s)
	}
	return fmt.Sprintf("INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES (%s, %s, %s)", quoteString(fmt.Sprint(tbl)), i, quoteString(fmt.Sprint(stat)))
}

// plannerStats returns the database's sqlite_stat1 rows (tbl, idx, stat),
// or estimates: each table's row count, and for each index that count and
// 1 row per key for a unique index, 10 (SQLite's own guess) otherwise.
func (d *Engine) plannerStats(ctx context.Context) ([][3]any, error) {
	var out [][3]any
	res, err := query.Collect(ctx, d, "SELECT tbl, idx, stat FROM sqlite_stat1", query.Options{MaxRows: 100_000, Timeout: explainTimeout})
	if err == nil && len(res.Rows) > 0 {
		for _, r := range res.Rows {
			out = append(out, [3]any{r[0], r[1], r[2]})
		}
		return out, nil
	}
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range cat.Tables {
		if t.Kind != "table" {
			continue
		}
		n := max(t.RowCount, 1)
		out = append(out, [3]any{t.Name, nil, strconv.FormatInt(n, 10)})
		for _, ix := range t.Indexes {
			per := "10"
			if ix.Unique {
				per = "1"
			}
			stat := strconv.FormatInt(n, 10) + strings.Repeat(" "+per, len(ix.Columns))
			out = append(out, [3]any{t.Name, ix.Name, stat})
		}
	}
	return out, nil
}

// specStat is the sqlite_stat1 row of a candidate index: the table's rows,
// then for each prefix of its columns the average rows per distinct key,
// from a bounded sample of the real table.
func (d *Engine) specStat(ctx context.Context, s engine.IndexSpec) (string, error) {
	if len(s.Columns) == 0 {
		return "", errors.New("candidate index without columns")
	}
	cols := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		cols[i] = quoteIdent(c)
	}
	sample := fmt.Sprintf("(SELECT %s FROM %s LIMIT %d)", strings.Join(cols, ", "), quoteIdent(s.Table), statSample)
	parts := []string{"count(*)"}
	for i := range cols {
		parts = append(parts, fmt.Sprintf("(SELECT count(*) FROM (SELECT DISTINCT %s FROM %s))", strings.Join(cols[:i+1], ", "), sample))
	}
	res, err := query.Collect(ctx, d, fmt.Sprintf("SELECT %s FROM %s", strings.Join(parts, ", "), sample), query.Options{MaxRows: 1, Timeout: explainTimeout})
	if err != nil {
		return "", err
	}
	if len(res.Rows) != 1 {
		return "", errors.New("no sample of " + s.Table)
	}
	rows := engine.Int64(res.Rows[0][0])
	total := rows
	cat, err := d.Catalog(ctx)
	if err == nil {
		if t := cat.Table(s.Table); t != nil && t.RowCount > total {
			total = t.RowCount
		}
	}
	stat := []string{strconv.FormatInt(max(total, 1), 10)}
	for i := range cols {
		distinct := max(engine.Int64(res.Rows[0][i+1]), 1)
		stat = append(stat, strconv.FormatInt(int64(math.Ceil(float64(max(rows, 1))/float64(distinct))), 10))
	}
	return strings.Join(stat, " "), nil
}

// scratchRows collects a statement of tablewise's own on the scratch
// database.
func scratchRows(c *lite.Conn, sql string) ([]query.Row, error) {
	var out []query.Row
	err := c.Each(sql, func(st *lite.Stmt) error {
		row := make(query.Row, st.ColumnCount())
		for i := range row {
			row[i] = st.Value(i)
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var _ engine.IndexTrier = (*Engine)(nil)
