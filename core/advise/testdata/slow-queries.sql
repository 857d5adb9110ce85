-- Statements on the built-in sample that read a table in full (or sort in a
-- temporary b-tree) because no index serves them, one per line. The advise
-- tests check that each gets a suggestion the real planner uses;
-- cmd/tablewise/testdata/advise-speed.sh times each on a 1,000,000-row copy
-- before and after its suggested index.
SELECT count(*) FROM orders WHERE employee_id = 3 AND status = 'cancelled';
SELECT count(*) FROM order_items WHERE quantity > 9;
SELECT max(freight) FROM orders WHERE ship_city = 'Osaka';
SELECT * FROM payments WHERE status = 'pending' AND amount > 100;
SELECT * FROM shipments WHERE shipper_id = 2 ORDER BY shipped_date DESC LIMIT 10;
SELECT rating, count(*) FROM reviews WHERE customer_id = 17 GROUP BY rating;
SELECT count(*) FROM customers WHERE city = 'Lyon' AND type = 'business';
SELECT * FROM shipments WHERE tracking_number = 'KX9444007968';
SELECT * FROM orders WHERE promo_code_id = 7 ORDER BY order_date DESC LIMIT 20;
SELECT * FROM reviews WHERE order_id = 1234;
