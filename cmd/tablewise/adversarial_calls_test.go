package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/testdb"
)

// Expressions that make one call of a built-in function do work far beyond
// its input's size (SQLite checks for an interrupt only between two steps
// of its virtual machine, so a slow call used to run to its end: instr and
// replace below took 41 s and 49 s, trim hours).
const (
	a40M       = "printf('%.*c', 40000000, 'a')"
	a40Kb      = "printf('%.*c', 40000, 'a') || 'b'"
	a1M        = "printf('%.*c', 1000000, 'a')"
	a10M       = "printf('%.*c', 10000000, 'a')"
	b1MThenA   = "printf('%.*c', 1000000, 'b') || 'a'"
	b1MBadThen = "printf('%.*c', 1000000, 'b') || CAST(x'c38080' AS TEXT) || 'a'" // a malformed character: no fast path
	bigObject  = "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 400000) SELECT json_group_object(x, x) FROM c)"
	manyLabels = `'{' || replace(printf('%.*c', 6000000, 'x'), 'x', '"a":1,') || '"b":2}'` // 34 MB, 6,000,001 labels
	someLabels = `'{' || replace(printf('%.*c', 2000000, 'x'), 'x', '"a":1,') || '"b":2}'` // 12 MB, 2,000,001 labels
)

// slowCalls are single calls that must end within the deadline plus a
// second: either with their answer (linear-time implementations) or
// stopped (exit 5). want is a line of the CSV output; "" means the call
// must be stopped; "either X" accepts X or a stop (a sort of 160 MB of
// rows takes about the deadline on this machine).
var slowCalls = []struct{ sql, want string }{
	{"SELECT instr(" + a40M + ", " + a40Kb + ")", "0"},
	{"SELECT instr(" + a40M + " || 'b', " + a40Kb + ")", "39960001"},
	{"SELECT length(replace(" + a40M + ", " + a40Kb + ", 'x'))", "40000000"},
	{"SELECT length(replace(" + a40M + " || 'b', " + a40Kb + ", 'x'))", "39960001"},
	{"SELECT length(trim(" + a1M + ", " + b1MThenA + "))", "0"},
	{"SELECT length(ltrim(" + a1M + ", " + b1MThenA + "))", "0"},
	{"SELECT length(rtrim(" + a1M + ", " + b1MThenA + "))", "0"},
	{"SELECT length(trim(" + a1M + ", " + b1MBadThen + "))", ""},
	{"SELECT length(ltrim(" + a1M + ", " + b1MBadThen + "))", ""},
	{"SELECT length(rtrim(" + a1M + ", " + b1MBadThen + "))", ""},
	{"SELECT " + a10M + " LIKE '%' || printf('%.*c', 9000, 'a') || 'b'", ""},
	{"SELECT " + a10M + " GLOB '*' || printf('%.*c', 9000, 'a') || 'b'", ""},
	{"SELECT " + a10M + " LIKE '%' || printf('%.*c', 9000, '_') || 'b'", "0"},
	{"SELECT " + a10M + " LIKE replace(printf('%.*c', 4000, 'x'), 'x', '%a') || 'b'", "0"},
	{"SELECT " + a10M + " GLOB '*[a]' || printf('%.*c', 3000, 'a') || 'b'", ""},
	{"SELECT " + a10M + " LIKE '%' || printf('%.*c', 4000, 'a') || 'b' ESCAPE '\\'", ""},
	{"SELECT length(unhex(printf('%.*c', 1000000, ' '), printf('%.*c', 1000000, 'x') || ' '))", "0"},
	{"SELECT length(unhex(printf('%.*c', 1000000, ' ') || '41', printf('%.*c', 1000000, 'x') || ' '))", "1"},
	{"SELECT length(json_patch(" + bigObject + ", " + bigObject + "))", ""},
	{"SELECT json_extract(" + manyLabels + ", " + strings.Repeat("'$.zz', ", 98) + "'$.zz')", ""},
	{"SELECT length(json_remove(" + manyLabels + ", " + strings.Repeat("'$.zz', ", 98) + "'$.zz'))", ""},
	{"SELECT length(json_set(" + manyLabels + ", " + strings.Repeat("'$.zz', 1, ", 48) + "'$.zz', 1))", ""},
	{"SELECT json_extract(" + someLabels + ", '$.b', '$.zz')", `"[2,null]"`},
	{"SELECT json_extract(" + bigObject + ", '$.7', '$.400000')", `"[7,400000]"`},
	// checked and linear in one call (kept to show they stay bounded)
	{"SELECT length(substr(printf('%.*c', 49000000, 'a'), 48000000))", "1000001"},
	{"SELECT length(upper(printf('%.*c', 49000000, 'a')))", "49000000"},
	{"SELECT soundex(printf('%.*c', 49000000, 'a'))", "A000"},
	{"SELECT length(quote(printf('%.*c', 20000000, '''')))", "40000002"},
	{"SELECT unicode(printf('%.*c', 49000000, 'a'))", "97"},
	{"SELECT length(unhex(printf('%.*c', 48000000, 'a')))", "24000000"},
	{"SELECT length(hex(randomblob(24000000)))", "48000000"},
	{"SELECT length(json_quote(printf('%.*c', 20000000, '\"')))", "40000002"},
	{"SELECT length(format('%q', printf('%.*c', 20000000, '''')))", "40000000"},
	{"SELECT length(strftime(printf('%.*c', 20000000, 'J'), 'now')) > 0", "1"},
	{"SELECT length(concat_ws(printf('%.*c', 1000000, ','), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))", "9000011"},
	{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000) SELECT length(json_remove(j, '$[0]', '$[0]', '$[0]')) FROM (SELECT json_group_array(x) j FROM c)", "6888891"},
	{"WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM c WHERE x < 50000) SELECT geopoly_overlap(p, p) FROM (SELECT '[' || group_concat('[' || (x/2) || ',' || ((x+1)/2%2*100) || ']') || ',[0,-5],[0,0]]' AS p FROM c)", "4"},
	{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 40000) SELECT count(*) FROM (SELECT row_number() OVER (ORDER BY s COLLATE NOCASE) FROM (SELECT printf('%.*c', 4000, 'a') || x AS s FROM c))", "either 40000"},
}

// TestAdversarialSlowCalls runs each slow call through the real binary
// with a 2 s deadline: it ends within 3 s, under 512 MiB, with its answer
// or stopped.
//
// A busy machine stretches wall time without any fault of the binary (see
// checkBounded), and a slower or busier machine than this one may need
// more than the deadline for a linear call on tens of megabytes: a call
// that should answer but was stopped (in time) runs again with a long
// deadline, where it must answer within twice the deadline in CPU time —
// a quadratic implementation takes tens of seconds of CPU either way.
func TestAdversarialSlowCalls(t *testing.T) {
	path := testdb.Fixture(t)
	const deadline = 2 * time.Second
	for _, c := range slowCalls {
		name := c.sql
		if len(name) > 70 {
			name = name[:70]
		}
		t.Run(name, func(t *testing.T) {
			r := runBin(t, "", "sql", "--db", path, "--timeout", deadline.String(), "--", c.sql)
			checkBounded(t, r, deadline)
			want, either := strings.CutPrefix(c.want, "either ")
			if either && r.code == exitLimit {
				return
			}
			if want == "" {
				if r.code != exitLimit {
					t.Errorf("exit %d, want %d (stopped)\nstdout %q\nstderr %q", r.code, exitLimit, clip(r.stdout), r.stderr)
				}
				return
			}
			if r.code == exitLimit {
				// Stopped in time, as promised; whether the call is linear is
				// judged by its CPU time under a long deadline.
				t.Logf("stopped after %v with %v of CPU; again with a %v deadline", r.elapsed, r.cpu, killAfter/2)
				r = runBin(t, "", "sql", "--db", path, "--timeout", (killAfter / 2).String(), "--", c.sql)
				if r.code == exitOK && r.cpu > 2*deadline {
					t.Errorf("answered with %v of CPU, more than twice the %v deadline", r.cpu, deadline)
				}
			}
			if r.code == exitLimit {
				t.Errorf("stopped, want the answer %s: %s", want, r.stderr)
				return
			}
			if r.code != exitOK || !strings.Contains(lines(r.stdout)+"\n", "\n"+want+"\n") {
				t.Errorf("exit %d, want %s in the output\nstdout %q\nstderr %q", r.code, want, clip(r.stdout), r.stderr)
			}
		})
	}
}

// checkBounded: the process ended within the deadline plus a second,
// under 512 MiB. On a busy machine (the process had less than half a CPU
// on average) wall time says little, so its CPU time must be within the
// deadline plus a second instead: a statement that ignored its deadline
// would have kept a CPU busy far longer.
func checkBounded(t *testing.T, r procResult, deadline time.Duration) {
	t.Helper()
	if r.elapsed > deadline+time.Second {
		if busy := 2*r.cpu < r.elapsed; !busy || r.cpu > deadline+time.Second {
			t.Errorf("took %v (%v of CPU), more than the %v deadline plus a second", r.elapsed, r.cpu, deadline)
		} else {
			t.Logf("took %v with %v of CPU: the machine is busy; the CPU time is within the deadline plus a second", r.elapsed, r.cpu)
		}
	}
	if r.maxRSS > 512<<20 {
		t.Errorf("peak memory %d MiB, over 512 MiB", r.maxRSS>>20)
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestAdversarialSlowSchemaObjects: a database whose generated columns and
// views call slow functions (or never end). Reading them stops at the
// deadline; the schema, the "did you mean" hint and doctor still answer
// within their bounds.
func TestAdversarialSlowSchemaObjects(t *testing.T) {
	// The generated columns are written into the schema after the rows,
	// as a crafted file would have them: inserting the rows would compute
	// them, and SQLite's own functions would never finish.
	g := fmt.Sprintf("CREATE TABLE g(id INTEGER PRIMARY KEY, slow_like AS (%s LIKE '%%' || printf('%%.*c', 9000, 'a') || 'b'), slow_trim AS (length(trim(%s, %s))))",
		a10M, a1M, b1MBadThen)
	gi := fmt.Sprintf("CREATE TABLE gi(id INTEGER PRIMARY KEY, x AS (instr(%s, %s)))", a40M, a40Kb)
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	path := testdb.Build(t, "malicious.db", fmt.Sprintf(`
CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'one');
CREATE TABLE g(id INTEGER PRIMARY KEY); INSERT INTO g VALUES (1);
CREATE TABLE gi(id INTEGER PRIMARY KEY); INSERT INTO gi VALUES (1);
CREATE VIEW v_glob AS SELECT %s GLOB '*' || printf('%%.*c', 9000, 'a') || 'b' AS m;
CREATE VIEW v_forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c;
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = %s WHERE name = 'g';
UPDATE sqlite_schema SET sql = %s WHERE name = 'gi';
PRAGMA writable_schema = OFF;
`, a10M, quote(g), quote(gi)))
	const deadline = 2 * time.Second
	for _, sql := range []string{"SELECT * FROM g", "SELECT slow_trim FROM g", "SELECT * FROM v_glob", "SELECT * FROM v_forever"} {
		t.Run("read/"+sql, func(t *testing.T) {
			r := runBin(t, "", "sql", "--db", path, "--timeout", deadline.String(), sql)
			checkBounded(t, r, deadline)
			if r.code != exitLimit {
				t.Errorf("exit %d, want %d\nstderr %q", r.code, exitLimit, r.stderr)
			}
		})
	}
	t.Run("read/SELECT x FROM gi", func(t *testing.T) {
		r := runBin(t, "", "sql", "--db", path, "--timeout", deadline.String(), "SELECT x FROM gi")
		checkBounded(t, r, deadline)
		if r.code != exitOK || lines(r.stdout) != "x\n0" {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("hint", func(t *testing.T) {
		r := runBin(t, "", "sql", "--db", path, "--timeout", "1s", "SELECT nosuch FROM t")
		checkBounded(t, r, time.Second)
		if r.code != exitDatabase || !strings.Contains(r.stderr, "no such column: nosuch") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
	// The catalog samples and counts every table and view, each within a
	// 250 ms budget and 2 s for all of them: schema and doctor answer
	// within the 10 s catalog deadline.
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"schema", "--db", path}, "v_forever"}, {[]string{"doctor", "--db", path}, "ok    catalog readable"}} {
		t.Run(c.args[0], func(t *testing.T) {
			r := runBin(t, "", c.args...)
			if r.elapsed > 10*time.Second {
				t.Errorf("took %v", r.elapsed)
			}
			if r.maxRSS > 512<<20 {
				t.Errorf("peak memory %d MiB", r.maxRSS>>20)
			}
			if r.code != exitOK || !strings.Contains(r.stdout, c.want) {
				t.Errorf("exit %d\nstdout %q\nstderr %q", r.code, clip(r.stdout), r.stderr)
			}
		})
	}
}
