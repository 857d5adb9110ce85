package postgres

import (
	"slices"
	"testing"
)

// TestSplitScript: a script is cut at the semicolons PostgreSQL ends
// statements at, not at those inside strings, quoted names, dollar quotes
// or comments; comment-only pieces are dropped.
func TestSplitScript(t *testing.T) {
	script := `-- first
CREATE TABLE "a;b" (x text DEFAULT ';');
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;
/* a ; comment */ ;
COMMENT ON TABLE "a;b" IS E'it\'s; fine'
`
	want := []string{
		"-- first\nCREATE TABLE \"a;b\" (x text DEFAULT ';');",
		"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;",
		`COMMENT ON TABLE "a;b" IS E'it\'s; fine'`,
	}
	if got := splitScript(script); !slices.Equal(got, want) {
		t.Errorf("splitScript:\n%q\nwant\n%q", got, want)
	}
}
