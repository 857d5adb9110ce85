package mysql

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

// accessDetail words how the server reads table (access type typ, index
// key) as SQLite's plans do: SCAN t, SCAN t USING INDEX k, SEARCH t USING
// INDEX k (ref).
func accessDetail(table, typ, key string) string {
	switch {
	case typ == "ALL":
		return "SCAN " + table
	case typ == "index":
		return "SCAN " + table + " USING INDEX " + key
	case key != "":
		return "SEARCH " + table + " USING INDEX " + key + " (" + typ + ")"
	}
	return strings.TrimSpace(typ + " " + table)
}

// stripExplain drops leading EXPLAIN, DESCRIBE and DESC prefixes.
func stripExplain(sql string) string { return engine.TrimPrefixes(explainPrefix, sql) }

var explainPrefix = regexp.MustCompile(`(?is)^\s*(?:EXPLAIN|DESCRIBE|DESC)\s+(?:EXTENDED\s+|PARTITIONS\s+|FORMAT\s*=\s*\w+\s+)*`)

// Explain runs EXPLAIN through the guard, which refuses whatever it
// refuses for sql itself; leading EXPLAINs in sql are dropped. Each row of
// the server's plan is a step: a full scan (type ALL) names its table.
func (e *Engine) Explain(ctx context.Context, sql string) (*engine.Plan, error) {
	stmt := stripExplain(sql)
	res, err := query.Collect(ctx, e, "EXPLAIN "+stmt, query.Options{MaxRows: 10_000, Timeout: query.DefaultTimeout})
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, c := range res.Columns {
		col[strings.ToLower(c.Name)] = i
	}
	get := func(r query.Row, name string) string {
		i, ok := col[name]
		if !ok || r[i] == nil {
			return ""
		}
		return fmt.Sprint(r[i])
	}
	out := &engine.Plan{SQL: stmt, Steps: []engine.PlanStep{}}
	for n, r := range res.Rows {
		table, typ, key, extra := get(r, "table"), get(r, "type"), get(r, "key"), get(r, "extra")
		detail := get(r, "select_type")
		if table != "" || typ == "ALL" || typ == "index" {
			detail = accessDetail(table, typ, key)
		}
		if extra != "" {
			detail += " — " + extra
		}
		step := engine.PlanStep{ID: int64(n + 1), Detail: detail}
		fmt.Sscan(get(r, "rows"), &step.Rows)
		if typ == "ALL" && !strings.HasPrefix(table, "<") {
			step.Scan = table
		}
		if strings.Contains(extra, "Using temporary") || strings.Contains(extra, "Using filesort") {
			step.Note = "the server sorts or groups the rows in a temporary table (" + extra + ")"
		}
		out.Steps = append(out.Steps, step)
	}
	return out, nil
}
