package funcs

import (
	"bytes"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
)

// Flags of the trim family, as SQLite's trimFunc takes them.
const (
	trimLeft  = 1
	trimRight = 2
)

var (
	trimID  = lite.NewFunc(trimFunc(trimLeft | trimRight))
	ltrimID = lite.NewFunc(trimFunc(trimLeft))
	rtrimID = lite.NewFunc(trimFunc(trimRight))
)

// trimFunc is SQLite's trim(X, Y), ltrim(X, Y) or rtrim(X, Y): X without
// the characters of Y at its start and/or end. Y is split into characters
// as SQLite splits it (SQLITE_SKIP_UTF8, up to a NUL byte), and at each
// end the first character of Y (in Y's order) that matches is removed,
// until none does.
func trimFunc(flags int) lite.Func {
	return func(ctx *lite.Context, args []lite.Value) {
		if args[0].Type() == lite.Null {
			return
		}
		in := args[0].Text()
		if in == nil {
			return
		}
		set := args[1].Text()
		if set == nil {
			return
		}
		chars := splitChars(set)
		start, end := 0, len(in)
		if len(chars) > 0 {
			var ok bool
			if start, end, ok = trim(ctx, in, chars, flags); !ok {
				ctx.ResultInterrupted()
				return
			}
		}
		ctx.ResultText(in[start:end])
	}
}

// splitChars splits set into characters as SQLite's trimFunc does.
func splitChars(set []byte) [][]byte {
	set = cString(set)
	var out [][]byte
	for i := 0; i < len(set); {
		j := skipUTF8(set, i)
		j = min(j, len(set))
		out = append(out, set[i:j])
		i = j
	}
	return out
}

// trim returns the bounds of in once trimmed, or ok false if ctx was
// interrupted.
func trim(ctx *lite.Context, in []byte, chars [][]byte, flags int) (start, end int, ok bool) {
	start, end = 0, len(in)
	single, valid := true, true
	for _, c := range chars {
		if len(c) != 1 {
			single = false
		}
		if r, n := utf8.DecodeRune(c); n != len(c) || r == utf8.RuneError && n == 1 {
			valid = false
		}
	}
	switch {
	case single:
		// Every character is one byte: a set of bytes.
		var set [256]bool
		for _, c := range chars {
			set[c[0]] = true
		}
		if flags&trimLeft != 0 {
			for start < end && set[in[start]] {
				start++
			}
		}
		if flags&trimRight != 0 {
			for end > start && set[in[end-1]] {
				end--
			}
		}
		return start, end, true
	case valid:
		// Every character is well-formed UTF-8. No well-formed encoding is
		// a prefix or a suffix of another, so at most one character can
		// match at either end, and the order of the set does not matter.
		set := make(map[string]bool, len(chars))
		for _, c := range chars {
			set[string(c)] = true
		}
		if flags&trimLeft != 0 {
			for start < end {
				n := utf8Len(in[start])
				if n == 0 || start+n > end || !set[string(in[start:start+n])] {
					break
				}
				start += n
			}
		}
		if flags&trimRight != 0 {
		right:
			for end > start {
				for n := 1; n <= utf8.UTFMax && n <= end-start; n++ {
					if set[string(in[end-n:end])] {
						end -= n
						continue right
					}
				}
				break
			}
		}
		return start, end, true
	}
	// Malformed characters in the set: SQLite's own loop, which tries
	// every character at each step.
	if flags&trimLeft != 0 {
		for start < end {
			i := firstAt(in[start:end], chars, bytes.HasPrefix)
			if ctx.Interrupted(i + 1) {
				return 0, 0, false
			}
			if i == len(chars) {
				break
			}
			start += len(chars[i])
		}
	}
	if flags&trimRight != 0 {
		for end > start {
			i := firstAt(in[start:end], chars, bytes.HasSuffix)
			if ctx.Interrupted(i + 1) {
				return 0, 0, false
			}
			if i == len(chars) {
				break
			}
			end -= len(chars[i])
		}
	}
	return start, end, true
}

// utf8Len is the length of the well-formed character a lead byte starts,
// 0 for a byte that cannot start one.
func utf8Len(b byte) int {
	switch {
	case b < 0x80:
		return 1
	case b < 0xc0:
		return 0
	case b < 0xe0:
		return 2
	case b < 0xf0:
		return 3
	case b < 0xf8:
		return 4
	}
	return 0
}

// firstAt is the index of the first of chars that has finds in s
// (bytes.HasPrefix at its start, bytes.HasSuffix at its end), or len(chars)
// when none.
func firstAt(s []byte, chars [][]byte, has func(s, c []byte) bool) int {
	i := 0
	for ; i < len(chars); i++ {
		if has(s, chars[i]) {
			break
		}
	}
	return i
}
