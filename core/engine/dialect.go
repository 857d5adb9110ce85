package engine

// Dialect writes the SQL that differs between engines, for every part of
// tablewise that writes SQL itself: the offline planner, core/tools, the
// explorer's completions and previews, and the CLI's examples.
type Dialect interface {
	// Name names the SQL dialect for people and prompts: "SQLite",
	// "PostgreSQL 15".
	Name() string
	// QuoteIdent always quotes a name: "Order Details", "order".
	QuoteIdent(name string) string
	// QuoteIdentIfNeeded quotes a name only when SQL needs it: orders,
	// "promo codes", "order".
	QuoteIdentIfNeeded(name string) string
	// QuoteString quotes a string literal.
	QuoteString(s string) string
	// DateBucket is an expression giving the period of the date or
	// timestamp expr as sortable text: '2024', '2024-Q1', '2024-03',
	// '2024-W09' (weeks from the first Monday, as strftime's %W), or
	// '2024-03-05' for a day.
	DateBucket(expr string, unit TimeUnit) string
	// FromUnixSeconds is expr, an integer count of seconds since
	// 1970-01-01 UTC, as a date and time DateBucket reads.
	FromUnixSeconds(expr string) string
	// Like is a condition that expr matches pattern, a LIKE pattern
	// written as it is (not quoted) with \ as its escape character,
	// case-insensitively at least for ASCII letters.
	Like(expr, pattern string) string
	// Limit is the clause that keeps the first n rows: "LIMIT 10".
	Limit(n int) string
	// ExactText is the text expr as a value that equals another only
	// when their characters are the same, for DISTINCT and GROUP BY
	// where the column's collation would take 'Lazão', 'Lazao' and
	// 'LAZAO ' for one value (MySQL's and MariaDB's default ones do).
	// expr itself where text compares character by character already.
	ExactText(expr string) string
}

// TimeUnit is a period DateBucket groups by.
type TimeUnit string

// Periods.
const (
	Year    TimeUnit = "year"
	Quarter TimeUnit = "quarter"
	Month   TimeUnit = "month"
	Week    TimeUnit = "week"
	Day     TimeUnit = "day"
)
