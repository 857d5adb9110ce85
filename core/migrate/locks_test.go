package migrate

import "testing"

// TestPostgresLock: the lock each statement kind takes, as PostgreSQL's
// documentation gives it.
func TestPostgresLock(t *testing.T) {
	for _, c := range []struct{ sql, lock, table string }{
		{"ALTER TABLE orders ADD COLUMN note text", AccessExclusive, "orders"},
		{"alter table public.orders drop column note", AccessExclusive, "public.orders"},
		{`ALTER TABLE "Order Lines" RENAME COLUMN a TO b`, AccessExclusive, `"Order Lines"`},
		{"ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (c) REFERENCES customers(id)", ShareRowExclusive, "orders"},
		{"ALTER TABLE orders ADD FOREIGN KEY (c) REFERENCES customers(id) NOT VALID", ShareRowExclusive, "orders"},
		{"ALTER TABLE orders VALIDATE CONSTRAINT fk", ShareUpdateExclusive, "orders"},
		{"ALTER TABLE orders ALTER COLUMN total SET STATISTICS 500", ShareUpdateExclusive, "orders"},
		{"ALTER TABLE orders SET (fillfactor = 70)", ShareUpdateExclusive, "orders"},
		{"ALTER TABLE orders DISABLE TRIGGER t", ShareRowExclusive, "orders"},
		{"-- index\nCREATE INDEX orders_total ON orders (total)", Share, "orders"},
		{"CREATE UNIQUE INDEX IF NOT EXISTS u ON ONLY orders (id)", Share, "orders"},
		{"CREATE INDEX ON orders (total)", Share, "orders"},
		{"CREATE INDEX CONCURRENTLY orders_total ON orders (total)", ShareUpdateExclusive, "orders"},
		{"DROP INDEX orders_total", AccessExclusive, "orders_total"},
		{"DROP INDEX CONCURRENTLY IF EXISTS orders_total", ShareUpdateExclusive, "orders_total"},
		{"REINDEX TABLE CONCURRENTLY orders", ShareUpdateExclusive, "orders"},
		{"REINDEX TABLE orders", Share, "orders"},
		{"DROP TABLE IF EXISTS orders", AccessExclusive, "orders"},
		{"TRUNCATE orders", AccessExclusive, "orders"},
		{"VACUUM FULL orders", AccessExclusive, ""},
		{"VACUUM ANALYZE orders", ShareUpdateExclusive, ""},
		{"REFRESH MATERIALIZED VIEW CONCURRENTLY mv", Exclusive, "mv"},
		{"CREATE TRIGGER t BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION f()", ShareRowExclusive, "orders"},
		{"LOCK TABLE orders IN SHARE MODE", Share, "orders"},
		{"UPDATE orders SET total = 0", RowExclusive, "orders"},
		{"DELETE FROM orders WHERE id = 1", RowExclusive, "orders"},
		{"CREATE TABLE tags (order_id int REFERENCES orders(id))", ShareRowExclusive, "orders"},
		{"CREATE TABLE tags (name text)", "", ""},
		{"CREATE VIEW v AS SELECT 1", "", ""},
	} {
		lock, table := postgresLock(c.sql)
		if lock != c.lock || table != c.table {
			t.Errorf("%s: %q on %q, want %q on %q", c.sql, lock, table, c.lock, c.table)
		}
	}
}
