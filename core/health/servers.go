package health

import (
	"fmt"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
)

// Codes of the findings only a server engine has.
const (
	InvalidIndex  = "invalid-index"
	UnusedIndex   = "unused-index"
	SequenceLimit = "sequence-near-limit"
	NeverAnalyzed = "never-analyzed"
	NotInnoDB     = "not-innodb"
	NotUTF8MB4    = "not-utf8mb4"
)

// Thresholds of the server checks.
const (
	// busyTable: an index counts as unused only on a table read at least
	// this many times since the statistics were reset (a fresh database
	// has used no index yet).
	busyTable = 1000
	// analyzeRows: a table is reported as never analyzed from this many
	// rows (the planner's defaults serve smaller ones).
	analyzeRows = 1000
	// sequenceShare: a sequence past this share of its maximum is near it.
	sequenceShare = 0.8
)

// server runs the checks of d's engine that its system catalogs answer.
// Each is one bounded read of the catalog, scoped to the schema the
// catalog reads (PostgreSQL's current schema, MySQL's database).
func (c *checker) server() {
	switch c.eng {
	case "postgres":
		c.postgres()
	case "mysql":
		c.mysql()
	}
}

func (c *checker) wanted(table string) bool {
	if len(c.opt.Tables) == 0 {
		return true
	}
	for _, t := range c.tables {
		if t.Name == table {
			return true
		}
	}
	return false
}

func (c *checker) postgres() {
	if res := c.query("invalid indexes", `SELECT t.relname, ci.relname FROM pg_index i
JOIN pg_class ci ON ci.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE NOT i.indisvalid AND n.nspname = current_schema() ORDER BY 1, 2`, 1000); res != nil {
		for _, r := range res.Rows {
			table, index := fmt.Sprint(r[0]), fmt.Sprint(r[1])
			if !c.wanted(table) {
				continue
			}
			c.add(Finding{Severity: Warning, Code: InvalidIndex, Objects: []string{table, "index " + index},
				Why: fmt.Sprintf("index %s is invalid (a CREATE INDEX CONCURRENTLY that failed): writes still maintain it, no query can use it", index),
				Fix: fmt.Sprintf("REINDEX INDEX CONCURRENTLY %s;", c.q(index)),
			})
		}
	}
	if res := c.query("unused indexes", fmt.Sprintf(`SELECT s.relname, s.indexrelname, s.idx_scan, t.seq_scan + COALESCE(t.idx_scan, 0), pg_relation_size(s.indexrelid)
FROM pg_stat_user_indexes s JOIN pg_index i ON i.indexrelid = s.indexrelid
JOIN pg_stat_user_tables t ON t.relid = s.relid
WHERE s.schemaname = current_schema() AND s.idx_scan = 0 AND NOT i.indisunique AND NOT i.indisprimary
AND t.seq_scan + COALESCE(t.idx_scan, 0) >= %d ORDER BY 5 DESC`, busyTable), 1000); res != nil {
		for _, r := range res.Rows {
			table, index := fmt.Sprint(r[0]), fmt.Sprint(r[1])
			if !c.wanted(table) {
				continue
			}
			c.add(Finding{Severity: Info, Code: UnusedIndex, Objects: []string{table, "index " + index},
				Why: fmt.Sprintf("index %s (%s) has not been used since the statistics were reset, while %s was read %s times: every write maintains it for nothing", index, format.Bytes(engine.Int64(r[4])), table, format.Count(engine.Int64(r[3]))),
				Fix: fmt.Sprintf("DROP INDEX CONCURRENTLY %s;", c.q(index)),
			})
		}
	}
	if res := c.query("sequences", fmt.Sprintf(`SELECT sequencename, last_value, max_value FROM pg_sequences
WHERE schemaname = current_schema() AND last_value IS NOT NULL AND last_value >= %g * max_value ORDER BY 1`, sequenceShare), 1000); res != nil {
		for _, r := range res.Rows {
			seq := fmt.Sprint(r[0])
			last, maxv := engine.Int64(r[1]), engine.Int64(r[2])
			c.add(Finding{Severity: Error, Code: SequenceLimit, Objects: []string{"sequence " + seq},
				Why: fmt.Sprintf("sequence %s is at %s of its maximum %s (%.0f%%): inserts fail when it is reached", seq, format.Count(last), format.Count(maxv), 100*float64(last)/float64(maxv)),
				Fix: fmt.Sprintf("ALTER SEQUENCE %s AS bigint MAXVALUE 9223372036854775807;\n-- and widen the column it fills to bigint", c.q(seq)),
			})
		}
	}
	if res := c.query("tables never analyzed", fmt.Sprintf(`SELECT relname, n_live_tup FROM pg_stat_user_tables
WHERE schemaname = current_schema() AND last_analyze IS NULL AND last_autoanalyze IS NULL AND n_live_tup >= %d ORDER BY 1`, analyzeRows), 1000); res != nil {
		for _, r := range res.Rows {
			table := fmt.Sprint(r[0])
			if !c.wanted(table) {
				continue
			}
			c.add(Finding{Severity: Warning, Code: NeverAnalyzed, Objects: []string{table},
				Why: fmt.Sprintf("%s (%s) has never been analyzed: the planner guesses its sizes and picks plans blind", table, format.RowCount(engine.Int64(r[1]), true)),
				Fix: fmt.Sprintf("ANALYZE %s;", c.q(table)),
			})
		}
	}
}

func (c *checker) mysql() {
	res := c.query("table engines and character sets", `SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY 1`, 100_000)
	if res == nil {
		return
	}
	for _, r := range res.Rows {
		table, eng, coll := fmt.Sprint(r[0]), fmt.Sprint(r[1]), fmt.Sprint(r[2])
		if !c.wanted(table) {
			continue
		}
		if eng != "InnoDB" && eng != "<nil>" {
			c.add(Finding{Severity: Warning, Code: NotInnoDB, Objects: []string{table},
				Why: fmt.Sprintf("%s uses the %s engine: no transactions, no foreign keys, and a crash can lose or corrupt rows", table, eng),
				Fix: fmt.Sprintf("ALTER TABLE %s ENGINE = InnoDB;", c.q(table)),
			})
		}
		if len(coll) < 7 || coll[:7] != "utf8mb4" {
			c.add(Finding{Severity: Warning, Code: NotUTF8MB4, Objects: []string{table},
				Why: fmt.Sprintf("%s's character set (collation %s) cannot store every Unicode character: emoji and some CJK text are refused or mangled", table, coll),
				Fix: fmt.Sprintf("ALTER TABLE %s CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;", c.q(table)),
			})
		}
	}
}
