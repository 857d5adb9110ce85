package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestSampleQuestionsResourceHasADeadline: tablewise://sample-questions
// checks each question the schema suggests with a statement of its own,
// each under its own short deadline but with no bound on their number:
// on a schema of many big tables, where every check ran out of its time,
// one read of the resource took the sum of them all (minutes on hundreds
// of tables; an MCP resource has no call deadline around it). Here every
// check outlasts its (shortened) deadline, and the read must end within
// the whole list's budget (sampleQuestionChecks checks' deadlines).
func TestSampleQuestionsResourceHasADeadline(t *testing.T) {
	const tables, rows = 40, 40_000
	var b strings.Builder
	b.WriteString("CREATE TABLE t0 (id INTEGER PRIMARY KEY, status TEXT CHECK (status IN ('open', 'closed')), placed DATE, amount REAL);\n")
	fmt.Fprintf(&b, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "+
		"INSERT INTO t0 SELECT i, CASE i %% 3 WHEN 0 THEN 'closed' ELSE 'open' END, date('2024-01-01', '+' || (i %% 700) || ' days'), i * 0.5 FROM n;\n", rows)
	for i := 1; i < tables; i++ {
		fmt.Fprintf(&b, "CREATE TABLE t%d (id INTEGER PRIMARY KEY, status TEXT CHECK (status IN ('open', 'closed')), placed DATE, amount REAL);\n", i)
		fmt.Fprintf(&b, "INSERT INTO t%d SELECT * FROM t0;\n", i)
	}
	d := testdb.Open(t, testdb.Build(t, "many.db", b.String()))
	_, err := d.Catalog(context.Background())
	require.NoError(t, err)

	old := sampleQuestionTimeout
	sampleQuestionTimeout = 10 * time.Millisecond
	t.Cleanup(func() { sampleQuestionTimeout = old })

	c := connect(t, newServer(t, d))
	start := time.Now()
	txt, err := readResource(t, c, uriSampleQuestions)
	took := time.Since(start)
	require.NoError(t, err)
	// Each check's own deadline, 10 ms, was reached; the whole list's is
	// sampleQuestionChecks of them. Before: 1.67 s and no question.
	if budget := sampleQuestionChecks * sampleQuestionTimeout; took > budget+500*time.Millisecond {
		t.Errorf("read in %v, want within the list's budget of %v (%q)", took, budget, txt)
	}
}

// TestToolsNeverWriteFiles: export_csv and make_chart hand their CSV and
// PNG back in the result; no argument names a file. A client that passes
// a path anyway (the database itself, its -journal, a new file beside it)
// is told the argument is unknown, and nothing is written: the database
// keeps its bytes and its directory its files. The raw-page table that
// shows deleted rows is refused through run_sql as through every door.
func TestToolsNeverWriteFiles(t *testing.T) {
	path := testdb.Fixture(t)
	dir := filepath.Dir(path)
	before := testdb.FileHash(t, path)
	entries := func() []string {
		var names []string
		es, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	files := entries()
	c := connect(t, newServer(t, testdb.Open(t, path)))
	for _, tool := range []string{"export_csv", "make_chart"} {
		for _, arg := range []string{"path", "out", "file", "output"} {
			for _, target := range []string{path, path + "-journal", filepath.Join(dir, "out.csv"), "../../" + filepath.Base(path)} {
				msg := errResult(t, mcptest.Call(t, c, tool, map[string]any{"sql": "SELECT a, a AS b FROM t", arg: target}))
				require.Contains(t, msg, fmt.Sprintf("unknown argument %q", arg))
			}
		}
	}
	msg := errResult(t, mcptest.Call(t, c, "run_sql", map[string]any{"sql": "SELECT data FROM sqlite_dbpage"}))
	require.Contains(t, msg, "sqlite_dbpage is not allowed")
	require.Equal(t, before, testdb.FileHash(t, path), "the database changed")
	require.Equal(t, files, entries(), "files appeared beside the database")
}
