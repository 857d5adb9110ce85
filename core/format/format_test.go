package format

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, c := range []struct {
		fn       func(string) string
		in, want string
	}{
		{PrintableLine, "plain", "plain"},
		{PrintableLine, "Zoë 東京", "Zoë 東京"},
		{PrintableLine, "\x1b]0;PWNED\x07", "␛]0;PWNED␇"},
		{PrintableLine, "\x1b[2Jcleared", "␛[2Jcleared"},
		{PrintableLine, "a\nb\r\nc\rd\te", "a↵b↵cd e"},
		{PrintableLine, "nul\x00del\x7f", "nul␀del␡"},
		{PrintableLine, "c1 \u009b31m", "c1 �31m"},              // CSI as a C1 control
		{PrintableLine, "bad \xff\xfe utf8", "bad �� utf8"},     // invalid bytes
		{PrintableLine, "rtl \u202eevil", "rtl �evil"},          // bidirectional override
		{PrintableLine, "zero\u200bwidth\ufeff", "zero�width�"}, // zero-width space, BOM
		{PrintableLine, "e\u0301", "e\u0301"},                   // a combining mark stays
		{Printable, "line one\nline two", "line one\nline two"},
		{Printable, "crlf\r\nkept", "crlf\nkept"},
		{Printable, "no such column: \x1b[31mred\x1b[0m", "no such column: ␛[31mred␛[0m"},
		{Printable, "over\rwrite", "overwrite"},
	} {
		if got := c.fn(c.in); got != c.want {
			t.Errorf("%s(%q) = %q, want %q", funcName(c.fn), c.in, got, c.want)
		}
	}
}

// Whatever the input, the output is valid UTF-8 with no control character
// but the newlines Printable keeps.
func TestPrintableNeverLetsAControlThrough(t *testing.T) {
	var all strings.Builder
	for b := 0; b < 256; b++ {
		all.WriteByte(byte(b))
	}
	for r := rune(0x80); r < 0xa0; r++ {
		all.WriteRune(r)
	}
	in := all.String()
	for name, out := range map[string]string{"line": PrintableLine(in), "text": Printable(in)} {
		if !utf8.ValidString(out) {
			t.Errorf("%s: invalid UTF-8 in %q", name, out)
		}
		for _, r := range out {
			if (r < 0x20 && !(name == "text" && r == '\n')) || (r >= 0x7f && r < 0xa0) {
				t.Errorf("%s: control %U got through", name, r)
			}
		}
	}
}

func TestPrintableDoesNotCopyCleanText(t *testing.T) {
	s := strings.Repeat("clean text, déjà vu ", 100)
	if n := testing.AllocsPerRun(10, func() { _ = PrintableLine(s) }); n != 0 {
		t.Errorf("%v allocations for clean text", n)
	}
}
