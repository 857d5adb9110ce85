package format

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Ellipsis ends every clipped text.
const Ellipsis = "…"

// ClipRunes shortens s to at most n runes, the ellipsis included: when s is
// longer, it keeps the first n-1 runes (less trailing spaces) and adds "…".
func ClipRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := 0; i < n-1; i++ {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return strings.TrimRight(s[:cut], " ") + Ellipsis
}

// ClipBytes shortens s to at most n bytes, cut at a rune boundary, and
// adds "…" when it cut: a bound on memory rather than on what is shown.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Ellipsis
}

// ClipWidth shortens printable text s (see PrintableLine) to at most w
// terminal cells, the ellipsis included.
func ClipWidth(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if isASCII(s) {
		if len(s) <= w {
			return s
		}
		return s[:w-1] + Ellipsis
	}
	return ansi.Truncate(s, w, Ellipsis)
}

// Width is how many terminal cells printable text s takes.
func Width(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Bounds of ClipMessage, in characters (runes).
const (
	// ShownWord is the most of one word an error shows: a name or value
	// the user gave can be of any length.
	ShownWord = 200
	// ShownLine is the most of one line an error shows, for what the
	// word bound does not reach (a name made of short words).
	ShownLine = 4 << 10
)

// ClipMessage bounds the text of an error for display, where a name, a
// path or a value the user gave is echoed whatever its length. A word (a
// run without white space) longer than ShownWord keeps its start, "…"
// and its length, and the quotes or punctuation that close it: `no such
// table: "tw_xx… (100,000 characters)"`. A line still longer than
// ShownLine keeps its start the same way. Shorter text is returned as is.
func ClipMessage(s string) string {
	if len(s) <= ShownWord {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = clipLine(line)
	}
	return strings.Join(lines, "\n")
}

// clipLine is ClipMessage of one line.
func clipLine(line string) string {
	if len(line) <= ShownWord {
		return line
	}
	var b strings.Builder
	for rest := line; rest != ""; {
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		b.WriteString(clipWord(rest[:end]))
		rest = rest[end:]
		space := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsSpace(r) })
		if space < 0 {
			space = len(rest)
		}
		b.WriteString(rest[:space])
		rest = rest[space:]
	}
	out := b.String()
	if utf8.RuneCountInString(out) <= ShownLine {
		return out
	}
	return ClipRunes(out, ShownLine) + lengthNote(line)
}

// closers are what may close a word after a name: quotes, brackets and
// punctuation.
const closers = "\"'`)]}>,;:.!?"

// clipWord is word cut to ShownWord characters with its length noted, the
// marks that close it kept.
func clipWord(word string) string {
	if len(word) <= ShownWord || utf8.RuneCountInString(word) <= ShownWord {
		return word
	}
	core := strings.TrimRight(word, closers)
	if len(word)-len(core) > maxClosers {
		core = word // not a name's closing marks: clip it all
	}
	name := strings.TrimLeft(core, openers)
	if len(core)-len(name) > maxClosers {
		name = core
	}
	return ClipRunes(core, ShownWord) + lengthNote(name) + word[len(core):]
}

// openers are the quotes and brackets that may open a word before a name;
// the length clipWord notes leaves them out.
const openers = "\"'`([{<"

// maxClosers is the most closing (or opening) marks clipWord sets apart
// from the name ("'),").
const maxClosers = 3

// lengthNote says how long s was: " (100,000 characters)", or " (over 4,096
// characters)" when s ends in an ellipsis, cut already.
func lengthNote(s string) string {
	if cut, ok := strings.CutSuffix(s, Ellipsis); ok {
		return " (over " + Plural(int64(utf8.RuneCountInString(cut)), "character") + ")"
	}
	return " (" + Plural(int64(utf8.RuneCountInString(s)), "character") + ")"
}
