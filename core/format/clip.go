package format

import (
	"strings"
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
