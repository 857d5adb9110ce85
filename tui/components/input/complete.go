package input

import (
	"sort"
	"strings"
	"unicode"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/tui/syntax"
)

// Completer proposes table and column names from the catalog.
type Completer struct {
	tables  []string
	cols    map[string][]string // lower-case table name → its columns
	allCols []string
	dl      engine.Dialect
}

// NewCompleter indexes cat's names; dl quotes them where SQL needs it.
func NewCompleter(cat *catalog.Catalog, dl engine.Dialect) *Completer {
	c := &Completer{cols: map[string][]string{}, dl: dl}
	if cat == nil {
		return c
	}
	seen := map[string]bool{}
	for _, t := range cat.Tables {
		c.tables = append(c.tables, t.Name)
		for _, col := range t.Columns {
			c.cols[strings.ToLower(t.Name)] = append(c.cols[strings.ToLower(t.Name)], col.Name)
			if !seen[strings.ToLower(col.Name)] {
				seen[strings.ToLower(col.Name)] = true
				c.allCols = append(c.allCols, col.Name)
			}
		}
	}
	sort.Strings(c.allCols)
	return c
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Complete finds the name being typed before pos in text and returns where
// it starts (a rune index), the partial word, and the candidates in the
// order they are offered: tables, then columns of tables the text names,
// then other columns. After "x." only columns of table (or alias) x are
// offered. Candidates are quoted when they need it.
func (c *Completer) Complete(text []rune, pos int) (start int, word string, cands []string) {
	start = pos
	for start > 0 && isIdentRune(text[start-1]) {
		start--
	}
	word = string(text[start:pos])
	qualifier := ""
	if start > 0 && text[start-1] == '.' {
		q := start - 1
		qs := q
		if qs > 0 && text[qs-1] == '"' {
			qs--
			for qs > 0 && text[qs-1] != '"' {
				qs--
			}
			if qs > 0 {
				qs--
			}
			qualifier = strings.Trim(string(text[qs:q]), `"`)
		} else {
			for qs > 0 && isIdentRune(text[qs-1]) {
				qs--
			}
			qualifier = string(text[qs:q])
		}
	}
	if qualifier == "" && word == "" {
		return start, word, nil
	}
	lw := strings.ToLower(word)
	match := func(name string) bool { return strings.HasPrefix(strings.ToLower(name), lw) }
	seen := map[string]bool{}
	add := func(name string) {
		k := strings.ToLower(name)
		if seen[k] || !match(name) {
			return
		}
		seen[k] = true
		cands = append(cands, c.dl.QuoteIdentIfNeeded(name))
	}
	full := string(text)
	if qualifier != "" {
		table := qualifier
		if t, ok := aliases(full)[strings.ToLower(qualifier)]; ok {
			table = t
		}
		for _, col := range c.cols[strings.ToLower(table)] {
			add(col)
		}
		return start, word, cands
	}
	for _, t := range c.tables {
		add(t)
	}
	for _, t := range referenced(full, c.tables) {
		for _, col := range c.cols[strings.ToLower(t)] {
			add(col)
		}
	}
	for _, col := range c.allCols {
		add(col)
	}
	return start, word, cands
}

// referenced lists the tables whose names appear as words in text.
func referenced(text string, tables []string) []string {
	words := map[string]bool{}
	for _, t := range syntax.Lex(text) {
		w := text[t.Start:t.End]
		if t.Kind == syntax.Ident {
			w = strings.Trim(w, "\"`[]")
		}
		words[strings.ToLower(w)] = true
	}
	var out []string
	for _, t := range tables {
		if words[strings.ToLower(t)] {
			out = append(out, t)
		}
	}
	return out
}

// aliases maps lower-case aliases to table names: "FROM orders o",
// "JOIN customers AS c".
func aliases(text string) map[string]string {
	var toks []string
	for _, t := range syntax.Lex(text) {
		if t.Kind == syntax.Space || t.Kind == syntax.Comment {
			continue
		}
		w := text[t.Start:t.End]
		if t.Kind == syntax.Ident {
			w = strings.Trim(w, "\"`[]")
		}
		toks = append(toks, w)
	}
	out := map[string]string{}
	for i := 0; i+2 < len(toks); i++ {
		kw := strings.ToUpper(toks[i])
		if kw != "FROM" && kw != "JOIN" && toks[i] != "," {
			continue
		}
		table := toks[i+1]
		j := i + 2
		if strings.EqualFold(toks[j], "AS") && j+1 < len(toks) {
			j++
		}
		alias := toks[j]
		if syntax.IsKeyword(alias) || alias == "," || alias == "(" || alias == ")" {
			continue
		}
		out[strings.ToLower(alias)] = table
	}
	return out
}

// commonPrefix is the longest case-insensitive common prefix of names,
// spelled as the first one spells it.
func commonPrefix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	p := []rune(names[0])
	for _, n := range names[1:] {
		r := []rune(n)
		i := 0
		for i < len(p) && i < len(r) && unicode.ToLower(p[i]) == unicode.ToLower(r[i]) {
			i++
		}
		p = p[:i]
	}
	return string(p)
}
