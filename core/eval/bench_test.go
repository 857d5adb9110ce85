package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// BenchmarkPredictions500 scores 500 predictions on Chinook (the gold
// questions of data/eval/chinook.jsonl, cycled, each prediction its own
// gold SQL): every gold and predicted query runs through the guard, is
// compared under every rule and written to results.jsonl, then the
// summary and the report are written. One op is the whole run.
//
//	go test ./core/eval -run '^$' -bench Predictions500 -benchtime 3x
func BenchmarkPredictions500(b *testing.B) {
	path := testdb.SharedData(b, "chinook.sqlite")
	gold, err := LoadCases(filepath.Join("..", "..", "data", "eval", "chinook.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var cases []Case
	preds := map[string]string{}
	for i := 0; len(cases) < 500; i++ {
		c := gold[i%len(gold)]
		if c.Expect == ExpectRefuse {
			continue
		}
		c.ID = fmt.Sprintf("q%d", len(cases))
		cases = append(cases, c)
		preds[c.ID] = c.GoldSQL
	}
	dbs := &Databases{Default: path}
	defer dbs.Close()
	for b.Loop() {
		sum, err := Run(context.Background(), cases, Options{Predictions: preds, DBs: dbs, Out: b.TempDir(), Info: RunInfo{Suite: "chinook500"}})
		if err != nil || sum.Overall.Correct != 500 {
			b.Fatalf("%v %+v", err, sum.Overall)
		}
	}
}
