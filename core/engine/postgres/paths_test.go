package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
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
	if err := sessionErr(victim); err != nil {
		t.Fatalf("the index trial ended the other session: %v (trial: %v)", err, trialErr)
	}
	if !refusalNames(trialErr, "cutoff") {
		t.Errorf("the trial of a view replaced to call cutoff: %v", trialErr)
	}
}

// TestIndexTrialRunsAsRole: with tablewise_role, an index trial plans as
// that role, as Explain does: a row security policy that applies to the
// role only is in its plans (the login user is a superuser, whom no
// policy applies to).
func TestIndexTrialRunsAsRole(t *testing.T) {
	url := servers.Postgres(t)
	a := admin(t, url)
	exec(t, a, `CREATE EXTENSION hypopg`)
	role := fmt.Sprintf("tablewise_trial_%d", os.Getpid())
	exec(t, a, "CREATE ROLE "+role+" NOLOGIN")
	t.Cleanup(func() {
		a.Exec(context.Background(), "DROP OWNED BY "+role)
		a.Exec(context.Background(), "DROP ROLE "+role)
	})
	exec(t, a, `GRANT SELECT ON "Track" TO `+role)
	exec(t, a, `ALTER TABLE "Track" ENABLE ROW LEVEL SECURITY`)
	exec(t, a, `CREATE POLICY composer ON "Track" FOR SELECT TO `+role+` USING ("Composer" = 'AC/DC')`)
	exec(t, a, `ANALYZE "Track"`)
	e := open(t, url+"&"+postgres.RoleParam+"="+role)
	before, after, err := e.TryIndexes(context.Background(), `SELECT "Name" FROM "Track" WHERE "Milliseconds" > 0`,
		[]engine.IndexSpec{{Table: "Track", Columns: []string{"Composer"}}})
	if err != nil {
		t.Fatal(err)
	}
	uses := func(p *engine.Plan) bool {
		for _, s := range p.Steps {
			if strings.Contains(s.Detail, "tablewise_candidate_1") {
				return true
			}
		}
		return false
	}
	if len(after) != 1 || !uses(after[0]) {
		t.Errorf("the trial as %s does not use the index on the policy's column: before %+v, after %+v", role, before.Steps, after[0].Steps)
	}
}
