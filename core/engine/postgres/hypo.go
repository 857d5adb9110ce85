package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// ErrNoHypoPG: TryIndexes needs the HypoPG extension in the database.
// It matches engine.ErrNoIndexTrial.
var ErrNoHypoPG error = noHypoPG{}

type noHypoPG struct{}

func (noHypoPG) Error() string {
	return "proving index advice on PostgreSQL needs the HypoPG extension, which this database does not have: an administrator can add it with CREATE EXTENSION hypopg (Debian: the postgresql-15-hypopg package); tablewise never installs anything"
}

func (noHypoPG) Unwrap() error { return engine.ErrNoIndexTrial }

// hypoCalls are the HypoPG functions TryIndexes calls (denied to a
// statement: they change the planner for the rest of the session).
var hypoCalls = []string{"hypopg_create_index", "hypopg_reset"}

// trialName names the statement an index trial plans.
const trialName = "tablewise_trial"

// afterTrialExplain, when set (by tests), runs between an index trial's
// Explain and its session.
var afterTrialExplain func()

// TryIndexes implements engine.IndexTrier with HypoPG's hypothetical
// indexes: each exists only in the memory of one session, inside a
// read-only transaction, for one EXPLAIN (which plans and never runs), and
// the session is closed afterwards rather than returned to the pool.
// sql is vetted as Explain vets it; nothing is written.
func (e *Engine) TryIndexes(ctx context.Context, sql string, specs []engine.IndexSpec) (*engine.Plan, []*engine.Plan, error) {
	before, err := e.Explain(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	res, err := query.Collect(ctx, e, "SELECT count(*) FROM pg_extension WHERE extname = 'hypopg'", query.Options{MaxRows: 1, Timeout: explainTimeout})
	if err != nil {
		return nil, nil, err
	}
	if n, _ := res.Rows[0][0].(int64); n == 0 {
		return nil, nil, ErrNoHypoPG
	}
	if afterTrialExplain != nil {
		afterTrialExplain()
	}
	after := make([]*engine.Plan, len(specs))
	runCtx, cancel := context.WithTimeout(ctx, explainTimeout+clientSlack)
	defer cancel()
	err = e.withConn(runCtx, func(c *pgconn.PgConn) error {
		// The session holds hypothetical indexes: it is closed, not reset
		// and reused.
		defer c.Close(context.Background())
		// HypoPG's functions are called by name: the database's owner may
		// have replaced one with code of their own (or put another of
		// that name first on the search_path), which the guard refuses.
		// The statement is planned again here, after the check that loc
		// is what the database holds: it is vetted with loc, which may be
		// newer than what Explain vetted it with (a view replaced since to
		// call the database's own code would run as it is planned).
		st, err := vetText(before.SQL)
		if err != nil {
			return err
		}
		loc, err := e.vetLocal(runCtx, c, st, before.SQL)
		if err != nil {
			return err
		}
		for _, name := range hypoCalls {
			if why, ok := loc.replaced(name); ok {
				return &guard.Rejection{
					What:   name + "()",
					Reason: fmt.Sprintf("%s() is not allowed in an index trial: it %s", name, why),
					Hint:   "tablewise only reads the database's tables; ask the database's owner to restore HypoPG's " + name + "()",
				}
			}
		}
		// One statement each, by the extended protocol: never a second
		// statement hidden in the text.
		one := func(q string) ([][]byte, error) {
			r := c.ExecParams(runCtx, q, nil, nil, nil, nil).Read()
			if r.Err != nil {
				return nil, r.Err
			}
			if len(r.Rows) == 0 {
				return nil, nil
			}
			return r.Rows[0], nil
		}
		if _, err := one("BEGIN READ ONLY"); err != nil {
			return err
		}
		if _, err := one(fmt.Sprintf("SET LOCAL statement_timeout = %d", explainTimeout/time.Millisecond)); err != nil {
			return err
		}
		// As the role, as Explain planned it: its privileges and the row
		// security policies that apply to it, which the Parse below
		// adds to the statement.
		if e.role != "" {
			if _, err := one("SET LOCAL ROLE " + quoteIdent(e.role)); err != nil {
				return err
			}
		}
		// The check's failure: loc is older than the database.
		stale := func(err error) error {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "22P02" {
				e.expireLocal(loc)
				return fmt.Errorf("%w during the index trial: try again", errStale)
			}
			return err
		}
		// Parsed once, between two checks of what the guard knows (the
		// Parse runs the code of the types its literals are read as, and
		// it must not be planned before: fresh.go), taking the locks on
		// what it reads, waiting for none (a Parse that waited could
		// read what a session committed meanwhile: fresh.go; the trial
		// then ends with the server's 55P03); planned again (DISCARD
		// PLANS) with each hypothetical index, right after the check, in
		// one round trip.
		if e.printable {
			if _, err := one(e.freshLiteral(loc, e.lockColumn())); err != nil {
				return stale(err)
			}
		} else if _, err := one("SELECT " + e.lockColumn()); err != nil {
			return err
		}
		if _, err := c.Prepare(runCtx, trialName, before.SQL, nil); err != nil {
			return err
		}
		explain := "; DISCARD PLANS; EXPLAIN (FORMAT JSON) EXECUTE " + trialName
		if e.printable {
			explain = e.freshLiteral(loc, e.lockColumn()) + explain
		} else {
			explain = "SELECT " + e.lockColumn() + explain
		}
		for i, s := range specs {
			cols := make([]string, len(s.Columns))
			for j, col := range s.Columns {
				cols[j] = quoteIdent(col)
			}
			create := fmt.Sprintf("CREATE INDEX ON %s (%s)", quoteIdent(s.Table), strings.Join(cols, ", "))
			row, err := one("SELECT indexname FROM hypopg_create_index(" + quoteString(create) + ")")
			if err != nil {
				return fmt.Errorf("hypothetical index on %s (%s): %w", s.Table, strings.Join(s.Columns, ", "), err)
			}
			name := string(row[0])
			res, err := c.Exec(runCtx, explain).ReadAll()
			if err != nil {
				return stale(err)
			}
			if len(res) != 3 || len(res[2].Rows) != 1 {
				return errors.New("the server sent no plan for the index trial")
			}
			p, err := planOf(before.SQL, string(res[2].Rows[0][0]))
			if err != nil {
				return err
			}
			for k := range p.Steps {
				p.Steps[k].Detail = strings.ReplaceAll(p.Steps[k].Detail, name, fmt.Sprintf("tablewise_candidate_%d", i+1))
			}
			after[i] = p
			if _, err := one("SELECT hypopg_reset()"); err != nil {
				return err
			}
		}
		_, err = one("ROLLBACK")
		return err
	})
	if err != nil {
		return nil, nil, mapError(ctx, err, explainTimeout, 0)
	}
	return before, after, nil
}

// IndexTrial implements engine.IndexTrier.
func (e *Engine) IndexTrial() string {
	return "planned by PostgreSQL with a hypothetical index (HypoPG) in a read-only transaction, never built"
}

var _ engine.IndexTrier = (*Engine)(nil)
