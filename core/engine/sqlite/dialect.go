package sqlite

import (
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
)

// Dialect is SQLite's SQL.
type Dialect struct{}

var _ engine.Dialect = Dialect{}

// Dialect is SQLite's SQL.
func (d *Engine) Dialect() engine.Dialect { return Dialect{} }

// Name is "SQLite".
func (Dialect) Name() string { return "SQLite" }

// QuoteIdent quotes a name for SQLite: "Order Details", "order".
func (Dialect) QuoteIdent(name string) string { return quoteIdent(name) }

// QuoteIdentIfNeeded quotes name only when it is not a plain identifier or
// is a keyword people trip on.
func (Dialect) QuoteIdentIfNeeded(name string) string {
	if name == "" {
		return `""`
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return quoteIdent(name)
		}
	}
	switch strings.ToUpper(name) {
	case "ORDER", "GROUP", "SELECT", "FROM", "WHERE", "TABLE", "INDEX", "KEY", "MATCH", "LIMIT", "OFFSET",
		"CASE", "WHEN", "END", "CHECK", "DEFAULT", "VALUES", "UNION", "JOIN", "TO", "IN", "IS", "AS", "BY",
		"ON", "NOT", "NULL", "AND", "OR", "TRANSACTION", "REFERENCES", "PRIMARY", "FOREIGN", "UNIQUE", "ALL", "SET":
		return quoteIdent(name)
	}
	return name
}

// QuoteString quotes a string literal for SQLite.
func (Dialect) QuoteString(s string) string { return quoteString(s) }

// DateBucket formats expr with strftime; dates are ISO text in SQLite.
func (Dialect) DateBucket(expr string, unit engine.TimeUnit) string {
	switch unit {
	case engine.Year:
		return "strftime('%Y', " + expr + ")"
	case engine.Month:
		return "strftime('%Y-%m', " + expr + ")"
	case engine.Quarter:
		return "strftime('%Y', " + expr + ") || '-Q' || ((CAST(strftime('%m', " + expr + ") AS INTEGER) + 2) / 3)"
	case engine.Week:
		return "strftime('%Y-W%W', " + expr + ")"
	default:
		return "date(" + expr + ")"
	}
}

// FromUnixSeconds is datetime(expr, 'unixepoch').
func (Dialect) FromUnixSeconds(expr string) string { return "datetime(" + expr + ", 'unixepoch')" }

// Like uses LIKE, which in SQLite ignores the case of ASCII letters.
func (Dialect) Like(expr, pattern string) string {
	return expr + " LIKE " + quoteString(pattern) + ` ESCAPE '\'`
}

// Limit is "LIMIT n".
func (Dialect) Limit(n int) string { return "LIMIT " + strconv.Itoa(n) }

// ExactText is expr: SQLite's default collation, BINARY, compares bytes.
func (Dialect) ExactText(expr string) string { return expr }

func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func quoteString(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}
