package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestExplainAnalyze: MariaDB's ANALYZE gives each table read its actual
// rows and time; a leading EXPLAIN is dropped; SHOW cannot be measured.
func TestExplainAnalyze(t *testing.T) {
	f := chinook(t)
	for _, q := range []string{
		"SELECT GenreId, COUNT(*) FROM Track GROUP BY GenreId",
		"EXPLAIN SELECT GenreId, COUNT(*) FROM Track GROUP BY GenreId",
	} {
		p, err := f.eng.ExplainAnalyze(context.Background(), q, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if p.Actual == nil || !p.Actual.PerStep || p.Actual.MS <= 0 {
			t.Errorf("%s: actual %+v", q, p.Actual)
		}
		var rows float64
		for _, s := range p.Steps {
			if strings.Contains(s.Detail, "Track") && s.ActualRows != nil {
				rows = *s.ActualRows
			}
		}
		if rows != 3503 {
			t.Errorf("%s: the read of Track has %v actual rows, want 3503:\n%s", q, rows, p.Text())
		}
		if !strings.Contains(p.Text(), "actual 3,503 rows") {
			t.Errorf("%s: text\n%s", q, p.Text())
		}
	}
	var rej *guard.Rejection
	if _, err := f.eng.ExplainAnalyze(context.Background(), "SHOW TABLES", 5*time.Second); !errors.As(err, &rej) {
		t.Errorf("SHOW TABLES: %v, want a refusal", err)
	}
}

// TestExplainAnalyzeAdversarial: ANALYZE runs the statement, so every
// statement Run refuses, ExplainAnalyze refuses too (a dozen families of
// TestAdversarial, views and stored functions that reach a denied call
// among them), and the server is unchanged: checksums, tables, no file
// written, no named lock held, the sequence where it was, the other
// session alive. SLEEP(30) stops at a 2 s deadline within 3 s and is gone
// from the server.
func TestExplainAnalyzeAdversarial(t *testing.T) {
	f := chinook(t)
	eng := f.single(t)
	defer eng.Close()
	u := f.watch(t, "/tmp/tw-my-analyze-")
	out := u.out

	for _, q := range []string{
		"DELETE FROM Genre",
		"INSERT INTO Genre SELECT 100, 'y'",
		"UPDATE Genre SET Name = 'x'",
		"SELECT grab(1)",
		"SELECT * FROM leak",
		"SELECT * FROM `lock view`",
		"SELECT * FROM deeper",
		"SELECT NEXTVAL(tw_seq)",
		"SELECT 1 INTO OUTFILE '" + out + "'",
		"SELECT LOAD_FILE('/etc/passwd')",
		"SELECT 1 /*!, LOAD_FILE('/etc/passwd') */",
		"SELECT GET_LOCK('tw-lock', 0)",
		"SELECT * FROM Genre FOR UPDATE",
		fmt.Sprintf("KILL %d", u.otherID),
		"SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(5)",
		"SELECT @tw := 1",
		"ANALYZE DELETE FROM Genre",
		"EXPLAIN ANALYZE SELECT GET_LOCK('tw-lock', 0)",
		"SELECT 1; DELETE FROM Genre",
		"SELECT /*+ MAX_EXECUTION_TIME(0) */ SLEEP(5)",
	} {
		_, runErr := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
		_, err := eng.ExplainAnalyze(context.Background(), q, 2*time.Second)
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%q: %v, want a refusal", q, err)
		}
		if !errors.As(runErr, &rej) {
			t.Errorf("%q: Run did not refuse it: %v", q, runErr)
		}
	}

	servers.StopsAtDeadline(t, "ExplainAnalyze of SLEEP(30)", func(timeout time.Duration) error {
		_, err := eng.ExplainAnalyze(context.Background(), "SELECT SLEEP(30) AS tw_analyze_sleep", timeout)
		return err
	}, func() int { return f.running(t, "tw_analyze_sleep") })

	u.check(t)
	// The pooled session keeps tablewise's settings.
	res, err := query.Collect(context.Background(), eng, "SELECT @@max_statement_time, @@time_zone", query.Options{Timeout: 2 * time.Second})
	if err != nil || res.Rows[0][0] != 2.0 || res.Rows[0][1] != "+00:00" {
		t.Errorf("session after the attempts: %v %v", res, err)
	}
}
