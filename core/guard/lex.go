package guard

import "strings"

// Token is one token of a SQL text and where it starts (a byte offset).
type Token struct {
	Text string
	Pos  int
}

// Lex splits sql into tokens the way SQLite's tokenizer would, skipping
// whitespace and comments: words, quoted names and strings (as one token
// each, quotes kept) and single punctuation characters, each with its
// offset. Like every use of it, it serves messages, notes and early
// refusals; it never decides that a statement may run.
func Lex(sql string) []Token { return lex(sql, len(sql)+1) }

// tokens is the text of the first n tokens of sql (Lex).
func tokens(sql string, n int) []string {
	toks := lex(sql, n)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

// lex is Lex stopping after n tokens.
func lex(sql string, n int) []Token {
	var out []Token
	i := 0
	for i < len(sql) && len(out) < n {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := byte(c)
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for j < len(sql) {
				if sql[j] == end {
					if end != ']' && j+1 < len(sql) && sql[j+1] == end {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j >= len(sql) {
				out = append(out, Token{sql[i:], i})
				return out
			}
			out = append(out, Token{sql[i : j+1], i})
			i = j + 1
		case isWordByte(c):
			j := i
			for j < len(sql) && (isWordByte(sql[j]) || sql[j] >= '0' && sql[j] <= '9' || sql[j] == '$') {
				j++
			}
			out = append(out, Token{sql[i:j], i})
			i = j
		default:
			out = append(out, Token{sql[i : i+1], i})
			i++
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || c >= '0' && c <= '9'
}

// Keywords returns the first n bare words of sql, upper-cased, skipping
// comments, quoted text and punctuation.
func Keywords(sql string, n int) []string {
	var out []string
	for _, t := range tokens(sql, 4*n+8) {
		if len(out) == n {
			break
		}
		if t != "" && isWordByte(t[0]) && !(t[0] >= '0' && t[0] <= '9') {
			out = append(out, strings.ToUpper(t))
		}
	}
	return out
}

// LooksLikeSQL reports whether text should run as SQL rather than go to a
// model as a question. It is the one check every front door uses. Queries
// count (SELECT, WITH, VALUES, EXPLAIN, PRAGMA, or text that opens with a
// comment), and so do statements that write or change the database, so
// that "DROP TABLE t" is refused by the guard with its reason instead of
// being answered as a question. Only unmistakable statement openings count
// ("DELETE FROM", "UPDATE t SET", "CREATE TABLE"…): "create a chart of
// sales" or "analyze revenue by region" stay questions.
func LooksLikeSQL(text string) bool {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "--") || strings.HasPrefix(t, "/*") {
		return true
	}
	var toks []string
	for _, tok := range tokens(text, 16) {
		if tok == ";" {
			continue
		}
		toks = append(toks, tok)
		if len(toks) == 8 {
			break
		}
	}
	n := len(toks)
	if n == 0 {
		return false
	}
	at := func(i int) string {
		if i < n {
			return strings.ToUpper(toks[i])
		}
		return ""
	}
	t1 := at(1)
	switch at(0) {
	case "SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA":
		return true
	case "DELETE":
		return t1 == "FROM"
	case "INSERT":
		return t1 == "INTO" || t1 == "OR"
	case "REPLACE":
		return t1 == "INTO"
	case "UPDATE":
		return t1 == "OR" || at(2) == "SET"
	case "DROP":
		return oneOf(t1, "TABLE", "VIEW", "INDEX", "TRIGGER")
	case "CREATE":
		return oneOf(t1, "TABLE", "VIEW", "INDEX", "UNIQUE", "TEMP", "TEMPORARY", "TRIGGER", "VIRTUAL")
	case "ALTER":
		return t1 == "TABLE"
	case "ATTACH":
		return t1 == "DATABASE" || n > 1 && toks[1][0] == '\''
	case "DETACH":
		return t1 == "DATABASE" || n == 2
	case "BEGIN", "COMMIT", "END", "ROLLBACK":
		return n == 1 || oneOf(t1, "TRANSACTION", "IMMEDIATE", "EXCLUSIVE", "DEFERRED", "TO")
	case "SAVEPOINT", "RELEASE":
		return n <= 3
	case "VACUUM":
		return n == 1 || t1 == "INTO" && n == 3
	case "ANALYZE", "REINDEX":
		return n == 1
	}
	return false
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
