package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

func TestArgumentErrors(t *testing.T) {
	c := sampleClient(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"run_sql", map[string]any{"sql": "SELECT 1", "max_rows": 5000}, "argument max_rows must be at most 1000 (got 5000)"},
		{"run_sql", map[string]any{"sql": "SELECT 1", "max_rows": 0}, "argument max_rows must be at least 1 (got 0)"},
		{"run_sql", map[string]any{"sql": "SELECT 1", "max_rows": 2.5}, "argument max_rows must be a whole number"},
		{"run_sql", map[string]any{"sql": "SELECT 1", "max_rows": "ten"}, "argument max_rows must be a whole number"},
		{"run_sql", map[string]any{}, "missing required argument sql"},
		{"run_sql", map[string]any{"sql": ""}, "missing required argument sql"},
		{"run_sql", map[string]any{"sql": " \n"}, "missing required argument sql"},
		{"describe_table", map[string]any{"table": strings.Repeat("x", guard.MaxSQLBytes+1)}, "argument table is too long (at most 102400 bytes)"},
		{"make_chart", map[string]any{"sql": "SELECT 1", "title": strings.Repeat("t", 201)}, "argument title is too long (at most 200 characters)"},
		{"run_sql", map[string]any{"sql": 42}, "argument sql must be a string"},
		{"run_sql", map[string]any{"query": "SELECT 1"}, `unknown argument "query": run_sql takes max_rows, sql`},
		{"list_tables", map[string]any{"x": 1}, `unknown argument "x": list_tables takes limit, offset, pattern`},
		{"search_schema", map[string]any{"query": "x", "detail": "everything"}, `argument detail must be one of names, summary, full (got "everything")`},
		{"make_chart", map[string]any{"sql": "SELECT 1", "kind": "donut"}, `argument kind must be one of bar, hbar, line, scatter, pie, histogram (got "donut")`},
	} {
		t.Run(fmt.Sprint(tc.tool, tc.args), func(t *testing.T) {
			assert.Equal(t, tc.want, errResult(t, mcptest.Call(t, c, tc.tool, tc.args)))
		})
	}
}

func TestToolErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&guard.Rejection{What: "DELETE", Reason: "DELETE is not allowed: the database is read-only", Hint: guard.ReadOnlyHint},
			"read-only: only a single SELECT/WITH/VALUES statement can run. Refused: DELETE is not allowed: the database is read-only.\nhint: rewrite it as one SELECT that reads what you need"},
		{&guard.SQLError{Msg: "no such table: x", Hint: "did you mean y?"}, "SQL error: no such table: x\nhint: did you mean y?"},
		{&query.LimitError{Kind: "deadline", Msg: "query stopped at the 5s deadline", Hint: "add a LIMIT"}, "query stopped at the 5s deadline\nhint: add a LIMIT"},
		{&guard.Rejection{What: "ATTACH", Reason: "ATTACH is not allowed", Hint: "open the other database with --db"},
			"read-only: only a single SELECT/WITH/VALUES statement can run. Refused: ATTACH is not allowed.\nhint: open the other database with --db"},
		{fmt.Errorf("describe: %w", &tools.NotFoundError{Kind: "table", Name: "custmers", Nearest: []string{"customers"}}),
			"no such table: custmers\nhint: did you mean customers? (list_tables shows every table)"},
		{argError("missing required argument sql"), "missing required argument sql"},
		{busyError(4), "server busy: 4 tool calls are already running\nhint: retry in a moment; the call did not run"},
		{fmt.Errorf("wrapped: %w", guard.ErrEmpty), "wrapped: " + guard.ErrEmpty.Error() + "\nhint: give one SELECT, WITH or VALUES statement"},
		{context.DeadlineExceeded, "the request ran out of time\nhint: ask for less: aggregate or filter in SQL"},
		{fmt.Errorf("query cancelled: %w", context.Canceled), "the request was cancelled"},
	} {
		res, err := toolError(tc.err)
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.Equal(t, tc.want, resultText(res))
	}
	bug := errors.New("boom")
	res, err := toolError(bug)
	assert.Nil(t, res)
	assert.Equal(t, bug, err, "anything else is a bug, returned as a Go error")
}

// TestLongNamesInToolErrorsAreClipped: a tool's error named what the
// model sent whole, so a table of 100,000 characters came back as 100 KB
// of error (for the model to read as tokens). The name is shown by its
// start and its length.
func TestLongNamesInToolErrorsAreClipped(t *testing.T) {
	c := sampleClient(t)
	long := "tw_" + strings.Repeat("x", 100_000-3)
	for _, tc := range []struct {
		tool string
		args map[string]any
		say  string
	}{
		{"describe_table", map[string]any{"table": long}, "no such table: "},
		{"run_sql", map[string]any{"sql": "SELECT * FROM " + long}, "SQL error: no such table: "},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			got := errResult(t, mcptest.Call(t, c, tc.tool, tc.args))
			assert.Less(t, len(got), 1<<10, "%.300q", got)
			assert.Contains(t, got, tc.say+long[:100])
			assert.Contains(t, got, "(100,000 characters)")
		})
	}
}

// TestCallDeadline checks that a tool call is bounded in time as a whole:
// with a cap shorter than the statement's own deadline, an endless query
// comes back as an error result when the cap passes.
func TestCallDeadline(t *testing.T) {
	s, err := New(Options{Databases: []*db.DB{sampleDB(t)}, CallTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	c := connect(t, s)
	start := time.Now()
	res := mcptest.Call(t, c, "run_sql", map[string]any{"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"})
	elapsed := time.Since(start)
	assert.Equal(t, "the request ran out of time\nhint: ask for less: aggregate or filter in SQL", errResult(t, res))
	assert.Less(t, elapsed, 3*time.Second, "stopped at the call deadline, not the statement's")

	// Without a cap, each tool has its own bound, past its statement's
	// (stretched in a race build, like the catalog's bounds).
	d := newServer(t, sampleDB(t))
	assert.Equal(t, (tools.Timeout+5*time.Second)*engine.RaceSlowdown, d.callTimeout(runSQL))
	assert.Equal(t, (exportTimeout+5*time.Second)*engine.RaceSlowdown, d.callTimeout(exportCSV))
	assert.Equal(t, 200*time.Millisecond, s.callTimeout(exportCSV))
}
