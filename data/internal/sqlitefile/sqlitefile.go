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
