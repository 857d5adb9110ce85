package advise

import (
	"reflect"
	"testing"

	"github.com/tablewise/tablewise/core/catalog"
)

// TestUsesOf: how a statement uses a scanned table's columns, read from
// its text: equality (a value or a join), range, order; a column of the
// same name qualified by another table's alias is not the table's.
func TestUsesOf(t *testing.T) {
	orders := &catalog.Table{Name: "orders", Columns: []catalog.Column{{Name: "order_id"}, {Name: "customer_id"}, {Name: "status"}, {Name: "freight"}, {Name: "order_date"}}}
	for _, c := range []struct {
		sql     string
		aliases []string
		want    []use
	}{
		{"SELECT * FROM orders WHERE status = 'x' AND freight > 20 ORDER BY order_date DESC LIMIT 5", []string{"orders"},
			[]use{{col: "status", eq: true}, {col: "freight", rng: true}, {col: "order_date", order: true}}},
		{"SELECT * FROM customers c JOIN orders o ON o.customer_id = c.customer_id WHERE c.status = 'gold'", []string{"o"},
			[]use{{col: "customer_id", eq: true}}},
		{"SELECT * FROM customers c JOIN Orders O ON c.customer_id = O.customer_id", []string{"O"},
			[]use{{col: "customer_id", eq: true}}},
		{"SELECT status, count(*) FROM orders WHERE 'shipped' = status GROUP BY status", []string{"orders"},
			[]use{{col: "status", eq: true, order: true}}},
		{"SELECT * FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-02-01' AND status IN ('a', 'b')", []string{"orders"},
			[]use{{col: "order_date", rng: true}, {col: "status", eq: true}}},
		{"SELECT freight FROM orders", []string{"orders"}, nil},
	} {
		if got := usesOf(tokens(c.sql), orders, c.aliases); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.sql, got, c.want)
		}
	}
}
