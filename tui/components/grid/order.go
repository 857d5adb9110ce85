package grid

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

// order says which rows the grid shows and in what order: the rows whose
// displayed text contains filter (case-insensitively), sorted by column col
// (none when col < 0).
type order struct {
	filter string // lower case
	col    int
	desc   bool
}

func (o order) active() bool { return o.filter != "" || o.col >= 0 }

// checkEvery is how many rows pass between checks for cancellation.
const checkEvery = 4096

// computeView returns the indices of rows to show, in display order. It
// reads rows only, so it may run while the grid keeps appending beyond
// len(rows). It stops early with ctx's error when ctx is cancelled.
func computeView(ctx context.Context, rows []query.Row, o order) ([]int32, error) {
	var idx []int32
	if o.filter != "" {
		idx = make([]int32, 0, 256)
		var buf []byte
		for i, r := range rows {
			if i%checkEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var ok bool
			if ok, buf = rowMatches(r, o.filter, buf); ok {
				idx = append(idx, int32(i))
			}
		}
	} else {
		idx = make([]int32, len(rows))
		for i := range idx {
			idx[i] = int32(i)
		}
	}
	if o.col < 0 {
		return idx, nil
	}
	type item struct {
		k sortKey
		i int32
	}
	items := make([]item, len(idx))
	for j, i := range idx {
		if j%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var v any
		if r := rows[i]; o.col < len(r) {
			v = r[o.col]
		}
		items[j] = item{keyOf(v), i}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// Ties keep the order the rows came in, so the sort is stable.
	slices.SortFunc(items, func(a, b item) int {
		if c := compareKeys(a.k, b.k, o.desc); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	for j := range items {
		idx[j] = items[j].i
	}
	return idx, nil
}

// Sort classes, in ascending order. NULL sorts last in both directions.
const (
	classNumber = iota
	classText
	classBlob
	classNull
)

// sortKey is a value reduced to what ordering needs.
type sortKey struct {
	class uint8
	isInt bool
	i     int64
	f     float64
	s     string
}

// keyOf makes the sort key of a value: numbers by value (text that is a
// number, such as "10" in a TEXT column, too), text by its letters
// ignoring case, blobs by their bytes, NULL after everything.
func keyOf(v any) sortKey {
	switch x := v.(type) {
	case nil:
		return sortKey{class: classNull}
	case int64:
		return sortKey{class: classNumber, isInt: true, i: x, f: float64(x)}
	case float64:
		return sortKey{class: classNumber, f: x}
	case string:
		if k, ok := numberKey(x); ok {
			return k
		}
		return sortKey{class: classText, s: x}
	case []byte:
		return sortKey{class: classBlob, s: string(x)}
	}
	return sortKey{class: classText, s: format.Value(v)}
}

// numberKey reads text that is written as a decimal number: an optional
// sign, digits with an optional fraction and exponent, nothing else but
// surrounding spaces. "Inf", "0x10" and "1_000" are text.
func numberKey(s string) (sortKey, bool) {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 40 {
		return sortKey{}, false
	}
	i := 0
	if t[0] == '+' || t[0] == '-' {
		i++
	}
	digits, isInt := 0, true
	for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
		digits++
	}
	if i < len(t) && t[i] == '.' {
		isInt = false
		for i++; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return sortKey{}, false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		isInt = false
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		e := 0
		for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
			e++
		}
		if e == 0 {
			return sortKey{}, false
		}
	}
	if i != len(t) {
		return sortKey{}, false
	}
	if isInt {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return sortKey{class: classNumber, isInt: true, i: n, f: float64(n)}, true
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return sortKey{}, false
	}
	return sortKey{class: classNumber, f: f}, true
}

// compareKeys orders a and b, descending when desc; NULL is last either
// way.
func compareKeys(a, b sortKey, desc bool) int {
	if a.class != b.class {
		switch {
		case a.class == classNull:
			return 1
		case b.class == classNull:
			return -1
		}
		c := cmp.Compare(a.class, b.class)
		if desc {
			c = -c
		}
		return c
	}
	var c int
	switch a.class {
	case classNull:
		return 0
	case classNumber:
		if a.isInt && b.isInt {
			c = cmp.Compare(a.i, b.i)
		} else {
			c = cmp.Compare(a.f, b.f)
		}
	case classText:
		c = compareFold(a.s, b.s)
	default:
		c = strings.Compare(a.s, b.s)
	}
	if desc {
		c = -c
	}
	return c
}

// compareFold compares text ignoring case, then by bytes so that the
// order is total.
func compareFold(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if 'A' <= ca && ca <= 'Z' {
				ca += 'a' - 'A'
			}
			if 'A' <= cb && cb <= 'Z' {
				cb += 'a' - 'A'
			}
			if ca != cb {
				return cmp.Compare(ca, cb)
			}
			i++
			j++
			continue
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if la, lb := unicode.ToLower(ra), unicode.ToLower(rb); la != lb {
			return cmp.Compare(la, lb)
		}
		i += na
		j += nb
	}
	switch {
	case i < len(a):
		return 1
	case j < len(b):
		return -1
	}
	return strings.Compare(a, b)
}

// rowMatches reports whether the displayed text of some cell of r contains
// needle (lower case), ignoring case. buf is scratch space, returned for
// reuse.
func rowMatches(r query.Row, needle string, buf []byte) (bool, []byte) {
	for _, v := range r {
		var s string
		switch x := v.(type) {
		case nil:
			s = "NULL"
		case int64:
			buf = strconv.AppendInt(buf[:0], x, 10)
			if containsFold(buf, needle) {
				return true, buf
			}
			continue
		case float64:
			buf = format.AppendFloat(buf[:0], x)
			if containsFold(buf, needle) {
				return true, buf
			}
			continue
		case string:
			s = format.PrintableLine(x)
		case []byte:
			s = format.Blob(x)
		default:
			s = format.Value(v)
		}
		if containsFoldString(s, needle) {
			return true, buf
		}
	}
	return false, buf
}

// containsFold reports whether the ASCII text s contains needle (lower
// case), ignoring case.
func containsFold[T string | []byte](s T, needle string) bool {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		k := 0
		for k < n {
			c := s[i+k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[k] {
				break
			}
			k++
		}
		if k == n {
			return true
		}
	}
	return false
}

// containsFoldString is containsFold for any text: ASCII without
// allocating, other text through strings.ToLower.
func containsFoldString(s, needle string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), needle)
		}
	}
	return containsFold(s, needle)
}
