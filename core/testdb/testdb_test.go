package testdb

import (
	"database/sql"
	"testing"
	"time"
)

// TestBuildAtWaitsForReader: a change made while another connection holds
// a read lock on the file (as the explorer does while it reads the
// catalog) waits for the lock instead of failing "database is locked".
func TestBuildAtWaitsForReader(t *testing.T) {
	path := Build(t, "r.db", "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1)")
	release := Hold(t, path, "BEGIN", "SELECT count(*) FROM a")
	go func() {
		time.Sleep(300 * time.Millisecond)
		release()
	}()
	BuildAt(t, path, "CREATE TABLE b (y INTEGER)")
	r, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var tables int
	if err := r.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 2 {
		t.Errorf("%d tables after BuildAt, want 2", tables)
	}
}
