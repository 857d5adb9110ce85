package offline

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkAnswer measures one question answered end to end (linking,
// planning, running the SQL, the sentence and the follow-ups) once the
// index is built, cycling through the sample gold questions. The target
// is under 50 ms per question.
//
//	go test ./core/offline -run '^$' -bench Answer -benchtime 200x
func BenchmarkAnswer(b *testing.B) {
	tp := samplePlanner(b)
	cases, err := LoadCases(filepath.Join("..", "..", "data", "eval", "sample.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := tp.p.Answer(ctx, cases[i%len(cases)].Question); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlan measures reading a question into SQL without running it.
func BenchmarkPlan(b *testing.B) {
	tp := samplePlanner(b)
	ix, err := tp.p.index(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	cases, err := LoadCases(filepath.Join("..", "..", "data", "eval", "sample.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.plan(cases[i%len(cases)].Question)
	}
}

// BenchmarkIndex measures building the per-database index (catalog read
// excluded: it is cached by db.DB).
func BenchmarkIndex(b *testing.B) {
	tp := samplePlanner(b)
	ctx := context.Background()
	for b.Loop() {
		p := New(tp.d)
		if err := p.Warm(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
