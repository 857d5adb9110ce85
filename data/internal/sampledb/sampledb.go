// Package sampledb generates tablewise's built-in sample database, a small
// invented home-goods web shop called "Lumen & Loom".
//
// The output is deterministic: the same code produces the same bytes, so the
// generated file can be committed and checked for freshness by a test.
package sampledb

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tablewise/tablewise/data/internal/sqlitefile"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Write generates the sample database and stores it at path, replacing any
// existing file. The file is built next to path and renamed into place.
func Write(path string) error {
	tmp := path + ".tmp"
	cleanup := func() { // best effort
		_ = os.Remove(tmp)
		_ = os.Remove(tmp + "-journal")
	}
	cleanup()
	if err := writeDB(tmp, generate()); err != nil {
		cleanup()
		return fmt.Errorf("sampledb: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		cleanup()
		return fmt.Errorf("sampledb: %w", err)
	}
	return nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func writeDB(path string, ds *dataset) error {
	pragmas := []string{
		"PRAGMA page_size = 4096", // before the first table exists
		"PRAGMA journal_mode = DELETE",
		"PRAGMA foreign_keys = ON",
		"PRAGMA user_version = 1",
	}
	return sqlitefile.Fill(path, pragmas, func(db *sql.DB) error { return fill(db, ds) })
}

// fill writes ds into the empty database db and checks the result.
func fill(db *sql.DB, ds *dataset) (err error) {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, q := range schema {
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("schema: %w\n%s", err, q)
		}
	}
	for _, t := range ds.tables {
		cols := make([]string, len(t.cols))
		marks := make([]string, len(t.cols))
		for i, c := range t.cols {
			cols[i] = quoteIdent(c)
			marks[i] = "?"
		}
		q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", quoteIdent(t.name),
			strings.Join(cols, ", "), strings.Join(marks, ", "))
		stmt, err := tx.Prepare(q)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		for _, row := range t.rows {
			if _, err := stmt.Exec(row...); err != nil {
				_ = stmt.Close()
				return fmt.Errorf("%s %v: %w", t.name, row, err)
			}
		}
		if err := stmt.Close(); err != nil {
			return err
		}
	}
	for _, q := range append(append([]string{}, indexes...), views...) {
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}

	// Self-checks before the file is accepted.
	rows, err := db.Query("PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	bad := rows.Next()
	if err := rows.Close(); err != nil {
		return err
	}
	if bad {
		return errors.New("foreign_key_check reported violations")
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil {
		return err
	}
	if ok != "ok" {
		return fmt.Errorf("integrity_check: %s", ok)
	}
	if _, err := db.Exec("VACUUM"); err != nil {
		return err
	}
	return nil
}
