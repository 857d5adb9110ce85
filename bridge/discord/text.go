package discord

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/format"
)

// textLen is how long Discord counts s: in UTF-16 code units, which is
// never less than its count of characters, so a text within the limit by
// this measure is within it by either.
func textLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
		if r == utf8.RuneError {
			n++ // an invalid byte or U+FFFD: count it as 2 to stay safe
		}
	}
	return n
}

// clip shortens s to at most n by textLen, ending it with "…" when cut.
func clip(s string, n int) string {
	if textLen(s) <= n {
		return s
	}
	return cutTo(s, n-1) + "…"
}

// cutTo is the longest prefix of s whose textLen is at most n.
func cutTo(s string, n int) string {
	used := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if r == utf8.RuneError {
			w++
		}
		if used+w > n {
			return s[:i]
		}
		used += w
	}
	return s
}

// inCode makes text safe inside a ``` block: a run of three backticks
// would end the block, so a zero-width joiner goes between backticks.
// Display text (table cells) uses codeCell instead.
func inCode(s string) string {
	if !strings.Contains(s, "``") {
		return s
	}
	return strings.ReplaceAll(s, "`", "`\u2060")
}

// codeCell makes a value one printable line for a table in a code block.
func codeCell(s string) string {
	return strings.ReplaceAll(format.PrintableLine(s), "`", "ˋ")
}

// inline makes one line of text safe inside plain message text:
// printable, on one line, with the characters Discord reads as markdown
// escaped (and #, - and > at its start, which would make a heading, a list
// or a quote), so a value shows as it is.
func inline(s string) string {
	s = format.PrintableLine(s)
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '\\', '*', '_', '~', '`', '|', '<', '[', ']', '@':
			b.WriteByte('\\')
		case '#', '-', '>':
			if i == 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}
