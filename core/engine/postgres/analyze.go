package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tablewise/tablewise/core/engine"
)

var _ engine.Analyzer = (*Engine)(nil)

// ExplainAnalyze implements engine.Analyzer with EXPLAIN (ANALYZE, FORMAT
// JSON), which runs the statement. The statement is vetted exactly as Run
// vets it (the text, then the server's plan of it, in the same read-only
// transaction with statement_timeout set to timeout), and only then run
// under EXPLAIN ANALYZE in that transaction, which is rolled back and the
// session reset as after Run. Leading EXPLAINs in sql are dropped.
func (e *Engine) ExplainAnalyze(ctx context.Context, sql string, timeout time.Duration) (*engine.Plan, error) {
	stmt, err := stripExplain(sql)
	if err != nil {
		return nil, err
	}
	st, err := vetText(stmt)
	if err != nil {
		return nil, err
	}
	if st.kind != "select" {
		return nil, engine.NotMeasurable(firstWord(lex(stmt)))
	}
	var plan *engine.Plan
	err = e.inTx(ctx, timeout, func(ctx context.Context, c *pgconn.PgConn) error {
		if _, err := e.vetServer(ctx, c, st, stmt, timeout); err != nil {
			return err
		}
		// The vetted statement, run with the plan the guard read; reset
		// afterwards as after Run.
		var out *pgconn.Result
		err := e.thenReset(ctx, c, func(p *pgconn.Pipeline) {
			p.SendQueryParams("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE "+preparedName, nil, nil, nil, nil)
		}, "the server sent no plan", func(rr *pgconn.ResultReader) error {
			out = rr.Read()
			return out.Err
		})
		if err != nil {
			return err
		}
		var text []byte
		for _, row := range out.Rows {
			text = append(text, row[0]...)
		}
		plan, err = planOf(stmt, string(text))
		return err
	})
	if err != nil {
		return nil, err
	}
	if plan.Actual == nil {
		return nil, errors.New("the server's plan has no actual rows or times")
	}
	return plan, nil
}
