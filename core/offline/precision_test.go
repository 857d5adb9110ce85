package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/testdb"
)

// smallPlanner returns a planner on a database built from the SQL script.
func smallPlanner(t *testing.T, name, script string) *testPlanner {
	t.Helper()
	d, err := db.Open(context.Background(), testdb.Build(t, name, script), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return &testPlanner{d: d, p: New(d)}
}

// ticketsScript: support tickets opened over 2023–2024, some closed, with
// a status value that is also the verb of the closing date.
func ticketsScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE ticket (id INTEGER PRIMARY KEY, subject TEXT NOT NULL, status TEXT NOT NULL, opened_on TEXT NOT NULL, closed_on TEXT, hours_spent INTEGER NOT NULL, resolution TEXT);
`)
	for i := 0; i < 120; i++ {
		opened := fmt.Sprintf("%d-%02d-%02d", 2023+i/60, i%12+1, i%27+1)
		status, closed, resolution := "open", "NULL", "NULL"
		if i%3 != 0 {
			status = "closed"
			closed = fmt.Sprintf("'%d-%02d-%02d'", 2023+(i+30)/60, (i+5)%12+1, i%27+1)
			resolution = []string{"'fixed'", "'fixed'", "'duplicate'", "'wontfix'"}[i%4]
		}
		fmt.Fprintf(&b, "INSERT INTO ticket VALUES (%d, 'subject %d', '%s', '%s', %s, %d, %s);\n", i+1, i, status, opened, closed, i%9+1, resolution)
	}
	return b.String()
}

// A verb of the question that names one of the table's dates ("closed"
// → closed_on) places the rows in time, not the table's main date, even
// when the word is also a value of a status column or part of another
// column's name.
func TestVerbNamesTheDate(t *testing.T) {
	tp := smallPlanner(t, "tickets.db", ticketsScript())
	sql := askWant(t, tp, "How many tickets were closed in 2024?", "closed_on >= '2024-01-01'", "closed_on < '2025-01-01'")
	if strings.Contains(sql, "opened_on") {
		t.Errorf("filtered on the opening date: %s", sql)
	}
	askWant(t, tp, "How many tickets were opened in 2024?", "opened_on >= '2024-01-01'")
}

// A ranking of a nullable column's values ranks the values recorded: the
// open tickets, which have no resolution, are not "the most frequent
// resolution".
func TestRankingSkipsMissingValues(t *testing.T) {
	tp := smallPlanner(t, "tickets.db", ticketsScript())
	q := "What is the most frequent resolution?"
	b, err := tp.p.Answer(context.Background(), q)
	if err != nil || b.SQL == "" {
		t.Fatalf("%q: %v %s", q, err, b.Answer)
	}
	wantAll(t, q, b.SQL, "resolution IS NOT NULL")
	if b.RowCount != 1 || !strings.Contains(b.Answer, "fixed") {
		t.Errorf("%q: %d rows, want the one value fixed: %s", q, b.RowCount, b.Answer)
	}
}
