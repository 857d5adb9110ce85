package mysql_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// TestOwnObjectsNewerThanGuard: a view or function made or replaced just
// after the guard read the database (well within the time it keeps what it
// read) is vetted as it now is: a statement reading a view that now calls
// a stored function, new or known, reads a view that does, or calls a
// refused function itself, or a table re-made as such a view (read
// directly or through a view) or as a remote table, is refused naming
// what it reaches, in this database or another, and nothing runs — the
// lock tw-grab is free, no rows come back, the remote server is never
// connected to. The same connection then serves the next statement.
func TestOwnObjectsNewerThanGuard(t *testing.T) {
	const grab = "CREATE FUNCTION grab(n INT) RETURNS INT NOT DETERMINISTIC RETURN GET_LOCK('tw-grab', 0) + n"
	for _, c := range []struct {
		name   string
		before []string // made before the guard reads the database
		after  []string // made just after
		sql    string
		want   string // in the refusal
		// remote: a FEDERATED table connects to PORT, a proxy of the
		// test's own to the server (DB, its database) that counts the
		// connections the server makes.
		remote bool
	}{
		{
			name:   "new function, view replaced",
			before: []string{"CREATE VIEW fine AS SELECT Name FROM Genre"},
			after:  []string{grab, "CREATE OR REPLACE VIEW fine AS SELECT Name FROM Genre WHERE grab(1) > 0"},
			sql:    "SELECT COUNT(*) FROM fine",
			want:   "grab",
		},
		{
			name:   "view replaced to read a refused view",
			before: []string{grab, "CREATE VIEW `lock view` AS SELECT grab(1) AS g", "CREATE VIEW fine AS SELECT Name FROM Genre"},
			after:  []string{"CREATE OR REPLACE VIEW fine AS SELECT g AS Name FROM `lock view`"},
			sql:    "SELECT COUNT(*) FROM fine",
			want:   "lock view",
		},
		{
			name:   "table re-made as a view",
			before: []string{"CREATE TABLE scratch AS SELECT Name FROM Genre"},
			after:  []string{grab, "DROP TABLE scratch", "CREATE VIEW scratch AS SELECT grab(1) AS Name"},
			sql:    "SELECT COUNT(*) FROM scratch",
			want:   "grab",
		},
		{
			name:   "table under a view re-made as a view",
			before: []string{"CREATE TABLE scratch AS SELECT Name FROM Genre", "CREATE VIEW fine AS SELECT Name FROM scratch"},
			after:  []string{grab, "DROP TABLE scratch", "CREATE VIEW scratch AS SELECT grab(1) AS Name"},
			sql:    "SELECT COUNT(*) FROM fine",
			want:   "grab",
		},
		{
			name:   "view replaced to read a file",
			before: []string{"CREATE VIEW fine AS SELECT Name FROM Genre"},
			after:  []string{"CREATE OR REPLACE VIEW fine AS SELECT LOAD_FILE('/etc/hostname') AS Name"},
			sql:    "SELECT * FROM fine",
			want:   "LOAD_FILE",
		},
		{
			name:   "another database's view replaced to read a file",
			before: []string{"CREATE DATABASE OTHER", "CREATE VIEW OTHER.fine AS SELECT Name FROM Genre"},
			after:  []string{"CREATE OR REPLACE VIEW OTHER.fine AS SELECT LOAD_FILE('/etc/hostname') AS Name"},
			sql:    "SELECT * FROM OTHER.fine",
			want:   "LOAD_FILE",
		},
		{
			name:   "table re-made as a remote table",
			remote: true,
			before: []string{"CREATE TABLE scratch AS SELECT Name FROM Genre"},
			after:  []string{"DROP TABLE scratch", "CREATE TABLE scratch (GenreId INT NOT NULL, Name VARCHAR(120), PRIMARY KEY (GenreId)) ENGINE=FEDERATED CONNECTION='mysql://root@127.0.0.1:PORT/DB/Genre'", "FLUSH TABLES scratch"},
			sql:    "SELECT COUNT(*) FROM scratch",
			want:   "FEDERATED",
		},
		{
			name:   "new function called",
			before: nil,
			after:  []string{grab},
			sql:    "SELECT grab(1)",
			want:   "grab",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := chinook(t)
			eng := f.single(t)
			defer eng.Close()
			// OTHER is another database of the server, PORT the proxy.
			db := f.scalar(t, "SELECT DATABASE()")
			other := db + "_other"
			t.Cleanup(func() { f.root.Exec("DROP DATABASE IF EXISTS " + other) })
			port, connects := "0", (*atomic.Int64)(nil)
			if c.remote {
				if !installed(t, f, "FEDERATED", "ha_federatedx") {
					return
				}
				port, connects = listen(t, "127.0.0.1:"+f.scalar(t, "SELECT @@port"))
				t.Cleanup(func() { f.root.Exec("DROP TABLE IF EXISTS scratch") })
			}
			names := strings.NewReplacer("OTHER", other, "PORT", port, "DB", db)
			for _, q := range c.before {
				f.exec(t, names.Replace(q))
			}
			// The guard reads the database.
			if _, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{}); err != nil {
				t.Fatal(err)
			}
			for _, q := range c.after {
				f.exec(t, names.Replace(q))
			}
			var made int64
			if connects != nil {
				made = connects.Load()
			}
			res, err := query.Collect(context.Background(), eng, names.Replace(c.sql), query.Options{})
			var rej *guard.Rejection
			if !errors.As(err, &rej) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v (rows %v), want a refusal naming %s", c.sql, err, res, c.want)
			}
			if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
				t.Errorf("lock tw-grab held by connection %s: grab ran", held)
			}
			if connects != nil && connects.Load() != made {
				t.Errorf("the server connected to the remote table's server %d times", connects.Load()-made)
			}
			if res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{}); err != nil || res.Rows[0][0] != int64(25) {
				t.Errorf("the next statement: %v %v", res, err)
			}
		})
	}
}

// TestBuiltinsAreTheServers: a call the server's check takes as a
// built-in is never looked up among the stored functions, so each must
// be a function the server resolves to its own whatever the database
// defines: one it lists among its SQL functions or keywords
// (information_schema.SQL_FUNCTIONS, KEYWORDS: MariaDB 10.6 and later).
func TestBuiltinsAreTheServers(t *testing.T) {
	f := chinook(t)
	var n int
	if err := f.root.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = 'SQL_FUNCTIONS'").Scan(&n); err != nil || n == 0 {
		t.Skipf("this server does not list its SQL functions (%v)", err)
	}
	for _, w := range twmysql.Builtins() {
		own := f.scalar(t, "SELECT COUNT(*) FROM information_schema.SQL_FUNCTIONS WHERE FUNCTION = ?", w) != "0" ||
			f.scalar(t, "SELECT COUNT(*) FROM information_schema.KEYWORDS WHERE WORD = ?", w) != "0"
		if !own {
			t.Errorf("%s is taken as the server's own function, which the server does not list", w)
		}
	}
}
