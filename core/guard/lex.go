package guard

import "strings"

// tokens splits sql into at most n tokens the way SQLite's tokenizer would,
// skipping whitespace and comments: words, quoted names and strings (as one
// token each, quotes kept) and single punctuation characters. It is used
// only for messages and early refusals, never to accept a statement.
func tokens(sql string, n int) []string {
	var out []string
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
				out = append(out, sql[i:])
				return out
			}
			out = append(out, sql[i:j+1])
			i = j + 1
		case isWordByte(c):
			j := i
			for j < len(sql) && (isWordByte(sql[j]) || sql[j] >= '0' && sql[j] <= '9' || sql[j] == '$') {
				j++
			}
			out = append(out, sql[i:j])
			i = j
		default:
			out = append(out, sql[i:i+1])
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

// LooksLikeSQL reports whether text starts the way a SQL query does (after
// comments): SELECT, WITH, VALUES, EXPLAIN or PRAGMA. Front ends use it to
// tell SQL from a plain-language question.
func LooksLikeSQL(text string) bool {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "--") || strings.HasPrefix(t, "/*") {
		return true
	}
	kw := Keywords(text, 1)
	if len(kw) == 0 {
		return false
	}
	switch kw[0] {
	case "SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA":
		return true
	}
	return false
}
