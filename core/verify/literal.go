package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/text"
)

// Comparison is a column compared with text literals in a statement.
type Comparison struct {
	// Table and Column are named as the catalog names them.
	Table, Column string
	// Op is "=", "LIKE" or "ILIKE"; an IN list is one "=" per value.
	Op    string
	Value string
	// Func is "lower", "upper" or "trim" when the column is compared
	// through it, as in lower(name) = 'berlin'; "" otherwise.
	Func string
}

// Comparisons finds the comparisons of a column with a text literal in
// sql — col = 'x', 'x' = col, col IN ('x', 'y'), col LIKE 'x%', and the
// same with lower(col), upper(col) or trim(col) on the left — whose
// column it can resolve in cat (a name of a table the statement reads,
// through its alias or unqualified when one table has it). NOT IN and NOT
// LIKE are left out, and so are literals holding a backslash (engines read
// it differently). Each comparison is listed once, in order.
func Comparisons(sql string, cat *catalog.Catalog) []Comparison {
	toks := guard.Lex(sql)
	s := scope{cat: cat, alias: map[string]*catalog.Table{}}
	s.read(toks)
	var out []Comparison
	seen := map[Comparison]bool{}
	add := func(c Comparison) {
		if !seen[c] && !strings.Contains(c.Value, `\`) {
			seen[c] = true
			out = append(out, c)
		}
	}
	up := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return strings.ToUpper(toks[i].Text)
	}
	for i, t := range toks {
		switch u := up(i); {
		case u == "=" && up(i-1) != "!" && up(i-1) != "<" && up(i-1) != ">" && up(i-1) != "=":
			j := i + 1
			if up(j) == "=" { // ==
				j++
			}
			if lit, ok := stringLit(toks, j); ok && up(j+1) != "|" {
				if t, c, fn, ok := s.operand(toks, i-1); ok {
					add(Comparison{t, c, "=", lit, fn})
				}
				continue
			}
			if lit, ok := stringLit(toks, i-1); ok && up(i-2) != "|" {
				if t, c, ok := s.columnAt(toks, j); ok {
					add(Comparison{t, c, "=", lit, ""})
				}
			}
		case u == "IN" && up(i-1) != "NOT" && up(i+1) == "(":
			var lits []string
			j := i + 2
			for {
				lit, ok := stringLit(toks, j)
				if !ok {
					lits = nil
					break
				}
				lits = append(lits, lit)
				if up(j+1) == ")" {
					break
				}
				if up(j+1) != "," {
					lits = nil
					break
				}
				j += 2
			}
			if len(lits) == 0 {
				continue
			}
			if t, c, fn, ok := s.operand(toks, i-1); ok {
				for _, l := range lits {
					add(Comparison{t, c, "=", l, fn})
				}
			}
		case (u == "LIKE" || u == "ILIKE") && up(i-1) != "NOT":
			lit, ok := stringLit(toks, i+1)
			if !ok || up(i+2) == "ESCAPE" || up(i+2) == "|" {
				continue
			}
			if t, c, fn, ok := s.operand(toks, i-1); ok {
				add(Comparison{t, c, u, lit, fn})
			}
		}
		_ = t
	}
	return out
}

// stringLit is the value of toks[i] when it is a string literal.
func stringLit(toks []guard.Token, i int) (string, bool) {
	if i < 0 || i >= len(toks) {
		return "", false
	}
	s := toks[i].Text
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
}

// scope is the tables a statement reads, by name and alias.
type scope struct {
	cat    *catalog.Catalog
	alias  map[string]*catalog.Table // lower-cased alias or name → table
	tables []*catalog.Table
}

// clauseWords end a table reference: a word among them is not an alias.
var clauseWords = map[string]bool{
	"WHERE": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "OUTER": true,
	"CROSS": true, "NATURAL": true, "ON": true, "USING": true, "GROUP": true, "ORDER": true, "HAVING": true,
	"LIMIT": true, "OFFSET": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true,
	"AS": true, "SELECT": true, "FROM": true, "WITH": true, "AND": true, "OR": true, "NOT": true,
	"FETCH": true, "FOR": true, "STRAIGHT_JOIN": true, "LATERAL": true, "TABLESAMPLE": true,
}

// read records every table named after FROM, JOIN or a comma of a FROM
// list, with its alias.
func (s *scope) read(toks []guard.Token) {
	inFrom := false
	for i := 0; i < len(toks); i++ {
		u := strings.ToUpper(toks[i].Text)
		switch {
		case u == "FROM" || u == "JOIN" || u == "STRAIGHT_JOIN" || (u == "," && inFrom):
			inFrom = u != "JOIN"
			j := i + 1
			if j < len(toks) && toks[j].Text == "(" {
				inFrom = false
				continue
			}
			name, next := qualifiedName(toks, j)
			if name == "" {
				continue
			}
			t := s.cat.Table(name)
			if t == nil {
				continue
			}
			s.tables = append(s.tables, t)
			s.alias[strings.ToLower(t.Name)] = t
			if next < len(toks) && strings.EqualFold(toks[next].Text, "AS") {
				next++
			}
			if next < len(toks) && isName(toks[next].Text) && !clauseWords[strings.ToUpper(toks[next].Text)] {
				s.alias[strings.ToLower(catalog.Unquote(toks[next].Text))] = t
				next++
			}
			i = next - 1
		case u == "WHERE" || u == "GROUP" || u == "ORDER" || u == "ON" || u == "(" || u == ")" || u == "SELECT":
			inFrom = false
		}
	}
}

// qualifiedName reads name or schema.name at toks[i], unquoted, and the
// index after it.
func qualifiedName(toks []guard.Token, i int) (string, int) {
	if i >= len(toks) || !isName(toks[i].Text) {
		return "", i
	}
	name := catalog.Unquote(toks[i].Text)
	if i+2 < len(toks) && toks[i+1].Text == "." && isName(toks[i+2].Text) {
		return name + "." + catalog.Unquote(toks[i+2].Text), i + 3
	}
	return name, i + 1
}

// isName: a bare word that is not a number, or a quoted name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '"' || c == '`' || c == '[':
		return true
	case c >= '0' && c <= '9':
		return false
	default:
		return c == '_' || c >= 0x80 || unicode.IsLetter(rune(c))
	}
}

// caseFuncs may wrap a compared column: the probe applies them as the
// statement did, on every engine.
var caseFuncs = map[string]bool{"LOWER": true, "UPPER": true, "TRIM": true}

// operand resolves the left side of a comparison ending at toks[end]: a
// column reference, or one wrapped in lower, upper or trim.
func (s *scope) operand(toks []guard.Token, end int) (table, column, fn string, ok bool) {
	if end >= 3 && toks[end].Text == ")" {
		start := end - 1
		if start >= 2 && toks[start-1].Text == "." {
			start -= 2
		}
		if start >= 2 && toks[start-1].Text == "(" && caseFuncs[strings.ToUpper(toks[start-2].Text)] {
			table, column, ok = s.column(toks, end-1)
			return table, column, strings.ToLower(toks[start-2].Text), ok
		}
		return "", "", "", false
	}
	table, column, ok = s.column(toks, end)
	return table, column, "", ok
}

// column resolves the column reference ending at toks[end]: col or
// qualifier.col.
func (s *scope) column(toks []guard.Token, end int) (table, column string, ok bool) {
	if end < 0 || end >= len(toks) || !isName(toks[end].Text) || clauseWords[strings.ToUpper(toks[end].Text)] {
		return "", "", false
	}
	col := catalog.Unquote(toks[end].Text)
	if end >= 2 && toks[end-1].Text == "." && isName(toks[end-2].Text) {
		t := s.alias[strings.ToLower(catalog.Unquote(toks[end-2].Text))]
		if t == nil {
			return "", "", false
		}
		return s.has(t, col)
	}
	if end >= 1 && toks[end-1].Text == "." {
		return "", "", false
	}
	var found *catalog.Table
	for _, t := range s.tables {
		if _, c, ok := s.has(t, col); ok {
			if found != nil && found != t {
				return "", "", false // ambiguous
			}
			found, col = t, c
		}
	}
	if found == nil {
		return "", "", false
	}
	return found.Name, col, true
}

// columnAt resolves the column reference starting at toks[start].
func (s *scope) columnAt(toks []guard.Token, start int) (string, string, bool) {
	end := start
	if start+2 < len(toks) && toks[start+1].Text == "." {
		end = start + 2
	}
	if end+1 < len(toks) && (toks[end+1].Text == "." || toks[end+1].Text == "(") {
		return "", "", false
	}
	return s.column(toks, end)
}

func (s *scope) has(t *catalog.Table, col string) (string, string, bool) {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, col) {
			return t.Name, c.Name, true
		}
	}
	return "", "", false
}

// Literals checks each comparison of sql (Comparisons, at most
// MaxLiterals) against the column's values: whether some row matches, and
// when none does, the closest values. It reads d's catalog; when that
// fails, nothing is checked.
func Literals(ctx context.Context, d *db.DB, sql string, opt Options) []answer.Literal {
	opt = opt.withDefaults()
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil
	}
	cmps := Comparisons(sql, cat)
	if len(cmps) > MaxLiterals {
		cmps = cmps[:MaxLiterals]
	}
	out := make([]answer.Literal, 0, len(cmps))
	for _, c := range cmps {
		out = append(out, CheckLiteral(ctx, d, c, opt))
	}
	return out
}

// CheckLiteral checks one comparison: a bounded query for one matching
// row, written with the comparison's own operator so that the engine's
// collation decides as it did for the statement; when none matches, the
// column's values closest to the literal.
func CheckLiteral(ctx context.Context, d *db.DB, c Comparison, opt Options) answer.Literal {
	opt = opt.withDefaults()
	dl := d.Dialect()
	l := answer.Literal{Table: c.Table, Column: c.Column, Func: c.Func, Op: c.Op, Value: c.Value}
	col, from := dl.QuoteIdent(c.Column), tableRef(ctx, d, c.Table)
	if c.Func != "" {
		col = c.Func + "(" + col + ")"
	}
	probe := fmt.Sprintf("SELECT 1 FROM %s WHERE %s %s %s %s", from, col, c.Op, dl.QuoteString(c.Value), dl.Limit(1))
	res, err := query.Collect(ctx, d, probe, query.Options{MaxRows: 1, Timeout: opt.Timeout})
	if err != nil {
		l.Unchecked = unchecked(ctx, err, opt)
		return l
	}
	if l.Found = len(res.Rows) > 0; l.Found {
		return l
	}
	l.Closest = closest(ctx, d, c, opt)
	return l
}

// tableRef is table as the checking queries name it: with its schema when
// the catalog gives one ("public"."orders"), so a table outside the search
// path is found.
func tableRef(ctx context.Context, d *db.DB, table string) string {
	dl := d.Dialect()
	if cat, err := d.Catalog(ctx); err == nil {
		if t := cat.Table(table); t != nil && t.Schema != "" {
			return dl.QuoteIdent(t.Schema) + "." + dl.QuoteIdent(t.Name)
		}
	}
	return dl.QuoteIdent(table)
}

func unchecked(ctx context.Context, err error, opt Options) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("the checks of this statement ran out of their %s", format.Seconds(opt.Budget))
	}
	if errors.Is(err, query.ErrDeadline) {
		return fmt.Sprintf("the column's values took longer than %s to read", format.Seconds(opt.Timeout))
	}
	return "the column's values could not be read: " + format.ClipBytes(err.Error(), 200)
}

// closest lists the values of c's column nearest to c.Value: the most
// frequent values, and those sharing its longest word or its first
// letters, ranked by how close they are (case, punctuation, initials,
// containment, edit distance).
func closest(ctx context.Context, d *db.DB, c Comparison, opt Options) []string {
	dl := d.Dialect()
	col, from := dl.QuoteIdent(c.Column), tableRef(ctx, d, c.Table)
	want := c.Value
	if c.Op != "=" {
		want = strings.Trim(strings.NewReplacer("%", " ", "_", " ").Replace(want), " ")
	}
	if want == "" {
		return nil
	}
	stmts := []string{fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s IS NOT NULL GROUP BY %s ORDER BY 2 DESC %s", col, from, col, col, dl.Limit(candidateRows))}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	if w := longestWord(want); len(w) >= 3 {
		stmts = append(stmts, fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s GROUP BY %s ORDER BY 2 DESC %s", col, from, dl.Like(col, "%"+esc.Replace(w)+"%"), col, dl.Limit(50)))
	}
	if r := []rune(want); len(r) >= 3 {
		stmts = append(stmts, fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s GROUP BY %s ORDER BY 2 DESC %s", col, from, dl.Like(col, esc.Replace(string(r[:2]))+"%"), col, dl.Limit(50)))
	}
	type cand struct {
		v     string
		n     int64
		score int
	}
	seen := map[string]bool{}
	var cands []cand
	for _, q := range stmts {
		res, err := query.Collect(ctx, d, q, query.Options{MaxRows: candidateRows, Timeout: opt.Timeout})
		if err != nil {
			continue
		}
		for _, row := range res.Rows {
			v, ok := row[0].(string)
			if !ok {
				if row[0] == nil {
					continue
				}
				v = format.Value(row[0])
			}
			if seen[v] {
				continue
			}
			seen[v] = true
			n, _ := row[1].(int64)
			if s, ok := closeness(want, v); ok {
				cands = append(cands, cand{v, n, s})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].n > cands[j].n
	})
	var out []string
	for i := 0; i < len(cands) && i < MaxClosest; i++ {
		out = append(out, cands[i].v)
	}
	return out
}

// closeness scores how close value v is to literal want, lower closer:
// 0 the same but for case or surrounding space, 1 the same letters and
// digits or v's initials ("U.K." and "United Kingdom"), 2 one holds the
// other, 3 and up an edit distance.
func closeness(want, v string) (int, bool) {
	lw, lv := strings.ToLower(strings.TrimSpace(want)), strings.ToLower(strings.TrimSpace(v))
	if lw == lv {
		return 0, true
	}
	aw, av := alnum(lw), alnum(lv)
	if aw != "" && (aw == av || len(aw) >= 2 && aw == initials(lv)) {
		return 1, true
	}
	if len(lw) >= 3 && len(lv) >= 3 && (strings.Contains(lv, lw) || strings.Contains(lw, lv)) {
		return 2, true
	}
	limit := max(1, len(lw)/4)
	if dist := text.Distance(lw, lv, limit); dist <= limit {
		return 2 + dist, true
	}
	return 0, false
}

func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// initials is the first letter of each word of s.
func initials(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		b.WriteRune([]rune(w)[0])
	}
	return b.String()
}

func longestWord(s string) string {
	best := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// Tables lists the tables of cat that sql reads (after FROM, JOIN or a
// comma of a FROM list), each once, in the order first named.
func Tables(sql string, cat *catalog.Catalog) []*catalog.Table {
	s := scope{cat: cat, alias: map[string]*catalog.Table{}}
	s.read(guard.Lex(sql))
	var out []*catalog.Table
	for _, t := range s.tables {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
