package mysql_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// TestOwnObjectsNewerThanGuard: a view or function made or replaced just
// after the guard read the database (well within the time it keeps what it
// read) is vetted as it now is: a statement reading a view that now calls
// a stored function, new or known, reads a view that does, or calls a
// refused function itself, or a table re-made as such a view, is refused
// naming what it reaches, and nothing runs — the lock tw-grab is free, no
// rows come back. The same connection then serves the next statement.
func TestOwnObjectsNewerThanGuard(t *testing.T) {
	const grab = "CREATE FUNCTION grab(n INT) RETURNS INT NOT DETERMINISTIC RETURN GET_LOCK('tw-grab', 0) + n"
	for _, c := range []struct {
		name   string
		before []string // made before the guard reads the database
		after  []string // made just after
		sql    string
		want   string // in the refusal
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
			for _, q := range c.before {
				f.exec(t, q)
			}
			// The guard reads the database.
			if _, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{}); err != nil {
				t.Fatal(err)
			}
			for _, q := range c.after {
				f.exec(t, q)
			}
			res, err := query.Collect(context.Background(), eng, c.sql, query.Options{})
			var rej *guard.Rejection
			if !errors.As(err, &rej) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v (rows %v), want a refusal naming %s", c.sql, err, res, c.want)
			}
			if held := f.scalar(t, "SELECT IS_USED_LOCK('tw-grab')"); held != "" {
				t.Errorf("lock tw-grab held by connection %s: grab ran", held)
			}
			if res, err := query.Collect(context.Background(), eng, "SELECT COUNT(*) FROM Genre", query.Options{}); err != nil || res.Rows[0][0] != int64(25) {
				t.Errorf("the next statement: %v %v", res, err)
			}
		})
	}
}
