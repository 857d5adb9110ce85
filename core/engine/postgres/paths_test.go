package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestIndexTrialViewNewerThanGuard: an index trial plans the statement
// Explain vetted again, on a session of its own, after checking that
// what the guard knows of the database's own objects is what the
// database holds. When the guard read them again in between (they were
// localMaxAge old), a view replaced meanwhile to call the database's own
// IMMUTABLE function on a constant is refused by that knowledge, before
// the trial plans it (the planner would run the function).
func TestIndexTrialViewNewerThanGuard(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE EXTENSION hypopg`)
	exec(t, a, `CREATE FUNCTION cutoff(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN
		`+endVictim+` RETURN $1; END $$`)
	exec(t, a, `CREATE VIEW composers AS SELECT "TrackId", "Composer" FROM "Track"`)
	victim := victimSession(t, url)
	e := open(t, url)
	postgres.AfterTrialExplain(t, func() {
		exec(t, a, `CREATE OR REPLACE VIEW composers AS SELECT "TrackId", "Composer" FROM "Track" WHERE "TrackId" > cutoff(0)`)
		postgres.ExpireLocal(e)
	})
	_, _, trialErr := e.TryIndexes(context.Background(), `SELECT * FROM composers WHERE "Composer" = 'x'`,
		[]engine.IndexSpec{{Table: "Track", Columns: []string{"Composer"}}})
	var one int
	if err := victim.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the index trial ended the other session: %v (trial: %v)", err, trialErr)
	}
	var rej *guard.Rejection
	if !errors.As(trialErr, &rej) || !strings.Contains(rej.Reason, "cutoff") {
		t.Errorf("the trial of a view replaced to call cutoff: %v", trialErr)
	}
}
