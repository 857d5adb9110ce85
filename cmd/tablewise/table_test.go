package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// wideSQL selects cols text columns (c1…) over rows rows.
func wideSQL(cols, rows int) string {
	exprs := make([]string, cols)
	for i := range exprs {
		exprs[i] = fmt.Sprintf("'value '||x||'-%d' AS c%d", i+1, i+1)
	}
	return fmt.Sprintf("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d) SELECT %s FROM r", rows, strings.Join(exprs, ", "))
}

// A result far wider than the terminal shows the leading columns that fit
// and says how many there are; no line is wider than the terminal.
func TestSQLTableWideResultFitsTheWidth(t *testing.T) {
	code, out, errs := runCLI(t, "", "sql", "--format", "table", "--max-rows", "0", wideSQL(300, 250))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2+250+1 {
		t.Fatalf("%d lines, want header, rule, 250 rows and a footer", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 120 {
			t.Fatalf("line %d is %d cells wide (terminal: 120): %.80q…", i, w, l)
		}
	}
	if !strings.HasPrefix(lines[0], "c1") || !strings.HasPrefix(lines[2], "value 1") || !strings.HasPrefix(lines[251], "value 2") {
		t.Errorf("first column not first:\n%s\n%s\n%s", lines[0], lines[2], lines[251])
	}
	foot := regexp.MustCompile(`^\(250 rows\) — (\d+) of 300 columns shown: --format csv or json has them all$`)
	m := foot.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("footer %q", lines[len(lines)-1])
	}
	if n := strings.Count(lines[0], "c"); fmt.Sprint(n) != m[1] {
		t.Errorf("header has %d columns, footer says %s", n, m[1])
	}
}

// Rows after the ones that size the columns are cut to the same widths.
func TestSQLTableStreamsRowsPastTheSizingOnes(t *testing.T) {
	sql := "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < 300) " +
		"SELECT x, CASE WHEN x > 250 THEN 'a much longer value than any before it, row '||x ELSE 'short' END AS v FROM r"
	code, out, _ := runCLI(t, "", "sql", "--format", "table", sql)
	if code != 0 {
		t.Fatal(out)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 303 || lines[302] != "(300 rows)" {
		t.Fatalf("%d lines, footer %q", len(lines), lines[len(lines)-1])
	}
	if lines[1] != "───  ─────" || lines[2] != "  1  short" || lines[301] != "300  a mu…" {
		t.Errorf("rule %q, first row %q, last row %q", lines[1], lines[2], lines[301])
	}
}

// Values and names that hold terminal escape sequences are shown, never
// sent to the terminal; CSV keeps them intact.
func TestSQLTableEscapesControlCharacters(t *testing.T) {
	sql := `SELECT char(27)||']0;PWNED'||char(7) AS title, char(27)||'[2J' AS "clear` + "\x1b[31m" + `", 'a'||char(0)||'b' AS nul`
	code, out, errs := runCLI(t, "", "sql", "--format", "table", sql)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\x1b\x07\x00") {
		t.Errorf("control characters reached the output: %q", out)
	}
	for _, want := range []string{"␛]0;PWNED␇", "␛[2J", "clear␛[31m", "a␀b"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not shown in:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "sql", "--format", "csv", sql)
	if code != 0 || !strings.Contains(out, "\x1b]0;PWNED\x07,\x1b[2J,") {
		t.Errorf("CSV changed the values: %q", out)
	}
}

// An error message that echoes a name does not carry its escapes to the
// terminal.
func TestErrorsEscapeControlCharacters(t *testing.T) {
	code, _, errs := runCLI(t, "", "sql", "SELECT * FROM \"evil\x1b]0;PWNED\x07\"")
	if code != exitDatabase {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(errs, "\x1b\x07") || !strings.Contains(errs, "evil␛]0;PWNED␇") {
		t.Errorf("stderr: %q", errs)
	}
}

// An answer printed for a person shows the escapes a model or the data put
// in it instead of sending them.
func TestPrintBundleEscapesControlCharacters(t *testing.T) {
	var out, errb bytes.Buffer
	s := &streams{out: &out, err: &errb, getenv: func(string) string { return "" }}
	evil := "\x1b]0;PWNED\x07"
	printBundle(s, &answer.Bundle{
		Answer:    "The answer " + evil,
		SQL:       "SELECT '" + evil + "' AS x",
		Columns:   []query.Column{{Name: "x" + evil}},
		Rows:      []query.Row{{evil}},
		RowCount:  1,
		Flags:     []string{"flag " + evil},
		FollowUps: []string{"again " + evil},
		Chart:     &answer.ChartSpec{Kind: "bar", X: "x" + evil, Y: "y"},
	})
	if strings.ContainsAny(out.String()+errb.String(), "\x1b\x07") {
		t.Errorf("escapes reached the terminal:\n%q", out.String())
	}
	if n := strings.Count(out.String(), "␛]0;PWNED␇"); n < 6 {
		t.Errorf("%d escapes shown, want one per field:\n%s", n, out.String())
	}
}

// A chart size out of bounds is bad input (exit 2), said before anything
// runs; 0 is not "the default".
func TestChartSizeIsUsageError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.png")
	for _, args := range [][]string{
		{"--width", "0"}, {"--height", "0"}, {"--width", "-5"}, {"--width", "50"}, {"--width", "100000"}, {"--height", "9000"},
	} {
		code, _, errs := runCLI(t, "", append([]string{"chart", "--sql", "SELECT name, 1 AS n FROM categories", "--out", out}, args...)...)
		if code != exitUsage || !strings.Contains(errs, "between 100 and 8192 pixels") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a chart was written")
	}
}
