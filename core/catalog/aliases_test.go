package catalog

import "testing"

func TestAliases(t *testing.T) {
	c := New([]*Table{{Name: "orders"}, {Name: "Order Details"}, {Name: "customers", Schema: "sales"}})
	got := c.Aliases(`SELECT * FROM orders o JOIN "Order Details" AS od ON od.id = o.id, sales.customers c LEFT JOIN orders WHERE 1`)
	for alias, want := range map[string]string{"o": "orders", "od": "Order Details", "c": "customers", "orders": "orders", "order details": "Order Details"} {
		if got[alias] == nil || got[alias].Name != want {
			t.Errorf("alias %q → %v, want %s", alias, got[alias], want)
		}
	}
	if got["where"] != nil || got["left"] != nil {
		t.Errorf("a keyword read as an alias: %v", got)
	}
}
