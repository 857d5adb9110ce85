package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/core/query"
)

// TestQuotingMeasured is the measurement behind running every statement
// with ANSI_QUOTES. The gold SQL of Chinook (data/eval/chinook.jsonl) is
// rewritten two ways and run through the engine and, for comparison,
// through a session in the server's default sql_mode:
//
//   - its column names in double quotes, as standard SQL, PostgreSQL and
//     SQLite writers quote them ("Name"): the engine gives the same result
//     for every statement; the default mode reads "Name" as a string and
//     answers most of them silently wrong;
//   - its strings in double quotes, MySQL's habit ("Rock"): the engine
//     fails every one loudly, with a hint to use single quotes; the
//     default mode answers them.
//
// A wrong answer that looks right is worse than an error that says what
// to change, so names win. go test ./core/engine/mysql -run
// TestQuotingMeasured -v prints the counts.
func TestQuotingMeasured(t *testing.T) {
	f := chinook(t)
	cases, err := eval.LoadCases("../../../data/eval/chinook.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := f.eng.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	columns := map[string]bool{}
	tables := map[string]bool{}
	for _, tb := range cat.Tables {
		tables[strings.ToLower(tb.Name)] = true
		for _, c := range tb.Columns {
			columns[strings.ToLower(c.Name)] = true
		}
	}
	strs := regexp.MustCompile(`'(?:[^'\\]|'')*'`)
	word := regexp.MustCompile("(?:^|[^\\w\"`.])([A-Za-z_][A-Za-z0-9_]*)")
	quoteColumns := func(sqlText string) string {
		var b strings.Builder
		last := 0
		for _, loc := range strs.FindAllStringIndex(sqlText, -1) {
			b.WriteString(quoteWords(sqlText[last:loc[0]], word, columns, tables))
			b.WriteString(sqlText[loc[0]:loc[1]])
			last = loc[1]
		}
		b.WriteString(quoteWords(sqlText[last:], word, columns, tables))
		return b.String()
	}
	quoteStrings := func(sqlText string) string {
		return strs.ReplaceAllStringFunc(sqlText, func(s string) string {
			if strings.ContainsAny(s, `"\`) {
				return s
			}
			return `"` + strings.ReplaceAll(s[1:len(s)-1], "''", "'") + `"`
		})
	}
	viaEngine := func(q string) (string, error) {
		res, err := query.Collect(context.Background(), f.eng, q, query.Options{Timeout: 10e9})
		if err != nil {
			return "", err
		}
		return rowsKey(res.Rows), nil
	}
	defaultMode, err := f.root.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer defaultMode.Close()
	if _, err := defaultMode.ExecContext(context.Background(), "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'"); err != nil {
		t.Fatal(err)
	}
	viaDefault := func(q string) (string, error) { return rawKey(defaultMode, q) }

	type tally struct{ n, same, failed, different int }
	count := func(tl *tally, run func(string) (string, error), original, variant string) {
		want, err := run(original)
		if err != nil {
			return
		}
		tl.n++
		got, err := run(variant)
		switch {
		case err != nil:
			tl.failed++
		case got == want:
			tl.same++
		default:
			tl.different++
		}
	}
	var namesEngine, namesDefault, stringsEngine, stringsDefault tally
	for _, c := range cases {
		if c.GoldSQL == "" {
			continue
		}
		if v := quoteColumns(c.GoldSQL); v != c.GoldSQL {
			count(&namesEngine, viaEngine, c.GoldSQL, v)
			count(&namesDefault, viaDefault, c.GoldSQL, v)
		}
		if v := quoteStrings(c.GoldSQL); v != c.GoldSQL {
			count(&stringsEngine, viaEngine, c.GoldSQL, v)
			count(&stringsDefault, viaDefault, c.GoldSQL, v)
		}
	}
	for _, r := range []struct {
		what string
		tl   tally
	}{
		{"column names in double quotes, tablewise (ANSI_QUOTES)", namesEngine},
		{"column names in double quotes, the server's default mode", namesDefault},
		{"strings in double quotes, tablewise (ANSI_QUOTES)", stringsEngine},
		{"strings in double quotes, the server's default mode", stringsDefault},
	} {
		t.Logf("%s: %d statements, %d same result, %d errors, %d silently different", r.what, r.tl.n, r.tl.same, r.tl.failed, r.tl.different)
	}
	if namesEngine.n < 40 || namesEngine.same != namesEngine.n {
		t.Errorf("double-quoted names through the engine: %+v, want every one the same", namesEngine)
	}
	if namesDefault.different == 0 {
		t.Errorf("double-quoted names in the default mode: %+v; the measurement no longer shows silent differences", namesDefault)
	}
	if stringsEngine.n < 20 || stringsEngine.failed != stringsEngine.n {
		t.Errorf("double-quoted strings through the engine: %+v, want every one an error", stringsEngine)
	}
}

// quoteWords double-quotes the column names in a stretch of SQL outside
// string literals, leaving table names bare (so that FROM still parses in
// the default mode and the difference shows in the results).
func quoteWords(s string, word *regexp.Regexp, columns, tables map[string]bool) string {
	return word.ReplaceAllStringFunc(s, func(m string) string {
		lead, name := "", m
		if len(m) > 0 && !isIdentStart(m[0]) {
			lead, name = m[:1], m[1:]
		}
		l := strings.ToLower(name)
		if columns[l] && !tables[l] && !sqlWords[strings.ToUpper(name)] {
			return lead + `"` + name + `"`
		}
		return m
	})
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var sqlWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("SELECT FROM WHERE GROUP BY ORDER LIMIT AS ON JOIN LEFT AND OR NOT IN IS NULL COUNT SUM AVG MIN MAX DISTINCT DESC ASC HAVING CASE WHEN THEN ELSE END WITH LIKE") {
		sqlWords[w] = true
	}
}

func rowsKey(rows []query.Row) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r...)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func rawKey(c *sql.Conn, q string) (string, error) {
	rows, err := mysql.ScanAll(c.QueryContext(context.Background(), q))
	if err != nil {
		return "", err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, v := range r {
			if v != nil {
				parts[j] = *v
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	sort.Strings(out)
	return strings.Join(out, "\n"), nil
}
