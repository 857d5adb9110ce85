package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestLoadedStateIsTheSessions: the server's state the guard reads with
// the database's own objects is the one a statement's check reads, which
// holds the search_path the database sets, not the one the guard's own
// reads pin; else every first check after a read fails, and costs a
// second check of the print.
func TestLoadedStateIsTheSessions(t *testing.T) {
	e := openOne(t, servers.PostgresSample(t))
	res, err := collect(t, e, "SELECT current_setting('search_path')")
	if err != nil {
		t.Fatal(err)
	}
	path := res.Rows[0][0].(string)
	state, err := postgres.LoadedState(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if state == "" {
		t.Skip("the server answers no state (a compatible engine): nothing to compare")
	}
	if !strings.HasSuffix(state, " "+path) {
		t.Errorf("state read with the database's objects: %q; want it to end with the session's search_path %q", state, path)
	}
}
