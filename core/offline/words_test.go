package offline

import (
	"context"
	"strings"
	"testing"
)

// A measure whose column is named for its aggregate (a "total" column
// summed, an "average_rating" averaged) is said once: "the highest
// total", never "the highest total total".
func TestAggregateWordSaidOnce(t *testing.T) {
	tp := smallPlanner(t, "shop.db", `CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE invoice (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customer (id), total REAL NOT NULL, average_rating REAL);
INSERT INTO customer VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Linus');
INSERT INTO invoice VALUES (1, 1, 10.5, 4), (2, 1, 20, 5), (3, 2, 7.25, 3), (4, 3, 3, 2), (5, 2, 1, 4);`)
	for _, q := range []string{
		"which customer has the highest total?",
		"what is the total total of invoices?",
		"total of invoices per customer",
		"what is the average average rating of invoices?",
	} {
		b, err := tp.p.Answer(context.Background(), q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if b.SQL == "" {
			t.Errorf("%q: refused: %s", q, b.Answer)
			continue
		}
		low := strings.ToLower(b.Answer)
		if strings.Contains(low, "total total") || strings.Contains(low, "average average") {
			t.Errorf("%q: %s", q, b.Answer)
		}
	}
}

// A period series whose highest value several periods share says so,
// instead of naming the first of them as the highest.
func TestTiedPeakSaidAsTie(t *testing.T) {
	tp := smallPlanner(t, "visits.db", `CREATE TABLE visit (id INTEGER PRIMARY KEY, visited_on TEXT NOT NULL);
INSERT INTO visit (visited_on) VALUES ('2021-03-01'), ('2021-05-01'), ('2022-01-09'), ('2022-02-10'), ('2023-07-07'), ('2024-01-01'), ('2024-02-02');`)
	b, err := tp.p.Answer(context.Background(), "how many visits per year")
	if err != nil || b.SQL == "" {
		t.Fatalf("refused: %v %+v", err, b)
	}
	if want := "2021, 2022 and 2024 tie for the highest (2)"; !strings.Contains(b.Answer, want) {
		t.Errorf("answer %q lacks %q", b.Answer, want)
	}
	b, err = tp.p.Answer(context.Background(), "how many visits per month in 2022")
	if err != nil || b.SQL == "" {
		t.Fatalf("refused: %v %+v", err, b)
	}
	if strings.Contains(b.Answer, "the highest is") || !strings.Contains(b.Answer, "tie for the highest (1)") {
		t.Errorf("answer %q: two months of one visit each named as a single highest", b.Answer)
	}
	b, err = tp.p.Answer(context.Background(), "how many visits per month")
	if err != nil || b.SQL == "" {
		t.Fatalf("refused: %v %+v", err, b)
	}
	if !strings.Contains(b.Answer, "; 7 months tie for the highest (1).") {
		t.Errorf("answer %q: seven months of one visit each", b.Answer)
	}
}

// A date range reads as English after the rows it keeps: the verb of a
// column named for one ("sent_on" → "parcels sent in 2023"), "with" before
// any other column ("parcels with due date before 2024"); never "where due
// date before 2024".
func TestDateRangeWords(t *testing.T) {
	tp := smallPlanner(t, "parcels.db", `CREATE TABLE parcel (id INTEGER PRIMARY KEY, sent_on TEXT NOT NULL, due_date TEXT NOT NULL, weight REAL NOT NULL);
INSERT INTO parcel (sent_on, due_date, weight) VALUES ('2022-12-30', '2023-01-04', 1.5), ('2023-02-01', '2023-02-03', 2), ('2023-06-11', '2024-01-02', 0.5);`)
	for q, want := range map[string]string{
		"how many parcels were sent in 2023":         "There are 2 parcels sent in 2023.",
		"how many parcels with due date before 2024": "There are 2 parcels with due date before 2024.",
	} {
		b, err := tp.p.Answer(context.Background(), q)
		if err != nil || b.SQL == "" {
			t.Fatalf("%q refused: %v %+v", q, err, b)
		}
		if b.Answer != want {
			t.Errorf("%q: %q, want %q", q, b.Answer, want)
		}
	}
}

// No rows is said as a sentence: "There are no parcels with due date
// before 2020.", not "No parcels match with due date before 2020.".
func TestNoRowsSentence(t *testing.T) {
	tp := smallPlanner(t, "parcels.db", `CREATE TABLE parcel (id INTEGER PRIMARY KEY, sent_on TEXT NOT NULL, due_date TEXT NOT NULL, weight REAL NOT NULL);
INSERT INTO parcel (sent_on, due_date, weight) VALUES ('2022-12-30', '2023-01-04', 1.5), ('2023-02-01', '2023-02-03', 2);`)
	// A count of none has its row, a 0, and reads as a count.
	b, err := tp.p.Answer(context.Background(), "how many parcels with due date before 2020")
	if err != nil || b.SQL == "" {
		t.Fatalf("refused: %v %+v", err, b)
	}
	if want := "There are 0 parcels with due date before 2020."; b.Answer != want {
		t.Errorf("answer %q, want %q", b.Answer, want)
	}
	b, err = tp.p.Answer(context.Background(), "list the parcels with due date before 2020")
	if err != nil || b.SQL == "" {
		t.Fatalf("refused: %v %+v", err, b)
	}
	if want := "There are no parcels with due date before 2020."; b.Answer != want {
		t.Errorf("answer %q, want %q", b.Answer, want)
	}
}
