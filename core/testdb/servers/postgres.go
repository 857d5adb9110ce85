package servers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgType is the PostgreSQL type of c.
func pgType(c *column) string {
	switch c.Kind {
	case kInteger:
		if c.Big {
			return "bigint"
		}
		return "integer"
	case kBool:
		return "boolean"
	case kFloat:
		return "double precision"
	case kDecimal:
		if c.Scale >= 0 && c.Precision > 0 {
			return fmt.Sprintf("numeric(%d,%d)", c.Precision, c.Scale)
		}
		return "numeric"
	case kText:
		if c.Length > 0 {
			return fmt.Sprintf("varchar(%d)", c.Length)
		}
		return "text"
	case kDate:
		return "date"
	case kTimestamp:
		return "timestamp"
	default:
		return "bytea"
	}
}

// pgCreateTable is the CREATE TABLE statement of t, without its foreign
// keys (added once every table holds its rows).
func pgCreateTable(t *table) string {
	q := func(s string) string { return quoteIdent(s, '"') }
	var defs []string
	for _, c := range t.Columns {
		d := q(c.Name) + " " + pgType(c)
		if c.NotNull {
			d += " NOT NULL"
		}
		if v, ok := defaultValue(c, false); ok {
			d += " DEFAULT " + v
		}
		defs = append(defs, d)
	}
	if len(t.PK) > 0 {
		defs = append(defs, "PRIMARY KEY ("+identList(t.PK, '"')+")")
	}
	for _, u := range t.Uniques {
		defs = append(defs, "UNIQUE ("+identList(u, '"')+")")
	}
	for _, ch := range checks(t, '"') {
		defs = append(defs, ch)
	}
	return "CREATE TABLE " + q(t.Name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)"
}

// pgLoad creates s's tables in the database conn is connected to, copies
// every row of src into them with COPY, then adds indexes, foreign keys,
// comments and the views PostgreSQL accepts as they are written. It runs
// in one transaction: a failure leaves the database as it was.
func pgLoad(ctx context.Context, conn *pgx.Conn, s *schema, src *sql.DB) (notes []string, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	exec := func(stmt string) error {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%w\n%s", err, stmt)
		}
		return nil
	}
	for _, t := range s.Tables {
		if err := exec(pgCreateTable(t)); err != nil {
			return nil, fmt.Errorf("create table %s: %w", t.Name, err)
		}
	}
	for _, t := range s.Tables {
		rows, err := src.QueryContext(ctx, selectRaw(t))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t.Name, err)
		}
		rs := &rowSource{rows: rows, t: t, pg: true}
		n, err := tx.CopyFrom(ctx, pgx.Identifier{t.Name}, columnNames(t), rs)
		rows.Close()
		if err == nil {
			err = rs.err
		}
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", t.Name, err)
		}
		if n != t.Rows {
			return nil, fmt.Errorf("copy %s: %d rows copied, %d read before", t.Name, n, t.Rows)
		}
	}
	for _, t := range s.Tables {
		for _, x := range t.Indexes {
			stmt := "CREATE "
			if x.Unique {
				stmt += "UNIQUE "
			}
			stmt += "INDEX " + quoteIdent(x.Name, '"') + " ON " + quoteIdent(t.Name, '"') + " (" + indexList(x, '"') + ")"
			if err := exec(stmt); err != nil {
				return nil, fmt.Errorf("create index %s: %w", x.Name, err)
			}
		}
	}
	for _, t := range s.Tables {
		for _, fk := range t.FKs {
			stmt := "ALTER TABLE " + quoteIdent(t.Name, '"') + " ADD " + foreignKeyDef(fk, '"')
			if err := exec(stmt); err != nil {
				return nil, fmt.Errorf("foreign key of %s: %w", t.Name, err)
			}
		}
		if t.Comment != "" {
			if err := exec("COMMENT ON TABLE " + quoteIdent(t.Name, '"') + " IS " + quoteString(t.Comment)); err != nil {
				return nil, err
			}
		}
		for _, c := range t.Columns {
			if c.Comment != "" {
				if err := exec("COMMENT ON COLUMN " + quoteIdent(t.Name, '"') + "." + quoteIdent(c.Name, '"') + " IS " + quoteString(c.Comment)); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, v := range s.Views {
		stmt := "CREATE VIEW " + quoteIdent(v.Name, '"') + " AS " + requote(v.Body, '"')
		sp, err := tx.Begin(ctx) // a savepoint: a view PostgreSQL refuses is left out
		if err != nil {
			return nil, err
		}
		if _, err := sp.Exec(ctx, stmt); err != nil {
			sp.Rollback(ctx)
			notes = append(notes, fmt.Sprintf("view %s is not copied: PostgreSQL refuses its SQLite text: %s", v.Name, pgMessage(err)))
			continue
		}
		if v.Comment != "" {
			if _, err := sp.Exec(ctx, "COMMENT ON VIEW "+quoteIdent(v.Name, '"')+" IS "+quoteString(v.Comment)); err != nil {
				return nil, err
			}
		}
		if err := sp.Commit(ctx); err != nil {
			return nil, err
		}
	}
	if err := exec("ANALYZE"); err != nil {
		return nil, err
	}
	return notes, tx.Commit(ctx)
}

func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// rowSource streams a SQLite table's rows, converted, to pgx's CopyFrom
// (pg) or to the MySQL batcher.
type rowSource struct {
	rows *sql.Rows
	t    *table
	pg   bool
	vals []any
	n    int64
	err  error
}

func (r *rowSource) Next() bool {
	if r.err != nil || !r.rows.Next() {
		return false
	}
	raw := make([]any, len(r.t.Columns))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := r.rows.Scan(ptrs...); err != nil {
		r.err = err
		return false
	}
	r.n++
	r.vals = make([]any, len(raw))
	for i, c := range r.t.Columns {
		v, err := convert(c, raw[i])
		if err != nil {
			r.err = fmt.Errorf("%s.%s, row %d: %w", r.t.Name, c.Name, r.n, err)
			return false
		}
		if d, ok := v.(decimal); ok {
			if r.pg {
				var n pgtype.Numeric
				if err := n.Scan(string(d)); err != nil {
					r.err = fmt.Errorf("%s.%s, row %d: %w", r.t.Name, c.Name, r.n, err)
					return false
				}
				v = n
			} else {
				v = string(d)
			}
		}
		r.vals[i] = v
	}
	return true
}

func (r *rowSource) Values() ([]any, error) { return r.vals, nil }

func (r *rowSource) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Err()
}

// pgCreateDatabase creates database name on the server admin is
// connected to, as a copy of template when template is not empty.
func pgCreateDatabase(ctx context.Context, admin *pgx.Conn, name, template string) error {
	stmt := "CREATE DATABASE " + quoteIdent(name, '"')
	if template != "" {
		stmt += " TEMPLATE " + quoteIdent(template, '"')
	}
	if _, err := admin.Exec(ctx, stmt); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && (pe.Code == "42P04" || pe.Code == "23505") {
			return fmt.Errorf("database %s already exists: %w", name, ErrExists)
		}
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// pgDropDatabase drops database name, ending any session still connected
// to it.
func pgDropDatabase(ctx context.Context, admin *pgx.Conn, name string) error {
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(name, '"')+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}
