// Package ddl reads what tablewise shows from the CREATE TABLE and CREATE
// VIEW texts a SQLite schema keeps: the comments on a table and on its columns,
// and the values a CHECK (column IN (…)) constraint allows. It is the one
// reader of those texts; it only ever informs what is shown and never
// decides what may run.
package ddl

import (
	"regexp"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
)

var viewAS = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?VIEW\b.*?\bAS\b`)

// TableComment is a table's leading comment: a "-- …" or "/* … */" comment
// before the first column definition, on the line of the opening
// parenthesis or before it.
func TableComment(create string) string {
	var head, line string
	if m := viewAS.FindStringIndex(create); m != nil {
		head = create[:m[1]-2] // CREATE VIEW v /* comment */ (AS)
	} else {
		open := strings.IndexByte(create, '(')
		if open < 0 {
			return ""
		}
		head, line = create[:open], create[open+1:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
	}
	for i, part := range []string{head, line} {
		for _, mark := range []string{"/*", "--"} {
			at := strings.Index(part, mark)
			// On the line of the parenthesis, a comment after a column
			// definition belongs to that column.
			if at < 0 || i == 1 && strings.TrimSpace(part[:at]) != "" {
				continue
			}
			c := part[at+2:]
			if mark == "/*" {
				end := strings.Index(c, "*/")
				if end < 0 {
					continue
				}
				c = c[:end]
			} else if nl := strings.IndexByte(c, '\n'); nl >= 0 {
				c = c[:nl]
			}
			if c = strings.Join(strings.Fields(c), " "); c != "" {
				return c
			}
		}
	}
	return ""
}

// ColumnComments reads "-- comment" lines in a CREATE TABLE text: a
// comment on a column's own line, or comment lines just before it, by
// lower-cased column name.
func ColumnComments(create string) map[string]string {
	out := map[string]string{}
	open := strings.IndexByte(create, '(')
	if open < 0 {
		return out
	}
	var pending []string
	for _, line := range strings.Split(create[open+1:], "\n") {
		line = strings.TrimSpace(line)
		code, comment, hasComment := strings.Cut(line, "--")
		code = strings.TrimSpace(code)
		comment = strings.TrimSpace(comment)
		if hasComment && strings.HasPrefix(comment, "Stats:") {
			comment = ""
		}
		if code == "" {
			if comment != "" {
				pending = append(pending, comment)
			}
			continue
		}
		var names []string
		for _, seg := range splitTopLevel(code) {
			name := leadingIdent(strings.TrimSpace(seg))
			switch strings.ToUpper(name) {
			case "", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "CONSTRAINT":
				continue
			}
			names = append(names, name)
		}
		if len(names) == 0 {
			pending = nil
			continue
		}
		if len(pending) > 0 {
			out[strings.ToLower(names[0])] = strings.Join(pending, "; ")
		}
		if comment != "" {
			last := strings.ToLower(names[len(names)-1])
			if prev := out[last]; prev != "" {
				comment = prev + "; " + comment
			}
			out[last] = comment
		}
		pending = nil
	}
	return out
}

// splitTopLevel splits a line of column definitions at commas outside
// parentheses and quotes.
func splitTopLevel(code string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '[':
			quote = ']'
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

func leadingIdent(code string) string {
	if code == "" {
		return ""
	}
	switch q := code[0]; q {
	case '"', '`', '[':
		end := byte(q)
		if q == '[' {
			end = ']'
		}
		if i := strings.IndexByte(code[1:], end); i >= 0 {
			return code[1 : i+1]
		}
		return ""
	}
	i := strings.IndexAny(code, " \t,(")
	if i < 0 {
		return strings.TrimRight(code, ",)")
	}
	return code[:i]
}

// Check is a CHECK (column IN (…)) constraint: the column and every value
// it allows.
type Check struct {
	Column string
	Values []string
}

var checkIn = regexp.MustCompile(`(?is)\bCHECK\s*\(\s*("(?:[^"]|"")+"|\[[^\]]+\]|` + "`[^`]+`" + `|[\p{L}_][\p{L}\p{N}_$]*)\s+IN\s*\(([^()]*)\)\s*\)`)

// Checks reads "CHECK (col IN ('a', 'b'))" constraints from a CREATE
// TABLE text: the column and every value it allows.
func Checks(create string) []Check {
	var out []Check
	for _, m := range checkIn.FindAllStringSubmatch(create, -1) {
		vals := literals(m[2])
		if len(vals) == 0 {
			continue
		}
		out = append(out, Check{Column: catalog.Unquote(m[1]), Values: vals})
	}
	return out
}

// literals splits a list of SQL literals such as 'a', 3 or NULL (a quote
// inside a string is doubled). It returns nil if the list holds anything
// else.
func literals(list string) []string {
	var out []string
	s := strings.TrimSpace(list)
	for s != "" {
		var v string
		if s[0] == '\'' {
			var b strings.Builder
			i := 1
			for ; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						b.WriteByte('\'')
						i++
						continue
					}
					break
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil
			}
			v, s = b.String(), s[i+1:]
		} else {
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			v, s = strings.TrimSpace(s[:end]), s[end:]
			if v == "" || strings.ContainsAny(v, " ()") {
				return nil
			}
		}
		out = append(out, v)
		s = strings.TrimSpace(s)
		if s == "" {
			break
		}
		if s[0] != ',' {
			return nil
		}
		s = strings.TrimSpace(s[1:])
	}
	return out
}
