package offline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

func testIndex(t testing.TB, tp *testPlanner) *index {
	t.Helper()
	ix, err := tp.p.index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// mentionOf returns the best reading of the mention covering word.
func mentionOf(a *analysis, word string) *cand {
	for _, m := range a.ments {
		for k := m.start; k < m.end; k++ {
			if a.toks[k].low == word && len(m.cands) > 0 {
				return m.cands[0]
			}
		}
	}
	return nil
}

func TestSchemaModel(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	s := ix.s
	tests := []struct {
		table, col string
		kind       colKind
	}{
		{"orders", "order_date", kindDate},
		{"customers", "signup_date", kindDate},
		{"orders", "freight", kindNumber},
		{"orders", "customer_id", kindID},
		{"employees", "reports_to", kindID},
		{"products", "discontinued", kindBool},
		{"customers", "marketing_opt_in", kindBool},
		{"orders", "ship_country", kindText},
	}
	for _, tt := range tests {
		c := s.byName[tt.table].col(tt.col)
		if c == nil || c.kind != tt.kind {
			t.Errorf("%s.%s: kind %v, want %v", tt.table, tt.col, c, tt.kind)
		}
	}
	if c := s.byName["employees"].col("reports_to"); !c.selfRef {
		t.Error("employees.reports_to is not marked as a self reference")
	}
	labels := map[string]string{"customers": "name", "employees": "first_name,last_name", "orders": "order_id", "promo codes": "code"}
	for tb, want := range labels {
		var got []string
		for _, c := range s.byName[tb].label {
			got = append(got, c.name)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("label of %s = %v, want %s", tb, got, want)
		}
	}
	mainDates := map[string]string{"orders": "order_date", "customers": "signup_date", "reviews": "created_at", "employees": "hire_date"}
	for tb, want := range mainDates {
		if d := s.byName[tb].mainDate; d == nil || d.name != want {
			t.Errorf("main date of %s = %v, want %s", tb, d, want)
		}
	}
	if j := s.byName["shipments"].col("order_id"); !j.unique {
		t.Error("shipments.order_id has a unique index but is not marked unique")
	}
}

func TestValueIndex(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	found := func(key, col string) bool {
		for _, r := range ix.values.byKey[key] {
			if r.col.String() == col {
				return true
			}
		}
		return false
	}
	for _, tt := range []struct{ key, col string }{
		{textKey("France"), "orders.ship_country"}, {textKey("france"), "countries.name"}, {textKey("mobile app"), "orders.channel"},
		{textKey("decor"), "categories.name"}, {textKey("Kite Express"), "shippers.name"},
	} {
		if !found(tt.key, tt.col) {
			t.Errorf("value key %q is not indexed for %s (have %v)", tt.key, tt.col, ix.values.byKey[tt.key])
		}
	}
	// High-cardinality free text and e-mail addresses stay out.
	for k, refs := range ix.values.byKey {
		for _, r := range refs {
			if r.col.name == "email" || r.col.name == "body" {
				t.Fatalf("%s indexed from %s", k, r.col)
			}
		}
	}
	for _, sk := range ix.values.skipped {
		if !strings.HasSuffix(sk, ": prose") {
			t.Errorf("column skipped: %s", sk)
		}
	}
	if ix.values.values == 0 || ix.values.columns == 0 {
		t.Errorf("value index: %d values from %d columns, skipped %v", ix.values.values, ix.values.columns, ix.values.skipped)
	}
}

func TestLinking(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	wantLinks(t, ix, []linkCase{
		{"How many clients are there?", "clients", "customers"},
		{"How many staff members are there?", "staff", "employees"},
		{"List the categories", "categories", "categories"},
		{"orders per ship country", "ship", "orders.ship_country"},
		{"What's the average review rating?", "rating", "reviews.rating"},
		// With a range, a word naming a date column reads as the event
		// of its table's rows first (eventDates); the range still goes on
		// signup_date (TestPeopleAndEvents checks the SQL of such reads).
		{"How many customers signed up in 2022?", "signup", "customers"},
		{"Who was hired last?", "hired", "employees.hire_date"},
		{"How many orders came through the mobile app?", "mobile", "orders.channel=mobile_app"},
		{"products in the Decor category", "decor", "categories.name=Décor"},
		{"How many units do we have in stock?", "units", "products.units_in_stock"},
	})
}

// linkCase: in question, word links to want (a table, table.column or
// table.column=value).
type linkCase struct{ question, word, want string }

func wantLinks(t *testing.T, ix *index, cases []linkCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.question, func(t *testing.T) {
			a := ix.analyze(tt.question)
			c := mentionOf(a, tt.word)
			if c == nil || c.String() != tt.want {
				t.Errorf("%q links to %v, want %s\n%s", tt.word, c, tt.want, ix.explain(tt.question))
			}
		})
	}
}

// The reading of a value depends on the rows it filters: the same word is
// a different column for different questions.
func TestValueResolution(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	tests := []struct {
		question, wantInSQL string
	}{
		{"How many orders were shipped to France?", "ship_country = 'France'"},
		{"How many customers are in France?", "countries.name = 'France'"},
		{"How many suppliers are in France?", "countries.name = 'France'"},
		{"How many cancelled orders are there?", "status = 'cancelled'"},
		{"How many payments failed?", "status = 'failed'"},
		{"average cost of products", "AVG(unit_price) AS avg_unit_price FROM products"},
		{"average cost of order items", "AVG(unit_price) AS avg_unit_price FROM order_items"},
	}
	for _, tt := range tests {
		r := ix.plan(tt.question)
		if r.refusal != "" || !strings.Contains(r.sql, tt.wantInSQL) {
			t.Errorf("%q → %q %s, want it to contain %q", tt.question, r.sql, r.refusal, tt.wantInSQL)
		}
	}
	// "shipped" next to a country is part of "ship country", not a status.
	if r := ix.plan("How many orders were shipped to France?"); strings.Contains(r.sql, "status") {
		t.Errorf("shipped read as a status: %s", r.sql)
	}
}

func TestLinkingChinook(t *testing.T) {
	ix := testIndex(t, chinookPlanner(t))
	wantLinks(t, ix, []linkCase{
		{"How many songs are there?", "songs", "Track"},
		{"invoices per billing country", "billing", "Invoice.BillingCountry"},
		{"average track length", "length", "Track.Milliseconds"},
		{"tracks in the Rock genre", "rock", "Genre.Name=Rock"},
		{"How many different cities are invoices billed to?", "cities", "Invoice.BillingCity"},
	})
}

// TestValueIndexOnASlowMachine: the value index of a small database is the
// same whatever the machine's load. A CI run with every package's tests at
// once on two cores once spent the wall-clock budget and left date and
// value columns out, so answers changed with the load ("patients who
// died" refused). Here each reading of the clock advances it 300 ms, a
// machine far slower than the budget assumes.
func TestValueIndexOnASlowMachine(t *testing.T) {
	path, err := data.SamplePath()
	if err != nil {
		t.Fatalf("sample: %v", err)
	}
	d := testdb.Open(t, path)
	fake := time.Now()
	clock = func() time.Time { fake = fake.Add(300 * time.Millisecond); return fake }
	t.Cleanup(func() { clock = time.Now })
	ix := testIndex(t, &testPlanner{d: d, p: New(d)})
	for _, sk := range ix.values.skipped {
		if !strings.HasSuffix(sk, ": prose") {
			t.Errorf("column skipped on a slow machine: %s", sk)
		}
	}
	if len(ix.values.byKey[textKey("Kite Express")]) == 0 {
		t.Error(`"Kite Express" (shippers.name) is not indexed on a slow machine`)
	}
}
