package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/verify"
)

// roomy bounds the checking queries far beyond what any test machine
// takes, so what the checks find does not depend on how loaded it is (the
// defaults are for people waiting on an answer).
var roomy = verify.Options{Timeout: time.Minute, Budget: 5 * time.Minute}

func TestComparisons(t *testing.T) {
	d := testdb.Sample(t)
	cat, err := d.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sql  string
		want []verify.Comparison
	}{
		{`SELECT count(*) FROM customers c JOIN countries k ON k.country_id = c.country_id WHERE k.name = 'U.K.'`,
			[]verify.Comparison{{"countries", "name", "=", "U.K.", ""}}},
		{`SELECT count(*) FROM orders WHERE 'web' = channel AND status IN ('shipped', 'deliverd')`,
			[]verify.Comparison{{"orders", "channel", "=", "web", ""}, {"orders", "status", "=", "shipped", ""}, {"orders", "status", "=", "deliverd", ""}}},
		{`SELECT * FROM "promo codes" AS p WHERE p."code" LIKE 'SPRING%' AND p.type <> 'percent'`,
			[]verify.Comparison{{"promo codes", "code", "LIKE", "SPRING%", ""}}},
		// Ambiguous, NOT, expressions, unknown tables and escapes are left out.
		{`SELECT 1 FROM customers c JOIN countries k USING (country_id) WHERE name = 'x' AND c.city NOT IN ('a') AND c.city NOT LIKE 'b%'
		  AND c.city = 'd' || 'e' AND c.email LIKE 'f!%' ESCAPE '!' AND c.city = 'O\Brien'`, nil},
		{`SELECT count(*) FROM customers c WHERE lower(c.city) = 'berlin' OR UPPER(city) IN ('PARIS') OR trim(c.city) LIKE 'Lyo%' OR length(c.city) = '5' OR lower(c.city || 'x') = 'y'`,
			[]verify.Comparison{{"customers", "city", "=", "berlin", "lower"}, {"customers", "city", "=", "PARIS", "upper"}, {"customers", "city", "LIKE", "Lyo%", "trim"}}},
		{`WITH t AS (SELECT * FROM orders) SELECT count(*) FROM t WHERE t.status = 'shipped'`, nil},
		{`SELECT count(*) FROM orders WHERE status='pending' AND status != 'x' AND ship_country >= 'A'`,
			[]verify.Comparison{{"orders", "status", "=", "pending", ""}}},
		{`SELECT count(*) FROM customers WHERE city = 'It''s'`,
			[]verify.Comparison{{"customers", "city", "=", "It's", ""}}},
	}
	for _, c := range cases {
		if got := verify.Comparisons(c.sql, cat); !slices.Equal(got, c.want) {
			t.Errorf("%s\n got %v\nwant %v", c.sql, got, c.want)
		}
	}
}

func TestLiteralsNameTheClosestValues(t *testing.T) {
	d := testdb.Sample(t)
	ctx := context.Background()
	sql := `SELECT count(*) FROM customers c JOIN countries k ON k.country_id = c.country_id
	        WHERE k.name IN ('U.K.', 'germany', 'France') AND c.type = 'busines'`
	lits := verify.Literals(ctx, d, sql, roomy)
	if len(lits) != 4 {
		t.Fatalf("literals %+v", lits)
	}
	want := map[string]struct {
		found   bool
		closest string
	}{"U.K.": {false, "United Kingdom"}, "germany": {false, "Germany"}, "France": {true, ""}, "busines": {false, "business"}}
	for _, l := range lits {
		w := want[l.Value]
		if l.Found != w.found || l.Unchecked != "" {
			t.Errorf("%s: found %v, want %v (%s)", l.Value, l.Found, w.found, l.Unchecked)
		}
		if w.closest != "" && (len(l.Closest) == 0 || l.Closest[0] != w.closest) {
			t.Errorf("%s: closest %q, want %q first", l.Value, l.Closest, w.closest)
		}
		if len(l.Closest) > verify.MaxClosest {
			t.Errorf("%s: %d closest values", l.Value, len(l.Closest))
		}
	}
	notes := verify.LiteralNotes(d, lits)
	if len(notes) != 3 || !strings.Contains(notes[0], `no row of countries.name equals 'U.K.'; the closest values are 'United Kingdom'`) {
		t.Errorf("notes %q", notes)
	}
}

// A literal with no value anywhere near it says so; a LIKE prefix that
// matches is found.
func TestLiteralFarFromEveryValue(t *testing.T) {
	d := testdb.Sample(t)
	lits := verify.Literals(context.Background(), d, `SELECT * FROM products WHERE name LIKE 'Zzqx%' OR sku LIKE 'KIT-%'`, roomy)
	if len(lits) != 2 || lits[0].Found || len(lits[0].Closest) != 0 || !lits[1].Found {
		t.Fatalf("literals %+v", lits)
	}
	if n := verify.LiteralNotes(d, lits); len(n) != 1 || !strings.Contains(n[0], "matches LIKE 'Zzqx%'; no value of the column is close") {
		t.Errorf("notes %q", n)
	}
}

// check runs sql on d, keeping up to 10 rows, and checks its result.
func check(t *testing.T, d *db.DB, sql string) verify.Report {
	t.Helper()
	ctx := context.Background()
	res, err := query.Collect(ctx, d, sql, query.Options{MaxRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	return verify.Check(ctx, d, sql, res, roomy)
}

func TestCheckNotesEmptyAndZeroResults(t *testing.T) {
	d := testdb.Sample(t)
	r := check(t, d, `SELECT count(*) FROM orders WHERE ship_country = 'UK'`)
	if len(r.Notes) != 2 || !strings.Contains(r.Notes[1], "the count is 0") || !strings.Contains(r.Notes[1], "does not occur") {
		t.Errorf("count of zero: %q", r.Notes)
	}
	r = check(t, d, `SELECT sum(freight) FROM orders WHERE order_date < '1900-01-01'`)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "every value of the only row is NULL") {
		t.Errorf("NULL aggregate: %q", r.Notes)
	}
	r = check(t, d, `SELECT order_id FROM orders WHERE freight < 0`)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "returned no rows") {
		t.Errorf("empty: %q", r.Notes)
	}
	// A plain count without a filter, and a filter that matches, say nothing.
	for _, q := range []string{`SELECT count(*) FROM orders`, `SELECT count(*) FROM orders WHERE status = 'shipped'`} {
		if r := check(t, d, q); len(r.Notes) != 0 {
			t.Errorf("%s: notes %q", q, r.Notes)
		}
	}
}

func TestFanOutIsFlagged(t *testing.T) {
	d := testdb.Sample(t)
	ctx := context.Background()
	sql := `SELECT sum(o.freight) FROM orders o JOIN order_items i ON i.order_id = o.order_id WHERE o.status = 'shipped'`
	r := verify.Check(ctx, d, sql, nil, roomy)
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "the joins repeat rows of orders") {
		t.Fatalf("notes %q", r.Notes)
	}
	// Summing the joined table's own column, or a join that keeps one row
	// per driving row, is not flagged.
	for _, q := range []string{
		`SELECT sum(i.quantity) FROM orders o JOIN order_items i ON i.order_id = o.order_id`,
		`SELECT sum(o.freight) FROM orders o JOIN customers c ON c.customer_id = o.customer_id`,
	} {
		if r := verify.Check(ctx, d, q, nil, roomy); len(r.Notes) != 0 {
			t.Errorf("%s: notes %q", q, r.Notes)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a := verify.Fingerprint("SELECT count(*) FROM orders WHERE status = 'shipped';")
	same := []string{"select COUNT(*)\n  from ORDERS -- all\n where status='shipped'", "SELECT count(*) FROM orders /* x */ WHERE status = 'shipped'"}
	for _, s := range same {
		if verify.Fingerprint(s) != a {
			t.Errorf("%q differs", s)
		}
	}
	for _, s := range []string{"SELECT count(*) FROM orders WHERE status = 'Shipped'", "SELECT count(*) FROM orders WHERE status <> 'shipped'"} {
		if verify.Fingerprint(s) == a {
			t.Errorf("%q is the same", s)
		}
	}
}

// A check that cannot run (its time is spent) marks the literal unchecked
// instead of claiming it is absent.
func TestLiteralUncheckedWhenTimeIsSpent(t *testing.T) {
	d := testdb.Sample(t)
	if _, err := d.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lits := verify.Literals(ctx, d, `SELECT count(*) FROM orders WHERE ship_country = 'U.K.'`, roomy)
	if len(lits) != 1 || lits[0].Found || lits[0].Unchecked == "" || len(lits[0].Closest) != 0 {
		t.Fatalf("literals %+v", lits)
	}
	if n := verify.LiteralNotes(d, lits); len(n) != 0 {
		t.Errorf("an unchecked literal drew notes %q", n)
	}
}

// A column compared through lower() is probed through lower() too.
func TestLiteralThroughLower(t *testing.T) {
	d := testdb.Sample(t)
	lits := verify.Literals(context.Background(), d, `SELECT count(*) FROM orders WHERE lower(ship_country) IN ('germany', 'uk')`, roomy)
	if len(lits) != 2 || !lits[0].Found || lits[1].Found || len(lits[1].Closest) == 0 || lits[1].Closest[0] != "United Kingdom" {
		t.Fatalf("literals %+v", lits)
	}
	if n := verify.LiteralNotes(d, lits); len(n) != 1 || !strings.HasPrefix(n[0], "no row of lower(orders.ship_country) equals 'uk'") {
		t.Errorf("notes %q", n)
	}
}
