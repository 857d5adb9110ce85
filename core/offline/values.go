package offline

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

// Value index bounds.
const (
	// maxDistinct: a text column with more distinct values is not indexed
	// (names of people, free text).
	maxDistinct = 1000
	// maxValueLen: longer values are prose, not things people name.
	maxValueLen = 60
	// maxValueWords: the longest value phrase matched in a question.
	maxValueWords = 8
	// maxAvgWords: a column whose values average more words is prose.
	maxAvgWords = 5
	// indexRows bounds the work of building the value index: the rows of
	// the scanned columns' tables, summed. A budget of work, not of time,
	// so the index (and so the answers) of a database does not change
	// with the machine's load; a column past it is left out, saying so.
	indexRows = 20_000_000
	// unknownRows: the rows counted for a table whose size the catalog
	// does not know.
	unknownRows = 1_000_000
	// indexBudget bounds the wall-clock time spent building the value
	// index, far above what indexRows costs on a working machine: a
	// safety for a server that stalls, not the usual bound.
	indexBudget = 30 * time.Second * engine.RaceSlowdown
	// columnTimeout bounds one column's scan.
	columnTimeout = 5 * time.Second * engine.RaceSlowdown
)

// clock reads the time for the index's budget (a test slows it).
var clock = time.Now

// randomID matches generated identifiers (UUIDs, long hex or mixed
// strings) that nobody types in a question.
var randomID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|^[0-9a-f]{16,}$|^[A-Za-z]{2,6}_[0-9A-Za-z]{10,}$`)

// valueRef is one distinct value of one column.
type valueRef struct {
	col   *colInfo
	value any // as stored (string, or int64 for booleans)
	text  string
	count int64
	// words: the lower-case words of text, for partial matches
	// (partial.go); nil for values not in the index's keys.
	words []string
}

// valueIndex maps the key of a value (textKey) to where it occurs.
type valueIndex struct {
	byKey   map[string][]*valueRef
	longest int // most words in a key
	// skipped lists columns left out for time, with the reason.
	skipped []string
	columns int
	values  int
	took    time.Duration
	// touched: the columns scans taught something (kinds, counts, flag
	// values, period ends), in scan order.
	touched []*colInfo
	// partial: a scan failed, or time ran out: the index is not kept as
	// it is (the next build tries again).
	partial bool
}

// buildValues scans the low-cardinality text columns of every table through
// query.Collect (so the guard vets each statement), within indexRows
// rows of work (and indexBudget of time, as a safety).
func buildValues(ctx context.Context, d *db.DB, s *schema) *valueIndex {
	start := clock()
	vi := &valueIndex{byKey: map[string][]*valueRef{}}
	deadline := start.Add(indexBudget)
	var work int64
	for _, t := range s.tables {
		if t.view {
			continue
		}
		rows := t.rows
		if rows < 0 {
			rows = unknownRows
		}
		rows = min(rows, sampleRows) // a big table is sampled (sample.go)
		for _, c := range t.cols {
			if ctx.Err() != nil {
				vi.skipped = append(vi.skipped, c.String()+": cancelled")
				vi.partial = true
				continue
			}
			switch {
			case c.kind == kindText && c.tab.pk != c:
			case c.textual && (c.kind == kindText || c.kind == kindID) && t.rows <= maxDistinct*20:
				// Codes people type ("AB12", "LHR", "QX"): text keys
				// and text references are indexed too; surrogate integer
				// keys are not.
			case (c.kind == kindNumber || c.kind == kindBool) && looksBoolean(c):
			case c.kind == kindID && c.fk == nil && !c.selfRef && c.tab.pk != c && strings.Contains(c.declType, "INT"):
				// An integer named like a key that references nothing
				// (a year_id): its range may show it is a year.
			case c.kind == kindDate && !c.tab.view:
				// How a period ends: NULL while open, or a far-future
				// marker ('9999-01-01').
				left := deadline.Sub(clock())
				if left > 0 && work+rows <= indexRows {
					work += rows
					vi.scanDate(ctx, d, c, min(left, columnTimeout))
				} else if left <= 0 {
					vi.partial = true
				}
				continue
			default:
				continue
			}
			if work+rows > indexRows {
				vi.skipped = append(vi.skipped, fmt.Sprintf("%s: %d rows to read, past the index's budget of %d", c, rows, indexRows))
				continue
			}
			left := deadline.Sub(clock())
			if left <= 0 {
				vi.skipped = append(vi.skipped, c.String()+": index time budget spent")
				vi.partial = true
				continue
			}
			work += rows
			vi.scan(ctx, d, c, min(left, columnTimeout))
		}
	}
	vi.took = clock().Sub(start)
	return vi
}

// scanDate records a date column's NULL count and far-future marker.
func (vi *valueIndex) scanDate(ctx context.Context, d *db.DB, c *colInfo, timeout time.Duration) {
	col := c.tab.ident(c.name)
	sql := fmt.Sprintf("SELECT MAX(%s), COUNT(*) - COUNT(%s), COUNT(*) FROM %s", col, col, scanFrom(c))
	res, err := collect(ctx, d, sql, query.Options{MaxRows: 1, Timeout: timeout})
	if err != nil {
		vi.partial = true
		return
	}
	if res.RowCount != 1 {
		return
	}
	vi.touched = append(vi.touched, c)
	r := res.Rows[0]
	c.nulls = int64(engine.Float64(r[1]))
	if mx, ok := r[0].(string); ok && len(mx) >= 4 && mx[:4] >= "9000" {
		c.sentinel = mx
	} else if ok && dateValue.MatchString(mx) {
		c.maxDate = mx
	}
}

// Plausible years for an integer period column.
const (
	minYear = 1900
	maxYear = 2100
)

// Plausible Unix times, in seconds: from 1973 to 2100.
const (
	minUnix = 1e8
	maxUnix = 4.1e9
)

// isTimeName: a column named like a moment (created, sent_at, start_ts),
// which its integer values may then show to be Unix seconds.
func isTimeName(c *colInfo) bool {
	for _, w := range c.raw {
		switch w {
		case "at", "ts", "on", "when", "epoch":
			return true
		}
		if hasPrefixAny(w, "creat", "updat", "modif", "delet", "time", "date", "start", "end", "expir", "due", "paid", "cancel", "period", "born", "birth") {
			return true
		}
	}
	return false
}

// isYearName: a key-like name that says it holds a year (year_id, yr_id).
func isYearName(c *colInfo) bool {
	for _, w := range c.raw {
		if w == "year" || w == "yr" {
			return true
		}
	}
	return false
}

// flagPair reads two text values as a yes/no pair, the true one first.
func flagPair(a, b string) (any, any, bool) {
	yes := map[string]bool{"y": true, "yes": true, "t": true, "true": true}
	no := map[string]bool{"n": true, "no": true, "f": true, "false": true}
	la, lb := strings.ToLower(a), strings.ToLower(b)
	switch {
	case yes[la] && no[lb]:
		return a, b, true
	case yes[lb] && no[la]:
		return b, a, true
	}
	return nil, nil, false
}

// looksBoolean: a numeric column that may hold only 0 and 1 (flags such as
// "overdue", "is_active", "newsletter_opt_in").
func looksBoolean(c *colInfo) bool {
	if c.isPK || c.fk != nil {
		return false
	}
	if c.kind == kindBool {
		return true
	}
	return strings.Contains(c.declType, "INT") || strings.Contains(c.declType, "BOOL") || strings.Contains(c.declType, "BIT") || c.declType == ""
}

func (vi *valueIndex) scan(ctx context.Context, d *db.DB, c *colInfo, timeout time.Duration) {
	col := c.tab.ident(c.name)
	sql := fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s IS NOT NULL GROUP BY %s LIMIT %d",
		col, scanFrom(c), col, strings.Join(groupKeys(c, col), ", "), maxDistinct+1)
	numeric := c.kind != kindText && (c.kind != kindID || !c.textual)
	if numeric {
		// A number: its range and spread say whether it is a flag (0/1)
		// or a year (integers in a plausible range).
		// The fourth figure counts the values that are not whole
		// numbers, in SQL every engine takes: PostgreSQL sums no
		// booleans, and its INTEGER is 32 bits, so a larger value
		// (Unix seconds past 2038) is compared with its ROUND
		// instead of cast. A declared boolean is read as 0 and 1
		// (PostgreSQL has no MIN of a boolean).
		v := col
		if strings.Contains(c.declType, "BOOL") {
			v = "CAST(" + col + " AS INTEGER)"
		}
		whole := fmt.Sprintf("CASE WHEN %[1]s BETWEEN -2147483648 AND 2147483647 THEN (CASE WHEN %[1]s = CAST(%[1]s AS INTEGER) THEN 1 ELSE 0 END) WHEN %[1]s = ROUND(%[1]s) THEN 1 ELSE 0 END", v)
		sql = fmt.Sprintf("SELECT MIN(%[1]s), MAX(%[1]s), COUNT(DISTINCT %[1]s), COUNT(%[1]s) - SUM(%[2]s), COUNT(*) - COUNT(%[1]s) FROM %[3]s",
			v, whole, scanFrom(c))
	}
	res, err := collect(ctx, d, sql, query.Options{MaxRows: maxDistinct + 1, Timeout: timeout})
	if err != nil {
		vi.skipped = append(vi.skipped, c.String()+": "+err.Error())
		vi.partial = true
		return
	}
	vi.columns++
	vi.touched = append(vi.touched, c)
	if numeric {
		if res.RowCount != 1 || len(res.Rows[0]) < 4 {
			return
		}
		r := res.Rows[0]
		lo, hi, n := engine.Float64(r[0]), engine.Float64(r[1]), engine.Float64(r[2])
		integral := r[3] != nil && engine.Float64(r[3]) == 0
		switch {
		case c.kind == kindID:
			if integral && lo >= minYear && hi <= maxYear && n >= 2 && r[0] != nil && isYearName(c) {
				c.kind = kindDate
				c.intYear = true
			}
		case integral && lo >= minUnix && hi <= maxUnix && n >= 2 && c.fk == nil && c.tab.pk != c && isTimeName(c):
			// Integer seconds since 1970 (created, sent_at): a date.
			c.kind = kindDate
			c.unixTime = true
			if len(r) > 4 {
				c.nulls = int64(engine.Float64(r[4]))
			}
			c.maxDate = time.Unix(int64(hi), 0).UTC().Format("2006-01-02 15:04:05")
		case n == 2 && lo == 0 && hi == 1:
			c.kind = kindBool
			c.distinct = 2
			c.hasZero = true
			c.trueVal, c.falseVal = int64(1), int64(0)
		case integral && lo >= minYear && hi <= maxYear && n >= 2 && !(c.isPK && c.tab.pk == c) && c.fk == nil && r[0] != nil:
			// Integer years (a fiscal year, a cohort year): a period.
			c.kind = kindDate
			c.intYear = true
		}
		return
	}
	if res.RowCount > maxDistinct || res.Truncated {
		return
	}
	c.distinct = res.RowCount
	if res.RowCount == 2 && c.kind == kindText {
		// A text flag: Y/N, yes/no, T/F, true/false.
		a, _ := res.Rows[0][0].(string)
		b, _ := res.Rows[1][0].(string)
		if tv, fv, ok := flagPair(a, b); ok {
			c.kind = kindBool
			c.trueVal, c.falseVal = tv, fv
		}
	}
	// Prose (comments, notes, descriptions) is not something people name:
	// values of many words on average stay out, unless a few of them
	// repeat over many rows (the names of drugs).
	words, n := 0, 0
	for _, r := range res.Rows {
		if s, ok := r[0].(string); ok {
			words += len(strings.Fields(s))
			n++
		}
	}
	if n > 0 && words > maxAvgWords*n && (n > 100 || int64(2*n) > c.tab.rows) {
		vi.skipped = append(vi.skipped, c.String()+": prose")
		return
	}
	for _, r := range res.Rows {
		s, ok := r[0].(string)
		if !ok || s == "" || utf8.RuneCountInString(s) > maxValueLen || !utf8.ValidString(s) {
			continue
		}
		if dateValue.MatchString(s) || strings.Contains(s, "@") || strings.Contains(s, "://") || randomID.MatchString(s) {
			continue
		}
		toks := tokenize(s)
		key := tokensKey(toks)
		if key == "" {
			key = symbolKey(s) // "%", "#": found when quoted whole
		}
		if key == "" {
			continue
		}
		if n := strings.Count(key, " ") + 1; n > maxValueWords {
			continue
		} else if n > vi.longest {
			vi.longest = n
		}
		cnt, _ := r[1].(int64)
		cnt = sampledCount(c, cnt)
		vi.byKey[key] = append(vi.byKey[key], &valueRef{col: c, value: s, text: s, count: cnt, words: lowWords(toks)})
		vi.values++
	}
}
