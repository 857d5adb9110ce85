package postgres

import (
	"strconv"

	"github.com/tablewise/tablewise/core/engine"
)

// Dialect is PostgreSQL's SQL.
type Dialect struct {
	// Version is the server's major version, "15"; "" when unknown.
	Version string
}

var _ engine.Dialect = Dialect{}

// Dialect is PostgreSQL's SQL.
func (e *Engine) Dialect() engine.Dialect { return Dialect{Version: e.major} }

// Name is "PostgreSQL 15" (or "PostgreSQL" when the version is unknown).
func (d Dialect) Name() string {
	if d.Version == "" {
		return "PostgreSQL"
	}
	return "PostgreSQL " + d.Version
}

// QuoteIdent quotes a name: "Track", "order".
func (Dialect) QuoteIdent(name string) string { return quoteIdent(name) }

// QuoteIdentIfNeeded quotes a name unless PostgreSQL reads it unquoted as
// itself: lower case letters, digits and _, not a reserved word. Mixed
// case names ("Track") need quotes, since PostgreSQL folds unquoted names
// to lower case.
func (Dialect) QuoteIdentIfNeeded(name string) string {
	if name == "" {
		return `""`
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return quoteIdent(name)
		}
	}
	if reserved[name] {
		return quoteIdent(name)
	}
	return name
}

// reserved are PostgreSQL's reserved key words (and the non-reserved ones
// that cannot name a column), which need quotes as names.
var reserved = map[string]bool{}

func init() {
	for _, w := range []string{"all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "between", "binary", "both", "case", "cast",
		"check", "collate", "collation", "column", "concurrently", "constraint", "create", "cross", "current_catalog", "current_date", "current_role",
		"current_schema", "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except",
		"false", "fetch", "for", "foreign", "freeze", "from", "full", "grant", "group", "having", "ilike", "in", "initially", "inner", "intersect", "into",
		"is", "isnull", "join", "lateral", "leading", "left", "like", "limit", "localtime", "localtimestamp", "natural", "not", "notnull", "null", "offset",
		"on", "only", "or", "order", "outer", "overlaps", "placing", "primary", "references", "returning", "right", "select", "session_user", "similar",
		"some", "symmetric", "system_user", "table", "tablesample", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic",
		"verbose", "when", "where", "window", "with", "key", "match", "index", "set", "transaction", "values", "year", "month", "day", "time", "timestamp"} {
		reserved[w] = true
	}
}

// QuoteString quotes a string literal.
func (Dialect) QuoteString(s string) string { return quoteString(s) }

// DateBucket formats expr (a date, timestamp, or ISO text) with to_char;
// weeks count from the first Monday of the year as strftime's %W.
func (Dialect) DateBucket(expr string, unit engine.TimeUnit) string {
	ts := "(" + expr + ")::timestamp"
	switch unit {
	case engine.Year:
		return "to_char(" + ts + ", 'YYYY')"
	case engine.Month:
		return "to_char(" + ts + ", 'YYYY-MM')"
	case engine.Quarter:
		return "to_char(" + ts + ", 'YYYY-\"Q\"Q')"
	case engine.Week:
		return "to_char(" + ts + ", 'YYYY') || '-W' || lpad(((extract(doy FROM " + ts + ")::int + 7 - extract(isodow FROM " + ts + ")::int) / 7)::text, 2, '0')"
	default:
		return "to_char(" + ts + ", 'YYYY-MM-DD')"
	}
}

// FromUnixSeconds is the UTC timestamp of expr seconds since 1970.
func (Dialect) FromUnixSeconds(expr string) string {
	return "(to_timestamp(" + expr + ") AT TIME ZONE 'UTC')"
}

// Like is ILIKE on the text of expr, with \ as the escape character.
func (Dialect) Like(expr, pattern string) string {
	return "(" + expr + ")::text ILIKE " + quoteString(pattern) + ` ESCAPE '\'`
}

// Limit is "LIMIT n".
func (Dialect) Limit(n int) string { return "LIMIT " + strconv.Itoa(n) }

// ExactText is expr: PostgreSQL's collations are deterministic unless a
// column declares otherwise, so equal text has the same characters.
func (Dialect) ExactText(expr string) string { return expr }
