package mysql

import (
	"slices"
	"testing"
)

// TestSplitScript: a script is cut at the semicolons the server ends
// statements at, not at those inside strings, quoted names or comments.
func TestSplitScript(t *testing.T) {
	script := "# first\nCREATE TABLE `a;b` (x text DEFAULT 'it\\'s;');\n-- two ; dashes\nALTER TABLE `a;b` ADD y int;;\n"
	want := []string{"# first\nCREATE TABLE `a;b` (x text DEFAULT 'it\\'s;');", "-- two ; dashes\nALTER TABLE `a;b` ADD y int;"}
	got, err := splitScript(script, reading{})
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("splitScript: %q, %v\nwant %q", got, err, want)
	}
	if _, err := splitScript("CREATE TABLE t (a int) /*!50100 ENGINE=InnoDB */;", reading{}); err == nil {
		t.Error("an executable comment was split as if it were a comment")
	}
}
