package offline

import (
	"strings"
	"testing"
)

// FuzzPlan feeds arbitrary questions to the planner: it must never panic
// (plan turns a panic into a refusal, which this test reports), and what
// it plans must be one SELECT (a ranking with ties may open with WITH).
//
//	go test ./core/offline -run '^$' -fuzz FuzzPlan -fuzztime 30s
func FuzzPlan(f *testing.F) {
	for _, file := range []string{"sample.jsonl", "chinook.jsonl"} {
		cases := goldCases(f, file)
		for _, c := range cases {
			f.Add(c.Question)
		}
	}
	for _, s := range []string{"", "?", "'", `"`, "how many", "top 0 customers", "per per per", "the most", "in 2024 2025",
		"between 5 and", "more than", "'unclosed", "which which which", "not not France", "list ; DROP TABLE orders"} {
		f.Add(s)
	}
	tp := samplePlanner(f)
	ix := testIndex(f, tp)
	f.Fuzz(func(t *testing.T, q string) {
		r := ix.plan(q)
		if strings.Contains(r.refusal, "planner failed") {
			t.Fatalf("panic on %q: %s", q, r.refusal)
		}
		if r.refusal == "" && (!strings.HasPrefix(r.sql, "SELECT ") && !strings.HasPrefix(r.sql, "WITH ") || strings.Contains(r.sql, ";")) {
			t.Fatalf("%q planned %q", q, r.sql)
		}
	})
}
