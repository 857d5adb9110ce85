package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/query"
)

func pathString(steps []joinStep) string {
	var parts []string
	for _, s := range steps {
		dir := "→"
		if !s.forward {
			dir = "←"
		}
		parts = append(parts, dir+s.dst().name)
	}
	return strings.Join(parts, " ")
}

func TestJoinPaths(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	s := ix.s
	tb := func(n string) *tableInfo { return s.byName[n] }
	tests := []struct {
		from, to, want string
		forward        bool
	}{
		{"products", "categories", "→categories", true},
		{"orders", "countries", "→customers →countries", true},
		{"order_items", "regions", "→orders →customers →countries →regions", true},
		{"reviews", "categories", "→products →categories", true},
		{"categories", "products", "←products", false},
		// One-to-one (shipments.order_id is unique): joining does not
		// multiply orders.
		{"orders", "shippers", "←shipments →shippers", true},
		{"products", "products", "", true},
	}
	for _, tt := range tests {
		steps, ok := s.path(tb(tt.from), tb(tt.to))
		if !ok {
			t.Errorf("%s → %s: no path", tt.from, tt.to)
			continue
		}
		if got := pathString(steps); got != tt.want {
			t.Errorf("%s → %s: %s, want %s", tt.from, tt.to, got, tt.want)
		}
		if allForward(steps) != tt.forward {
			t.Errorf("%s → %s: allForward = %v", tt.from, tt.to, !tt.forward)
		}
	}
	// Views have no keys: no path.
	if _, ok := s.path(tb("orders"), tb("order_totals")); ok {
		t.Error("found a join path to a view")
	}
}

func TestJoinPathsChinook(t *testing.T) {
	ix := testIndex(t, chinookPlanner(t))
	s := ix.s
	steps, ok := s.path(s.byName["track"], s.byName["playlist"])
	if !ok || pathString(steps) != "←PlaylistTrack →Playlist" {
		t.Errorf("Track → Playlist: %s", pathString(steps))
	}
	if j := s.junctionBetween(s.byName["track"], s.byName["playlist"]); j == nil || j.name != "PlaylistTrack" {
		t.Errorf("junction Track–Playlist = %v", j)
	}
	// Many-to-one is preferred over a shorter-looking route backwards.
	steps, _ = s.path(s.byName["invoiceline"], s.byName["genre"])
	if pathString(steps) != "→Track →Genre" {
		t.Errorf("InvoiceLine → Genre: %s", pathString(steps))
	}
}

// Names that are keywords or contain spaces are quoted, and the SQL runs.
func TestRenderAwkwardNames(t *testing.T) {
	tp := fixturePlanner(t)
	ix := testIndex(t, tp)
	tests := []struct {
		question string
		wantSQL  string
		want     any // the first value of the first row
	}{
		{"How many orders are there?", `SELECT COUNT(*) AS number_of_orders FROM "order"`, int64(4)},
		{"How many order details are there?", `SELECT COUNT(*) AS number_of_order_details FROM "Order Details"`, int64(3)},
		{"How many shipped orders are there?", `SELECT COUNT(*) AS number_of_orders FROM "order" WHERE status = 'shipped'`, int64(2)},
		{"What is the average price of order details?", `SELECT AVG(price) AS avg_price FROM "Order Details"`, nil},
		{"Which customer has the most orders?",
			`WITH ranked AS (SELECT customer.name AS customer, COUNT("order".id) AS number_of_orders FROM customer LEFT JOIN "order" ON "order".customer_id = customer.id GROUP BY customer.id ORDER BY number_of_orders DESC) SELECT * FROM ranked WHERE number_of_orders = (SELECT MAX(number_of_orders) FROM ranked)`,
			"Zoë Brontë"},
		{"What is the total qty per order?",
			`SELECT "order".id, SUM("Order Details".qty) AS total_qty FROM "Order Details" JOIN "order" ON "order".id = "Order Details".order_id GROUP BY "order".id ORDER BY total_qty DESC`,
			int64(2)},
		{"List the matches", `SELECT id FROM "Match"`, int64(1)},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			r := ix.plan(tt.question)
			if r.refusal != "" {
				t.Fatalf("refused: %s", r.refusal)
			}
			if r.sql != tt.wantSQL {
				t.Errorf("sql:\n got %s\nwant %s", r.sql, tt.wantSQL)
			}
			res, err := query.Collect(context.Background(), tp.d, r.sql, query.Options{})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if tt.want != nil && (res.RowCount == 0 || res.Rows[0][0] != tt.want) {
				t.Errorf("first value %v, want %v", res.Rows, tt.want)
			}
		})
	}
}

// Plans rendered by hand: quoting, joins, subqueries for one-to-many
// filters, LEFT JOIN counts, time buckets.
func TestRenderPlans(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	s := ix.s
	col := func(tb, c string) *colInfo { return s.byName[tb].col(c) }
	tests := []struct {
		name string
		p    plan
		want string
	}{
		{"count with a filter through a one-to-many link",
			plan{base: s.byName["customers"], agg: aggCount, subject: "customers",
				filters: []filter{{col: col("orders", "channel"), op: "=", vals: []any{"phone"}}}},
			`SELECT COUNT(*) AS number_of_customers FROM customers WHERE customers.customer_id IN (SELECT orders.customer_id FROM orders WHERE orders.channel = 'phone')`},
		{"sum per month with a date range",
			plan{base: s.byName["orders"], agg: aggSum, aggCol: col("orders", "freight"),
				groups:  []group{{col: col("orders", "order_date"), unit: unitMonth}},
				filters: []filter{{col: col("orders", "order_date"), op: "RANGE", from: "2024-01-01", to: "2025-01-01"}},
				order:   orderKey{set: true, bucket: true}},
			`SELECT strftime('%Y-%m', order_date) AS month, SUM(freight) AS total_freight FROM orders WHERE order_date >= '2024-01-01' AND order_date < '2025-01-01' GROUP BY month ORDER BY month`},
		{"a table name with a space",
			plan{base: s.byName["orders"], agg: aggCount, subject: "orders", groups: []group{{entity: s.byName["promo codes"]}},
				order: orderKey{set: true, measure: true, desc: true}, limit: 3},
			`SELECT "promo codes".code AS promo_code, COUNT(*) AS number_of_orders FROM orders JOIN "promo codes" ON "promo codes".promo_code_id = orders.promo_code_id GROUP BY "promo codes".promo_code_id ORDER BY number_of_orders DESC LIMIT 3`},
		{"count per entity keeping empty ones",
			plan{base: s.byName["products"], agg: aggCount, subject: "products", groups: []group{{entity: s.byName["categories"]}},
				leftFrom: s.byName["categories"], order: orderKey{set: true, measure: true, desc: true}},
			`SELECT categories.name AS category, COUNT(products.product_id) AS number_of_products FROM categories LEFT JOIN products ON products.category_id = categories.category_id GROUP BY categories.category_id ORDER BY number_of_products DESC`},
		{"average of counts",
			plan{base: s.byName["orders"], agg: aggCount, outer: aggAvg, subject: "orders", groups: []group{{entity: s.byName["customers"]}},
				leftFrom: s.byName["customers"]},
			`SELECT AVG(number_of_orders) AS avg_number_of_orders FROM (SELECT customers.name AS customer, COUNT(orders.order_id) AS number_of_orders FROM customers LEFT JOIN orders ON orders.customer_id = customers.customer_id GROUP BY customers.customer_id) AS per_group`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.p.render(s)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
