package offline

import (
	"context"
	"strings"
	"testing"
)

// A measure whose column is named for its aggregate (a "total" column
// summed, an "average_rating" averaged) is said once: "the highest
// total", never "the highest total total".
func TestAggregateWordSaidOnce(t *testing.T) {
	tp := smallPlanner(t, "shop.db", `CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE invoice (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customer (id), total REAL NOT NULL, average_rating REAL);
INSERT INTO customer VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Linus');
INSERT INTO invoice VALUES (1, 1, 10.5, 4), (2, 1, 20, 5), (3, 2, 7.25, 3), (4, 3, 3, 2), (5, 2, 1, 4);`)
	for _, q := range []string{
		"which customer has the highest total?",
		"what is the total total of invoices?",
		"total of invoices per customer",
		"what is the average average rating of invoices?",
	} {
		b, err := tp.p.Answer(context.Background(), q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if b.SQL == "" {
			t.Errorf("%q: refused: %s", q, b.Answer)
			continue
		}
		low := strings.ToLower(b.Answer)
		if strings.Contains(low, "total total") || strings.Contains(low, "average average") {
			t.Errorf("%q: %s", q, b.Answer)
		}
	}
}
