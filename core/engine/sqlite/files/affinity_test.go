package files_test

import (
	"fmt"
	"strings"
	"testing"
)

// Values that do not fit their column's type are stored as SQLite stores
// them in a column of that declared type: text that reads as a number in
// a numeric column becomes the number (SQLite's column affinity), the
// rest stays text.
func TestLateValuesAreStoredAsSQLiteStoresThem(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,day\n")
	for i := range 10_050 { // past the sample that decides the types
		b.WriteString(fmt.Sprintf("%d,2024-01-%02d\n", i+1, 1+i%28))
	}
	b.WriteString("007,2024\n\" 12 \",2024-02-30\n1e3,x\n-0.0, 5.5 \n")
	e := open(t, write(t, "late.csv", []byte(b.String())))
	same(t, "columns", columns(t, e, "late"), []string{"n INTEGER", "day DATE"})
	same(t, "late rows", rows(t, e, "SELECT n, typeof(n), day, typeof(day) FROM late WHERE rowid > 10050 ORDER BY rowid"), [][]any{
		{int64(7), "integer", int64(2024), "integer"},
		{int64(12), "integer", "2024-02-30", "text"},
		{int64(1000), "integer", "x", "text"},
		{int64(0), "integer", 5.5, "real"},
	})
}
