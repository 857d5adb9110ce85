package guard

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Names is what hints need to know of a schema. *catalog.Catalog
// implements it.
type Names interface {
	TableNames() []string
	ColumnNames(table string) []string
}

// NameQuoter, when Names implements it, writes a suggested name as the
// engine's SQL needs it: "Track" in PostgreSQL, where unquoted names fold
// to lower case.
type NameQuoter interface {
	QuoteName(name string) string
}

// AddHint fills e.Hint, when the engine left it empty, for an unknown
// table or column (e.Missing): the nearest real names, or where to look
// when there are none (or no schema to look in). It never changes e.Msg.
func AddHint(e *SQLError, sql string, names Names) {
	if e == nil || e.Hint != "" || e.Missing == "" {
		return
	}
	bad := e.Missing
	if i := strings.LastIndexByte(bad, '.'); i >= 0 {
		bad = bad[i+1:]
	}
	// nearest names the closest real names to bad, or where to look.
	nearest := func(where string, candidates func() []string) string {
		if names == nil {
			return where
		}
		near := Nearest(bad, candidates(), 3)
		if len(near) == 0 {
			return where
		}
		if q, ok := names.(NameQuoter); ok {
			for i, n := range near {
				near[i] = q.QuoteName(n)
			}
		}
		return fmt.Sprintf("did you mean %s?", strings.Join(near, ", "))
	}
	switch e.MissingKind {
	case "table":
		e.Hint = nearest("the schema lists every table", func() []string { return names.TableNames() })
	case "column":
		e.Hint = nearest("the table's description lists its columns", func() []string { return columnsFor(sql, names) })
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
