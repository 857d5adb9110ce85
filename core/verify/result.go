package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// resultNotes says when a filtered statement's result is suspicious: no
// rows, or one row whose values are all NULL or a count of zero.
func resultNotes(sql string, res *query.Result, lits []answer.Literal) []string {
	filtered := false
	hasCount := false
	for _, t := range guard.Lex(sql) {
		switch strings.ToUpper(t.Text) {
		case "WHERE", "HAVING":
			filtered = true
		case "COUNT":
			hasCount = true
		}
	}
	if !filtered {
		return nil
	}
	missing := false
	for _, l := range lits {
		missing = missing || !l.Found && l.Unchecked == ""
	}
	why := "check its filters against the data (sample_values lists a column's values)"
	if missing {
		why = "a literal it filters on does not occur (see the notes above)"
	}
	switch {
	case res.RowCount == 0:
		return []string{"the statement returned no rows; before answering that there are none, " + why}
	case res.RowCount == 1 && allNull(res.Rows[0]):
		return []string{"every value of the only row is NULL: the filters may have matched no rows; " + why}
	case res.RowCount == 1 && hasCount && len(res.Rows[0]) == 1 && res.Rows[0][0] == int64(0):
		return []string{"the count is 0; before answering zero, " + why}
	}
	return nil
}

func allNull(row query.Row) bool {
	for _, v := range row {
		if v != nil {
			return false
		}
	}
	return len(row) > 0
}

// endWords end the FROM clause of a statement at the outer level.
var endWords = map[string]bool{"GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true, "FETCH": true, ";": true}

// fanOut flags a statement whose joins repeat rows of its driving table
// (the first table of its outer FROM) while it sums or averages that
// table's columns: each repeated row is counted again. It counts the
// joined rows and the driving table's distinct keys with one bounded
// query over the statement's own FROM and WHERE. "" when there is nothing
// to say or it cannot tell.
func fanOut(ctx context.Context, d *db.DB, sql string, opt Options) string {
	toks := guard.Lex(sql)
	if len(toks) == 0 || !strings.EqualFold(toks[0].Text, "SELECT") {
		return ""
	}
	cat, err := d.Catalog(ctx)
	if err != nil {
		return ""
	}
	from, end, joined := -1, len(toks), false
	depth := 0
	for i, t := range toks {
		switch u := strings.ToUpper(t.Text); {
		case u == "(":
			depth++
		case u == ")":
			depth--
		case depth != 0:
		case u == "FROM" && from < 0:
			from = i
		case u == "JOIN" && from >= 0:
			joined = true
		case endWords[u] && from >= 0:
			end = i
		}
		if end != len(toks) {
			break
		}
	}
	if from < 0 || !joined {
		return ""
	}
	name, next := qualifiedName(toks, from+1)
	driving := cat.Table(name)
	if driving == nil || len(driving.PrimaryKey) != 1 {
		return ""
	}
	qual := d.Dialect().QuoteIdent(driving.Name)
	if next < len(toks) && strings.EqualFold(toks[next].Text, "AS") {
		next++
	}
	if next < len(toks) && isName(toks[next].Text) && !clauseWords[strings.ToUpper(toks[next].Text)] {
		qual = toks[next].Text
	}
	s := scope{cat: cat, alias: map[string]*catalog.Table{}}
	s.read(toks)
	if !aggregatesOf(toks, &s, driving.Name) || joinsToKeys(toks[from+1:end], cat) {
		return ""
	}
	tail := len(sql)
	if end < len(toks) {
		tail = toks[end].Pos
	}
	body := strings.TrimSpace(sql[toks[from].Pos+len("FROM") : tail])
	pk := qual + "." + d.Dialect().QuoteIdent(driving.PrimaryKey[0])
	q := fmt.Sprintf("SELECT count(*), count(DISTINCT %s) FROM %s", pk, body)
	res, err := query.Collect(ctx, d, q, query.Options{MaxRows: 1, Timeout: opt.Timeout})
	if err != nil || len(res.Rows) != 1 {
		return ""
	}
	n, _ := res.Rows[0][0].(int64)
	k, _ := res.Rows[0][1].(int64)
	if k == 0 || n <= k {
		return ""
	}
	ident := d.Dialect().QuoteIdentIfNeeded(driving.Name)
	return fmt.Sprintf("the joins repeat rows of %s: %s of its rows become %s joined rows, so a SUM or AVG of %s's columns counts each of them %s times on average; if that is not intended, aggregate %s in a subquery before joining",
		ident, format.Count(k), format.Count(n), ident, format.Number(float64(n)/float64(k), 1), ident)
}

// joinWords start a join; a condition ends at one of them.
var joinWords = map[string]bool{"JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true,
	"CROSS": true, "NATURAL": true, "STRAIGHT_JOIN": true, "WHERE": true}

// joinsToKeys reports whether every join of a FROM clause (its tokens
// after FROM, up to the end of its WHERE) reaches a table by its whole
// one-column primary key — `JOIN t ON t.pk = x.col`, `USING (pk)` —, so
// no row of the tables before it can be repeated, and the counting query
// of fanOut would only confirm it (on a table of millions of rows it
// costs as much as the statement). False when it cannot tell: a comma
// join, a subquery, an OR, a composite key.
func joinsToKeys(toks []guard.Token, cat *catalog.Catalog) bool {
	depth, joins := 0, 0
	for i := 0; i < len(toks); i++ {
		switch u := strings.ToUpper(toks[i].Text); {
		case u == "(":
			depth++
		case u == ")":
			depth--
		case depth != 0:
		case u == ",":
			return false
		case u == "JOIN" || u == "STRAIGHT_JOIN":
			joins++
			name, next := qualifiedName(toks, i+1)
			t := cat.Table(name)
			if t == nil || len(t.PrimaryKey) != 1 {
				return false
			}
			qual := name
			if next < len(toks) && strings.EqualFold(toks[next].Text, "AS") {
				next++
			}
			if next < len(toks) && isName(toks[next].Text) && !clauseWords[strings.ToUpper(toks[next].Text)] {
				qual = catalog.Unquote(toks[next].Text)
				next++
			}
			if next >= len(toks) {
				return false
			}
			end := next + 1
			for end < len(toks) && !joinWords[strings.ToUpper(toks[end].Text)] {
				end++
			}
			if !byKey(toks[next:end], qual, t.PrimaryKey[0]) {
				return false
			}
			i = end - 1
		}
	}
	return joins > 0
}

// byKey reports whether a join condition (ON … or USING (…)) equates
// qual's column key with a column of another table, as one of the
// conjuncts of its top level.
func byKey(cond []guard.Token, qual, key string) bool {
	if len(cond) == 4 && strings.EqualFold(cond[0].Text, "USING") && cond[1].Text == "(" && cond[3].Text == ")" {
		return strings.EqualFold(catalog.Unquote(cond[2].Text), key)
	}
	if len(cond) == 0 || !strings.EqualFold(cond[0].Text, "ON") {
		return false
	}
	cond = cond[1:]
	// column reference a . b at i, else "", "".
	ref := func(i int) (string, string) {
		if i+2 < len(cond) && isName(cond[i].Text) && cond[i+1].Text == "." && isName(cond[i+2].Text) {
			return catalog.Unquote(cond[i].Text), catalog.Unquote(cond[i+2].Text)
		}
		return "", ""
	}
	found := false
	for start := 0; start < len(cond); {
		stop := start
		for stop < len(cond) && !strings.EqualFold(cond[stop].Text, "AND") {
			if strings.EqualFold(cond[stop].Text, "OR") || cond[stop].Text == "(" {
				return false
			}
			stop++
		}
		if stop-start == 7 && cond[start+3].Text == "=" {
			lq, lc := ref(start)
			rq, rc := ref(start + 4)
			isKey := func(q, c string) bool { return strings.EqualFold(q, qual) && strings.EqualFold(c, key) }
			if lq != "" && rq != "" && (isKey(lq, lc) && !strings.EqualFold(rq, qual) || isKey(rq, rc) && !strings.EqualFold(lq, qual)) {
				found = true
			}
		}
		start = stop + 1
	}
	return found
}

// aggregatesOf reports whether a SUM or AVG of toks takes a column of
// table.
func aggregatesOf(toks []guard.Token, s *scope, table string) bool {
	for i := 0; i+1 < len(toks); i++ {
		u := strings.ToUpper(toks[i].Text)
		if (u != "SUM" && u != "AVG") || toks[i+1].Text != "(" {
			continue
		}
		depth := 0
		for j := i + 1; j < len(toks); j++ {
			switch toks[j].Text {
			case "(":
				depth++
			case ")":
				depth--
			}
			if depth == 0 {
				break
			}
			if t, _, ok := s.column(toks, j); ok && strings.EqualFold(t, table) && (j+1 >= len(toks) || toks[j+1].Text != ".") {
				return true
			}
		}
	}
	return false
}
