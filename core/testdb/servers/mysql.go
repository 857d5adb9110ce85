package servers

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// mysqlKeyChars is the longest VARCHAR a TEXT column in a key becomes:
// InnoDB keys are at most 3072 bytes, 4 per character in utf8mb4.
const mysqlKeyChars = 768

// mysqlType is the MySQL/MariaDB type of c.
func mysqlType(c *column) (string, error) {
	switch c.Kind {
	case kInteger:
		if c.Big {
			return "BIGINT", nil
		}
		return "INT", nil
	case kBool:
		return "BOOLEAN", nil
	case kFloat:
		return "DOUBLE", nil
	case kDecimal:
		if c.Scale >= 0 && c.Precision > 0 {
			return fmt.Sprintf("DECIMAL(%d,%d)", c.Precision, c.Scale), nil
		}
		// MySQL has no unbounded DECIMAL: as wide as the values need.
		s, p := c.Frac, max(c.IntDigits+c.Frac, 1)
		if s > 30 || p > 65 {
			return "", fmt.Errorf("column %s holds decimals of %d.%d digits, more than MySQL's DECIMAL(65,30)", c.Name, c.IntDigits, c.Frac)
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", p, s), nil
	case kText:
		switch {
		case c.Length > 0:
			return fmt.Sprintf("VARCHAR(%d)", c.Length), nil
		case c.Keyed:
			// TEXT cannot be a key without a prefix length: VARCHAR.
			if c.MaxChars > mysqlKeyChars {
				return "", fmt.Errorf("column %s is part of a key and holds %d characters, more than a MySQL key holds (%d)", c.Name, c.MaxChars, mysqlKeyChars)
			}
			return fmt.Sprintf("VARCHAR(%d)", max(255, c.MaxChars)), nil
		case c.MaxBytes <= 65535:
			return "TEXT", nil
		case c.MaxBytes <= 1<<24-1:
			return "MEDIUMTEXT", nil
		}
		return "LONGTEXT", nil
	case kDate:
		return "DATE", nil
	case kTimestamp:
		if c.Frac > 0 {
			return fmt.Sprintf("DATETIME(%d)", c.Frac), nil
		}
		return "DATETIME", nil
	}
	if c.Keyed {
		if c.MaxBytes > 3072 {
			return "", fmt.Errorf("column %s is part of a key and holds %d bytes, more than a MySQL key holds", c.Name, c.MaxBytes)
		}
		return fmt.Sprintf("VARBINARY(%d)", max(255, c.MaxBytes)), nil
	}
	return "LONGBLOB", nil
}

// mysqlName fits name into MySQL's 64 characters, keeping it when it fits.
func mysqlName(name string) string {
	if len([]rune(name)) <= 64 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return string([]rune(name)[:55]) + "_" + hex.EncodeToString(sum[:4])
}

// mysqlCreateTable is the CREATE TABLE statement of t, with its keys,
// foreign keys (created before the tables they name: the loader's session
// has foreign_key_checks off), CHECKs and comments.
func mysqlCreateTable(t *table) (string, error) {
	q := func(s string) string { return quoteIdent(s, '`') }
	var defs []string
	for _, c := range t.Columns {
		typ, err := mysqlType(c)
		if err != nil {
			return "", fmt.Errorf("table %s: %w", t.Name, err)
		}
		d := q(c.Name) + " " + typ
		if c.NotNull {
			d += " NOT NULL"
		}
		if v, ok := defaultValue(c, true); ok {
			d += " DEFAULT " + v
		}
		if c.Comment != "" {
			d += " COMMENT " + quoteString(c.Comment)
		}
		defs = append(defs, d)
	}
	if len(t.PK) > 0 {
		defs = append(defs, "PRIMARY KEY ("+identList(t.PK, '`')+")")
	}
	for _, u := range t.Uniques {
		defs = append(defs, "UNIQUE KEY ("+identList(u, '`')+")")
	}
	for _, x := range t.Indexes {
		k := "KEY "
		if x.Unique {
			k = "UNIQUE KEY "
		}
		defs = append(defs, k+q(mysqlName(x.Name))+" ("+indexList(x, '`')+")")
	}
	for i, fk := range t.FKs {
		defs = append(defs, "CONSTRAINT "+q(mysqlName(fmt.Sprintf("fk_%s_%d", t.Name, i+1)))+" "+foreignKeyDef(fk, '`'))
	}
	defs = append(defs, checks(t, '`')...)
	stmt := "CREATE TABLE " + q(t.Name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
	if t.Comment != "" {
		stmt += " COMMENT=" + quoteString(t.Comment)
	}
	return stmt, nil
}

// mysqlSession is what every statement of the loader's session runs
// under: strict (a value that does not fit is an error, not a warning),
// string literals as SQLite writes them, and foreign keys checked only by
// the source.
const mysqlSession = "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES,NO_ENGINE_SUBSTITUTION', foreign_key_checks = 0, time_zone = '+00:00', lock_wait_timeout = 30"

// mysqlBatchRows and mysqlBatchBytes bound one multi-row INSERT.
const (
	mysqlBatchRows  = 1000
	mysqlBatchBytes = 1 << 20
)

// mysqlLoad creates s's tables in the database conn uses and fills them:
// from src (multi-row INSERTs), or, when from names a database on the same
// server that holds the same tables, with INSERT … SELECT from it. Views
// MySQL accepts as they are written follow.
func mysqlLoad(ctx context.Context, conn *sql.Conn, s *schema, src *sql.DB, from string) (notes []string, err error) {
	if _, err := conn.ExecContext(ctx, mysqlSession); err != nil {
		return nil, err
	}
	for _, t := range s.Tables {
		stmt, err := mysqlCreateTable(t)
		if err != nil {
			return nil, err
		}
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("create table %s: %w\n%s", t.Name, err, stmt)
		}
	}
	for _, t := range s.Tables {
		if from != "" {
			stmt := "INSERT INTO " + quoteIdent(t.Name, '`') + " SELECT * FROM " + quoteIdent(from, '`') + "." + quoteIdent(t.Name, '`')
			res, err := conn.ExecContext(ctx, stmt)
			if err != nil {
				return nil, fmt.Errorf("copy %s: %w", t.Name, err)
			}
			if n, _ := res.RowsAffected(); n != t.Rows {
				return nil, fmt.Errorf("copy %s: %d rows copied from %s, %d in the source", t.Name, n, from, t.Rows)
			}
			continue
		}
		if err := mysqlInsert(ctx, conn, t, src); err != nil {
			return nil, err
		}
	}
	for _, v := range s.Views {
		stmt := "CREATE VIEW " + quoteIdent(v.Name, '`') + " AS " + requote(v.Body, '`')
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			notes = append(notes, fmt.Sprintf("view %s is not copied: MySQL refuses its SQLite text: %s", v.Name, mysqlMessage(err)))
			continue
		}
		if v.Comment != "" {
			notes = append(notes, fmt.Sprintf("the comment of view %s is not copied: MySQL views have none", v.Name))
		}
	}
	return notes, nil
}

// mysqlInsert copies t's rows from src in multi-row INSERTs, in one
// transaction.
func mysqlInsert(ctx context.Context, conn *sql.Conn, t *table, src *sql.DB) error {
	rows, err := src.QueryContext(ctx, selectRaw(t))
	if err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	defer rows.Close()
	rs := &rowSource{rows: rows, t: t}
	head := "INSERT INTO " + quoteIdent(t.Name, '`') + " (" + identList(columnNames(t), '`') + ") VALUES "
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?,", len(t.Columns)), ",") + ")"
	perBatch := min(mysqlBatchRows, 65535/len(t.Columns))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var args []any
	n, size := 0, 0
	var copied int64
	flush := func() error {
		if n == 0 {
			return nil
		}
		stmt := head + strings.TrimSuffix(strings.Repeat(tuple+",", n), ",")
		res, err := tx.ExecContext(ctx, stmt, args...)
		if err != nil {
			return fmt.Errorf("insert into %s: %w", t.Name, err)
		}
		got, _ := res.RowsAffected()
		copied += got
		args, n, size = args[:0], 0, 0
		return nil
	}
	for rs.Next() {
		args = append(args, rs.vals...)
		n++
		for _, v := range rs.vals {
			switch v := v.(type) {
			case string:
				size += len(v)
			case []byte:
				size += 2 * len(v)
			default:
				size += 8
			}
		}
		if n >= perBatch || size >= mysqlBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("copy %s: %w", t.Name, err)
	}
	if err := flush(); err != nil {
		return err
	}
	if copied != t.Rows {
		return fmt.Errorf("copy %s: %d rows inserted, %d read before", t.Name, copied, t.Rows)
	}
	return tx.Commit()
}

func mysqlMessage(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

// mysqlCreateDatabase creates database name (utf8mb4, the server's
// default collation for it).
func mysqlCreateDatabase(ctx context.Context, admin *sql.DB, name string) error {
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+quoteIdent(name, '`')+" CHARACTER SET utf8mb4"); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1007 {
			return fmt.Errorf("database %s already exists: %w", name, ErrExists)
		}
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

func mysqlDropDatabase(ctx context.Context, admin *sql.DB, name string) error {
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(name, '`')); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}
