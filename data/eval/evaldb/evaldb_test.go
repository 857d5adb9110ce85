package evaldb_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data/eval/evaldb"
)

// goldCase is one line of data/eval/<name>.jsonl (the format is described
// in data/eval/README.md). Unknown fields are refused so a misspelt key
// fails here rather than being silently ignored.
type goldCase struct {
	Question string `json:"question"`
	Shape    string `json:"shape"`
	SQL      string `json:"sql"`
	Ordered  bool   `json:"ordered"`
	Expect   string `json:"expect"`
	Set      string `json:"set"`
}

var shapes = []string{"count", "filter", "topn", "aggregate", "group", "argmax", "time", "distinct", "refuse"}

func loadCases(t *testing.T, path string) []goldCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var c goldCase
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestGoldSQL builds every database and runs every gold query through the
// product's read-only path (core/db + core/query): each must return rows,
// a one-value answer must not be NULL or zero, and a LIMIT must not cut
// through a tie on its ordering key.
func TestGoldSQL(t *testing.T) {
	paths := evaldb.BuildTemp(t)
	ctx := context.Background()
	for _, name := range evaldb.Names {
		t.Run(name, func(t *testing.T) {
			cases := loadCases(t, filepath.Join("..", name+".jsonl"))
			checkSet(t, name, cases)
			d, err := db.Open(ctx, paths[name], db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for i, c := range cases {
				if c.Expect == "refuse" {
					continue
				}
				t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
					res := run(ctx, t, d, c.SQL)
					if len(res.Rows) == 0 {
						t.Fatalf("%q: gold SQL returned no rows\n%s", c.Question, c.SQL)
					}
					if len(res.Rows) == 1 && len(res.Rows[0]) == 1 {
						if v := res.Rows[0][0]; v == nil || v == int64(0) || v == float64(0) {
							t.Fatalf("%q: gold answer is %v\n%s", c.Question, v, c.SQL)
						}
					}
					if c.Ordered && !regexp.MustCompile(`(?i)\bORDER\s+BY\b`).MatchString(c.SQL) {
						t.Errorf("%q is marked ordered but its SQL has no ORDER BY", c.Question)
					}
					if msg := tieAtLimit(ctx, t, d, c.SQL, res); msg != "" {
						t.Errorf("%q: %s\n%s", c.Question, msg, c.SQL)
					}
				})
			}
		})
	}
}

// checkSet checks the shape of one question set: its size, its tags and
// its mix of shapes.
func checkSet(t *testing.T, name string, cases []goldCase) {
	t.Helper()
	if len(cases) < 35 {
		t.Errorf("%s has %d questions, want at least 35", name, len(cases))
	}
	count := map[string]int{}
	seen := map[string]bool{}
	for i, c := range cases {
		count[c.Shape]++
		if c.Set != evaldb.SetTag(name) {
			t.Errorf("%s:%d: set %q, want %q", name, i+1, c.Set, evaldb.SetTag(name))
		}
		if seen[strings.ToLower(c.Question)] {
			t.Errorf("%s:%d: duplicate question %q", name, i+1, c.Question)
		}
		seen[strings.ToLower(c.Question)] = true
		refuse := c.Shape == "refuse" || c.Expect == "refuse"
		switch {
		case refuse && (c.Shape != "refuse" || c.Expect != "refuse" || c.SQL != ""):
			t.Errorf("%s:%d: a refusal needs shape and expect \"refuse\" and no SQL", name, i+1)
		case !refuse && c.SQL == "":
			t.Errorf("%s:%d: no gold SQL", name, i+1)
		}
	}
	for _, s := range shapes {
		if count[s] == 0 {
			t.Errorf("%s has no %s question", name, s)
		}
		delete(count, s)
	}
	for s := range count {
		t.Errorf("%s uses unknown shape %q (known: %v)", name, s, shapes)
	}
	refusals := 0
	for _, c := range cases {
		if c.Expect == "refuse" {
			refusals++
		}
	}
	if share := float64(refusals) / float64(len(cases)); share < 0.10 || share > 0.15 {
		t.Errorf("%s: %d of %d questions are refusals (%.0f%%), want 10–15%%", name, refusals, len(cases), 100*share)
	}
}

func run(ctx context.Context, t *testing.T, d *db.DB, sql string) *query.Result {
	t.Helper()
	res, err := query.Collect(ctx, d, sql, query.Options{MaxRows: 100_000, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	if res.Truncated {
		t.Fatalf("result truncated\n%s", sql)
	}
	return res
}

var (
	orderByRE = regexp.MustCompile(`(?i)\bORDER\s+BY\s`)
	limitRE   = regexp.MustCompile(`(?is)^(.+?)\s+LIMIT\s+(\d+)\s*;?\s*$`)
	dirRE     = regexp.MustCompile(`(?i)\s+(ASC|DESC)(\s+NULLS\s+(FIRST|LAST))?$`)
	selectRE  = regexp.MustCompile(`(?i)^SELECT\s+(DISTINCT\s+)?`)
)

// tieAtLimit reports when a query ending in "ORDER BY key … LIMIT n" has
// the same key on two neighbouring rows among the first n+1: at the limit,
// which rows come back would depend on the engine; above it, their order
// would. The key is read from the result when it is a result column,
// otherwise it is added to the outer select list of a probe query.
func tieAtLimit(ctx context.Context, t *testing.T, d *db.DB, sql string, res *query.Result) string {
	t.Helper()
	m := limitRE.FindStringSubmatch(strings.TrimSpace(sql))
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[2])
	locs := orderByRE.FindAllStringIndex(m[1], -1)
	if len(locs) == 0 {
		return "LIMIT without ORDER BY"
	}
	last := locs[len(locs)-1]
	key := dirRE.ReplaceAllString(strings.TrimSpace(splitTop(m[1][last[1]:], ',')[0]), "")
	bare := key[strings.LastIndex(key, ".")+1:]
	col := -1
	for i, c := range res.Columns {
		if strings.EqualFold(c.Name, bare) {
			col = i
		}
	}
	probe := m[1] + " LIMIT " + strconv.Itoa(n+1)
	if col < 0 {
		at := outerSelect(probe)
		if at < 0 {
			return "cannot find the outer SELECT to check ties"
		}
		sel := selectRE.FindString(probe[at:])
		if strings.Contains(strings.ToUpper(sel), "DISTINCT") {
			return "cannot check ties through SELECT DISTINCT with an ORDER BY key outside the result"
		}
		probe = probe[:at+len(sel)] + key + " AS tie_key, " + probe[at+len(sel):]
		col = 0
	}
	rows := run(ctx, t, d, probe).Rows
	for i := 1; i < len(rows); i++ {
		if a, b := rows[i-1][col], rows[i][col]; same(a, b) {
			return fmt.Sprintf("tie under LIMIT %d: rows %d and %d both have %s = %v", n, i, i+1, key, a)
		}
	}
	return ""
}

func same(a, b any) bool {
	fa, oka := toFloat(a)
	fb, okb := toFloat(b)
	if oka && okb {
		return math.Abs(fa-fb) <= 1e-9*math.Max(1, math.Abs(fa))
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// atTop calls visit with the offset of every byte of s that lies outside
// parentheses and quotes, until visit returns false.
func atTop(s string, visit func(i int) bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && !visit(i):
			return
		}
	}
}

// splitTop splits s at sep outside parentheses and quotes.
func splitTop(s string, sep byte) []string {
	var parts []string
	start := 0
	atTop(s, func(i int) bool {
		if s[i] == sep {
			parts = append(parts, s[start:i])
			start = i + 1
		}
		return true
	})
	return append(parts, s[start:])
}

// outerSelect returns the offset of the first SELECT outside parentheses
// and quotes (the main query, after any WITH clause), or -1.
func outerSelect(s string) int {
	at := -1
	atTop(s, func(i int) bool {
		if (i == 0 || !isWord(s[i-1])) && len(s) >= i+6 && strings.EqualFold(s[i:i+6], "SELECT") {
			at = i
			return false
		}
		return true
	})
	return at
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestTieCheckCatchesTies makes sure the tie check above can fail.
func TestTieCheckCatchesTies(t *testing.T) {
	path := testdb.Build(t, "ties.db", `CREATE TABLE s (name TEXT, dept TEXT, pay INTEGER);
INSERT INTO s VALUES ('a', 'x', 3), ('b', 'x', 2), ('c', 'y', 2), ('d', 'y', 1), ('e', 'z', 9), ('f', 'z', 1)`)
	ctx := context.Background()
	d, err := db.Open(ctx, path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range []struct {
		sql string
		tie bool
	}{
		// pay, descending: e 9, a 3, b 2, c 2, d 1, f 1
		{"SELECT name, pay FROM s ORDER BY pay DESC LIMIT 2", false},
		{"SELECT name, pay FROM s ORDER BY pay DESC LIMIT 3", true},
		{"SELECT name FROM s ORDER BY s.pay DESC LIMIT 3", true},
		{"SELECT name FROM s ORDER BY s.pay DESC, name LIMIT 4", true},
		{"SELECT name, pay FROM s WHERE pay > 1 ORDER BY pay DESC LIMIT 2", false},
		{"SELECT name, pay FROM s WHERE pay > 1 ORDER BY pay DESC LIMIT 4", true},
		{"SELECT dept FROM s GROUP BY dept ORDER BY SUM(pay) DESC LIMIT 1", false},
		{"SELECT dept FROM s GROUP BY dept ORDER BY COUNT(*) DESC LIMIT 1", true},
		{"WITH t AS (SELECT * FROM s ORDER BY name LIMIT 5) SELECT name FROM t ORDER BY pay LIMIT 1", false},
		{"WITH t AS (SELECT * FROM s ORDER BY name LIMIT 5) SELECT name FROM t ORDER BY pay LIMIT 2", true},
		{"SELECT name FROM s WHERE name IN ('a', 'b') ORDER BY pay DESC LIMIT 1", false},
	} {
		res := run(ctx, t, d, c.sql)
		if got := tieAtLimit(ctx, t, d, c.sql, res) != ""; got != c.tie {
			t.Errorf("tieAtLimit(%q) = %v, want %v", c.sql, got, c.tie)
		}
	}
}

// TestBuildIsDeterministic builds the databases twice and compares the
// files byte for byte.
func TestBuildIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: builds every database twice (a few seconds)")
	}
	a, b := evaldb.BuildTemp(t), evaldb.BuildTemp(t)
	for _, name := range evaldb.Names {
		x, err := os.ReadFile(a[name])
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(b[name])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s: two builds differ (sha256 %x vs %x)", name, sha256.Sum256(x), sha256.Sum256(y))
		}
	}
}

// BenchmarkBuild times building each database:
//
//	go test ./data/eval/evaldb -run '^$' -bench Build -benchtime 3x
func BenchmarkBuild(b *testing.B) {
	for _, name := range evaldb.Names {
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), name+".db")
			for b.Loop() {
				if err := evaldb.BuildOne(name, path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
