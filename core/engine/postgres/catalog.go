package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

// The catalog is read from pg_catalog (which CockroachDB, YugabyteDB and
// the other servers of PostgreSQL's protocol also serve), for the schemas
// of the search path, with statements that go through Run like any other:
// the guard vets them too.

// exactCountBelow: tables the planner estimates at fewer rows are counted
// exactly (within the budgets).
const exactCountBelow = 1_000_000

const relationsSQL = `SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text,
	coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), ''), c.reltuples::float8
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
	AND n.nspname = ANY (pg_catalog.current_schemas(false))
ORDER BY array_position(pg_catalog.current_schemas(false), n.nspname), c.relkind IN ('v', 'm'), lower(c.relname), c.relname`

const columnsSQL = `SELECT a.attrelid::int8, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
	pg_catalog.pg_get_expr(d.adbin, d.adrelid), coalesce(pg_catalog.col_description(a.attrelid, a.attnum), ''), a.attnum::int8
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
	AND n.nspname = ANY (pg_catalog.current_schemas(false))
ORDER BY a.attrelid, a.attnum`

const constraintsSQL = `SELECT k.conrelid::int8, k.contype::text, k.conkey::int8[], coalesce(fn.nspname::text, ''), coalesce(f.relname::text, ''),
	coalesce((SELECT pg_catalog.array_agg(fa.attname::text ORDER BY u.ord) FROM unnest(k.confkey) WITH ORDINALITY AS u(attnum, ord)
		JOIN pg_catalog.pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = u.attnum), '{}'::text[]), k.conname::text
FROM pg_catalog.pg_constraint k
JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_class f ON f.oid = k.confrelid
LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
WHERE k.contype IN ('p', 'f', 'u') AND n.nspname = ANY (pg_catalog.current_schemas(false))
ORDER BY k.conrelid, k.contype, k.conname`

const indexesSQL = `SELECT i.indrelid::int8, x.relname::text, i.indisunique, i.indisprimary, i.indkey::int2[]::int8[],
	EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype = 'u')
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class x ON x.oid = i.indexrelid
JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = ANY (pg_catalog.current_schemas(false))
ORDER BY i.indrelid, x.relname`

// Catalog reads the tables, views, materialized views, columns, keys,
// indexes, comments, row counts and samples of the search path's schemas.
func (e *Engine) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	rels, err := e.rows(ctx, relationsSQL)
	if err != nil {
		return nil, err
	}
	byOID := map[int64]*catalog.Table{}
	estimates := map[*catalog.Table]float64{}
	var tables []*catalog.Table
	for _, r := range rels {
		t := &catalog.Table{Schema: engine.String(r[1]), Name: engine.String(r[2]), Comment: engine.String(r[4]), RowCount: -1}
		switch engine.String(r[3]) {
		case "v":
			t.Kind = "view"
		case "m":
			t.Kind = "materialized view"
		default:
			t.Kind = "table"
		}
		byOID[engine.Int64(r[0])] = t
		estimates[t] = engine.Float64(r[5])
		tables = append(tables, t)
	}
	attnames := map[int64]map[int64]string{}
	err = e.eachTableRow(ctx, columnsSQL, byOID, func(t *catalog.Table, oid int64, r query.Row) {
		c := catalog.Column{Name: engine.String(r[1]), Type: engine.String(r[2]), NotNull: r[3] == int64(1), Comment: engine.String(r[5])}
		if r[4] != nil {
			d := engine.String(r[4])
			c.Default = &d
		}
		t.Columns = append(t.Columns, c)
		if attnames[oid] == nil {
			attnames[oid] = map[int64]string{}
		}
		attnames[oid][engine.Int64(r[6])] = c.Name
	})
	if err != nil {
		return nil, err
	}
	err = e.eachTableRow(ctx, constraintsSQL, byOID, func(t *catalog.Table, oid int64, r query.Row) {
		var names []string
		for _, n := range intArray(engine.String(r[2])) {
			names = append(names, attnames[oid][n])
		}
		switch engine.String(r[1]) {
		case "p":
			t.PrimaryKey = names
			for i, n := range names {
				for j := range t.Columns {
					if t.Columns[j].Name == n {
						t.Columns[j].PK = i + 1
					}
				}
			}
		case "f":
			ref := engine.String(r[4])
			if s := engine.String(r[3]); s != "" && s != t.Schema {
				ref = s + "." + ref
			}
			t.ForeignKeys = append(t.ForeignKeys, catalog.ForeignKey{Columns: names, RefTable: ref, RefColumns: textArray(engine.String(r[5]))})
		}
	})
	if err != nil {
		return nil, err
	}
	err = e.eachTableRow(ctx, indexesSQL, byOID, func(t *catalog.Table, oid int64, r query.Row) {
		ix := catalog.Index{Name: engine.String(r[1]), Unique: r[2] == int64(1), Origin: "c"}
		switch {
		case r[3] == int64(1):
			ix.Origin = "pk"
		case r[5] == int64(1):
			ix.Origin = "u"
		}
		for _, n := range intArray(engine.String(r[4])) {
			if n == 0 {
				ix.Columns = append(ix.Columns, "(expression)")
			} else {
				ix.Columns = append(ix.Columns, attnames[oid][n])
			}
		}
		t.Indexes = append(t.Indexes, ix)
	})
	if err != nil {
		return nil, err
	}
	e.countAndSample(ctx, tables, estimates)
	if ctx.Err() != nil {
		return nil, engine.ErrCatalogDeadline
	}
	return catalog.New(tables), nil
}

// eachTableRow reads sql, whose rows begin with a relation's oid, and
// calls fn with each row of a relation in byOID, and its oid: rows of a
// relation the catalog does not list are passed over.
func (e *Engine) eachTableRow(ctx context.Context, sql string, byOID map[int64]*catalog.Table, fn func(t *catalog.Table, oid int64, r query.Row)) error {
	rows, err := e.rows(ctx, sql)
	if err != nil {
		return err
	}
	for _, r := range rows {
		oid := engine.Int64(r[0])
		if t := byOID[oid]; t != nil {
			fn(t, oid, r)
		}
	}
	return nil
}

// countAndSample fills row counts (exact when cheap, else the planner's
// estimate) and sample rows, within engine.ServerBudget.
func (e *Engine) countAndSample(ctx context.Context, tables []*catalog.Table, estimates map[*catalog.Table]float64) {
	count, sample := engine.ServerBudget.Start(), engine.ServerBudget.Start()
	for _, t := range tables {
		if ctx.Err() != nil {
			return
		}
		name := quoteIdent(t.Schema) + "." + quoteIdent(t.Name)
		est := estimates[t]
		if est >= 0 && t.Kind != "view" {
			t.RowCount, t.RowCountEstimated = int64(est), true
		}
		if (est < exactCountBelow || t.Kind == "view") && count.Left() {
			res, err := query.Collect(ctx, e, "SELECT count(*) FROM "+name, query.Options{MaxRows: 1, Timeout: count.Next()})
			if err == nil && len(res.Rows) == 1 {
				if n, ok := res.Rows[0][0].(int64); ok {
					t.RowCount, t.RowCountEstimated = n, false
				}
			}
		}
		if sample.Left() {
			res, err := query.Collect(ctx, e, "SELECT * FROM "+name+" LIMIT "+strconv.Itoa(catalog.SampleRows), query.Options{MaxRows: catalog.SampleRows, MaxBytes: catalog.SampleMaxBytes, Timeout: sample.Next()})
			if err == nil {
				for _, r := range res.Rows {
					t.Sample = append(t.Sample, []any(r))
				}
			}
		}
	}
}

// Names reads the tables' and views' names and their columns' names with
// one statement.
func (e *Engine) Names(ctx context.Context) (*catalog.Catalog, error) {
	rows, err := e.rows(ctx, `SELECT n.nspname::text, c.relname::text, a.attname::text
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition AND n.nspname = ANY (pg_catalog.current_schemas(false))
ORDER BY array_position(pg_catalog.current_schemas(false), n.nspname), c.relkind IN ('v', 'm'), lower(c.relname), c.relname, a.attnum`)
	if err != nil {
		return nil, err
	}
	var list []*catalog.Table
	var last *catalog.Table
	for _, r := range rows {
		if last == nil || last.Schema != engine.String(r[0]) || last.Name != engine.String(r[1]) {
			last = &catalog.Table{Schema: engine.String(r[0]), Name: engine.String(r[1])}
			list = append(list, last)
		}
		last.Columns = append(last.Columns, catalog.Column{Name: engine.String(r[2])})
	}
	return catalog.New(list), nil
}

// rows runs one catalog statement through Run, within ctx's deadline.
func (e *Engine) rows(ctx context.Context, sql string) ([]query.Row, error) {
	timeout := query.DefaultTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
		if timeout <= 0 {
			return nil, engine.ErrCatalogDeadline
		}
	}
	res, err := query.Collect(ctx, e, sql, query.Options{Timeout: timeout})
	if err != nil {
		if errors.Is(err, query.ErrDeadline) || ctx.Err() != nil {
			return nil, engine.ErrCatalogDeadline
		}
		return nil, fmt.Errorf("read the catalog: %w", err)
	}
	return res.Rows, nil
}

// intArray reads the JSON text of an integer array: [1,2].
func intArray(s string) []int64 {
	var out []int64
	json.Unmarshal([]byte(s), &out)
	return out
}

// textArray reads the JSON text of a text array.
func textArray(s string) []string {
	var out []string
	json.Unmarshal([]byte(s), &out)
	return out
}

var _ engine.SchemaVersioner = (*Engine)(nil)

// SchemaVersion returns the number and a digest of the search path's
// relations (tables, views, indexes…), their live columns and types, and
// their constraints, read with one statement within ctx's deadline: it
// changes whenever the catalog's tables, views, columns, keys or indexes
// do, and not when rows are written or the tables vacuumed or analyzed.
func (e *Engine) SchemaVersion(ctx context.Context) (string, error) {
	rows, err := e.rows(ctx, `SELECT count(*)::text || ':' || coalesce(md5(string_agg(
		c.oid::text || '.' || c.relname::text || '.' || c.relkind::text || '.' || a.attnum::text || '.' || a.attname::text || '.' || a.atttypid::text,
		',' ORDER BY c.oid, a.attnum)), '') || ':' || (SELECT count(*)::text || ':' || coalesce(md5(string_agg(k.oid::text, ',' ORDER BY k.oid)), '')
	FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_namespace kn ON kn.oid = k.connamespace
	WHERE kn.nspname = ANY (pg_catalog.current_schemas(false)))
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = ANY (pg_catalog.current_schemas(false))`)
	if err != nil {
		return "", err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return "", fmt.Errorf("read the schema version: %d rows", len(rows))
	}
	return engine.String(rows[0][0]), nil
}
