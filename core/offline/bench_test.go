package offline

import (
	"github.com/tablewise/tablewise/data/eval/evaldb"

	"context"
	"testing"
	"time"
)

// BenchmarkAnswer measures one question answered end to end (linking,
// planning, running the SQL, the sentence and the follow-ups) once the
// index is built, cycling through the sample gold questions. The target
// is under 50 ms per question.
//
//	go test ./core/offline -run '^$' -bench Answer -benchtime 200x
func BenchmarkAnswer(b *testing.B) {
	tp := samplePlanner(b)
	cases := goldCases(b, "sample.jsonl")
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
	benchPlan(b, samplePlanner(b), "sample")
}

// benchPlan plans the questions of data/eval/<set>.jsonl in turn on tp's
// database, without running the SQL.
func benchPlan(b *testing.B, tp *testPlanner, set string) {
	ix, err := tp.p.index(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	cases := goldCases(b, set+".jsonl")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.plan(cases[i%len(cases)].Question)
	}
}

// BenchmarkPlanBlind measures reading a question into SQL on each
// cross-domain blind set, cycling through its questions (the planner's
// target is under 20 ms per question):
//
//	go test ./core/offline -run '^$' -bench PlanBlind -benchtime 200x
func BenchmarkPlanBlind(b *testing.B) {
	for _, name := range []string{"hr", "airlines", "health", "campus"} {
		b.Run(name, func(b *testing.B) { benchPlan(b, evalDBPlanner(b, name), name) })
	}
}

// BenchmarkAnswerBlind measures one question answered end to end on each
// blind set's database (planning and running the SQL).
//
//	go test ./core/offline -run '^$' -bench AnswerBlind -benchtime 100x
func BenchmarkAnswerBlind(b *testing.B) {
	for _, name := range []string{"hr", "airlines", "health", "campus"} {
		b.Run(name, func(b *testing.B) {
			tp := evalDBPlanner(b, name)
			cases := goldCases(b, name+".jsonl")
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			var slowest time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if _, err := tp.p.Answer(ctx, cases[i%len(cases)].Question); err != nil {
					b.Fatal(err)
				}
				slowest = max(slowest, time.Since(start))
			}
			// The slowest single question, beside the mean.
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms")
		})
	}
}

// BenchmarkIndex measures building the per-database index (catalog read
// excluded: it is cached by db.DB) on the sample, Chinook and the
// generated evaluation databases:
//
//	go test ./core/offline -run '^$' -bench Index -benchtime 5x
func BenchmarkIndex(b *testing.B) {
	dbs := []struct {
		name string
		open func(testing.TB) *testPlanner
	}{{"sample", samplePlanner}, {"chinook", chinookPlanner}}
	for _, n := range evaldb.Names {
		dbs = append(dbs, struct {
			name string
			open func(testing.TB) *testPlanner
		}{n, func(t testing.TB) *testPlanner { return evalDBPlanner(t, n) }})
	}
	for _, d := range dbs {
		b.Run(d.name, func(b *testing.B) {
			tp := d.open(b)
			ctx := context.Background()
			for b.Loop() {
				p := New(tp.d)
				if err := p.Warm(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
