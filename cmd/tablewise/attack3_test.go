package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/testdb"
)

// TestTimeoutCannotBeLifted: sql and chart run their statement under
// --timeout, and a --timeout of 0 or below meant no deadline at all: a
// statement that never ends ran until the process was killed. explain
// --analyze already refused it; sql and chart now do too (exit 2, naming
// the flag), before any statement runs.
func TestTimeoutCannotBeLifted(t *testing.T) {
	const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
	out := filepath.Join(t.TempDir(), "c.png")
	for _, args := range [][]string{
		{"sql", "--timeout", "0", endless},
		{"sql", "--timeout", "-1s", endless},
		{"chart", "--timeout", "0s", "--sql", endless, "--out", out},
		{"chart", "--timeout", "-5m", "--sql", endless, "--out", out},
	} {
		type result struct {
			code   int
			stderr string
		}
		r := testdb.Within(t, 15*time.Second, func() result {
			code, _, errOut := runCLI(t, "", args...)
			return result{code, errOut}
		})
		if r.code != exitUsage || !strings.Contains(r.stderr, "--timeout") {
			t.Errorf("%q: exit %d: %s", args, r.code, r.stderr)
		}
	}
}
