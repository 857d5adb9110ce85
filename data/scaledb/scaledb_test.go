package scaledb

import (
	"database/sql"
	"path/filepath"
	"testing"
)

func count(t *testing.T, path, q string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestWide(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.db")
	if err := (Wide{Tables: 1100, Columns: 20, Rows: 3}).Write(path); err != nil {
		t.Fatal(err)
	}
	if n := count(t, path, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%'"); n != 1100 {
		t.Errorf("tables = %d, want 1100 (names must stay unique past %d)", n, len(areas)*len(things))
	}
	if n := count(t, path, "SELECT count(*) FROM pragma_table_info('"+WideName(1099)+"')"); n != 20 {
		t.Errorf("columns of %s = %d, want 20", WideName(1099), n)
	}
	if n := count(t, path, "SELECT count(*) FROM "+WideName(7)); n != 3 {
		t.Errorf("rows = %d, want 3", n)
	}
}

func TestOrders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orders.db")
	if err := (Orders{Orders: 5000, Customers: 200}).Write(path); err != nil {
		t.Fatal(err)
	}
	if n := count(t, path, "SELECT count(*) FROM orders"); n != 5000 {
		t.Errorf("orders = %d", n)
	}
	if n := count(t, path, "SELECT count(*) FROM customers"); n != 200 {
		t.Errorf("customers = %d", n)
	}
	// The figures' question has an answer.
	if n := count(t, path, "SELECT count(*) FROM orders o JOIN customers c USING (customer_id) WHERE c.country = 'Germany' AND o.status = 'shipped' AND o.order_date LIKE '2023-%'"); n == 0 {
		t.Error("no shipped orders from Germany in 2023")
	}
	if n := count(t, path, "SELECT count(DISTINCT status) FROM orders"); n != len(orderStatuses) {
		t.Errorf("statuses = %d, want %d", n, len(orderStatuses))
	}
}
