package postgres

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

// Values arrive in PostgreSQL's text format and map onto the five storage
// classes: integers int64; floats float64; numeric float64 when it has at
// most 15 significant digits (strconv reads those exactly), else its exact
// digits as text; boolean int64 1/0; dates and timestamps ISO 8601 text
// (timestamptz in UTC with a Z); arrays as JSON text; bytea bytes;
// everything else (json, uuid, interval, enums…) its text.

// conv is how a column's text becomes a value.
type conv byte

const (
	convText conv = iota
	convInt
	convFloat
	convNumeric
	convBool
	convBytea
	convTimestamp
	convTimestamptz
	convArray
	convDate
)

// pgType is one row of pg_type, as much as values need.
type pgType struct {
	name     string
	category byte
	elem     uint32
	base     uint32 // a domain's base type, 0 otherwise
}

// typeCache maps type OIDs to names and conversions.
type typeCache struct {
	mu    sync.RWMutex
	types map[uint32]pgType
}

func newTypeCache() *typeCache { return &typeCache{types: map[uint32]pgType{}} }

// load reads pg_type on c.
func (tc *typeCache) load(ctx context.Context, c *pgconn.PgConn) error {
	res, err := c.Exec(ctx, "SELECT oid, typname, typcategory, typelem, typbasetype FROM pg_catalog.pg_type").ReadAll()
	if err != nil {
		return pgOpenError(err)
	}
	types := map[uint32]pgType{}
	for _, r := range res {
		for _, row := range r.Rows {
			oid, _ := strconv.ParseUint(string(row[0]), 10, 32)
			elem, _ := strconv.ParseUint(string(row[3]), 10, 32)
			base, _ := strconv.ParseUint(string(row[4]), 10, 32)
			var cat byte
			if len(row[2]) > 0 {
				cat = row[2][0]
			}
			types[uint32(oid)] = pgType{name: string(row[1]), category: cat, elem: uint32(elem), base: uint32(base)}
		}
	}
	tc.mu.Lock()
	tc.types = types
	tc.mu.Unlock()
	return nil
}

func (tc *typeCache) get(oid uint32) (pgType, bool) {
	tc.mu.RLock()
	defer tc.mu.RUnlock()
	t, ok := tc.types[oid]
	return t, ok
}

// name is the type's name as the catalog writes it ("int4",
// "timestamptz"); arrays are "int4[]".
func (tc *typeCache) name(oid uint32) string {
	t, ok := tc.get(oid)
	if !ok {
		return "unknown"
	}
	if t.category == 'A' && t.elem != 0 && strings.HasPrefix(t.name, "_") {
		if et, ok := tc.get(t.elem); ok {
			return et.name + "[]"
		}
	}
	return t.name
}

// convOf is how values of type oid are read.
func (tc *typeCache) convOf(oid uint32) conv {
	for range 8 { // follow domains to their base type
		switch oid {
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID:
			return convInt
		case pgtype.Float4OID, pgtype.Float8OID:
			return convFloat
		case pgtype.NumericOID:
			return convNumeric
		case pgtype.BoolOID:
			return convBool
		case pgtype.ByteaOID:
			return convBytea
		case pgtype.TimestampOID:
			return convTimestamp
		case pgtype.TimestamptzOID:
			return convTimestamptz
		case pgtype.DateOID:
			return convDate
		}
		t, ok := tc.get(oid)
		if !ok {
			return convText
		}
		if t.base != 0 {
			oid = t.base
			continue
		}
		if t.category == 'A' && t.elem != 0 {
			return convArray
		}
		return convText
	}
	return convText
}

// cursor reads the current row of a result in PostgreSQL's text format.
type cursor struct {
	convs []conv
	elems []conv // an array column's element conversion
	// binary: the column arrives in PostgreSQL's binary format (integers,
	// floats and booleans: no text to parse).
	binary []bool
	// computed: a numeric column without a declared precision (an
	// expression such as avg(x)), whose long fractions are a division's
	// rounding rather than stored digits.
	computed []bool
	kinds    []query.Kind
	ints     []int64
	floats   []float64
	bytes    [][]byte
	bufs     [][]byte // per-column scratch for converted text and bytes
}

var _ query.Cursor = (*cursor)(nil)

func newCursor(tc *typeCache, fields []pgconn.FieldDescription) *cursor {
	n := len(fields)
	c := &cursor{convs: make([]conv, n), elems: make([]conv, n), computed: make([]bool, n), binary: make([]bool, n), kinds: make([]query.Kind, n), ints: make([]int64, n),
		floats: make([]float64, n), bytes: make([][]byte, n), bufs: make([][]byte, n)}
	for i, f := range fields {
		c.convs[i] = tc.convOf(f.DataTypeOID)
		c.computed[i] = f.TypeModifier < 0 && f.TableOID == 0
		c.binary[i] = binaryFormat(f.DataTypeOID)
		if c.convs[i] == convArray {
			t, _ := tc.get(f.DataTypeOID)
			c.elems[i] = tc.convOf(t.elem)
		}
	}
	return c
}

// set decodes one row's raw values; the cursor keeps pointers into raw
// for text, valid until the next row.
func (c *cursor) set(raw [][]byte) {
	for i, v := range raw {
		c.bytes[i] = nil
		if v == nil {
			c.kinds[i] = query.Null
			continue
		}
		if c.binary[i] {
			c.setBinary(i, v)
			continue
		}
		switch c.convs[i] {
		case convInt:
			n, err := strconv.ParseInt(unsafeString(v), 10, 64)
			if err != nil {
				c.text(i, v)
				continue
			}
			c.kinds[i], c.ints[i] = query.Integer, n
		case convFloat:
			f, err := strconv.ParseFloat(unsafeString(v), 64)
			if err != nil {
				c.text(i, v)
				continue
			}
			c.kinds[i], c.floats[i] = query.Real, f
		case convNumeric:
			if f, ok := numericFloat(v, c.computed[i]); ok {
				c.kinds[i], c.floats[i] = query.Real, f
			} else {
				c.text(i, v)
			}
		case convBool:
			c.kinds[i] = query.Integer
			if len(v) > 0 && v[0] == 't' {
				c.ints[i] = 1
			} else {
				c.ints[i] = 0
			}
		case convBytea:
			if len(v) >= 2 && v[0] == '\\' && v[1] == 'x' {
				b := c.bufs[i][:0]
				b = append(b, make([]byte, (len(v)-2)/2)...)
				if _, err := hex.Decode(b, v[2:]); err == nil {
					c.bufs[i] = b
					c.kinds[i], c.bytes[i] = query.Blob, b
					continue
				}
			}
			c.kinds[i], c.bytes[i] = query.Blob, v
		case convTimestamp, convTimestamptz:
			c.bufs[i] = isoTimestamp(c.bufs[i][:0], v)
			c.text(i, c.bufs[i])
		case convArray:
			c.bufs[i] = arrayJSON(c.bufs[i][:0], v, c.elems[i])
			c.text(i, c.bufs[i])
		default:
			c.text(i, v)
		}
	}
}

// binaryFormat reports whether values of type oid are asked for in
// binary: the built-in integers, float8, boolean and date (not domains
// over them; not float4, whose text, 0.1, is what people mean rather
// than the float32 value widened, 0.10000000149011612). A date's binary
// form is four bytes the server writes without formatting them: a
// million dates cost it some 35 ms less than their text.
func binaryFormat(oid uint32) bool {
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.Float8OID, pgtype.BoolOID, pgtype.DateOID:
		return true
	}
	return false
}

// resultFormats are the formats to ask for, column by column.
func resultFormats(fields []pgconn.FieldDescription) []int16 {
	out := make([]int16, len(fields))
	for i, f := range fields {
		if binaryFormat(f.DataTypeOID) {
			out[i] = 1
		}
	}
	return out
}

// setBinary reads a binary integer, float, boolean or date.
func (c *cursor) setBinary(i int, v []byte) {
	switch {
	case c.convs[i] == convBool && len(v) == 1:
		c.kinds[i], c.ints[i] = query.Integer, int64(v[0])
	case c.convs[i] == convInt && len(v) == 2:
		c.kinds[i], c.ints[i] = query.Integer, int64(int16(binary.BigEndian.Uint16(v)))
	case c.convs[i] == convInt && len(v) == 4:
		c.kinds[i], c.ints[i] = query.Integer, int64(int32(binary.BigEndian.Uint32(v)))
	case c.convs[i] == convInt && len(v) == 8:
		c.kinds[i], c.ints[i] = query.Integer, int64(binary.BigEndian.Uint64(v))
	case c.convs[i] == convFloat && len(v) == 4:
		c.kinds[i], c.floats[i] = query.Real, float64(math.Float32frombits(binary.BigEndian.Uint32(v)))
	case c.convs[i] == convFloat && len(v) == 8:
		c.kinds[i], c.floats[i] = query.Real, math.Float64frombits(binary.BigEndian.Uint64(v))
	case c.convs[i] == convDate && len(v) == 4:
		c.bufs[i] = appendDate(c.bufs[i][:0], int32(binary.BigEndian.Uint32(v)))
		c.text(i, c.bufs[i])
	default:
		c.kinds[i] = query.Null
	}
}

func (c *cursor) text(i int, v []byte) { c.kinds[i], c.bytes[i] = query.Text, v }

func (c *cursor) Len() int              { return len(c.kinds) }
func (c *cursor) Kind(i int) query.Kind { return c.kinds[i] }
func (c *cursor) Int64(i int) int64 {
	if c.kinds[i] == query.Real {
		return int64(c.floats[i])
	}
	return c.ints[i]
}
func (c *cursor) Float64(i int) float64 {
	if c.kinds[i] == query.Integer {
		return float64(c.ints[i])
	}
	return c.floats[i]
}
func (c *cursor) Bytes(i int) []byte { return c.bytes[i] }

func (c *cursor) Value(i int) any {
	switch c.kinds[i] {
	case query.Integer:
		return c.ints[i]
	case query.Real:
		return c.floats[i]
	case query.Text:
		return string(c.bytes[i])
	case query.Blob:
		return append([]byte{}, c.bytes[i]...)
	}
	return nil
}

func (c *cursor) Row() query.Row { return engine.RowOf(c, len(c.kinds)) }

func (c *cursor) size() int64 {
	var s int64
	for i, k := range c.kinds {
		s += 16
		if k == query.Text || k == query.Blob {
			s += int64(len(c.bytes[i]))
		}
	}
	return s
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// maxExactDigits is how many significant digits a numeric may have to be
// read as a float64 without changing when printed back.
const maxExactDigits = 15

// numericFloat reads a numeric's text as a float64 when it has at most 15
// significant digits, which strconv reads exactly. A computed numeric (no
// declared precision, not a table's column: avg(x), sum(x) / n) is read as
// a float64 too when its integer part has at most 15 digits: its long
// fraction is a division's rounding (avg of integers has 16 or more
// significant digits), and MySQL/MariaDB give such values as numbers.
func numericFloat(v []byte, computed bool) (float64, bool) {
	digits, intDigits := 0, 0
	leading, fraction := true, false
	for _, b := range v {
		switch {
		case b >= '1' && b <= '9':
			leading = false
			digits++
		case b == '0':
			if !leading {
				digits++
			}
		case b == '.':
			fraction = true
			intDigits = digits
			continue
		case b == '-' || b == '+':
			continue
		default:
			return 0, false // NaN, Infinity, an exponent
		}
	}
	if !fraction {
		intDigits = digits
	}
	if digits > maxExactDigits && !(computed && fraction && intDigits <= maxExactDigits) {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafeString(v), 64)
	return f, err == nil
}

// isoTimestamp writes PostgreSQL's ISO timestamp text as ISO 8601:
// "2024-03-01 10:00:00+00" → "2024-03-01T10:00:00Z", "+05:30" kept,
// "+05" → "+05:00"; infinity and BC dates as they are.
func isoTimestamp(dst, v []byte) []byte {
	if len(v) < 19 || v[10] != ' ' || v[len(v)-1] == 'C' {
		return append(dst, v...)
	}
	dst = append(dst, v[:10]...)
	dst = append(dst, 'T')
	rest := v[11:]
	// The zone starts at the first + or - after the time.
	z := -1
	for j := 8; j < len(rest); j++ {
		if rest[j] == '+' || rest[j] == '-' {
			z = j
			break
		}
	}
	if z < 0 {
		return append(dst, rest...)
	}
	dst = append(dst, rest[:z]...)
	zone := rest[z:]
	switch {
	case string(zone) == "+00" || string(zone) == "+00:00":
		return append(dst, 'Z')
	case len(zone) == 3:
		dst = append(dst, zone...)
		return append(dst, ":00"...)
	}
	return append(dst, zone...)
}

// arrayJSON writes an array's text form ({1,2,NULL}, {"a b",c},
// {{1,2},{3,4}}) as JSON: numbers and booleans unquoted when the elements
// are, strings quoted, NULL null. A dimension decoration ([0:1]={…}) is
// dropped.
func arrayJSON(dst, v []byte, elem conv) []byte {
	if i := strings.IndexByte(unsafeString(v), '='); i >= 0 && len(v) > 0 && v[0] == '[' {
		v = v[i+1:]
	}
	var item []byte
	emit := func(quoted bool) {
		switch {
		case !quoted && string(item) == "NULL":
			dst = append(dst, "null"...)
		case elem == convBool:
			if len(item) > 0 && item[0] == 't' {
				dst = append(dst, "true"...)
			} else {
				dst = append(dst, "false"...)
			}
		case (elem == convInt || elem == convFloat || elem == convNumeric) && isJSONNumber(item):
			dst = append(dst, item...)
		default:
			dst = appendJSONString(dst, string(item))
		}
	}
	for i := 0; i < len(v); i++ {
		switch b := v[i]; b {
		case '{':
			dst = append(dst, '[')
		case '}':
			dst = append(dst, ']')
		case ',':
			dst = append(dst, ',')
		case ' ':
		case '"':
			item = item[:0]
			for i++; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				item = append(item, v[i])
			}
			emit(true)
		default:
			item = item[:0]
			for ; i < len(v) && v[i] != ',' && v[i] != '}'; i++ {
				item = append(item, v[i])
			}
			i--
			emit(false)
		}
	}
	return dst
}

func isJSONNumber(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}

// appendJSONString writes s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r < 0x20:
			dst = append(dst, `\u00`...)
			dst = append(dst, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
		default:
			dst = append(dst, string(r)...)
		}
	}
	return append(dst, '"')
}

// postgresEpochJDate is the Julian day of 2000-01-01, the day a date's
// binary form counts from.
const postgresEpochJDate = 2451545

// appendDate writes a date in its binary form (days since 2000-01-01) as
// the server writes its text with DateStyle ISO: 2024-02-29,
// 0044-03-15 BC, 10000-01-01, infinity.
func appendDate(dst []byte, days int32) []byte {
	switch days {
	case math.MinInt32:
		return append(dst, "-infinity"...)
	case math.MaxInt32:
		return append(dst, "infinity"...)
	}
	y, m, d := julianDate(int64(days) + postgresEpochJDate)
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	dst = appendPadded(dst, d, 2)
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendPadded writes n in decimal, zero-padded to width digits.
func appendPadded(dst []byte, n, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], int64(n), 10)
	for range width - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// julianDate is the Gregorian date of Julian day jd (year 0 is 1 BC),
// the server's own arithmetic (j2date), in the same unsigned integers.
func julianDate(jd int64) (year, month, day int) {
	julian := uint32(jd) + 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := int(julian * 4 / 1461)
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += int(quad * 4)
	quad = julian * 2141 / 65536
	return y - 4800, int((quad+10)%12 + 1), int(julian - 7834*quad/256)
}
