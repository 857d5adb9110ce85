package funcs

import "github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"

// compareInfo is SQLite's: the wildcards of LIKE or GLOB.
type compareInfo struct {
	matchAll, matchOne, matchSet uint32
	noCase                       bool
}

var (
	globInfo = compareInfo{matchAll: '*', matchOne: '?', matchSet: '['}
	likeInfo = compareInfo{matchAll: '%', matchOne: '_', noCase: true}

	likeID = lite.NewFunc(likeFunc(likeInfo))
	globID = lite.NewFunc(likeFunc(globInfo))
)

// patternCompare results, as in SQLite, plus one for an interrupt.
const (
	match           = 0
	noMatch         = 1
	noWildcardMatch = 2
	interrupted     = 3
)

// likeFunc is SQLite's likeFunc: like(P, S), like(P, S, E) and glob(P, S),
// with SQLite's limits and messages. Matching is SQLite's patternCompare,
// ported line by line, polling for an interrupt.
func likeFunc(wildcards compareInfo) lite.Func {
	return func(ctx *lite.Context, args []lite.Value) {
		info := wildcards // ESCAPE may switch a wildcard off for this call
		if args[0].Type() == lite.Blob || args[1].Type() == lite.Blob {
			ctx.ResultInt(0) // this build has SQLITE_LIKE_DOESNT_MATCH_BLOBS
			return
		}
		if args[0].Bytes() > ctx.Limit(lite.LimitLikePatternLength) {
			ctx.ResultError("LIKE or GLOB pattern too complex", 1)
			return
		}
		var escape uint32
		if len(args) == 3 {
			esc := args[2].Text()
			if esc == nil {
				return
			}
			esc = cString(esc)
			if n := charLen(esc); n != 1 {
				ctx.ResultError("ESCAPE expression must be a single character", 1)
				return
			}
			escape, _ = utf8Read(esc, 0)
			if escape == info.matchAll {
				info.matchAll = 0
			}
			if escape == info.matchOne {
				info.matchOne = 0
			}
		} else {
			escape = info.matchSet
		}
		pat := args[0].Text()
		str := args[1].Text()
		if pat == nil || str == nil {
			return
		}
		m := matcher{ctx: ctx, info: info, matchOther: escape}
		switch m.compare(cString(pat), 0, cString(str), 0) {
		case match:
			ctx.ResultInt(1)
		case interrupted:
			ctx.ResultInterrupted()
		default:
			ctx.ResultInt(0)
		}
	}
}

// charLen is sqlite3Utf8CharLen of a NUL-free string.
func charLen(b []byte) int {
	n := 0
	for i := 0; i < len(b); i = skipUTF8(b, i) {
		n++
	}
	return n
}

type matcher struct {
	ctx        *lite.Context
	info       compareInfo
	matchOther uint32
}

// compare is SQLite's patternCompare of pat[p:] against str[s:]; both are
// NUL-free (a read past the end gives 0, C's terminator).
func (m *matcher) compare(pat []byte, p int, str []byte, s int) int {
	info := &m.info
	escaped := -1 // one past the last escaped pattern character
	for {
		if m.ctx.Interrupted(1) {
			return interrupted
		}
		var c uint32
		c, p = readChar(pat, p)
		if c == 0 {
			break
		}
		if c == info.matchAll {
			// Skip further matchAll and matchOne characters, consuming one
			// string character for each matchOne.
			for {
				c, p = readChar(pat, p)
				if !(c == info.matchAll || c == info.matchOne && info.matchOne != 0) {
					break
				}
				if c == info.matchOne {
					var c2 uint32
					if c2, s = utf8Read(str, s); c2 == 0 {
						return noWildcardMatch
					}
				}
			}
			if c == 0 {
				return match // a trailing matchAll matches the rest
			}
			if c == m.matchOther {
				if info.matchSet == 0 {
					if c, p = utf8Read(pat, p); c == 0 {
						return noWildcardMatch
					}
				} else {
					// "[...]" right after "*": try every position.
					for at(str, s) != 0 {
						if r := m.compare(pat, p-1, str, s); r != noMatch {
							return r
						}
						s = skipUTF8(str, s)
						if m.ctx.Interrupted(1) {
							return interrupted
						}
					}
					return noWildcardMatch
				}
			}
			// c is the first pattern character after the wildcard: find
			// it in the string and match the rest from there.
			if c < 0x80 {
				stop0, stop1 := byte(c), byte(c)
				if info.noCase {
					stop0, stop1 = toUpper(byte(c)), toLower(byte(c))
				}
				for {
					for s < len(str) && str[s] != stop0 && str[s] != stop1 {
						s++
						if m.ctx.Interrupted(1) {
							return interrupted
						}
					}
					if s >= len(str) {
						break
					}
					s++
					if r := m.compare(pat, p, str, s); r != noMatch {
						return r
					}
				}
			} else {
				for {
					var c2 uint32
					c2, s = readChar(str, s)
					if c2 == 0 {
						break
					}
					if m.ctx.Interrupted(1) {
						return interrupted
					}
					if c2 != c {
						continue
					}
					if r := m.compare(pat, p, str, s); r != noMatch {
						return r
					}
				}
			}
			return noWildcardMatch
		}
		if c == m.matchOther {
			if info.matchSet == 0 {
				if c, p = utf8Read(pat, p); c == 0 {
					return noMatch
				}
				escaped = p
			} else {
				var priorC uint32
				seen, invert := false, false
				if c, s = utf8Read(str, s); c == 0 {
					return noMatch
				}
				var c2 uint32
				c2, p = utf8Read(pat, p)
				if c2 == '^' {
					invert = true
					c2, p = utf8Read(pat, p)
				}
				if c2 == ']' {
					if c == ']' {
						seen = true
					}
					c2, p = utf8Read(pat, p)
				}
				for c2 != 0 && c2 != ']' {
					if m.ctx.Interrupted(1) {
						return interrupted
					}
					if c2 == '-' && at(pat, p) != ']' && at(pat, p) != 0 && priorC > 0 {
						c2, p = utf8Read(pat, p)
						if c >= priorC && c <= c2 {
							seen = true
						}
						priorC = 0
					} else {
						if c == c2 {
							seen = true
						}
						priorC = c2
					}
					c2, p = utf8Read(pat, p)
				}
				if c2 == 0 || seen == invert {
					return noMatch
				}
				continue
			}
		}
		var c2 uint32
		c2, s = readChar(str, s)
		if c == c2 {
			continue
		}
		if info.noCase && c < 0x80 && c2 < 0x80 && toLower(byte(c)) == toLower(byte(c2)) {
			continue
		}
		if c == info.matchOne && p != escaped && c2 != 0 {
			continue
		}
		return noMatch
	}
	if at(str, s) == 0 {
		return match
	}
	return noMatch
}
