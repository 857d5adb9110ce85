package guard

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Names is what hints need to know of a schema. core/db's catalog
// implements it.
type Names interface {
	TableNames() []string
	ColumnNames(table string) []string
}

// AddHint fills e.Hint for the errors SQLite reports most: unknown tables
// and columns get the nearest real names. It never changes e.Msg.
func AddHint(e *SQLError, sql string, names Names) {
	if e == nil || e.Hint != "" {
		return
	}
	msg := e.Msg
	switch {
	case strings.HasPrefix(msg, "no such table: "):
		bad := strings.TrimPrefix(msg, "no such table: ")
		if i := strings.LastIndexByte(bad, '.'); i >= 0 {
			bad = bad[i+1:]
		}
		if names == nil {
			e.Hint = "the schema lists every table"
			return
		}
		e.Hint = didYouMean(bad, names.TableNames(), "the schema lists every table")
	case strings.HasPrefix(msg, "no such column: "):
		bad := strings.TrimPrefix(msg, "no such column: ")
		if i := strings.LastIndexByte(bad, '.'); i >= 0 {
			bad = bad[i+1:]
		}
		if names == nil {
			e.Hint = "the table's description lists its columns"
			return
		}
		e.Hint = didYouMean(bad, columnsFor(sql, names), "the table's description lists its columns")
	case strings.Contains(msg, "syntax error"):
		e.Hint = "this is SQLite: use double quotes for names with spaces, single quotes for strings, and || to join text"
	case strings.HasPrefix(msg, "ambiguous column name: "):
		e.Hint = "qualify the column with its table name or alias"
	case strings.HasPrefix(msg, "no such function: "):
		e.Hint = "SQLite has no such function; see sqlite.org/lang_corefunc.html for the built-in ones"
	}
}

// columnsFor returns the columns of the tables sql names, or of every
// table when the advisory parser cannot read sql (it parses MySQL, not
// SQLite, so it often cannot; that is never a reason to reject).
func columnsFor(sql string, names Names) []string {
	tables := referencedTables(sql, names.TableNames())
	if len(tables) == 0 {
		tables = names.TableNames()
	}
	seen := map[string]bool{}
	var cols []string
	for _, t := range tables {
		for _, c := range names.ColumnNames(t) {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// referencedTables uses the advisory parser to find table names in sql,
// keeping those the schema really has.
func referencedTables(sql string, known []string) []string {
	stmt, err := sqlparser.Parse(sql)
	if err != nil {
		return nil
	}
	byLower := map[string]string{}
	for _, k := range known {
		byLower[strings.ToLower(k)] = k
	}
	var out []string
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if tn, ok := node.(sqlparser.TableName); ok {
			if k, ok := byLower[strings.ToLower(tn.Name.String())]; ok {
				out = append(out, k)
			}
		}
		return true, nil
	}, stmt)
	return out
}

// didYouMean names up to three candidates closest to bad.
func didYouMean(bad string, candidates []string, fallback string) string {
	near := Nearest(bad, candidates, 3)
	if len(near) == 0 {
		return fallback
	}
	return fmt.Sprintf("did you mean %s?", strings.Join(near, ", "))
}

// Nearest returns up to n candidates close to word (edit distance, case
// folded, or containing one another), best first.
func Nearest(word string, candidates []string, n int) []string {
	w := strings.ToLower(word)
	type scored struct {
		name string
		d    int
	}
	var s []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := levenshtein(w, lc)
		limit := max(2, len(w)/3)
		if d <= limit || (len(w) >= 3 && (strings.Contains(lc, w) || strings.Contains(w, lc) && len(lc) >= 3)) {
			s = append(s, scored{c, d})
		}
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].d < s[j].d })
	var out []string
	for i := 0; i < len(s) && i < n; i++ {
		out = append(out, s[i].name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
