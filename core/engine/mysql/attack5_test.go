package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/query"
)

// TestOtherDatabaseViewCallsItsFunction: the server stores a view's call
// of a stored function of its own database unqualified (`takes`()), and
// runs it as that database's function when another database's statement
// reads the view. The guard looked such a name up among the functions of
// the connection's database only, so the view passed, and its function
// took a named lock that outlived the call and set a user variable and
// a session variable on the pooled connection (the read-only transaction
// refuses only its writes to tables). The view is
// refused, read directly or through a view of the connection's database,
// before and after the guard learnt it, and the pooled session and the
// server are unchanged.
func TestOtherDatabaseViewCallsItsFunction(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	// The guard learns the database before the views exist: confirm
	// sees them first, then vet.
	if _, err := query.Collect(context.Background(), eng, "SELECT 1", query.Options{}); err != nil {
		t.Fatal(err)
	}
	other := f.scalar(t, "SELECT DATABASE()") + "_fn"
	f.exec(t, "CREATE DATABASE "+other)
	t.Cleanup(func() { f.root.Exec("DROP DATABASE " + other) })
	// Made from a session whose database is the other one, as its owner
	// would: the server then writes the calls unqualified.
	c, err := f.root.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		"USE " + other,
		"CREATE FUNCTION takes() RETURNS INT RETURN GET_LOCK('tw-grab', 0)",
		"CREATE FUNCTION sets() RETURNS INT BEGIN SET @tw_other = 42; SET SESSION group_concat_max_len = 4; RETURN LAST_INSERT_ID(99); END",
		"CREATE FUNCTION hÖld() RETURNS INT RETURN GET_LOCK('tw-grab', 0)",
		"CREATE VIEW takes_lock AS SELECT takes() AS a",
		"CREATE VIEW sets_session AS SELECT sets() AS a",
		"CREATE VIEW accented AS SELECT hold() AS a", // calls hÖld: the server ignores accents
	} {
		if _, err := c.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if def := f.scalar(t, "SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'takes_lock'", other); def != "select `takes`() AS `a`" {
		t.Fatalf("the server wrote the view as %q", def)
	}
	f.exec(t, "CREATE VIEW reads_other AS SELECT a FROM "+other+".takes_lock")
	u := f.watch(t, "/tmp/tw-my-otherfn-")
	for round := 0; round < 2; round++ {
		for _, q := range []string{
			"SELECT * FROM " + other + ".takes_lock",
			"SELECT a FROM `" + other + "`.`sets_session`",
			"SELECT * FROM " + other + ".accented",
			"SELECT * FROM reads_other",
			"SELECT COUNT(*) FROM Genre WHERE GenreId IN (SELECT a FROM " + other + ".sets_session)",
		} {
			refuses(t, eng, q)
			// The next call releases what a call left: look now.
			if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
				t.Errorf("%q left the lock tw-grab held by connection %s", q, held)
			}
		}
	}
	u.check(t)
	res, err := query.Collect(context.Background(), eng, "SELECT @tw_other, @@last_insert_id, @@group_concat_max_len = @@global.group_concat_max_len", query.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != nil || r[1] != int64(0) || r[2] != int64(1) {
		t.Errorf("the pooled session after the attempts: @tw_other %v, last_insert_id %v, group_concat_max_len unchanged %v", r[0], r[1], r[2])
	}
}
