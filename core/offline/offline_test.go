package offline

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/testdb"
)

func TestRefusals(t *testing.T) {
	tp := samplePlanner(t)
	tests := []struct {
		question string
		mention  []string // words the message must quote or name
	}{
		{"How many orders were delivered late?", []string{`"late"`}},
		{"What is the total revenue per product?", []string{"revenue"}},
		{"Why did sales drop in the summer of 2023?", []string{"explain causes"}},
		{"Predict how many orders we will get next month", []string{"predict"}},
		{"What percentage of orders were cancelled?", []string{"percentages"}},
		{"Delete all cancelled orders", []string{"read-only", "cannot delete"}},
		{"Drop the customers table", []string{"read-only", "cannot drop"}},
		{"Please mark order 5 as shipped", []string{"read-only", "cannot mark"}},
		{"How many reviews are in German?", []string{`"German"`}},
		{"How many employees report to Harriet Vance?", []string{"relate to each other"}},
		{"How many tracks are longer than 5 kilobytes?", nil},
		{"Which products sell the best?", []string{"best"}},
		// A quoted value of symbols only is a value to find, not noise:
		// dropping it would count every customer.
		{`How many customers are in "%"?`, []string{`"%"`}},
		{`How many products are in category "#"?`, []string{`"#"`}},
		{"", []string{"Ask a question"}},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			b, err := tp.p.Answer(context.Background(), tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if b.Status != answer.StatusRefused {
				t.Fatalf("status %s, SQL %s, answer %s", b.Status, b.SQL, b.Answer)
			}
			if b.SQL != "" || len(b.Rows) != 0 {
				t.Errorf("a refusal ran SQL: %s", b.SQL)
			}
			for _, m := range tt.mention {
				if !strings.Contains(b.Answer, m) {
					t.Errorf("message %q does not mention %q", b.Answer, m)
				}
			}
			if write := strings.Contains(b.Answer, "read-only"); write && strings.Contains(b.Answer, "ANTHROPIC_API_KEY") {
				t.Errorf("a request to write suggests a model, which could not write either: %s", b.Answer)
			} else if tt.question != "" && !write {
				for _, env := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
					if !strings.Contains(b.Answer, env) {
						t.Errorf("message does not say how to configure a model (%s): %s", env, b.Answer)
					}
				}
			}
			if len(b.FollowUps) == 0 {
				t.Error("a refusal offers no question to ask instead")
			}
			for _, f := range b.FollowUps {
				if r := testIndex(t, tp).plan(f); r.refusal != "" {
					t.Errorf("follow-up %q is not answerable: %s", f, r.refusal)
				}
			}
		})
	}
}

// An ambiguous value is not guessed: the planner names both readings and
// offers both questions, each of which it answers.
func TestAmbiguousValue(t *testing.T) {
	tp := chinookPlanner(t)
	b, err := tp.p.Answer(context.Background(), "List the tracks by Queen")
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != answer.StatusClarify || !strings.Contains(b.Answer, "artist") || !strings.Contains(b.Answer, "composer") {
		t.Fatalf("status %s: %s", b.Status, b.Answer)
	}
	if b.Clarification == nil || len(b.Clarification.Options) != 2 {
		t.Fatalf("clarification %+v", b.Clarification)
	}
	if len(b.FollowUps) != 2 {
		t.Fatalf("follow-ups %q", b.FollowUps)
	}
	for _, f := range b.FollowUps {
		fb, err := tp.p.Answer(context.Background(), f)
		if err != nil || fb.Status != answer.StatusAnswered || fb.RowCount == 0 {
			t.Errorf("%q: %v %s %s", f, err, fb.Status, fb.Answer)
		}
	}
}

func TestAnswerBundle(t *testing.T) {
	tp := samplePlanner(t)
	ctx := context.Background()
	tests := []struct {
		question  string
		answer    string // substring of the sentence
		chart     string // chart kind, "" for none
		rows      int
		truncated bool
	}{
		{"How many customers are there?", "There are 2,400 customers.", "", 1, false},
		{"Which country has the most customers?", "United States has the most customers (544).", "", 1, false},
		{"How many orders were placed each year?", "2024: 4,192", answer.KindLine, 4, false},
		{"How many products are in each category?", "Number of products per category (11 categories)", answer.KindBar, 11, false},
		{"What is the average unit price of our products?", "The average unit price of products is 79.67.", "", 1, false},
		{"What are the 5 most expensive products?", "The 5 most expensive products: Coral Oak Side Table (690.99)", "", 5, false},
		{"List all order items", "Found more than 1000 order items", "", MaxRows, true},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			b, err := tp.p.Answer(ctx, tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if b.Status != answer.StatusAnswered {
				t.Fatalf("%s: %s", b.Status, b.Answer)
			}
			if b.Provider != Provider || b.Question != tt.question {
				t.Errorf("provider %q question %q", b.Provider, b.Question)
			}
			if !strings.Contains(b.Answer, tt.answer) {
				t.Errorf("answer %q, want it to contain %q", b.Answer, tt.answer)
			}
			if b.RowCount != tt.rows || len(b.Rows) != tt.rows || b.Truncated != tt.truncated {
				t.Errorf("rows %d/%d truncated %v, want %d %v", b.RowCount, len(b.Rows), b.Truncated, tt.rows, tt.truncated)
			}
			if len(b.Columns) == 0 || b.SQL == "" || len(b.Steps) != 1 || b.Steps[0].Input != b.SQL {
				t.Errorf("columns %v sql %q steps %v", b.Columns, b.SQL, b.Steps)
			}
			switch {
			case tt.chart == "" && b.Chart != nil:
				t.Errorf("unexpected chart %+v", b.Chart)
			case tt.chart != "" && (b.Chart == nil || b.Chart.Kind != tt.chart):
				t.Errorf("chart %+v, want %s", b.Chart, tt.chart)
			case b.Chart != nil && (b.Chart.X != b.Columns[0].Name || b.Chart.Y != b.Columns[len(b.Columns)-1].Name):
				t.Errorf("chart axes %q/%q do not name result columns %v", b.Chart.X, b.Chart.Y, b.Columns)
			}
			if n := len(b.FollowUps); n < 2 || n > 3 {
				t.Errorf("follow-ups %q", b.FollowUps)
			}
			for _, f := range b.FollowUps {
				if f == tt.question {
					t.Errorf("follow-up repeats the question")
				}
				if r := testIndex(t, tp).plan(f); r.refusal != "" {
					t.Errorf("follow-up %q is refused: %s", f, r.refusal)
				}
			}
		})
	}
}

// The index is built once, on first use, even when the first questions
// arrive together; answers are the same from any goroutine.
func TestConcurrentAnswers(t *testing.T) {
	base := samplePlanner(t)
	p := New(base.d) // a fresh planner: its index is built under the race
	questions := []string{"How many customers are there?", "Top 3 customers by number of orders",
		"How many orders were placed each year?", "List the customers in Mexico"}
	var wg sync.WaitGroup
	sqls := make([][]string, 4)
	for g := range sqls {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for _, q := range questions {
				b, err := p.Answer(context.Background(), q)
				if err != nil || b.Status != answer.StatusAnswered {
					t.Errorf("%q: %v %v", q, err, b)
					return
				}
				sqls[g] = append(sqls[g], b.SQL)
			}
		}(g)
	}
	wg.Wait()
	for g := 1; g < len(sqls); g++ {
		if strings.Join(sqls[g], ";") != strings.Join(sqls[0], ";") {
			t.Errorf("goroutine %d planned differently:\n%v\n%v", g, sqls[g], sqls[0])
		}
	}
}

func TestExplain(t *testing.T) {
	tp := samplePlanner(t)
	out := tp.p.Explain(context.Background(), "How many orders were shipped to France?")
	for _, want := range []string{"tokens:", `mention "france"`, "orders.ship_country=France", "sql: SELECT COUNT(*)"} {
		if !strings.Contains(out, want) {
			t.Errorf("Explain lacks %q:\n%s", want, out)
		}
	}
	if out := tp.p.Explain(context.Background(), "Why is the sky blue?"); !strings.Contains(out, "refused:") {
		t.Errorf("Explain of a refusal:\n%s", out)
	}
}

func TestCancelledContext(t *testing.T) {
	tp := samplePlanner(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tp.p.Answer(ctx, "How many customers are there?"); err == nil {
		t.Error("a cancelled question did not fail")
	}
}

func TestRefusalsNameWhatTheyMiss(t *testing.T) {
	tp := samplePlanner(t)
	for _, q := range []string{"what was our revenue last year?", "how much profit did we make?"} {
		b, err := tp.p.Answer(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != answer.StatusRefused || strings.Contains(b.Answer, " to .") || strings.Contains(b.Answer, "  ") {
			t.Errorf("%q: %s %q", q, b.Status, b.Answer)
		}
	}
}

func TestFollowUpsDoNotRepeatTheQuestion(t *testing.T) {
	tp := samplePlanner(t)
	b, err := tp.p.Answer(context.Background(), "orders per year")
	if err != nil || b.Status != answer.StatusAnswered {
		t.Fatal(err, b)
	}
	for _, f := range b.FollowUps {
		if r, _ := tp.p.Answer(context.Background(), f); r != nil && r.SQL == b.SQL {
			t.Errorf("follow-up %q asks the same thing again", f)
		}
	}
}

// A quoted value made of symbols filters on exactly that value ('%' is no
// wildcard).
func TestQuotedSymbolValueFilters(t *testing.T) {
	path := testdb.Build(t, "symbols.db", `CREATE TABLE discounts(id INTEGER PRIMARY KEY, symbol TEXT, amount REAL);
INSERT INTO discounts(symbol, amount) VALUES ('%', 10), ('%', 15), ('fixed', 5), ('50%', 50), ('fixed', 7);`)
	tp := openPlanner(t, path)
	b, err := tp.p.Answer(context.Background(), `How many discounts have symbol "%"?`)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != answer.StatusAnswered || len(b.Rows) != 1 || b.Rows[0][0] != int64(2) {
		t.Fatalf("status %s, SQL %s, rows %v, answer %s", b.Status, b.SQL, b.Rows, b.Answer)
	}
	if !strings.Contains(b.SQL, "'%'") || strings.Contains(strings.ToUpper(b.SQL), "LIKE") {
		t.Errorf("SQL %s", b.SQL)
	}
}
