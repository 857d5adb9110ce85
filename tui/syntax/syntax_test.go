package syntax_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/tui/styles"
	"github.com/tablewise/tablewise/tui/syntax"
)

func TestLex(t *testing.T) {
	src := "SELECT count(*), \"Order Details\".qty, 'it''s' AS s, x'0A', 3.5e2, 0x1F -- note\n" +
		"FROM [t] /* c */ WHERE a >= :p AND b || ? <> replace(c, 'a', 'b')"
	type tok struct {
		kind syntax.Kind
		text string
	}
	var got []tok
	for _, tk := range syntax.Lex(src) {
		if tk.Kind != syntax.Space {
			got = append(got, tok{tk.Kind, src[tk.Start:tk.End]})
		}
	}
	want := []tok{
		{syntax.Keyword, "SELECT"}, {syntax.Function, "count"}, {syntax.Operator, "("}, {syntax.Operator, "*"},
		{syntax.Operator, ")"}, {syntax.Operator, ","}, {syntax.Ident, `"Order Details"`}, {syntax.Operator, "."},
		{syntax.Plain, "qty"}, {syntax.Operator, ","}, {syntax.String, "'it''s'"}, {syntax.Keyword, "AS"},
		{syntax.Plain, "s"}, {syntax.Operator, ","}, {syntax.String, "x'0A'"}, {syntax.Operator, ","},
		{syntax.Number, "3.5e2"}, {syntax.Operator, ","}, {syntax.Number, "0x1F"}, {syntax.Comment, "-- note"},
		{syntax.Keyword, "FROM"}, {syntax.Ident, "[t]"}, {syntax.Comment, "/* c */"}, {syntax.Keyword, "WHERE"},
		{syntax.Plain, "a"}, {syntax.Operator, ">="}, {syntax.Param, ":p"}, {syntax.Keyword, "AND"},
		{syntax.Plain, "b"}, {syntax.Operator, "||"}, {syntax.Param, "?"}, {syntax.Operator, "<>"},
		{syntax.Function, "replace"}, {syntax.Operator, "("}, {syntax.Plain, "c"}, {syntax.Operator, ","},
		{syntax.String, "'a'"}, {syntax.Operator, ","}, {syntax.String, "'b'"}, {syntax.Operator, ")"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d tokens, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d = %v %q, want %v %q", i, got[i].kind, got[i].text, want[i].kind, want[i].text)
		}
	}
}

// TestLexNeverFails: unterminated strings and comments run to the end, and
// the tokens always cover the text exactly.
func TestLexNeverFails(t *testing.T) {
	for _, src := range []string{"SELECT 'abc", "SELECT /* open", `SELECT "x`, "SELECT [x", "é ü 東京 'ß'", "", "\x00\x1b"} {
		var b strings.Builder
		end := 0
		for _, tk := range syntax.Lex(src) {
			if tk.Start != end {
				t.Errorf("%q: gap at %d", src, end)
			}
			b.WriteString(src[tk.Start:tk.End])
			end = tk.End
		}
		if b.String() != src {
			t.Errorf("%q: tokens cover %q", src, b.String())
		}
	}
	if k := syntax.Lex("SELECT 'abc"); k[len(k)-1].Kind != syntax.String {
		t.Error("an unterminated string is not a string")
	}
}

func TestHighlight(t *testing.T) {
	st := styles.Default()
	src := "SELECT name, 'x' -- hi\nFROM t WHERE n > 10"
	out := syntax.Highlight(st, src)
	if ansi.Strip(out) != src {
		t.Errorf("highlighting changed the text: %q", ansi.Strip(out))
	}
	for _, want := range []string{st.Keyword.Render("SELECT"), st.String.Render("'x'"), st.Comment.Render("-- hi"), st.Number.Render("10")} {
		if !strings.Contains(out, want) {
			t.Errorf("highlight lacks %q", want)
		}
	}
	// Each line closes its own styles so lines can be laid out apart.
	multi := syntax.Highlight(st, "SELECT '\nx'")
	for _, l := range strings.Split(multi, "\n") {
		if ansi.StringWidth(l) > 0 && strings.Contains(l, "\x1b[") && !strings.HasSuffix(l, "m") {
			t.Errorf("line %q does not end its style", l)
		}
	}
	if kinds := syntax.Kinds("SÉLECT"); len(kinds) != len([]rune("SÉLECT")) {
		t.Errorf("Kinds gave %d kinds for 6 runes", len(kinds))
	}
}
