package advise

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

// slowQueries reads testdata/slow-queries.sql: statements that read a
// table of the sample in full, or sort in a temporary b-tree, because no
// index serves them.
func slowQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/slow-queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			out = append(out, strings.TrimSuffix(l, ";"))
		}
	}
	if len(out) != 10 {
		t.Fatalf("%d statements in slow-queries.sql, want 10", len(out))
	}
	return out
}

// TestSuggestionsAreUsed: each suggestion, created on a copy of the
// database, is used by SQLite's real planner for the statement, which then
// no longer scans that table in full; the database advised on is unchanged.
func TestSuggestionsAreUsed(t *testing.T) {
	path, original := testdb.SampleCopy(t)
	d := testdb.Open(t, path)
	for _, q := range slowQueries(t) {
		a, err := Advise(context.Background(), d, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(a.Suggestions) != 1 {
			t.Errorf("%s: %d suggestions, want 1 (notes %v)\n%s", q, len(a.Suggestions), a.Notes, a.Plan)
			continue
		}
		s := a.Suggestions[0]
		idx := strings.Fields(s.Create)[2]
		proof, _ := testdb.SampleCopy(t)
		testdb.BuildAt(t, proof, s.Create)
		p, err := testdb.Open(t, proof).Explain(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if text := p.Text(); !strings.Contains(text, "INDEX "+idx) {
			t.Errorf("%s: with %s the planner does not use it:\n%s", q, s.Create, text)
		} else if !strings.Contains(s.After, "INDEX "+idx) {
			t.Errorf("%s: the plan shown after does not name %s:\n%s", q, idx, s.After)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(original) {
		t.Error("the database advised on changed")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("files beside the database: %v", entries)
	}
}

func TestNothingToSuggest(t *testing.T) {
	d := testdb.Open(t, mustSample(t))
	for q, note := range map[string]string{
		"SELECT * FROM orders WHERE order_id = 5":                  "already serve it",
		"SELECT * FROM orders WHERE customer_id = 5":               "already serve it",
		"SELECT * FROM orders":                                     "none of its columns",
		"SELECT * FROM customers WHERE name LIKE '%son' LIMIT 100": "no index on customers",
	} {
		a, err := Advise(context.Background(), d, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(a.Suggestions) != 0 || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], note) {
			t.Errorf("%s: suggestions %+v, notes %v; want none and a note with %q", q, a.Suggestions, a.Notes, note)
		}
	}
}

// TestWritesRefused: a statement the guard refuses is not planned anywhere.
func TestWritesRefused(t *testing.T) {
	d := testdb.Open(t, mustSample(t))
	for _, q := range []string{"DELETE FROM orders WHERE employee_id = 3", "CREATE INDEX x ON orders(status)", "SELECT 1; DROP TABLE orders"} {
		_, err := Advise(context.Background(), d, q)
		var r *guard.Rejection
		if !errors.As(err, &r) {
			t.Errorf("%s: err = %v, want a guard rejection", q, err)
		}
	}
}

func mustSample(t *testing.T) string {
	p, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMoreSearchTerms: of indexes that each remove the scan, the one the
// planner searches on every equality of the filter wins (an index on
// employee_id alone still reads every order of the employee to check the
// status).
func TestMoreSearchTerms(t *testing.T) {
	d := testdb.Open(t, mustSample(t))
	a, err := Advise(context.Background(), d, "SELECT count(*) FROM orders WHERE employee_id = 3 AND status = 'cancelled'")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Suggestions) != 1 || strings.Join(a.Suggestions[0].Columns, ",") != "employee_id,status" {
		t.Errorf("suggestions %+v, want one on (employee_id, status)", a.Suggestions)
	}
}
