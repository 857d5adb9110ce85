package mysql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
)

var _ engine.Analyzer = (*Engine)(nil)

// ExplainAnalyze implements engine.Analyzer: MariaDB's ANALYZE
// FORMAT=JSON, MySQL's EXPLAIN ANALYZE, both of which run the statement.
// The statement is vetted exactly as Run vets it (before the transaction,
// and again inside it with what the guard knows of the database), and
// runs as Run runs it: in the read-only transaction, rolled back, under
// the server's statement deadline and the client's KILL QUERY at timeout
// or when ctx ends. Leading EXPLAINs in sql are dropped.
func (e *Engine) ExplainAnalyze(ctx context.Context, sqlText string, timeout time.Duration) (*engine.Plan, error) {
	stmt := stripExplain(sqlText)
	if err := vet(stmt, e.cachedFunctions()); err != nil {
		return nil, err
	}
	if err := measurable(stmt); err != nil {
		return nil, err
	}
	prefix := "EXPLAIN ANALYZE\n"
	if e.mariadb {
		prefix = "ANALYZE FORMAT=JSON\n"
	}
	var out string
	start := time.Now()
	err := e.withTx(ctx, timeout, func(c *conn, s *stopper) error {
		if err := e.vetOn(ctx, c, s, stmt); err != nil {
			return err
		}
		s.sql = stmt
		rows, err := c.QueryContext(s.qctx, prefix+stmt)
		if err != nil {
			return e.runError(s, err)
		}
		defer rows.Close()
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				return e.runError(s, err)
			}
			out += string(b)
		}
		if err := rows.Err(); err != nil {
			return e.runError(s, err)
		}
		if s.stopped() {
			return s.err()
		}
		return nil
	})
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	var p *engine.Plan
	if e.mariadb {
		p, err = mariaAnalyzed(stmt, out)
	} else {
		p, err = mysqlAnalyzed(stmt, out)
	}
	if err != nil {
		return nil, fmt.Errorf("read the server's plan: %w", err)
	}
	if p.Actual.MS == 0 {
		p.Actual.MS = float64(elapsed.Microseconds()) / 1000
	}
	return p, nil
}

// measurable admits the statements that can run under ANALYZE: queries,
// not SHOW or DESCRIBE.
func measurable(stmt string) error {
	toks, _ := lex(stmt)
	for _, t := range toks {
		if t.text == "(" {
			continue
		}
		switch t.up {
		case "SELECT", "WITH", "VALUES", "TABLE":
			return nil
		}
		return engine.NotMeasurable(t.up)
	}
	return guard.ErrEmpty
}

// jobject is a JSON object with its keys in the server's order.
type jobject struct {
	keys []string
	vals map[string]any
}

func (o *jobject) num(key string) (float64, bool) {
	f, ok := o.vals[key].(float64)
	return f, ok
}

func (o *jobject) str(key string) string {
	s, _ := o.vals[key].(string)
	return s
}

// decodeOrdered reads one JSON value, objects as *jobject.
func decodeOrdered(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jobject{vals: map[string]any{}}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := decodeOrdered(d)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, key)
				o.vals[key] = v
			}
			_, err := d.Token()
			return o, err
		case '[':
			var a []any
			for d.More() {
				v, err := decodeOrdered(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// mariaAnalyzed reads the text of MariaDB's ANALYZE FORMAT=JSON: a step
// for each query block, sort, temporary table and table read, in the
// server's order, with the rows each returned (r_rows over r_loops, after
// r_filtered) and the time it took.
func mariaAnalyzed(stmt, text string) (*engine.Plan, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(text)))
	root, err := decodeOrdered(d)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	p := &engine.Plan{SQL: strings.TrimSpace(stmt), Steps: []engine.PlanStep{},
		Actual: &engine.Actual{Rows: -1, PerStep: true, Note: "MariaDB reports rows and time per step, not the rows the statement returned"}}
	var id int64
	add := func(parent int64, detail string, o *jobject) *engine.PlanStep {
		id++
		p.Steps = append(p.Steps, engine.PlanStep{ID: id, Parent: parent, Detail: detail})
		s := &p.Steps[len(p.Steps)-1]
		if loops, ok := o.num("r_loops"); ok {
			s.Loops = loops
		}
		ms, ok := o.num("r_total_time_ms")
		if !ok {
			t, ok1 := o.num("r_table_time_ms")
			other, ok2 := o.num("r_other_time_ms")
			ms, ok = t+other, ok1 || ok2
		}
		if ok {
			s.ActualMS = &ms
		}
		return s
	}
	var walk func(v any, parent int64)
	walk = func(v any, parent int64) {
		switch n := v.(type) {
		case []any:
			for _, x := range n {
				walk(x, parent)
			}
		case *jobject:
			for _, k := range n.keys {
				child, isObj := n.vals[k].(*jobject)
				switch {
				case k == "query_block" && isObj:
					s := add(parent, "query block #"+strconv.FormatFloat(numOr(child, "select_id"), 'f', -1, 64), child)
					if p.Actual.MS == 0 && s.ActualMS != nil {
						p.Actual.MS = *s.ActualMS
					}
					walk(child, s.ID)
				case k == "filesort" && isObj:
					s := add(parent, "SORT ("+child.str("sort_key")+")", child)
					if r, ok := child.num("r_output_rows"); ok {
						s.ActualRows = &r
					}
					s.Note = "the server sorts the rows (filesort)"
					walk(child, s.ID)
				case k == "temporary_table" && isObj:
					s := add(parent, "TEMPORARY TABLE", child)
					s.Note = "the server groups or sorts the rows in a temporary table"
					walk(child, s.ID)
				case k == "table" && isObj && child.str("table_name") != "":
					name, typ, key := child.str("table_name"), child.str("access_type"), child.str("key")
					s := add(parent, accessDetail(name, typ, key), child)
					s.Rows, _ = child.num("rows")
					if r, ok := child.num("r_rows"); ok {
						loops := s.Loops
						if loops == 0 {
							loops = 1
						}
						filtered := 100.0
						if f, ok := child.num("r_filtered"); ok {
							filtered = f
						}
						rows := r * loops * filtered / 100
						s.ActualRows = &rows
					}
					if typ == "ALL" && !strings.HasPrefix(name, "<") {
						s.Scan = name
					}
					walk(child, s.ID)
				default:
					walk(n.vals[k], parent)
				}
			}
		}
	}
	walk(root, 0)
	if len(p.Steps) == 0 {
		return nil, errors.New("no plan in the server's answer")
	}
	return p, nil
}

func numOr(o *jobject, key string) float64 {
	f, _ := o.num(key)
	return f
}

// mysqlLine is one node of MySQL's EXPLAIN ANALYZE tree: "-> what
// (cost=… rows=…) (actual time=first..last rows=N loops=L)".
var mysqlLine = regexp.MustCompile(`^(\s*)-> (.*?)(?:\s+\(cost=[^)]*?rows=([0-9.e+]+)\))?(?:\s+\(actual time=[0-9.e+]+\.\.([0-9.e+]+) rows=([0-9.e+]+) loops=([0-9]+)\))?\s*$`)

// mysqlAnalyzed reads MySQL's EXPLAIN ANALYZE tree: one step per node,
// nested by indentation, with actual rows (per loop, made totals) and the
// time to the last row.
func mysqlAnalyzed(stmt, text string) (*engine.Plan, error) {
	p := &engine.Plan{SQL: strings.TrimSpace(stmt), Steps: []engine.PlanStep{},
		Actual: &engine.Actual{Rows: -1, PerStep: true}}
	type open struct {
		indent int
		id     int64
	}
	var stack []open
	for _, line := range strings.Split(text, "\n") {
		m := mysqlLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := len(m[1])
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		var parent int64
		if len(stack) > 0 {
			parent = stack[len(stack)-1].id
		}
		s := engine.PlanStep{ID: int64(len(p.Steps) + 1), Parent: parent, Detail: m[2]}
		s.Rows, _ = strconv.ParseFloat(m[3], 64)
		if m[5] != "" {
			last, _ := strconv.ParseFloat(m[4], 64)
			rows, _ := strconv.ParseFloat(m[5], 64)
			s.Loops, _ = strconv.ParseFloat(m[6], 64)
			rows *= s.Loops
			ms := last * s.Loops
			s.ActualRows, s.ActualMS = &rows, &ms
		}
		if t, ok := strings.CutPrefix(m[2], "Table scan on "); ok && !strings.HasPrefix(t, "<") {
			s.Scan = strings.Fields(t)[0]
		}
		p.Steps = append(p.Steps, s)
		stack = append(stack, open{indent, s.ID})
	}
	if len(p.Steps) == 0 {
		return nil, errors.New("no plan in the server's answer")
	}
	if r := p.Steps[0].ActualRows; r != nil {
		p.Actual.Rows = int64(*r)
	}
	if ms := p.Steps[0].ActualMS; ms != nil {
		p.Actual.MS = *ms
	}
	return p, nil
}
