package mysql

import (
	"strconv"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
)

// Dialect is MySQL's and MariaDB's SQL, under the session's sql_mode
// (backticks quote names, double quotes delimit strings, a backslash
// escapes in strings).
type Dialect struct {
	// Server names the server for people and prompts: "MariaDB 10.11".
	Server string
}

var _ engine.Dialect = Dialect{}

// Dialect is the server's SQL.
func (e *Engine) Dialect() engine.Dialect {
	major, minor := versionNumbers(e.version)
	name := serverName(e.mariadb)
	if major > 0 {
		name += " " + strconv.Itoa(major) + "." + strconv.Itoa(minor)
	}
	return Dialect{Server: name}
}

// Name is the server's name and version, "MariaDB 10.11"; "MySQL" when
// unknown.
func (d Dialect) Name() string {
	if d.Server == "" {
		return "MySQL"
	}
	return d.Server
}

// QuoteIdent quotes a name in backticks: `Order Details`.
func (Dialect) QuoteIdent(name string) string { return quoteIdent(name) }

// QuoteIdentIfNeeded quotes name only when it is not a plain identifier or
// is a reserved word. Case is kept either way: MySQL reads an unquoted
// Track as Track.
func (Dialect) QuoteIdentIfNeeded(name string) string {
	if name == "" {
		return "``"
	}
	digits := true
	for _, c := range name {
		if !isNameASCII(c) {
			return quoteIdent(name)
		}
		if c < '0' || c > '9' {
			digits = false
		}
	}
	if digits || reserved[strings.ToUpper(name)] {
		return quoteIdent(name)
	}
	return name
}

// reserved are the reserved words people trip on as names.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ADD ALL ALTER ANALYZE AND AS ASC BETWEEN BY CALL CASE CHANGE CHECK
		COLLATE COLUMN CONDITION CONSTRAINT CREATE CROSS CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP
		CURRENT_USER DATABASE DEFAULT DELETE DESC DESCRIBE DISTINCT DIV DROP ELSE EXCEPT EXISTS EXPLAIN
		FALSE FETCH FOR FORCE FOREIGN FROM FULLTEXT GRANT GROUP HAVING IF IGNORE IN INDEX INNER INSERT
		INTERSECT INTERVAL INTO IS JOIN KEY KEYS KILL LEADING LEFT LIKE LIMIT LINES LOAD LOCK LONG
		MATCH MOD NATURAL NOT NULL ON OPTION OR ORDER OUT OUTER OVER PARTITION PRIMARY PROCEDURE RANGE
		READ RECURSIVE REFERENCES REGEXP RENAME REPEAT REPLACE REQUIRE RETURN REVOKE RIGHT RLIKE ROW
		ROWS SCHEMA SELECT SET SHOW SPATIAL TABLE THEN TO TRAILING TRIGGER TRUE UNION UNIQUE UNLOCK
		UPDATE USAGE USE USING VALUES WHEN WHERE WINDOW WITH WRITE XOR`) {
		reserved[w] = true
	}
}

// QuoteString quotes a string literal: quotes doubled and backslashes
// escaped, as the session's sql_mode reads them.
func (Dialect) QuoteString(s string) string { return quoteString(s) }

// DateBucket formats expr with DATE_FORMAT: '2024', '2024-Q1', '2024-03',
// '2024-W09' (WEEK mode 5: weeks from the first Monday, as SQLite's %W),
// '2024-03-05'.
func (Dialect) DateBucket(expr string, unit engine.TimeUnit) string {
	switch unit {
	case engine.Year:
		return "DATE_FORMAT(" + expr + ", '%Y')"
	case engine.Month:
		return "DATE_FORMAT(" + expr + ", '%Y-%m')"
	case engine.Quarter:
		return "CONCAT(DATE_FORMAT(" + expr + ", '%Y'), '-Q', QUARTER(" + expr + "))"
	case engine.Week:
		return "CONCAT(DATE_FORMAT(" + expr + ", '%Y'), '-W', LPAD(WEEK(" + expr + ", 5), 2, '0'))"
	default:
		return "DATE_FORMAT(" + expr + ", '%Y-%m-%d')"
	}
}

// FromUnixSeconds is FROM_UNIXTIME(expr), in UTC: every session runs with
// time_zone '+00:00'.
func (Dialect) FromUnixSeconds(expr string) string { return "FROM_UNIXTIME(" + expr + ")" }

// Like lowers both sides, so that the match ignores case whatever the
// column's collation.
func (Dialect) Like(expr, pattern string) string {
	return "LOWER(" + expr + ") LIKE LOWER(" + quoteString(pattern) + `) ESCAPE '\\'`
}

// Limit is "LIMIT n".
func (Dialect) Limit(n int) string { return "LIMIT " + strconv.Itoa(n) }

// ExactText compares expr's bytes: CAST(expr AS BINARY). The default
// collations (utf8mb4_general_ci and the like) ignore case, accents and
// trailing spaces, so COUNT(DISTINCT Composer) on Chinook took 'Lazão'
// and 'Lazao' for one composer.
func (Dialect) ExactText(expr string) string { return "CAST(" + expr + " AS BINARY)" }

func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func quoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
