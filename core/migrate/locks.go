package migrate

import (
	"regexp"
	"strings"
	"sync"
)

// PostgreSQL's table-level lock modes, weakest first, as its
// documentation names them ("Explicit Locking", and each command's page).
const (
	AccessShare          = "ACCESS SHARE"
	RowExclusive         = "ROW EXCLUSIVE"
	ShareUpdateExclusive = "SHARE UPDATE EXCLUSIVE"
	Share                = "SHARE"
	ShareRowExclusive    = "SHARE ROW EXCLUSIVE"
	Exclusive            = "EXCLUSIVE"
	AccessExclusive      = "ACCESS EXCLUSIVE"
)

// bigTableRows: a table with at least this many rows is big enough that
// an ACCESS EXCLUSIVE lock held while the statement works on it (a table
// rewrite, a scan to validate) is worth a warning.
const bigTableRows = 100_000

// lockRule is one line of the table: a statement shape, the lock it takes
// and which table it names (the regexp's first group; "" when the lock is
// on no existing table).
type lockRule struct {
	re   *regexp.Regexp
	lock string
}

const lockName = `("(?:[^"]|"")+"|[\w$]+(?:\.(?:"(?:[^"]|"")+"|[\w$]+))?)`

// lockRules are tried in order on the statement's text with leading
// comments removed and spaces collapsed, in upper case; the first that
// matches decides. Sources: PostgreSQL 15 documentation, "13.3.1
// Table-Level Locks", and the pages of ALTER TABLE, CREATE INDEX, DROP
// INDEX, REINDEX, CREATE TRIGGER, VACUUM, CLUSTER, REFRESH MATERIALIZED
// VIEW and COMMENT. They are compiled on first use, not when the program
// starts.
var lockRules = sync.OnceValue(func() []lockRule {
	return []lockRule{
		{regexp.MustCompile(`^CREATE (?:UNIQUE )?INDEX CONCURRENTLY (?:IF NOT EXISTS )?(?:[\w$"]+ )?ON (?:ONLY )?` + lockName), ShareUpdateExclusive},
		{regexp.MustCompile(`^CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?(?:[\w$"]+ )?ON (?:ONLY )?` + lockName), Share},
		{regexp.MustCompile(`^DROP INDEX CONCURRENTLY (?:IF EXISTS )?` + lockName), ShareUpdateExclusive},
		{regexp.MustCompile(`^DROP INDEX (?:IF EXISTS )?` + lockName), AccessExclusive},
		{regexp.MustCompile(`^REINDEX (?:\([^)]*\) )?(?:TABLE|INDEX) CONCURRENTLY ` + lockName), ShareUpdateExclusive},
		{regexp.MustCompile(`^REINDEX (?:\([^)]*\) )?TABLE ` + lockName), Share},
		{regexp.MustCompile(`^REINDEX (?:\([^)]*\) )?INDEX ` + lockName), AccessExclusive},
		{regexp.MustCompile(`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?` + lockName + ` (?:ADD (?:CONSTRAINT [\w$"]+ )?FOREIGN KEY|VALIDATE CONSTRAINT)`), ""}, // decided below
		{regexp.MustCompile(`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?` + lockName + ` (?:SET STATISTICS|ALTER (?:COLUMN )?[\w$"]+ SET STATISTICS|ALTER (?:COLUMN )?[\w$"]+ (?:SET|RESET) \(|SET \(|RESET \(|CLUSTER ON|SET WITHOUT CLUSTER|ATTACH PARTITION|DETACH PARTITION [\w$".]+ CONCURRENTLY)`), ShareUpdateExclusive},
		{regexp.MustCompile(`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?` + lockName + ` (?:ENABLE|DISABLE) (?:ALWAYS |REPLICA )?TRIGGER`), ShareRowExclusive},
		{regexp.MustCompile(`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?` + lockName), AccessExclusive},
		{regexp.MustCompile(`^ALTER INDEX (?:IF EXISTS )?` + lockName + ` (?:RENAME|SET \(|RESET \(|ALTER (?:COLUMN )?\w+ SET STATISTICS)`), ShareUpdateExclusive},
		{regexp.MustCompile(`^ALTER INDEX (?:IF EXISTS )?` + lockName), AccessExclusive},
		{regexp.MustCompile(`^DROP (?:TABLE|VIEW|MATERIALIZED VIEW|SEQUENCE) (?:IF EXISTS )?` + lockName), AccessExclusive},
		{regexp.MustCompile(`^TRUNCATE (?:TABLE )?(?:ONLY )?` + lockName), AccessExclusive},
		{regexp.MustCompile(`^VACUUM (?:\([^)]*FULL[^)]*\)|FULL)`), AccessExclusive},
		{regexp.MustCompile(`^(?:VACUUM|ANALYZE)\b`), ShareUpdateExclusive},
		{regexp.MustCompile(`^CLUSTER\b(?: (?:VERBOSE )?` + lockName + `)?`), AccessExclusive},
		{regexp.MustCompile(`^REFRESH MATERIALIZED VIEW CONCURRENTLY ` + lockName), Exclusive},
		{regexp.MustCompile(`^REFRESH MATERIALIZED VIEW ` + lockName), AccessExclusive},
		{regexp.MustCompile(`^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?TRIGGER [\w$"]+ .*? ON ` + lockName), ShareRowExclusive},
		{regexp.MustCompile(`^DROP TRIGGER (?:IF EXISTS )?[\w$"]+ ON ` + lockName), AccessExclusive},
		{regexp.MustCompile(`^COMMENT ON (?:TABLE|COLUMN) ` + lockName), ShareUpdateExclusive},
		{regexp.MustCompile(`^LOCK (?:TABLE )?(?:ONLY )?` + lockName + ` IN ([A-Z ]+?) MODE`), "?"},
		{regexp.MustCompile(`^LOCK (?:TABLE )?(?:ONLY )?` + lockName), AccessExclusive},
		{regexp.MustCompile(`^(?:INSERT INTO|UPDATE|DELETE FROM|MERGE INTO) (?:ONLY )?` + lockName), RowExclusive},
		{regexp.MustCompile(`^SELECT\b`), AccessShare},
	}
})

var referencesRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bREFERENCES ` + lockName) })

// postgresLock is the strongest table-level lock the statement takes on a
// table that exists, and that table ("" for none): a deterministic reading
// of PostgreSQL's documentation, not an observation. CREATE TABLE and
// CREATE VIEW lock only what they create, apart from the SHARE ROW
// EXCLUSIVE a foreign key takes on the table it references.
func postgresLock(sql string) (lock, table string) {
	s := strings.ToUpper(strings.Join(strings.Fields(stripLeadingComments(sql)), " "))
	for _, r := range lockRules() {
		m := r.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		if len(m) > 1 {
			table = originalCase(sql, m[1])
		}
		switch r.lock {
		case "":
			// ADD FOREIGN KEY and VALIDATE CONSTRAINT: SHARE ROW
			// EXCLUSIVE, but VALIDATE takes SHARE UPDATE EXCLUSIVE.
			if strings.Contains(s, "VALIDATE CONSTRAINT") {
				return ShareUpdateExclusive, table
			}
			return ShareRowExclusive, table
		case "?":
			return m[2], table
		}
		return r.lock, table
	}
	if strings.HasPrefix(s, "CREATE TABLE") || strings.HasPrefix(s, "CREATE UNLOGGED TABLE") {
		if m := referencesRe().FindStringSubmatch(s); m != nil {
			return ShareRowExclusive, originalCase(sql, m[1])
		}
	}
	return "", ""
}

// originalCase finds upper-cased word w in sql and returns it as written.
func originalCase(sql, w string) string {
	if i := strings.Index(strings.ToUpper(sql), w); i >= 0 && len(strings.ToUpper(sql[:i])) == i {
		return sql[i : i+len(w)]
	}
	return w
}

// stripLeadingComments drops the -- and /* */ comments before a
// statement's first word.
func stripLeadingComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "--"):
			_, rest, ok := strings.Cut(s, "\n")
			if !ok {
				return ""
			}
			s = rest
		case strings.HasPrefix(s, "/*"):
			_, rest, ok := strings.Cut(s, "*/")
			if !ok {
				return ""
			}
			s = rest
		default:
			return s
		}
	}
}
