package format

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipMessage: a long word of an error (a name the user gave) keeps
// its start, an ellipsis, its length and the marks around it; the rest of
// the message, short words and line breaks, is kept as it was.
func TestClipMessage(t *testing.T) {
	long := "tw_" + strings.Repeat("x", 99_997)
	start := long[:ShownWord-1] + Ellipsis
	usage := "unknown command\n\nUsage:\n  tablewise sql SQL    run one statement"
	for _, c := range []struct{ name, in, want string }{
		{"short", "no such table: users", "no such table: users"},
		{"short words of a long text", strings.Repeat("word ", 100), strings.Repeat("word ", 100)},
		{"name", "no such table: " + long, "no such table: " + start + " (100,000 characters)"},
		{"quoted name", `unknown format "` + long + `" — choose csv`, `unknown format "` + start[:ShownWord-2] + Ellipsis + ` (100,000 characters)" — choose csv`},
		{"name and reason", "PRAGMA " + long + " is not allowed", "PRAGMA " + start + " (100,000 characters) is not allowed"},
		{"cut already", `syntax for type integer: "` + long[:4096] + Ellipsis, `syntax for type integer: "` + start[:ShownWord-2] + Ellipsis + " (over 4,096 characters)"},
		{"lines kept", usage + "\n" + long, usage + "\n" + start + " (100,000 characters)"},
		{"runes", strings.Repeat("東", 300), strings.Repeat("東", ShownWord-1) + Ellipsis + " (300 characters)"},
		{"all marks", strings.Repeat(")", 300), strings.Repeat(")", ShownWord-1) + Ellipsis + " (300 characters)"},
	} {
		if got := ClipMessage(c.in); got != c.want {
			t.Errorf("%s: ClipMessage = %.400q, want %.400q", c.name, got, c.want)
		}
	}
}

// TestClipMessageBoundsALineOfShortWords: a long name of short words
// (`"a a a …"`) is bounded by the line.
func TestClipMessageBoundsALineOfShortWords(t *testing.T) {
	in := "no such table: " + strings.Repeat("a ", 50_000)
	got := ClipMessage(in)
	if n := utf8.RuneCountInString(got); n > ShownLine+30 || !strings.HasPrefix(got, "no such table: a a a") || !strings.HasSuffix(got, Ellipsis+" (100,015 characters)") {
		t.Errorf("ClipMessage of a line of %d characters: %d characters, %.100q … %q", len(in), n, got, got[max(0, len(got)-40):])
	}
}
