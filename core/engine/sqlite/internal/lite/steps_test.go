package lite

import (
	"testing"
	"time"
)

// TestLimitSteps: a statement past its budget of instructions is
// interrupted, whatever the time it took; one within it runs to the end,
// and the same statement always uses the same number of instructions.
func TestLimitSteps(t *testing.T) {
	c, err := Open(":memory:", OpenReadWrite|OpenCreate|OpenMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := func(sql string, n int64) (error, bool, int64, time.Duration) {
		stop := c.LimitSteps(n)
		start := time.Now()
		err := c.Exec(sql)
		el := time.Since(start)
		hit, used := stop()
		return err, hit, used, el
	}
	const q = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000) SELECT count(*) FROM c"
	err, hit, used1, el := run(q, 1<<40)
	if err != nil || hit {
		t.Fatalf("within budget: %v, hit %v", err, hit)
	}
	t.Logf("a 1,000,000-row recursive count: %d instructions in %v (%.0f M/s)", used1, el, float64(used1)/el.Seconds()/1e6)
	_, _, used2, _ := run(q, 1<<40)
	if used1 != used2 {
		t.Errorf("the same statement used %d then %d instructions", used1, used2)
	}
	err, hit, used, _ := run(q, used1/10)
	if err == nil || !hit || used > used1/10+stepGranularity {
		t.Errorf("past budget: err %v, hit %v, used %d of %d", err, hit, used, used1/10)
	}
	// The budget is gone after stop.
	if err := c.Exec(q); err != nil {
		t.Errorf("after stop: %v", err)
	}
}
