package tui

import (
	"strings"
	"testing"
)

// TestHealthView: f2 opens the findings of the table selected in the
// sidebar and of the whole database, scrolls, closes with esc, and is
// listed in the help overlay.
func TestHealthView(t *testing.T) {
	s := startSample(t)
	s.key("alt+1")
	for range 5 { // categories, countries, customers, employees, order_items, orders
		s.key("down")
	}
	s.waitApp("orders selected in the sidebar", func(a *App) bool {
		tb, _ := a.schema.Selected()
		return tb != nil && tb.Name == "orders"
	})
	s.key("f2")
	scr := s.waitText("Health · orders", "the selected table: orders", "fk-without-index", "orders.promo_code_id", "CREATE INDEX orders_promo_code_id_idx ON orders (promo_code_id);")
	if strings.Contains(scr, "suppliers.country_id") {
		t.Errorf("the whole database's last finding shows before scrolling:\n%s", scr)
	}
	// The whole database's findings follow; the last is at the bottom.
	s.key("G")
	s.waitText("suppliers.country_id", "CREATE INDEX suppliers_country_id_idx ON suppliers (country_id);")
	s.key("esc")
	s.waitApp("the health view to close", func(a *App) bool { return a.over == overlayNone })

	// With the sidebar hidden, only the whole database is checked.
	s.key("ctrl+b")
	s.key("f2")
	scr = s.waitText("the whole database", "Health of sample")
	if strings.Contains(scr, "the selected table") {
		t.Errorf("a table section without the sidebar:\n%s", scr)
	}
	s.key("esc")
	s.waitApp("the health view to close", func(a *App) bool { return a.over == overlayNone })

	s.key("alt+3")
	s.key("?")
	s.waitText("f2", "health view")
}
