package offline

import (
	"encoding/binary"
	"math"
	"time"
)

// The value index itself is kept in the scans' file (persist.go), in a
// compact form of its own: what the scans taught about each column (its
// kind, distinct count, flag values, period ends) and every indexed value
// with its column, count and words. A planner whose database has not
// changed since the file was written (the catalog is the file's) reads it
// back instead of rebuilding the index from the kept scans: no SQL is
// formatted, no value tokenized. Its columns are named by their places in
// the catalog, which is the file's own; the scans stay in the file, read
// only when the index must be built again.

// indexVersion changes when the layout of the kept index does.
const indexVersion = 2

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// val writes a value of a kind a cell keeps; false for another kind.
func (e *encoder) val(v any) bool {
	switch v := v.(type) {
	case nil:
		e.uint(0)
	case int64:
		e.uint(1)
		e.int(v)
	case float64:
		e.uint(2)
		e.uint(math.Float64bits(v))
	case string:
		e.uint(3)
		e.str(v)
	case []byte:
		e.uint(4)
		e.str(string(v))
	default:
		return false
	}
	return true
}

// rows writes rows of values; a row holding a value of a kind a cell
// does not keep is written empty, and nil rows as none at all.
func (e *encoder) rows(rows [][]any) {
	if rows == nil {
		e.uint(0)
		return
	}
	e.uint(1 + uint64(len(rows)))
	for _, r := range rows {
		row := &encoder{}
		row.uint(uint64(len(r)))
		ok := true
		for _, v := range r {
			ok = ok && row.val(v)
		}
		if !ok {
			e.uint(0)
			continue
		}
		e.b = append(e.b, row.b...)
	}
}

// decoder reads what encoder wrote; its strings share the memory of one
// string holding the whole encoding. A short or malformed input sets bad.
type decoder struct {
	s   string
	bad bool
}

func (d *decoder) uint() uint64 {
	var v uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		b := d.s[i]
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			d.s = d.s[i+1:]
			return v
		}
	}
	d.bad, d.s = true, ""
	return 0
}

// int reads binary.AppendVarint's zig-zag encoding.
func (d *decoder) int() int64 {
	u := d.uint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.s)) {
		d.bad, d.s = true, ""
		return ""
	}
	out := d.s[:n]
	d.s = d.s[n:]
	return out
}

func (d *decoder) val() any {
	switch d.uint() {
	case 0:
		return nil
	case 1:
		return d.int()
	case 2:
		return math.Float64frombits(d.uint())
	case 3:
		return d.str()
	case 4:
		return []byte(d.str())
	}
	d.bad = true
	return nil
}

// rows reads what encoder.rows wrote.
func (d *decoder) rows() [][]any {
	n := d.uint()
	if n == 0 || n-1 > uint64(len(d.s)) {
		d.bad = d.bad || n > 0
		return nil
	}
	out := make([][]any, n-1)
	for i := range out {
		cells := d.uint()
		if cells > uint64(len(d.s)) {
			d.bad = true
			return nil
		}
		out[i] = make([]any, cells)
		for j := range out[i] {
			out[i][j] = d.val()
		}
	}
	return out
}

// colPlace is where a column is in the schema: its table's index and its
// own.
type colPlace struct{ t, c int }

func places(s *schema) map[*colInfo]colPlace {
	out := map[*colInfo]colPlace{}
	for ti, t := range s.tables {
		for ci, c := range t.cols {
			out[c] = colPlace{ti, ci}
		}
	}
	return out
}

// encodeValues writes vi, built on s from scans kept scans, or returns
// nil when it holds something the form does not keep.
func encodeValues(s *schema, vi *valueIndex, scans int) []byte {
	at := places(s)
	e := &encoder{}
	e.uint(indexVersion)
	e.int(sampleRows)
	e.uint(uint64(len(s.tables)))
	e.uint(uint64(scans))
	e.uint(uint64(vi.longest))
	e.uint(uint64(vi.columns))
	e.uint(uint64(vi.values))
	e.int(int64(vi.took))
	e.uint(uint64(len(vi.skipped)))
	for _, sk := range vi.skipped {
		e.str(sk)
	}
	col := func(c *colInfo) bool {
		p, ok := at[c]
		e.uint(uint64(p.t))
		e.uint(uint64(p.c))
		return ok
	}
	e.uint(uint64(len(vi.touched)))
	for _, c := range vi.touched {
		if !col(c) {
			return nil
		}
		e.uint(uint64(c.kind))
		e.int(int64(c.distinct))
		var flags uint64
		for i, f := range []bool{c.hasZero, c.intYear, c.unixTime} {
			if f {
				flags |= 1 << i
			}
		}
		e.uint(flags)
		e.int(c.nulls)
		e.str(c.sentinel)
		e.str(c.maxDate)
		if !e.val(c.trueVal) || !e.val(c.falseVal) {
			return nil
		}
	}
	// How many values and words follow: they are read into one block
	// each.
	refs, words := 0, 0
	for _, rs := range vi.byKey {
		refs += len(rs)
		for _, r := range rs {
			words += len(r.words)
		}
	}
	e.uint(uint64(refs))
	e.uint(uint64(words))
	e.uint(uint64(len(vi.byKey)))
	for key, refs := range vi.byKey {
		e.str(key)
		e.uint(uint64(len(refs)))
		for _, r := range refs {
			if !col(r.col) || !e.val(r.value) {
				return nil
			}
			e.str(r.text)
			e.int(r.count)
			e.uint(uint64(len(r.words)))
			for _, w := range r.words {
				e.str(w)
			}
		}
	}
	return e.b
}

// decodeValues reads an index encodeValues wrote for a schema built from
// the same catalog into s, setting what the scans taught about its
// columns. It returns nil, leaving s as it was, when raw is of another
// layout or bound, or malformed.
func decodeValues(raw string, s *schema) (*valueIndex, int) {
	d := &decoder{s: raw}
	if d.uint() != indexVersion || d.int() != sampleRows || d.uint() != uint64(len(s.tables)) || d.bad {
		return nil, 0
	}
	scans := int(d.uint())
	vi := &valueIndex{longest: int(d.uint()), columns: int(d.uint()), values: int(d.uint()), took: time.Duration(d.int())}
	for n := d.uint(); n > 0 && !d.bad; n-- {
		vi.skipped = append(vi.skipped, d.str())
	}
	col := func() *colInfo {
		ti, ci := d.uint(), d.uint()
		if d.bad || ti >= uint64(len(s.tables)) || ci >= uint64(len(s.tables[ti].cols)) {
			d.bad = true
			return nil
		}
		return s.tables[ti].cols[ci]
	}
	// What the scans taught about columns is applied only once the
	// whole encoding has been read.
	type taught struct {
		c                      *colInfo
		kind                   colKind
		distinct               int
		hasZero, intYear, unix bool
		nulls                  int64
		sentinel, maxDate      string
		trueVal, falseVal      any
	}
	n := d.uint()
	if n > uint64(len(d.s)) {
		return nil, 0
	}
	cols := make([]taught, 0, n)
	for ; n > 0 && !d.bad; n-- {
		t := taught{c: col(), kind: colKind(d.uint()), distinct: int(d.int())}
		flags := d.uint()
		t.hasZero, t.intYear, t.unix = flags&1 != 0, flags&2 != 0, flags&4 != 0
		t.nulls, t.sentinel, t.maxDate = d.int(), d.str(), d.str()
		t.trueVal, t.falseVal = d.val(), d.val()
		cols = append(cols, t)
	}
	nrefs, nwords, keys := d.uint(), d.uint(), d.uint()
	if d.bad || nrefs > uint64(len(d.s)) || nwords > uint64(len(d.s)) || keys > uint64(len(d.s)) {
		return nil, 0
	}
	// The values, their pointers and their words, each in one block.
	refBlock, ptrBlock, wordBlock := make([]valueRef, nrefs), make([]*valueRef, nrefs), make([]string, nwords)
	vi.byKey = make(map[string][]*valueRef, keys)
	for ; keys > 0 && !d.bad; keys-- {
		key := d.str()
		n := d.uint()
		if n > uint64(len(refBlock)) {
			return nil, 0
		}
		refs := ptrBlock[:n:n]
		ptrBlock = ptrBlock[n:]
		for i := range refs {
			r := &refBlock[i]
			*r = valueRef{col: col(), value: d.val(), text: d.str(), count: d.int()}
			nw := d.uint()
			if nw > uint64(len(wordBlock)) {
				return nil, 0
			}
			if nw > 0 {
				r.words = wordBlock[:nw:nw]
				wordBlock = wordBlock[nw:]
				for k := range r.words {
					r.words[k] = d.str()
				}
			}
			refs[i] = r
		}
		refBlock = refBlock[n:]
		vi.byKey[key] = refs
	}
	if d.bad || len(d.s) != 0 {
		return nil, 0
	}
	for _, t := range cols {
		c := t.c
		c.kind, c.distinct, c.hasZero, c.intYear, c.unixTime = t.kind, t.distinct, t.hasZero, t.intYear, t.unix
		c.nulls, c.sentinel, c.maxDate, c.trueVal, c.falseVal = t.nulls, t.sentinel, t.maxDate, t.trueVal, t.falseVal
	}
	vi.touched = make([]*colInfo, len(cols))
	for i, t := range cols {
		vi.touched[i] = t.c
	}
	return vi, scans
}
