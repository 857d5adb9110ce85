package query

import "time"

// Column describes one result column.
type Column struct {
	Name string `json:"name"`
	// Type is the column's declared type when it comes straight from a table
	// column, otherwise the storage class of its first non-NULL value
	// (INTEGER, REAL, TEXT, BLOB), or "" when every value is NULL.
	Type string `json:"type"`
}

// ColumnNames lists the names of cols in order.
func ColumnNames(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// A Row holds one value per column. Each value is nil (NULL), int64,
// float64, string (TEXT) or []byte (BLOB): SQLite's storage classes, kept as
// they are.
type Row []any

// Result is a fully collected, capped result. Streaming callers use Run with
// a Sink instead.
type Result struct {
	Columns   []Column      `json:"columns"`
	Rows      []Row         `json:"rows"`
	RowCount  int           `json:"row_count"`
	Truncated bool          `json:"truncated"`
	Elapsed   time.Duration `json:"-"`
	// SQL is exactly the text that ran.
	SQL string `json:"sql"`
}
