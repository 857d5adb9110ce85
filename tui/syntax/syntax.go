// Package syntax is a small SQL lexer for highlighting: keywords,
// functions, strings, quoted identifiers, numbers, comments, operators and
// parameters. It never decides what SQL means (the guard and SQLite do);
// it only colors text, and it never fails: unterminated strings and
// comments run to the end.
package syntax

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/tablewise/tablewise/tui/styles"
)

// Kind is a token class.
type Kind uint8

// Token classes.
const (
	Plain Kind = iota
	Space
	Keyword
	Function
	String
	Ident // a quoted identifier: "x", `x`, [x]
	Number
	Comment
	Operator
	Param
)

// Token is a run of bytes of one kind: text[Start:End].
type Token struct {
	Kind       Kind
	Start, End int
}

// Lex splits text into tokens covering every byte.
func Lex(text string) []Token {
	var toks []Token
	i := 0
	n := len(text)
	emit := func(k Kind, end int) {
		if end > n {
			end = n
		}
		toks = append(toks, Token{k, i, end})
		i = end
	}
	for i < n {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			j := i + 1
			for j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r' || text[j] == '\f') {
				j++
			}
			emit(Space, j)
		case c == '-' && i+1 < n && text[i+1] == '-':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				emit(Comment, n)
			} else {
				emit(Comment, i+j)
			}
		case c == '/' && i+1 < n && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				emit(Comment, n)
			} else {
				emit(Comment, i+2+j+2)
			}
		case c == '\'':
			emit(String, quoted(text, i, '\''))
		case (c == 'x' || c == 'X') && i+1 < n && text[i+1] == '\'':
			emit(String, quoted(text, i+1, '\''))
		case c == '"':
			emit(Ident, quoted(text, i, '"'))
		case c == '`':
			emit(Ident, quoted(text, i, '`'))
		case c == '[':
			j := strings.IndexByte(text[i:], ']')
			if j < 0 {
				emit(Ident, n)
			} else {
				emit(Ident, i+j+1)
			}
		case isDigit(c) || (c == '.' && i+1 < n && isDigit(text[i+1])):
			emit(Number, number(text, i))
		case c == '?' || ((c == ':' || c == '@' || c == '$') && i+1 < n && isWord(text[i+1])):
			j := i + 1
			for j < n && isWord(text[j]) {
				j++
			}
			emit(Param, j)
		case isWordStart(c):
			j := i + 1
			for j < n && isWord(text[j]) {
				j++
			}
			word := strings.ToUpper(text[i:j])
			k := Plain
			if keywords[word] {
				k = Keyword
			}
			// A name followed by "(" is a function call.
			p := j
			for p < n && (text[p] == ' ' || text[p] == '\t') {
				p++
			}
			if p < n && text[p] == '(' && (k == Plain || functionKeywords[word]) {
				k = Function
			}
			emit(k, j)
		case c >= 0x80:
			// UTF-8 letters are identifier characters in SQLite.
			j := i + 1
			for j < n && (text[j] >= 0x80 || isWord(text[j])) {
				j++
			}
			emit(Plain, j)
		default:
			j := i + 1
			if j < n && strings.Contains("|<>!=", string(c)) && strings.Contains("|=>", string(text[j])) {
				j++
			}
			emit(Operator, j)
		}
	}
	return toks
}

// quoted returns the end of a quoted run starting at i (the quote), where a
// doubled quote escapes itself.
func quoted(text string, i int, q byte) int {
	j := i + 1
	for j < len(text) {
		if text[j] == q {
			if j+1 < len(text) && text[j+1] == q {
				j += 2
				continue
			}
			return j + 1
		}
		j++
	}
	return len(text)
}

func number(text string, i int) int {
	n := len(text)
	j := i
	if text[j] == '0' && j+1 < n && (text[j+1] == 'x' || text[j+1] == 'X') {
		j += 2
		for j < n && isHex(text[j]) {
			j++
		}
		return j
	}
	for j < n && (isDigit(text[j]) || text[j] == '_') {
		j++
	}
	if j < n && text[j] == '.' {
		j++
		for j < n && isDigit(text[j]) {
			j++
		}
	}
	if j < n && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < n && (text[k] == '+' || text[k] == '-') {
			k++
		}
		if k < n && isDigit(text[k]) {
			j = k
			for j < n && isDigit(text[j]) {
				j++
			}
		}
	}
	return j
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isHex(c byte) bool       { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func isWordStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isWord(c byte) bool      { return isWordStart(c) || isDigit(c) || c == '$' }

// IsKeyword reports whether word (any case) is a SQL keyword.
func IsKeyword(word string) bool { return keywords[strings.ToUpper(word)] }

// Style returns the style for a token kind.
func Style(st *styles.Styles, k Kind) (lipgloss.Style, bool) {
	switch k {
	case Keyword:
		return st.Keyword, true
	case Function:
		return st.Function, true
	case String:
		return st.String, true
	case Ident:
		return st.Ident, true
	case Number:
		return st.Number, true
	case Comment:
		return st.Comment, true
	case Operator:
		return st.Operator, true
	case Param:
		return st.Param, true
	}
	return lipgloss.Style{}, false
}

// Highlight colors text (which may span lines). Line breaks are kept, and
// each line's styles are closed at its end so the lines can be laid out
// separately.
func Highlight(st *styles.Styles, text string) string {
	var b strings.Builder
	for _, t := range Lex(text) {
		s := text[t.Start:t.End]
		style, ok := Style(st, t.Kind)
		if !ok {
			b.WriteString(s)
			continue
		}
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			if i > 0 {
				b.WriteByte('\n')
			}
			if p != "" {
				b.WriteString(style.Render(p))
			}
		}
	}
	return b.String()
}

// Kinds returns the token kind of every rune of text, for editors that
// style rune by rune.
func Kinds(text string) []Kind {
	out := make([]Kind, 0, len(text))
	for _, t := range Lex(text) {
		for range text[t.Start:t.End] {
			out = append(out, t.Kind)
		}
	}
	return out
}

// functionKeywords are keywords that are also functions when called.
var functionKeywords = map[string]bool{
	"REPLACE": true, "LIKE": true, "GLOB": true, "IF": true, "CAST": false, "EXISTS": false,
	"LEFT": true, "RIGHT": true, "MATCH": true, "REGEXP": true,
}

// keywords are SQLite's keywords (https://sqlite.org/lang_keywords.html).
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH
		AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT
		CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT
		DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE
		EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP
		GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO
		IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL
		NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE
		RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT
		ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER
		TRUE FALSE UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH
		WITHOUT`) {
		m[k] = true
	}
	return m
}()
