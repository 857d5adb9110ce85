package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// explainTimeout bounds EXPLAIN, which plans and never runs.
const explainTimeout = query.DefaultTimeout

// Explain vets sql as Run does and shows the plan EXPLAIN (FORMAT JSON)
// gives, one step per node, with the planner's row estimates. Leading
// EXPLAIN prefixes in sql are dropped; a sequential scan names its table.
func (e *Engine) Explain(ctx context.Context, sql string) (*engine.Plan, error) {
	stmt, err := stripExplain(sql)
	if err != nil {
		return nil, err
	}
	res, err := query.Collect(ctx, e, "EXPLAIN (FORMAT JSON) "+stmt, query.Options{MaxRows: 10, Timeout: explainTimeout})
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 {
		return nil, &guard.SQLError{Msg: "the server gave no plan"}
	}
	return planOf(stmt, engine.String(res.Rows[0][0]))
}

// planOf reads the text of EXPLAIN (FORMAT JSON) stmt.
func planOf(stmt, text string) (*engine.Plan, error) {
	var doc []struct {
		Plan          map[string]any `json:"Plan"`
		ExecutionTime *float64       `json:"Execution Time"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil || len(doc) == 0 {
		return nil, fmt.Errorf("read the plan: %v", err)
	}
	out := &engine.Plan{SQL: strings.TrimSpace(stmt), Steps: []engine.PlanStep{}}
	var id int64
	var walk func(n map[string]any, parent int64)
	walk = func(n map[string]any, parent int64) {
		id++
		me := id
		step := engine.PlanStep{ID: me, Parent: parent, Detail: detail(n), Rows: engine.Float64(n["Plan Rows"])}
		if loops, ok := n["Actual Loops"]; ok {
			// ANALYZE: rows and time per loop, made totals.
			step.Loops = engine.Float64(loops)
			rows, ms := engine.Float64(n["Actual Rows"])*step.Loops, engine.Float64(n["Actual Total Time"])*step.Loops
			step.ActualRows, step.ActualMS = &rows, &ms
		}
		if n["Node Type"] == "Seq Scan" {
			step.Scan = engine.String(n["Relation Name"])
		}
		if n["Node Type"] == "Sort" && n["Sort Key"] != nil {
			step.Note = "a sort orders the rows"
		}
		out.Steps = append(out.Steps, step)
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					walk(m, me)
				}
			}
		}
	}
	walk(doc[0].Plan, 0)
	if t := doc[0].ExecutionTime; t != nil && len(out.Steps) > 0 && out.Steps[0].ActualRows != nil {
		out.Actual = &engine.Actual{Rows: int64(*out.Steps[0].ActualRows), MS: *t, PerStep: true}
	}
	return out, nil
}

// detail is one line for a plan node: "Seq Scan on Track", "Hash Join".
func detail(n map[string]any) string {
	d := engine.String(n["Node Type"])
	if s := engine.String(n["Strategy"]); s != "" && s != "Plain" && d == "Aggregate" {
		d = s + " " + d
	}
	if r := engine.String(n["Relation Name"]); r != "" {
		d += " on " + r
		if a := engine.String(n["Alias"]); a != "" && a != r {
			d += " " + a
		}
	}
	if ix := engine.String(n["Index Name"]); ix != "" {
		d += " using " + ix
	}
	if j := engine.String(n["Join Type"]); j != "" && j != "Inner" {
		d += " (" + j + ")"
	}
	return d
}
