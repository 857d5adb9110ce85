package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestJoinsToKeys: joins that reach each table by its one-column primary
// key cannot repeat rows, so the fan-out check need not count them (on the
// 5,000,000-order database that count cost 1.9 s, as much as the answer's
// own query); anything it cannot be sure of is left to the count.
func TestJoinsToKeys(t *testing.T) {
	d := testdb.Sample(t)
	cat, err := d.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for sql, want := range map[string]bool{
		`SELECT sum(o.freight) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.city = 'Lyon'`:                         true,
		`SELECT SUM(orders.freight) FROM orders JOIN customers ON customers.customer_id = orders.customer_id WHERE orders.status = 'shipped'`: true,
		`SELECT sum(o.freight) FROM orders AS o LEFT JOIN customers AS c ON o.customer_id = c.customer_id`:                                    true,
		`SELECT sum(o.freight) FROM orders o JOIN customers c USING (customer_id)`:                                                            true,
		`SELECT sum(o.freight) FROM orders o JOIN customers c ON c.customer_id = o.customer_id AND c.city = 'Lyon'`:                           true,
		// the key of the joined table is not what is equated
		`SELECT sum(o.freight) FROM orders o JOIN order_items i ON i.order_id = o.order_id`: false,
		// an OR, a comma join, a subquery, no join
		`SELECT sum(o.freight) FROM orders o JOIN customers c ON c.customer_id = o.customer_id OR c.city = 'Lyon'`: false,
		`SELECT sum(o.freight) FROM orders o, customers c WHERE c.customer_id = o.customer_id`:                     false,
		`SELECT sum(o.freight) FROM orders o JOIN (SELECT * FROM customers) c ON c.customer_id = o.customer_id`:    false,
		`SELECT sum(o.freight) FROM orders o`: false,
		// one join by key, one not
		`SELECT sum(o.freight) FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN order_items i ON i.order_id = o.order_id`: false,
	} {
		toks := guard.Lex(sql)
		from := -1
		for i, tk := range toks {
			if strings.EqualFold(tk.Text, "FROM") {
				from = i
				break
			}
		}
		if got := joinsToKeys(toks[from+1:], cat); got != want {
			t.Errorf("%s: %v, want %v", sql, got, want)
		}
	}
}
