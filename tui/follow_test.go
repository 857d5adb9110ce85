package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

const zooSchema = `CREATE TABLE birds (id INTEGER PRIMARY KEY, wings INTEGER);
CREATE TABLE cats (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE dogs (id INTEGER PRIMARY KEY, breed TEXT);
INSERT INTO cats (name) VALUES ('Tom'), ('Felix');`

// selected is the sidebar's selection: the table's name and the column's
// ("" on a table line, and both "" when nothing is selected).
func (s *session) selected() (table, column string) {
	s.do(func(a *App) {
		if t, col := a.schema.Selected(); t != nil {
			table, column = t.Name, col
		}
	})
	return table, column
}

// TestSidebarFollowsSchema: tables created and dropped, and a column
// added, by another connection while the explorer is open show in the
// sidebar, in completion and in .tables within a few seconds, and the
// user keeps their place: the selected table, the expanded one, the
// filter. Dropping the table the user looks at breaks nothing.
func TestSidebarFollowsSchema(t *testing.T) {
	path := testdb.Build(t, "zoo.db", zooSchema)
	s := start(t, testdb.Open(t, path), testOptions(t), 100, 30)
	s.waitApp("the catalog", func(a *App) bool { return a.cat != nil })
	s.waitText("birds", "cats", "dogs")

	// cats selected and expanded, its rows shown.
	s.key("alt+1")
	s.key("down")
	s.key("space")
	s.key("enter")
	s.waitText("└ name", "Felix")
	if tb, col := s.selected(); tb != "cats" || col != "" {
		t.Fatalf("selected %q %q, want the table cats", tb, col)
	}

	// A table sorted before cats, and a column of cats.
	testdb.BuildAt(t, path, `CREATE TABLE ants (id INTEGER PRIMARY KEY, colony TEXT);
ALTER TABLE cats ADD COLUMN whiskers INTEGER;`)
	s.waitText("ants", "└ whiskers") // cats is still expanded
	if tb, col := s.selected(); tb != "cats" || col != "" {
		t.Errorf("after the change the selection is %q %q, want the table cats", tb, col)
	}
	s.key("alt+2")
	s.typeText("SELECT colony FROM an")
	s.key("tab")
	s.waitApp("ants completed", func(a *App) bool { return a.input.Value() == "SELECT colony FROM ants" })
	s.key("ctrl+l")
	s.typeText(".tables")
	s.key("enter")
	s.waitText("row 1 of 4 · .tables", "ants")

	// The table the user looks at is dropped.
	testdb.BuildAt(t, path, `DROP TABLE cats; CREATE TABLE dodos (id INTEGER PRIMARY KEY)`)
	s.waitFor("cats gone, dodos listed", func(scr string) bool {
		return strings.Contains(scr, "dodos") && !strings.Contains(scr, "whiskers")
	})
	if tb, _ := s.selected(); tb == "" || tb == "cats" {
		t.Errorf("after cats was dropped the selection is %q, want a neighbour", tb)
	}
	s.key("alt+1")
	s.key("enter") // previews the new selection
	s.idle()

	// The filter stays as typed.
	s.key("/")
	s.typeText("do")
	s.key("enter")
	s.waitFor("the filter", func(scr string) bool { return strings.Contains(scr, "/ do") && !strings.Contains(scr, "ants") })
	testdb.BuildAt(t, path, `CREATE TABLE doves (id INTEGER PRIMARY KEY); CREATE TABLE eels (id INTEGER PRIMARY KEY)`)
	scr := s.waitText("doves", "/ do")
	for _, gone := range []string{"ants", "birds", "eels"} {
		if strings.Contains(scr, gone) {
			t.Errorf("the filter shows %s:\n%s", gone, scr)
		}
	}
}

// TestSidebarFollowsSchemaServers: on PostgreSQL and MySQL a table
// created by another connection shows in the sidebar once core/db checks
// the schema (every 200 ms here), the selection kept.
func TestSidebarFollowsSchemaServers(t *testing.T) {
	lite := testdb.Build(t, "zoo.db", zooSchema)
	for _, e := range servers.Kinds() {
		t.Run(e.Name, func(t *testing.T) {
			url := e.Of(t, lite)
			d, err := db.Open(context.Background(), url, db.Options{SchemaCheck: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			s := start(t, d, testOptions(t), 100, 30)
			s.waitApp("the catalog", func(a *App) bool { return a.cat != nil })
			s.waitText("birds", "cats", "dogs")
			s.key("alt+1")
			s.key("down")
			if tb, _ := s.selected(); tb != "cats" {
				t.Fatalf("selected %q, want cats", tb)
			}
			e.Exec(t, url, "CREATE TABLE ants (id INTEGER PRIMARY KEY, colony VARCHAR(20))")
			s.waitText("ants")
			if tb, _ := s.selected(); tb != "cats" {
				t.Errorf("after the change the selection is %q, want cats", tb)
			}
		})
	}
}

// TestSidebarRetriesFirstRead: when the first read of the catalog fails
// (here the file is locked by a writer), the sidebar says so and reads it
// again, listing the tables once the lock is gone.
func TestSidebarRetriesFirstRead(t *testing.T) {
	path := testdb.Build(t, "zoo.db", zooSchema)
	d := testdb.Open(t, path)
	release := testdb.Hold(t, path, "BEGIN EXCLUSIVE")
	s := start(t, d, testOptions(t), 100, 30)
	s.waitText("locked")
	release()
	s.waitText("birds", "cats", "dogs")
}
