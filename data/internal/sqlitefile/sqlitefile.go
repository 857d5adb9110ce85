// Package sqlitefile opens the SQLite files the data generators write.
package sqlitefile

import (
	"database/sql"
	"fmt"
)

// Open opens the SQLite database at path (created if missing) with the
// "sqlite" driver, which the caller registers (modernc.org/sqlite), on
// exactly one connection, since PRAGMAs are per connection, and runs
// pragmas on it in order. On error the database is closed.
func Open(path string, pragmas ...string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, q := range pragmas {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	return db, nil
}

// Fill opens the database at path as Open does, calls fill with it and
// closes it; the error is fill's, or else the one from closing.
func Fill(path string, pragmas []string, fill func(*sql.DB) error) (err error) {
	db, err := Open(path, pragmas...)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	return fill(db)
}
