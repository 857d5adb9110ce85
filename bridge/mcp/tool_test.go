package mcp

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
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
		{"run_sql", map[string]any{"sql": ""}, "argument sql must not be empty"},
		{"run_sql", map[string]any{"sql": 42}, "argument sql must be a string"},
		{"run_sql", map[string]any{"query": "SELECT 1"}, `unknown argument "query": run_sql takes max_rows, sql`},
		{"list_tables", map[string]any{"x": 1}, `unknown argument "x": list_tables takes no arguments`},
		{"search_schema", map[string]any{"query": "x", "detail": "everything"}, `argument detail must be one of names, summary, full (got "everything")`},
		{"make_chart", map[string]any{"sql": "SELECT 1", "kind": "donut"}, `argument kind must be one of bar, hbar, line, scatter, pie, histogram (got "donut")`},
	} {
		t.Run(fmt.Sprint(tc.tool, tc.args), func(t *testing.T) {
			assert.Equal(t, tc.want, errResult(t, call(t, c, tc.tool, tc.args)))
		})
	}
}

func TestToolErrorMapping(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&guard.Rejection{What: "DELETE", Reason: "DELETE is not allowed: the database is read-only", Hint: "only a single SELECT…"},
			"read-only: only a single SELECT/WITH/VALUES statement can run. Refused: DELETE is not allowed: the database is read-only.\nhint: rewrite it as one SELECT that reads what you need"},
		{&guard.SQLError{Msg: "no such table: x", Hint: "did you mean y?"}, "SQL error: no such table: x\nhint: did you mean y?"},
		{&query.LimitError{Kind: "deadline", Msg: "query stopped at the 5s deadline", Hint: "add a LIMIT"}, "query stopped at the 5s deadline\nhint: add a LIMIT"},
		{fmt.Errorf("wrapped: %w", guard.ErrEmpty), "wrapped: " + guard.ErrEmpty.Error() + "\nhint: send one SELECT statement"},
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
