package postgres_test

import (
	"testing"

	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestLineCommentEndsAtCarriageReturn: the server ends a -- comment at a
// carriage return as at a newline, so what follows it is code: the guard
// must read it as code too, or a call of the database's own IMMUTABLE
// function after "--\r" runs while the statement is planned. Here it ends
// another session.
func TestLineCommentEndsAtCarriageReturn(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, foldKiller)
	victim := victimSession(t, url)
	e := open(t, url)
	refusedNaming(t, e, victim, "fold()",
		"SELECT 1 --\r, fold(1)",
		"SELECT 1 AS a -- a comment\r, fold(2) AS b",
		"EXPLAIN SELECT 1 --\r, fold(3)")
}
