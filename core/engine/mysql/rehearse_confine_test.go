package mysql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestRehearsalIsConfinedByPrivileges: with root as the scratch user on
// the checked database's own server, the only thing that kept a script
// away from the server's other databases was the reading of its text,
// which refuses names of the checked database but not of any other: DROP
// TABLE of another database, a table made in mysql, a trigger or a
// procedure writing another database ran. The scripts now run as a user
// of the rehearsal's own, with rights on the rehearsal database only: the
// server refuses each of them, and the other database and mysql stay as
// they were.
func TestRehearsalIsConfinedByPrivileges(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	id := f.scalar(t, "SELECT CONNECTION_ID()")
	other, probe := "tw_other_"+id, "tw_probe_"+id
	t.Cleanup(func() { f.root.Exec("DROP DATABASE IF EXISTS " + other) })
	t.Cleanup(func() { f.root.Exec("DROP TABLE IF EXISTS mysql." + probe) })
	f.exec(t, "CREATE DATABASE "+other)
	f.exec(t, "CREATE TABLE "+other+".t (a INT PRIMARY KEY, b TEXT)")
	f.exec(t, "INSERT INTO "+other+".t VALUES (1, 'one'), (2, 'two')")
	state := func() string {
		return servers.MySQLChecksums(t, f.root, other+".t") + " " +
			f.scalar(t, "SELECT GROUP_CONCAT(CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) ORDER BY 1) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? OR TABLE_SCHEMA = 'mysql' AND TABLE_NAME = ?", other, probe)
	}
	before := state()
	for _, c := range []struct{ up, denied string }{
		{"DROP TABLE " + other + ".t;", "DROP TABLE"},
		{"CREATE TABLE " + other + ".x (a INT);", "CREATE TABLE"},
		{"CREATE TABLE mysql." + probe + " (a INT);", "CREATE TABLE"},
		{"INSERT INTO " + other + ".t VALUES (3, 'three');", "INSERT"},
		{"CREATE TABLE t (a INT);\nCREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO " + other + ".t VALUES (NEW.a + 100, 'trigger');\nINSERT INTO t VALUES (1);", "INSERT INTO t"},
		{"CREATE PROCEDURE p() MODIFIES SQL DATA DELETE FROM " + other + ".t;\nCALL p();", "CALL"},
	} {
		reh, err := f.eng.RehearseIn(context.Background(), scratch, c.up, "")
		if err != nil {
			t.Fatalf("%s: %v", c.up, err)
		}
		denied := false
		for _, s := range reh.Up {
			t.Logf("%q: %s", s.SQL, s.Err)
			if strings.HasPrefix(s.SQL, c.denied) {
				denied = strings.Contains(s.Err, "denied")
			}
		}
		if !denied {
			t.Errorf("%s: the statement %s was not denied by the server: %+v", c.up, c.denied, reh.Up)
		}
		if got := state(); got != before {
			t.Errorf("%s: the server's other databases changed: %s, were %s", c.up, got, before)
			f.exec(t, "DROP DATABASE IF EXISTS "+other)
			f.exec(t, "DROP TABLE IF EXISTS mysql."+probe)
			f.exec(t, "CREATE DATABASE "+other)
			f.exec(t, "CREATE TABLE "+other+".t (a INT PRIMARY KEY, b TEXT)")
			f.exec(t, "INSERT INTO "+other+".t VALUES (1, 'one'), (2, 'two')")
		}
	}
	// Also when the rehearsal's context ends in the middle of a statement.
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	reh, err := f.eng.RehearseIn(ctx, scratch, "CREATE TABLE t (a INT);\nDO SLEEP(3);", "")
	if err == nil {
		t.Logf("cancelled: %+v", reh.Up)
	} else {
		t.Logf("cancelled: %v", err)
	}
	for end := time.Now().Add(5 * time.Second); f.running(t, "DO SLEEP(3)") > 0 && time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
	}
	if n := f.scalar(t, "SELECT COUNT(*) FROM mysql.user WHERE User LIKE 'tw\\_rehearse\\_%'"); n != "0" {
		t.Errorf("%s rehearsal users left on the server", n)
	}
	if n := f.scalar(t, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'tablewise\\_rehearse\\_%'"); n != "0" {
		t.Errorf("%s rehearsal databases left on the server", n)
	}
}

// TestScratchUserThatReachesIsRefused: a scratch user that may not make
// a user of the rehearsal's own runs the scripts itself; on the checked
// database's own server, one that may write the checked database (or,
// with a global right, any) is refused before anything is made, with
// what to give instead; one whose rights are the scratch database's
// only rehearses.
func TestScratchUserThatReachesIsRefused(t *testing.T) {
	f := chinook(t)
	scratch := servers.MySQL(t)
	checked, scratchDB := f.scalar(t, "SELECT DATABASE()"), strings.TrimPrefix(scratch, servers.DefaultMySQL)
	host := f.scalar(t, "SELECT SUBSTRING_INDEX(USER(), '@', -1)")
	user := "tw_scratch_" + f.scalar(t, "SELECT CONNECTION_ID()")
	account := "'" + user + "'@'" + host + "'"
	t.Cleanup(func() { f.root.Exec("DROP USER IF EXISTS " + account) })
	f.exec(t, "CREATE USER "+account+" IDENTIFIED BY 'Sc#9ratch'")
	// The rights a scratch user needs: its database and the rehearsal's.
	rehearsals := "GRANT ALL PRIVILEGES ON `tablewise\\_rehearse\\_%`.* TO " + account
	f.exec(t, rehearsals)
	f.exec(t, "GRANT ALL PRIVILEGES ON `"+scratchDB+"`.* TO "+account)
	url := strings.Replace(scratch, "root@", user+":"+"Sc%239ratch@", 1)
	databases := func() string {
		return f.scalar(t, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'tablewise\\_rehearse\\_%'")
	}
	reh, err := f.eng.RehearseIn(context.Background(), url, "CREATE TABLE t (a INT);", "")
	if err != nil || len(reh.Up) != 1 || reh.Up[0].Err != "" {
		t.Errorf("a scratch user with rights on the rehearsal's databases only did not rehearse: %+v, %v", reh, err)
	}
	for _, grant := range []string{"GRANT INSERT ON `" + checked + "`.* TO " + account, "GRANT UPDATE ON `" + checked + "`.Genre TO " + account, "GRANT CREATE, DROP ON *.* TO " + account} {
		f.exec(t, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM "+account)
		f.exec(t, rehearsals)
		f.exec(t, "GRANT ALL PRIVILEGES ON `"+scratchDB+"`.* TO "+account)
		f.exec(t, grant)
		before := databases()
		_, err := f.eng.RehearseIn(context.Background(), url, "CREATE TABLE t (a INT);", "")
		t.Logf("%s: %v", grant, err)
		var ue *engine.UsageError
		if !errors.Is(err, engine.ErrScratchReaches) || !errors.As(err, &ue) || !strings.Contains(err.Error(), "give a --scratch URL") {
			t.Errorf("%s: the scratch user was not refused: %v", grant, err)
		}
		if got := databases(); got != before {
			t.Errorf("%s: rehearsal databases %s, were %s", grant, got, before)
		}
	}
}
