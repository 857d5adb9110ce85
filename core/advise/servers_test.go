package advise

import (
	"context"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestPostgresHypoPG: on PostgreSQL each suggestion comes from a
// hypothetical index (HypoPG); built for real afterwards (by the test, in
// its own database), the real planner uses it. Without the extension the
// advice is a labelled estimate that says how to get proof.
func TestPostgresHypoPG(t *testing.T) {
	url := servers.PostgresSample(t)
	ctx := context.Background()
	conn := servers.PostgresClient(t, url)

	d, err := db.Open(ctx, url, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Advise(ctx, d, "SELECT * FROM shipments WHERE tracking_number = 'KX9444007968'")
	if err != nil {
		t.Fatalf("without HypoPG: %v", err)
	}
	if a.Proof != ProofEstimate || !strings.Contains(a.Method, "CREATE EXTENSION hypopg") || len(a.Suggestions) != 1 ||
		a.Suggestions[0].Proof != ProofEstimate || !strings.Contains(a.Text(), EstimateLabel) {
		t.Errorf("without HypoPG: %+v\n%s", a, a.Text())
	}
	d.Close()

	var available bool
	if err := conn.QueryRow(ctx, "SELECT count(*) > 0 FROM pg_available_extensions WHERE name = 'hypopg'").Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		t.Skip("skipping: HypoPG is not installed on this server (apt-get install postgresql-15-hypopg; .ci/run does)")
	}
	for _, q := range []string{"CREATE EXTENSION hypopg", "ANALYZE"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	d, err = db.Open(ctx, url, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	suggested := 0
	for _, q := range slowQueries(t) {
		a, err := Advise(ctx, d, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !strings.Contains(a.Method, "HypoPG") || a.Proof != ProofPlanner {
			t.Errorf("method %q, proof %q", a.Method, a.Proof)
		}
		if len(a.Suggestions) == 0 {
			t.Logf("%s: no suggestion (%v)", q, a.Notes)
			continue
		}
		suggested++
		s := a.Suggestions[0]
		idx := strings.Fields(s.Create)[2]
		if _, err := conn.Exec(ctx, s.Create); err != nil {
			t.Fatalf("%s: %v", s.Create, err)
		}
		p, err := d.Explain(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Text(), idx) {
			t.Errorf("%s: with %s built, the planner does not use it:\n%s", q, s.Create, p.Text())
		}
		if _, err := conn.Exec(ctx, "DROP INDEX "+idx); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of 10 statements got a suggestion on PostgreSQL", suggested)
	if suggested < 7 {
		t.Errorf("only %d of 10 statements got a suggestion", suggested)
	}
}

// TestMySQLEstimate: MariaDB cannot plan with an index that does not
// exist, so its advice is a labelled estimate: a statement that reads a
// big table in full on an unindexed, selective filter column gets one
// suggestion marked as such; one its indexes already serve, one whose
// filter keeps a quarter of the table, and one on a small table get none,
// each with its reason. The database is unchanged (CHECKSUM TABLE, the
// indexes). Built afterwards by the test on its own copy, the suggested
// index is what the real planner then uses.
func TestMySQLEstimate(t *testing.T) {
	url := servers.MySQLSample(t)
	ctx := context.Background()
	root := servers.MySQLClient(t, url, "")
	state := func() string {
		rows, err := root.Query("SELECT GROUP_CONCAT(CONCAT('`', TABLE_NAME, '`') ORDER BY TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'")
		if err != nil {
			t.Fatal(err)
		}
		var tables string
		for rows.Next() {
			rows.Scan(&tables)
		}
		rows.Close()
		sums := servers.MySQLChecksums(t, root, tables)
		var indexes string
		if err := root.QueryRow("SELECT GROUP_CONCAT(CONCAT(TABLE_NAME, '.', INDEX_NAME, '.', COLUMN_NAME) ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()").Scan(&indexes); err != nil {
			t.Fatal(err)
		}
		return sums + " " + indexes
	}
	before := state()
	if !strings.Contains(before, "shipments=") || strings.Contains(before, "=0;") {
		t.Fatalf("checksums: %s", before)
	}

	d, err := db.Open(ctx, url, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const selective = "SELECT * FROM shipments WHERE tracking_number = 'KX9444007968'"
	a, err := Advise(ctx, d, selective)
	if err != nil {
		t.Fatal(err)
	}
	if a.Proof != ProofEstimate || len(a.Suggestions) != 1 {
		t.Fatalf("%s: proof %q, %d suggestions (notes %v)", selective, a.Proof, len(a.Suggestions), a.Notes)
	}
	s := a.Suggestions[0]
	if s.Proof != ProofEstimate || s.Create != "CREATE INDEX shipments_tracking_number_idx ON shipments (tracking_number);" || s.After != "" {
		t.Errorf("suggestion %+v", s)
	}
	if text := a.Text(); !strings.Contains(text, EstimateLabel) || !strings.Contains(text, "cannot plan with an index that does not exist") {
		t.Errorf("text not labelled as an estimate:\n%s", text)
	}

	for q, why := range map[string]string{
		"SELECT * FROM orders WHERE employee_id = 3":                       "its indexes already serve it",
		"SELECT * FROM payments WHERE status = 'pending' AND amount > 100": "keeps about 25% of the rows",
		"SELECT * FROM employees WHERE title = 'Sales Representative'":     "reading it in full is cheap",
	} {
		a, err := Advise(ctx, d, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(a.Suggestions) != 0 || !strings.Contains(strings.Join(a.Notes, "; "), why) || a.Proof != ProofEstimate {
			t.Errorf("%s: %d suggestions, notes %v, want none because %q", q, len(a.Suggestions), a.Notes, why)
		}
	}
	if after := state(); after != before {
		t.Errorf("the database changed:\nbefore %s\nafter  %s", before, after)
	}

	if _, err := root.Exec(strings.TrimSuffix(s.Create, ";")); err != nil {
		t.Fatal(err)
	}
	p, err := d.Explain(ctx, selective)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text(), "shipments_tracking_number_idx") {
		t.Errorf("with the suggested index built, the planner does not use it:\n%s", p.Text())
	}
}
