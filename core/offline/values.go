package offline

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/db"
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
	// indexBudget bounds the time spent building the value index.
	indexBudget = 4 * time.Second
	// columnTimeout bounds one column's scan.
	columnTimeout = 750 * time.Millisecond
)

// valueRef is one distinct value of one column.
type valueRef struct {
	col   *colInfo
	value any // as stored (string, or int64 for booleans)
	text  string
	count int64
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
}

// buildValues scans the low-cardinality text columns of every table through
// query.Collect (so the guard vets each statement), within indexBudget.
func buildValues(ctx context.Context, d *db.DB, s *schema) *valueIndex {
	start := time.Now()
	vi := &valueIndex{byKey: map[string][]*valueRef{}}
	deadline := start.Add(indexBudget)
	for _, t := range s.tables {
		if t.view {
			continue
		}
		for _, c := range t.cols {
			if ctx.Err() != nil {
				vi.skipped = append(vi.skipped, c.String()+": cancelled")
				continue
			}
			switch {
			case c.kind == kindText && !c.isPK:
			case (c.kind == kindNumber || c.kind == kindBool) && looksBoolean(c):
			default:
				continue
			}
			left := time.Until(deadline)
			if left <= 0 {
				vi.skipped = append(vi.skipped, c.String()+": index time budget spent")
				continue
			}
			vi.scan(ctx, d, c, min(left, columnTimeout))
		}
	}
	vi.took = time.Since(start)
	return vi
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
	col := db.QuoteIdentIfNeeded(c.name)
	sql := fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s IS NOT NULL GROUP BY %s LIMIT %d",
		col, db.QuoteIdentIfNeeded(c.tab.name), col, col, maxDistinct+1)
	if c.kind != kindText {
		sql = fmt.Sprintf("SELECT DISTINCT %s, 0 FROM %s WHERE %s IS NOT NULL LIMIT 3", col, db.QuoteIdentIfNeeded(c.tab.name), col)
	}
	res, err := query.Collect(ctx, d, sql, query.Options{MaxRows: maxDistinct + 1, Timeout: timeout})
	if err != nil {
		vi.skipped = append(vi.skipped, c.String()+": "+err.Error())
		return
	}
	vi.columns++
	if c.kind != kindText {
		vals := map[int64]bool{}
		for _, r := range res.Rows {
			v, ok := r[0].(int64)
			if !ok {
				if f, isF := r[0].(float64); isF && (f == 0 || f == 1) {
					v, ok = int64(f), true
				}
			}
			if !ok || (v != 0 && v != 1) {
				return
			}
			vals[v] = true
		}
		if len(vals) == 2 {
			c.kind = kindBool
			c.distinct = 2
			c.hasZero = true
		}
		return
	}
	if res.RowCount > maxDistinct || res.Truncated {
		return
	}
	c.distinct = res.RowCount
	// Prose (comments, notes, descriptions) is not something people name:
	// values of many words on average stay out.
	words, n := 0, 0
	for _, r := range res.Rows {
		if s, ok := r[0].(string); ok {
			words += len(strings.Fields(s))
			n++
		}
	}
	if n > 0 && words > maxAvgWords*n {
		vi.skipped = append(vi.skipped, c.String()+": prose")
		return
	}
	for _, r := range res.Rows {
		s, ok := r[0].(string)
		if !ok || s == "" || utf8.RuneCountInString(s) > maxValueLen || !utf8.ValidString(s) {
			continue
		}
		if dateValue.MatchString(s) || strings.Contains(s, "@") || strings.Contains(s, "://") {
			continue
		}
		key := textKey(s)
		if key == "" {
			continue
		}
		if n := strings.Count(key, " ") + 1; n > maxValueWords {
			continue
		} else if n > vi.longest {
			vi.longest = n
		}
		cnt, _ := r[1].(int64)
		vi.byKey[key] = append(vi.byKey[key], &valueRef{col: c, value: s, text: s, count: cnt})
		vi.values++
	}
}
