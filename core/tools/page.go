package tools

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/tablewise/tablewise/core/format"
)

// Paging bounds of list_tables and describe_table: one result stays small
// enough for a model's context (about 20 KB with its structured copy) on a
// schema of thousands of tables or a table of hundreds of columns.
const (
	// DefaultListLimit is list_tables' page size when none is asked for.
	DefaultListLimit = 50
	// MaxListLimit is the largest page list_tables gives.
	MaxListLimit = 500
	// listPageBytes ends a default page early when its lines pass it
	// (descriptions of hub tables can be long).
	listPageBytes = 7000
	// listDescriptionRunes clips each description of a page.
	listDescriptionRunes = 160
	// DefaultDescribeColumns is how many columns describe_table shows when
	// no pattern narrows them.
	DefaultDescribeColumns = 100
	// maxDescribeJoins bounds the joins each way describe_table lists.
	maxDescribeJoins = 30
)

// ListOptions choose which tables ListTables returns.
type ListOptions struct {
	// Pattern keeps names that match it, case-insensitively: a glob when
	// it holds * or ? (sales_*), else a part of the name (invoice).
	Pattern string
	// Limit is the page size: 0 means DefaultListLimit (and a page that
	// also ends at about listPageBytes of text); at most MaxListLimit.
	Limit int
	// Offset skips that many matching tables.
	Offset int
}

// MatchName reports whether name matches pattern as ListOptions.Pattern
// reads it ("" matches every name).
func MatchName(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	p, n := strings.ToLower(pattern), strings.ToLower(name)
	if strings.ContainsAny(p, "*?") {
		ok, err := path.Match(p, n)
		return ok && err == nil
	}
	return strings.Contains(n, p)
}

// page cuts l to the page o asks for, recording the total and where the
// next page starts.
func (l *TableList) page(o ListOptions) {
	var kept []TableSummary
	for _, t := range l.Tables {
		if MatchName(o.Pattern, t.Name) {
			kept = append(kept, t)
		}
	}
	l.Total, l.Pattern = len(kept), o.Pattern
	limit, bytes := o.Limit, 0
	if limit <= 0 {
		limit, bytes = DefaultListLimit, listPageBytes
	}
	limit = min(limit, MaxListLimit)
	offset := min(max(o.Offset, 0), len(kept))
	l.Offset = offset
	l.Tables = []TableSummary{}
	size := 0
	for _, t := range kept[offset:] {
		if len(l.Tables) == limit || (bytes > 0 && size > bytes) {
			break
		}
		t.Description = Describe(l.dl, l.cat, t.src)
		if l.Total > DefaultListLimit {
			t.Description = format.ClipRunes(t.Description, listDescriptionRunes)
		}
		size += len(t.Name) + len(t.Description) + 40
		l.Tables = append(l.Tables, t)
	}
	for i := range l.Tables {
		l.Tables[i].src = nil
	}
	if next := offset + len(l.Tables); next < len(kept) {
		l.NextOffset = next
	}
}

// header is the first line of Text: the count, and which part of it the
// list holds with how to get the rest.
func (l *TableList) header() string {
	what := "tables and views"
	if l.Pattern != "" {
		what += fmt.Sprintf(" matching %q", l.Pattern)
	}
	if l.Offset == 0 && l.NextOffset == 0 {
		return fmt.Sprintf("%s: %d", what, l.Total)
	}
	h := fmt.Sprintf("%s: %s (these are %s–%s", what, format.Count(int64(l.Total)), format.Count(int64(l.Offset+1)), format.Count(int64(l.Offset+len(l.Tables))))
	if l.NextOffset > 0 {
		h += fmt.Sprintf("; next page: offset=%d; a pattern such as sales_* narrows the list", l.NextOffset)
	}
	return h + ")"
}

// Summary is the list in at most about maxBytes: the tables grouped by
// the first word of their names (billing_* 100) and the largest tables,
// with how to look further. It is for a model's prompt, where a list of
// thousands of tables does not fit (SummarizeTables gives the whole list
// when it fits).
func (l *TableList) Summary(maxBytes int) string {
	ident := l.dl.QuoteIdentIfNeeded
	var b strings.Builder
	fmt.Fprintf(&b, "tables and views: %s, too many to list here; search_schema finds them by words, describe_table shows one.\n", format.Count(int64(l.Total)))
	// The groups, largest first.
	groups := map[string]int{}
	for _, t := range l.Tables {
		groups[prefix(t.Name)]++
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Slice(names, func(i, j int) bool {
		if groups[names[i]] != groups[names[j]] {
			return groups[names[i]] > groups[names[j]]
		}
		return names[i] < names[j]
	})
	half := maxBytes / 2
	b.WriteString("by name:")
	shown := 0
	for _, g := range names {
		item := " " + g + "_* " + format.Count(int64(groups[g]))
		if groups[g] == 1 {
			item = " " + g
		}
		if b.Len()+len(item) > half {
			break
		}
		b.WriteString(item)
		shown++
	}
	if shown < len(names) {
		fmt.Fprintf(&b, " … and %d more groups", len(names)-shown)
	}
	// The largest tables, when some stand out (more rows than the median).
	big := append([]TableSummary(nil), l.Tables...)
	sort.SliceStable(big, func(i, j int) bool { return big[i].RowCount > big[j].RowCount })
	median := big[len(big)/2].RowCount
	for i, t := range big {
		item := fmt.Sprintf(" %s (%s)", ident(t.Name), format.RowCount(t.RowCount, t.RowCountEstimated))
		if i == 10 || t.RowCount <= median || b.Len()+len(item) > maxBytes-2 {
			break
		}
		if i == 0 {
			b.WriteString("\nlargest:")
		} else {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteByte('\n')
	return b.String()
}

// prefix is the first word of a table name (billing of billing_invoices),
// lower-cased.
func prefix(name string) string {
	n := strings.ToLower(name)
	if i := strings.IndexAny(n, "_.-$ "); i > 0 {
		return n[:i]
	}
	return n
}

// Bound keeps a description's size in check for very wide tables: the
// columns matching pattern (as ListOptions.Pattern reads it), at most
// limit of them (0: DefaultDescribeColumns when there is no pattern, all
// matching ones up to MaxListLimit when there is), the sample rows cut to
// the same columns, and at most maxDescribeJoins joins each way.
func (t *TableDescription) Bound(pattern string, limit int) {
	if limit <= 0 {
		limit = DefaultDescribeColumns
		if pattern != "" {
			limit = MaxListLimit
		}
	}
	t.ColumnPattern = pattern
	var keep []ColumnInfo
	matched := 0
	for _, c := range t.Columns {
		if MatchName(pattern, c.Name) || c.PK > 0 {
			matched++
			if len(keep) < limit {
				keep = append(keep, c)
			}
		}
	}
	if len(keep) == len(t.Columns) {
		return
	}
	t.ColumnsTotal = len(t.Columns)
	t.Columns = keep
	if keep == nil {
		t.Columns = []ColumnInfo{}
	}
	shown := map[string]int{}
	for i, c := range t.SampleColumns {
		shown[c] = i
	}
	var idx []int
	var cols []string
	for _, c := range t.Columns {
		if i, ok := shown[c.Name]; ok {
			idx = append(idx, i)
			cols = append(cols, c.Name)
		}
	}
	rows := make(Rows, len(t.SampleRows))
	for r, row := range t.SampleRows {
		for _, i := range idx {
			if i < len(row) {
				rows[r] = append(rows[r], row[i])
			}
		}
	}
	t.SampleColumns, t.SampleRows = cols, rows
	t.Flags = ScanRows(t.SampleColumns, t.SampleRows)
	if len(t.ForeignKeys) > maxDescribeJoins {
		t.JoinsOmitted += len(t.ForeignKeys) - maxDescribeJoins
		t.ForeignKeys = t.ForeignKeys[:maxDescribeJoins]
	}
	if len(t.ReferencedBy) > maxDescribeJoins {
		t.JoinsOmitted += len(t.ReferencedBy) - maxDescribeJoins
		t.ReferencedBy = t.ReferencedBy[:maxDescribeJoins]
	}
}
