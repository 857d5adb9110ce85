package funcs

import (
	"bytes"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
)

// searcher finds a needle in haystacks in time linear in their lengths:
// bytes.Index for short needles (its worst case is linear times a small
// constant there), two-way string matching (Crochemore and Perrin, as in
// musl's memmem) for long ones, where bytes.Index may fall back to
// Rabin-Karp, whose worst case is quadratic for crafted input.
type searcher struct {
	n  []byte
	tw *twoWay // nil for a short needle
}

// twoWay is the precomputed state of two-way matching.
type twoWay struct {
	ms, p   int
	mem0    int
	byteset [256]bool
	shift   [256]int
}

// shortNeedle is the longest needle bytes.Index is trusted with: even
// where it falls back to Rabin-Karp, its worst case is a small multiple of
// the haystack's length for a needle this short.
const shortNeedle = 16

func newSearcher(n []byte) searcher {
	l := len(n)
	if l <= shortNeedle {
		return searcher{n: n}
	}
	s := &twoWay{}
	for i := 0; i < l; i++ {
		s.byteset[n[i]] = true
		s.shift[n[i]] = i + 1
	}
	// Maximal suffix for < and for >; the critical factorisation is the
	// longer of the two.
	ms, p0 := maxSuffix(n, false)
	ms2, p2 := maxSuffix(n, true)
	p := p0
	if ms2 > ms {
		ms, p = ms2, p2
	}
	if p+ms+1 > l || !bytes.Equal(n[:ms+1], n[p:p+ms+1]) {
		s.mem0 = 0
		p = max(ms, l-ms-1) + 1
	} else {
		s.mem0 = l - p
	}
	s.ms, s.p = ms, p
	return searcher{n: n, tw: s}
}

func maxSuffix(n []byte, reverse bool) (ms, p int) {
	l := len(n)
	ip, jp, k := -1, 0, 1
	p = 1
	for jp+k < l {
		a, b := n[ip+k], n[jp+k]
		switch {
		case a == b:
			if k == p {
				jp += p
				k = 1
			} else {
				k++
			}
		case (a > b) != reverse:
			jp += k
			k = 1
			p = jp - ip
		default:
			ip = jp
			jp++
			k, p = 1, 1
		}
	}
	return ip, p
}

// index returns the offset of the first occurrence of the needle in h at
// or after from, -1 if there is none, or -2 if ctx was interrupted.
func (s searcher) index(ctx *lite.Context, h []byte, from int) int {
	if from > len(h) {
		return -1
	}
	if s.tw == nil {
		i := bytes.Index(h[from:], s.n)
		scanned := len(h) - from
		if i >= 0 {
			scanned = i + len(s.n)
		}
		if ctx.Interrupted(scanned) {
			return -2
		}
		if i < 0 {
			return -1
		}
		return from + i
	}
	tw := s.tw
	n, l, ms, p := s.n, len(s.n), tw.ms, tw.p
	hp, mem := from, 0
	for {
		if len(h)-hp < l {
			return -1
		}
		if ctx.Interrupted(1) {
			return -2
		}
		last := h[hp+l-1]
		if !tw.byteset[last] {
			hp += l
			mem = 0
			continue
		}
		if k := l - tw.shift[last]; k != 0 {
			if k < mem {
				k = mem
			}
			hp += k
			mem = 0
			continue
		}
		k := max(ms+1, mem)
		for k < l && n[k] == h[hp+k] {
			k++
		}
		if ctx.Interrupted(k) {
			return -2
		}
		if k < l {
			hp += k - ms
			mem = 0
			continue
		}
		k = ms + 1
		for k > mem && n[k-1] == h[hp+k-1] {
			k--
		}
		if k <= mem {
			return hp
		}
		hp += p
		mem = tw.mem0
	}
}

// instr is SQLite's instr(X, Y): the 1-based character (for blobs, byte)
// position of the first Y in X, 0 if none, NULL if either is NULL.
func instr(ctx *lite.Context, args []lite.Value) {
	t0, t1 := args[0].Type(), args[1].Type()
	if t0 == lite.Null || t1 == lite.Null {
		return
	}
	if args[1].Bytes() <= 0 {
		ctx.ResultInt(1)
		return
	}
	var h, n []byte
	isText := true
	switch {
	case t0 == lite.Blob && t1 == lite.Blob:
		h, n, isText = args[0].Blob(), args[1].Blob(), false
	case t0 != lite.Blob && t1 != lite.Blob:
		h, n = args[0].Text(), args[1].Text()
	default: // one blob, one not: both compared as text, the blob's bytes as they are
		h, n = bytesAsText(args[0]), bytesAsText(args[1])
	}
	if len(n) == 0 {
		ctx.ResultInt(1)
		return
	}
	if isText && n[0]&0xc0 == 0x80 {
		// SQLite compares only at character starts, and the first one is
		// the only start that may be a continuation byte.
		if bytes.HasPrefix(h, n) {
			ctx.ResultInt(1)
		} else {
			ctx.ResultInt(0)
		}
		return
	}
	pos := newSearcher(n).index(ctx, h, 0)
	switch {
	case pos == -2:
		ctx.ResultInterrupted()
		return
	case pos < 0:
		ctx.ResultInt(0)
		return
	case !isText:
		ctx.ResultInt(int64(pos) + 1)
		return
	}
	// The needle starts with a character's first byte, so every match is
	// at a character start: count the characters before it.
	chars := int64(1)
	for i := 1; i <= pos; i++ {
		if h[i]&0xc0 != 0x80 {
			chars++
		}
		if i&0xffff == 0 && ctx.Interrupted(0x10000) {
			ctx.ResultInterrupted()
			return
		}
	}
	ctx.ResultInt(chars)
}

func bytesAsText(v lite.Value) []byte {
	if v.Type() == lite.Blob {
		return v.Blob()
	}
	return v.Text()
}

// replace is SQLite's replace(X, Y, Z): X with every Y, left to right and
// not overlapping, replaced by Z, as text.
func replace(ctx *lite.Context, args []lite.Value) {
	str := args[0].Text()
	if str == nil {
		return
	}
	pat := args[1].Text()
	if pat == nil {
		return
	}
	if len(pat) == 0 || pat[0] == 0 {
		ctx.ResultText(str)
		return
	}
	rep := args[2].Text()
	if rep == nil {
		return
	}
	limit := ctx.Limit(lite.LimitLength)
	if len(str)+1 > limit {
		ctx.ResultTooBig()
		return
	}
	s := newSearcher(pat)
	count := 0
	for i := 0; ; {
		j := s.index(ctx, str, i)
		if j == -2 {
			ctx.ResultInterrupted()
			return
		}
		if j < 0 {
			break
		}
		count++
		i = j + len(pat)
	}
	size := len(str) + count*(len(rep)-len(pat))
	if len(rep) > len(pat) && size > limit {
		ctx.ResultTooBig()
		return
	}
	interrupted := false
	ctx.NewText(size, func(out []byte) {
		o, i := 0, 0
		for {
			j := s.index(ctx, str, i)
			if j == -2 {
				interrupted = true
				return
			}
			if j < 0 {
				break
			}
			o += copy(out[o:], str[i:j])
			o += copy(out[o:], rep)
			i = j + len(pat)
		}
		copy(out[o:], str[i:])
	})
	if interrupted {
		ctx.ResultInterrupted()
	}
}

var (
	instrID   = lite.NewFunc(instr)
	replaceID = lite.NewFunc(replace)
)
