package servers

import (
	"regexp"
	"strconv"
	"strings"
)

// The DDL pieces both servers write alike. q is the identifier quote: "
// for PostgreSQL, ` for MySQL. String literals are written with doubled
// quotes only: the MySQL loader's session has NO_BACKSLASH_ESCAPES.

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func identList(names []string, q byte) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteIdent(n, q)
	}
	return strings.Join(out, ", ")
}

func columnNames(t *table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func indexList(x index, q byte) string {
	out := make([]string, len(x.Columns))
	for i, n := range x.Columns {
		out[i] = quoteIdent(n, q)
		if x.Desc[i] {
			out[i] += " DESC"
		}
	}
	return strings.Join(out, ", ")
}

func foreignKeyDef(fk foreignKey, q byte) string {
	s := "FOREIGN KEY (" + identList(fk.Columns, q) + ") REFERENCES " + quoteIdent(fk.RefTable, q) + " (" + identList(fk.RefColumns, q) + ")"
	for _, a := range []struct{ on, action string }{{"DELETE", fk.OnDelete}, {"UPDATE", fk.OnUpdate}} {
		switch a.action {
		case "CASCADE", "SET NULL", "RESTRICT":
			s += " ON " + a.on + " " + a.action
		case "SET DEFAULT":
			if q == '"' { // InnoDB has no SET DEFAULT
				s += " ON " + a.on + " " + a.action
			}
		}
	}
	return s
}

var numberLiteral = regexp.MustCompile(`^[-+]?(\d+(\.\d*)?|\.\d+)$`)

// defaultValue is c's default as the server writes it, when it is a
// literal (a number, a string, NULL) or the current time; an expression is
// not copied.
func defaultValue(c *column, mysql bool) (string, bool) {
	d := strings.TrimSpace(c.Default)
	for len(d) > 2 && d[0] == '(' && d[len(d)-1] == ')' {
		d = strings.TrimSpace(d[1 : len(d)-1])
	}
	switch u := strings.ToUpper(d); {
	case d == "" || u == "NULL":
		return "", false
	case u == "CURRENT_TIMESTAMP" || u == "CURRENT_DATE":
		if c.Kind == kTimestamp || c.Kind == kDate && !mysql {
			return u, true
		}
		return "", false
	case numberLiteral.MatchString(d):
		switch c.Kind {
		case kBool:
			if d == "0" || d == "1" {
				if mysql {
					return d, true
				}
				return map[string]string{"0": "false", "1": "true"}[d], true
			}
			return "", false
		case kInteger, kFloat, kDecimal:
			return d, true
		case kText:
			return quoteString(d), true
		}
		return "", false
	case len(d) >= 2 && d[0] == '\'' && d[len(d)-1] == '\'':
		switch c.Kind {
		case kText, kDate, kTimestamp:
			return d, true
		}
	}
	return "", false
}

// checks are t's CHECK (column IN (…)) constraints (core/ddl reads them),
// written for the server; other CHECK constraints are not copied.
func checks(t *table, q byte) []string {
	var out []string
	for _, ch := range t.Checks {
		c := t.column(ch.Column)
		if c == nil || c.Kind == kBool || c.Kind == kBlob {
			continue
		}
		vals := make([]string, len(ch.Values))
		ok := true
		for i, v := range ch.Values {
			switch {
			case strings.EqualFold(v, "NULL"):
				vals[i] = "NULL"
			case c.Kind == kText || c.Kind == kDate || c.Kind == kTimestamp:
				vals[i] = quoteString(v)
			case numberLiteral.MatchString(v):
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					ok = false
				}
				vals[i] = v
			default:
				ok = false
			}
		}
		if ok {
			out = append(out, "CHECK ("+quoteIdent(c.Name, q)+" IN ("+strings.Join(vals, ", ")+"))")
		}
	}
	return out
}

// requote rewrites the quoted identifiers of a SQLite SELECT ("x", [x],
// `x`) with q, leaving string literals and comments as they are. A view
// whose SQL is SQLite's own dialect beyond quoting is refused by the
// server and left out by the loader.
func requote(sqlText string, q byte) string {
	var b strings.Builder
	s := sqlText
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(s[i:end])
			i = end
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			var name strings.Builder
			j := i + 1
			for j < len(s) {
				if s[j] == closer {
					if closer != ']' && j+1 < len(s) && s[j+1] == closer {
						name.WriteByte(closer)
						j += 2
						continue
					}
					break
				}
				name.WriteByte(s[j])
				j++
			}
			b.WriteString(quoteIdent(name.String(), q))
			i = min(j+1, len(s))
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
