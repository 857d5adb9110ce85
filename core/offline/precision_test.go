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
	b.WriteString(`CREATE TABLE ticket (id INTEGER PRIMARY KEY, subject TEXT NOT NULL, status TEXT NOT NULL, opened_on TEXT NOT NULL, closed_on TEXT, hours_spent INTEGER NOT NULL);
`)
	for i := 0; i < 120; i++ {
		opened := fmt.Sprintf("%d-%02d-%02d", 2023+i/60, i%12+1, i%27+1)
		status, closed := "open", "NULL"
		if i%3 != 0 {
			status = "closed"
			closed = fmt.Sprintf("'%d-%02d-%02d'", 2023+(i+30)/60, (i+5)%12+1, i%27+1)
		}
		fmt.Fprintf(&b, "INSERT INTO ticket VALUES (%d, 'subject %d', '%s', '%s', %s, %d);\n", i+1, i, status, opened, closed, i%9+1)
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
