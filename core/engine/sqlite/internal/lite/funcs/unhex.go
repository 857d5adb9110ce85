package funcs

import "github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"

var unhexID = lite.NewFunc(unhex2)

// unhex2 is SQLite's unhex(X, Y): the blob X's pairs of hex digits encode,
// where characters of Y may appear (and are ignored) between pairs; NULL if
// X holds anything else. SQLite looks each such character up in Y by a
// linear scan; here Y is a set.
func unhex2(ctx *lite.Context, args []lite.Value) {
	hex := args[0].Text()
	pass := args[1].Text()
	if hex == nil || pass == nil {
		return
	}
	if len(hex)/2+1 > ctx.Limit(lite.LimitLength) {
		ctx.ResultTooBig()
		return
	}
	skip := map[uint32]bool{}
	for i := 0; i < len(pass); {
		var ch uint32
		ch, i = readChar(pass, i)
		skip[ch] = true
	}
	hex = cString(hex)
	out := make([]byte, 0, len(hex)/2)
	p := 0
	for {
		c := at(hex, p)
		if c == 0 {
			break
		}
		for !isXDigit(c) {
			var ch uint32
			ch, p = readChar(hex, p)
			if !skip[ch] {
				return // NULL
			}
			if ctx.Interrupted(1) {
				ctx.ResultInterrupted()
				return
			}
			if c = at(hex, p); c == 0 {
				ctx.ResultBlob(out)
				return
			}
		}
		p++
		d := at(hex, p)
		p++
		if !isXDigit(d) {
			return // NULL
		}
		out = append(out, hexToInt(c)<<4|hexToInt(d))
	}
	ctx.ResultBlob(out)
}
