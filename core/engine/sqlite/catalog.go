package sqlite

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/ddl"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/query"
)

// Count and sample budgets: a table whose count(*) takes more is
// estimated instead; one whose sample takes more has no sample. The
// budgets are of work — SQLite's virtual-machine instructions, about 250 ms
// for each table on an idle machine — so that a catalog, and what the
// offline planner builds on it, is the same however busy the machine is.
// Time bounds stay as a safety (one instruction may scan a whole b-tree to
// count it), four times what the work takes on an idle machine, and
// engine.RaceSlowdown times more in a race-detector build.
var (
	countStepsPerTable  int64 = 10_000_000
	countStepsTotal     int64 = 80_000_000
	sampleStepsPerTable int64 = 10_000_000
	sampleStepsTotal    int64 = 80_000_000

	countBudget  = engine.Budget{PerTable: time.Second * engine.RaceSlowdown, Total: 4 * time.Second * engine.RaceSlowdown}
	sampleBudget = engine.Budget{PerTable: time.Second * engine.RaceSlowdown, Total: 4 * time.Second * engine.RaceSlowdown}
)

// Catalog reads the tables, views, columns, keys, indexes, row counts and
// sample rows within ctx's deadline: every statement it runs is interrupted
// at the deadline, and the slow parts (row counts and sample rows, which
// run a view's query) have budgets of their own.
func (d *Engine) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	cc := &catConn{d: d}
	defer cc.release()
	return readCatalog(ctx, cc)
}

// catConn is the pooled connection the catalog reads on. A count or a
// sample still inside one long instruction at its bound (allSteps) keeps
// the connection, and the catalog reads on with another.
type catConn struct {
	d *Engine
	c *conn // nil: none held
}

// get is the connection held, or one acquired from the pool.
func (cc *catConn) get(ctx context.Context) (*lite.Conn, error) {
	if cc.c == nil {
		c, err := cc.d.pool.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		cc.c = c
	}
	return cc.c.Conn, nil
}

func (cc *catConn) release() {
	if cc.c != nil {
		cc.d.pool.Release(cc.c, false)
		cc.c = nil
	}
}

// schemaKind is a sqlite_schema row's catalog kind: its type, or
// catalog.VirtualTable for a table made by CREATE VIRTUAL TABLE (SQLite
// stores the statement with those keywords as written here).
const schemaKind = `CASE WHEN type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE %' THEN '` + catalog.VirtualTable + `' ELSE type END`

// Names reads the table and view names and their columns' names with one
// statement (or one per table when a broken view fails it), within ctx's
// deadline: what hints need, without counting or sampling anything.
func (d *Engine) Names(ctx context.Context) (*catalog.Catalog, error) {
	var cat *catalog.Catalog
	err := d.Conn(ctx, func(c *lite.Conn) error {
		const tables = `SELECT name, ` + schemaKind + ` FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
			ORDER BY type, name COLLATE NOCASE`
		rows, err := all(ctx, c, `SELECT m.name, p.name, m.type FROM (`+tables+`) AS m, pragma_table_xinfo(m.name) AS p WHERE p.hidden IN (0, 2, 3)`, 0)
		if err != nil && !errors.Is(err, engine.ErrCatalogDeadline) && ctx.Err() == nil {
			// A broken view (one whose table was dropped) fails the join:
			// read table by table, skipping what fails.
			rows, err = namesOneByOne(ctx, c, tables)
		}
		if err != nil {
			return err
		}
		var list []*catalog.Table
		byName := map[string]*catalog.Table{}
		for _, r := range rows {
			name, col := engine.String(r[0]), engine.String(r[1])
			t := byName[strings.ToLower(name)]
			if t == nil {
				// Kind, and a row count not read (-1): enough to list
				// the tables before the whole catalog is read.
				t = &catalog.Table{Name: name, Kind: engine.String(r[2]), RowCount: -1}
				byName[strings.ToLower(name)] = t
				list = append(list, t)
			}
			t.Columns = append(t.Columns, catalog.Column{Name: col})
		}
		cat = catalog.New(list)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cat, nil
}

func namesOneByOne(ctx context.Context, c *lite.Conn, tables string) ([][]any, error) {
	names, err := all(ctx, c, tables, 0)
	if err != nil {
		return nil, err
	}
	var out [][]any
	for _, t := range names {
		cols, err := all(ctx, c, "SELECT name FROM pragma_table_xinfo("+quoteString(engine.String(t[0]))+") WHERE hidden IN (0, 2, 3)", 0)
		if errors.Is(err, engine.ErrCatalogDeadline) || ctx.Err() != nil {
			return nil, err
		}
		for _, col := range cols {
			out = append(out, []any{t[0], col[0], t[1]})
		}
	}
	return out, nil
}

func readCatalog(ctx context.Context, cc *catConn) (*catalog.Catalog, error) {
	c, err := cc.get(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := all(ctx, c, `SELECT `+schemaKind+`, name, coalesce(sql, '') FROM sqlite_schema
		WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY type, name COLLATE NOCASE`, 0)
	if err != nil {
		return nil, err
	}
	var tables []*catalog.Table
	for _, r := range rows {
		tables = append(tables, &catalog.Table{Kind: r[0].(string), Name: r[1].(string), SQL: r[2].(string)})
	}
	cat := catalog.New(tables)
	counting, sampling := countBudget.Start(), sampleBudget.Start()
	countSteps, sampleSteps := countStepsTotal, sampleStepsTotal
	for _, t := range cat.Tables {
		c, err := cc.get(ctx)
		if err != nil {
			return nil, err
		}
		if err := describe(ctx, c, t); err != nil {
			if errors.Is(err, engine.ErrCatalogDeadline) || ctx.Err() != nil || t.Kind == "table" {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			// A broken view (its table was dropped), or a virtual table
			// whose module this build lacks, keeps its card.
			t.Columns = nil
		}
		used, err := countRows(ctx, cc, t, counting, min(countStepsPerTable, countSteps))
		if err != nil {
			return nil, err
		}
		countSteps -= used
		budget := sampling.Next()
		if budget > 0 && sampleSteps > 0 {
			var used int64
			t.Sample, used, err = allSteps(ctx, cc, "SELECT * FROM "+quoteIdent(t.Name)+" LIMIT "+fmt.Sprint(catalog.SampleRows), budget, min(sampleStepsPerTable, sampleSteps))
			sampleSteps -= used
			if errors.Is(err, engine.ErrCatalogDeadline) || ctx.Err() != nil {
				return nil, err
			}
			if err != nil {
				t.Sample = nil // a broken or slow view still gets its card
			}
		}
	}
	return cat, nil
}

func describe(ctx context.Context, c *lite.Conn, t *catalog.Table) error {
	comments := ddl.ColumnComments(t.SQL)
	t.Comment = ddl.TableComment(t.SQL)
	for _, ch := range ddl.Checks(t.SQL) {
		t.Checks = append(t.Checks, catalog.Check{Column: ch.Column, Values: ch.Values})
	}
	cols, err := all(ctx, c, "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo("+quoteString(t.Name)+")", 0)
	if err != nil {
		return err
	}
	type pkCol struct {
		name string
		pos  int
	}
	var pks []pkCol
	for _, r := range cols {
		col := catalog.Column{Name: engine.String(r[0]), Type: engine.String(r[1]), NotNull: engine.Int64(r[2]) != 0, PK: int(engine.Int64(r[4])), Hidden: engine.Int64(r[5]) != 0}
		if r[3] != nil {
			s := engine.String(r[3])
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
	fks, err := all(ctx, c, "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list("+quoteString(t.Name)+") ORDER BY id, seq", 0)
	if err != nil {
		return err
	}
	lastID := int64(-1)
	for _, r := range fks {
		if id := engine.Int64(r[0]); id != lastID {
			lastID = id
			t.ForeignKeys = append(t.ForeignKeys, catalog.ForeignKey{RefTable: engine.String(r[2])})
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, engine.String(r[3]))
		if r[4] != nil {
			fk.RefColumns = append(fk.RefColumns, engine.String(r[4]))
		}
	}
	idx, err := all(ctx, c, "SELECT name, \"unique\", origin FROM pragma_index_list("+quoteString(t.Name)+") ORDER BY name", 0)
	if err != nil {
		return err
	}
	for _, r := range idx {
		ix := catalog.Index{Name: engine.String(r[0]), Unique: engine.Int64(r[1]) != 0, Origin: engine.String(r[2])}
		icols, err := all(ctx, c, "SELECT name FROM pragma_index_info("+quoteString(ix.Name)+") ORDER BY seqno", 0)
		if err != nil {
			return err
		}
		for _, ic := range icols {
			ix.Columns = append(ix.Columns, engine.String(ic[0]))
		}
		t.Indexes = append(t.Indexes, ix)
	}
	return nil
}

// countRows counts exactly within the budgets (time, and steps
// instructions), else estimates; it returns the instructions used. It
// fails only when ctx's deadline passed.
func countRows(ctx context.Context, cc *catConn, t *catalog.Table, spend engine.Spending, steps int64) (int64, error) {
	budget := spend.Next()
	t.RowCount = -1
	var used int64
	if budget > 0 && steps > 0 {
		rows, n, err := allSteps(ctx, cc, "SELECT count(*) FROM "+quoteIdent(t.Name), budget, steps)
		used = n
		if err == nil && len(rows) == 1 {
			t.RowCount = engine.Int64(rows[0][0])
			return used, nil
		}
		if errors.Is(err, engine.ErrCatalogDeadline) || ctx.Err() != nil {
			return used, err
		}
	}
	if t.Kind != "table" {
		return used, nil
	}
	c, err := cc.get(ctx)
	if err != nil {
		return used, err
	}
	// max(rowid) is one b-tree descent: an upper bound, exact when no row
	// was ever deleted.
	rows, err := all(ctx, c, "SELECT max(rowid) FROM "+quoteIdent(t.Name), 0)
	if err == nil && len(rows) == 1 && rows[0][0] != nil {
		t.RowCount = engine.Int64(rows[0][0])
		t.RowCountEstimated = true
	}
	if errors.Is(err, engine.ErrCatalogDeadline) || ctx.Err() != nil {
		return used, err
	}
	return used, nil
}

// allSteps is all on cc's connection with a budget of steps
// virtual-machine instructions too (lite.Conn.LimitSteps); it returns the
// instructions used. A statement past the budget fails as one past its
// time budget does. Its rows (a count, or a table's or a view's sample,
// whose values may each be as long as the length limit) end before they
// pass catalog.SampleMaxBytes, as a server engine's sample does.
//
// Neither budget stops a statement inside one long instruction (a sort:
// lite.Stmt.MayRunLong), as a view's query can be: such a statement steps
// on a goroutine of its own, as Run's do, and one still running a grace
// after its time budget is left to finish alone (errLeftRunning, its
// steps counted as all spent). It keeps the connection, which is closed
// once it ends; cc gets another.
func allSteps(ctx context.Context, cc *catConn, sql string, budget time.Duration, steps int64) ([][]any, int64, error) {
	c, err := cc.get(ctx)
	if err != nil {
		return nil, 0, err
	}
	held := cc.c
	stop := c.LimitSteps(steps)
	rows, left, err := collect(ctx, c, sql, budget, catalog.SampleMaxBytes, func() {
		stop()
		cc.d.pool.Release(held, true)
	})
	if left {
		cc.c = nil
		return nil, steps, err
	}
	_, used := stop()
	return rows, used, err
}

// errLeftRunning is a catalog statement left to finish alone.
var errLeftRunning = errors.New("still running at its time budget")

// all runs one internal catalog query through the guard and collects it.
// The statement is interrupted when ctx ends (its deadline gives
// engine.ErrCatalogDeadline) and, when budget > 0, once budget has passed (an
// interrupted error that callers may treat as "too slow to matter").
func all(ctx context.Context, c *lite.Conn, sql string, budget time.Duration) ([][]any, error) {
	rows, _, err := collect(ctx, c, sql, budget, 0, nil)
	return rows, err
}

// collect is all, its rows ending before they pass maxBytes (0: no
// cap); when leave is set and budget > 0, a statement that may
// run long steps on a goroutine of its own and is waited for until its
// limit and leaveGrace have passed. A statement still running then is
// left to finish alone, and left is set (the error is errLeftRunning, or
// ctx's): once it ends, it is finalized and leave is called.
func collect(ctx context.Context, c *lite.Conn, sql string, budget time.Duration, maxBytes int64, leave func()) (rows [][]any, left bool, err error) {
	// The deadline is read from the clock, not only from ctx.Err(): under
	// load the context's timer may fire late, and a statement interrupted
	// at the deadline must not pass for one that was merely slow.
	deadline, hasDeadline := ctx.Deadline()
	expired := func() error {
		if err := ctx.Err(); errors.Is(err, context.Canceled) {
			return err
		}
		if ctx.Err() != nil || hasDeadline && !time.Now().Before(deadline) {
			return engine.ErrCatalogDeadline
		}
		return nil
	}
	if err := expired(); err != nil {
		return nil, false, err
	}
	limit := time.Duration(1<<63 - 1)
	if hasDeadline {
		limit = time.Until(deadline)
	}
	if budget > 0 {
		limit = min(limit, budget)
	}
	stop := c.InterruptAfter(limit, ctx)
	fail := func(err error) ([][]any, error) {
		if stop() {
			if xerr := expired(); xerr != nil {
				return nil, xerr
			}
		}
		return nil, err
	}
	stmt, err := Prepare(c, sql)
	if err != nil {
		defer stop()
		rows, err = fail(err)
		return rows, false, err
	}
	if leave == nil || budget <= 0 || !stmt.MayRunLong() {
		defer stop()
		defer stmt.Finalize()
		rows, err = rowsOf(stmt, maxBytes, fail)
		return rows, false, err
	}
	var got [][]any // the step's rows, read once it has returned
	err, left = stepAside(nil, limit, func(*gate) error {
		out, err := rowsOf(stmt, maxBytes, fail)
		stmt.Finalize()
		stop()
		got = out
		return err
	}, func(left bool) {
		if left {
			leave()
		}
	})
	if !left {
		return got, false, err
	}
	if err := expired(); err != nil {
		return nil, true, err
	}
	return nil, true, errLeftRunning
}

// rowsOf steps stmt to its end and collects its rows, ending before
// they pass maxBytes (0: no cap; a row is measured where SQLite holds
// it, as Run measures it, before it is copied); fail explains an error.
func rowsOf(stmt *lite.Stmt, maxBytes int64, fail func(error) ([][]any, error)) ([][]any, error) {
	n := stmt.ColumnCount()
	caps := engine.NewCaps(query.Options{MaxBytes: maxBytes}, &query.Summary{})
	cur := &cursor{st: stmt, n: n}
	var out [][]any
	for {
		more, err := stmt.Step()
		if err != nil {
			return fail(err)
		}
		if !more || caps.BytesOver(cur.size) {
			return out, nil
		}
		row := make([]any, n)
		for i := range row {
			row[i] = stmt.Value(i)
		}
		out = append(out, row)
	}
}

var _ engine.SchemaVersioner = (*Engine)(nil)

// SchemaVersion returns a digest of the schema table (every table's,
// view's, index's and trigger's name and SQL, which ALTER TABLE rewrites),
// read within ctx's deadline: it changes whenever the catalog's tables,
// views or columns do. PRAGMA schema_version would be cheaper, but the
// guard lets no such pragma run.
func (d *Engine) SchemaVersion(ctx context.Context) (string, error) {
	var rows [][]any
	err := d.Conn(ctx, func(c *lite.Conn) error {
		var err error
		rows, err = all(ctx, c, `SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid`, 0)
		return err
	})
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, r := range rows {
		for _, v := range r {
			fmt.Fprintf(h, "%d:%s;", len(engine.String(v)), engine.String(v))
		}
	}
	return fmt.Sprintf("%d:%x", len(rows), h.Sum(nil)[:16]), nil
}
