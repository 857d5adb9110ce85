package offline_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/offline"
	"github.com/tablewise/tablewise/core/testdb"
)

// The planner's own filters are checked against the data and recorded in
// the bundle, as a model's are.
func TestPlannerLiteralsAreChecked(t *testing.T) {
	p := offline.New(testdb.Sample(t))
	b, err := p.Answer(context.Background(), "How many customers are in Germany?")
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != answer.StatusAnswered || b.Checks == nil {
		t.Fatalf("status %s checks %+v (sql %q)", b.Status, b.Checks, b.SQL)
	}
	want := answer.Literal{Table: "countries", Column: "name", Op: "=", Value: "Germany", Found: true}
	if l := b.Checks.Literals; len(l) != 1 || l[0].Table != want.Table || l[0].Column != want.Column || l[0].Value != want.Value || !l[0].Found {
		t.Fatalf("literals %+v", l)
	}
	if len(b.Flags) != 0 || len(b.Checks.Notes) != 0 {
		t.Errorf("flags %q notes %q", b.Flags, b.Checks.Notes)
	}
	// A question without a text filter records nothing.
	b, err = p.Answer(context.Background(), "How many customers are there?")
	if err != nil || b.Status != answer.StatusAnswered || b.Checks != nil {
		t.Fatalf("%v %s %+v", err, b.Status, b.Checks)
	}
}
