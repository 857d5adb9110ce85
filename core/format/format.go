// Package format turns values into text for people. It is the one place
// where untrusted text — database values and names, model output, and the
// error messages that echo them — is made safe to show: every renderer for a
// terminal or a chat (the CLI's tables and errors, the explorer, the MCP
// text renderings) passes such text through Printable or PrintableLine, so
// that no byte from a database can drive the user's terminal. Machine
// formats (CSV, JSON) keep values intact and do not use it.
package format

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PrintableLine returns s as one printable line: a line break (\n, \r\n)
// becomes ↵, a tab a space and a lone \r nothing; other control characters
// (C0, DEL) become their visible symbols (ESC is ␛, BEL ␇, DEL ␡); C1
// controls, invalid UTF-8, zero-width and line/paragraph separators, the
// byte-order mark and other unprintable runes (bidirectional overrides
// among them) become �. Escape sequences can therefore never reach a
// terminal through it. Text that needs none of this is returned as is,
// without allocating.
func PrintableLine(s string) string { return printable(s, false) }

// Printable is PrintableLine for text of several lines: \n and \r\n are
// kept as \n; everything else is as PrintableLine makes it.
func Printable(s string) string { return printable(s, true) }

func printable(s string, multiline bool) string {
	i := cleanPrefix(s, multiline)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '\n':
				if multiline {
					b.WriteByte('\n')
				} else {
					b.WriteString("↵")
				}
			case c == '\r':
				if i < len(s) && s[i] == '\n' {
					continue // the \n that follows stands for both
				}
			case c == '\t':
				b.WriteByte(' ')
			case c < 0x20:
				b.WriteRune(0x2400 + rune(c)) // ␀ … ␟
			case c == 0x7f:
				b.WriteRune('␡')
			default:
				b.WriteByte(c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unprintable(r, size) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// cleanPrefix is the length of the longest prefix of s that printable
// leaves unchanged.
func cleanPrefix(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !(multiline && c == '\n')) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unprintable(r, size) {
			return i
		}
		i += size
	}
	return len(s)
}

// unprintable says whether a non-ASCII rune (of size bytes in its text)
// must be shown as �.
func unprintable(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1: // invalid UTF-8
		return true
	case r < 0xa0: // C1 controls
		return true
	case r == 0x200b, r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	}
	return !unicode.IsPrint(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r)
}

// WithHint is a message and its hint on one line, "message — hint", or the
// message alone when there is no hint: how every typed error with a hint
// reads through Error(). Renderers that show the hint apart take the two
// from core/fault.Explain instead.
func WithHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + " — " + hint
}
