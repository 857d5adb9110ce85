package sqlite

import (
	"context"
	"regexp"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

var explainPrefix = regexp.MustCompile(`(?is)^\s*EXPLAIN\s+(?:QUERY\s+PLAN\s+)?`)

// explainTimeout bounds EXPLAIN QUERY PLAN, which compiles and never runs.
const explainTimeout = query.DefaultTimeout

// Explain runs EXPLAIN QUERY PLAN through the guard, which refuses
// whatever it refuses for sql itself. Leading EXPLAIN or EXPLAIN QUERY PLAN
// prefixes in sql, however many, are dropped. Each step that scans a
// table in full names it (Scan); a temporary b-tree gets a note.
func (d *Engine) Explain(ctx context.Context, sql string) (*engine.Plan, error) {
	stmt := stripExplain(sql)
	res, err := query.Collect(ctx, d, "EXPLAIN QUERY PLAN "+stmt, query.Options{MaxRows: 10_000, Timeout: explainTimeout})
	if err != nil {
		return nil, err
	}
	return planOf(stmt, res.Rows), nil
}

// stripExplain drops leading EXPLAIN or EXPLAIN QUERY PLAN prefixes.
func stripExplain(sql string) string { return engine.TrimPrefixes(explainPrefix, sql) }

// planOf reads the rows of EXPLAIN QUERY PLAN stmt.
func planOf(stmt string, rows []query.Row) *engine.Plan {
	out := &engine.Plan{SQL: stmt, Steps: []engine.PlanStep{}}
	for _, r := range rows {
		if len(r) < 4 {
			continue
		}
		id, _ := r[0].(int64)
		parent, _ := r[1].(int64)
		detail, _ := r[3].(string)
		step := engine.PlanStep{ID: id, Parent: parent, Detail: detail}
		if m := scanStep.FindStringSubmatch(detail); m != nil && m[2] == "" {
			step.Scan = catalog.Unquote(m[1])
		}
		if strings.Contains(detail, "USE TEMP B-TREE") {
			step.Note = "a temporary b-tree sorts or groups the rows (" + strings.TrimPrefix(detail, "USE TEMP B-TREE ") + ")"
		}
		out.Steps = append(out.Steps, step)
	}
	return out
}

var scanStep = regexp.MustCompile(`^SCAN (\S+)(?: AS \S+)?( USING (?:COVERING )?INDEX \S+)?`)
