package lite

import (
	"math"
	"strings"
)

// Kinds of Datum.
const (
	ValNull = iota
	ValInt
	ValFloat
	ValText
	ValBlob
)

// Datum is one value of a row: Kind says which field holds it; a Text or
// Blob value's bytes are in Text.
type Datum struct {
	Kind  uint8
	Int   int64
	Float float64
	Text  []byte
}

// Column affinities (SQLite's SQLITE_AFF_*).
const (
	AffBlob    = 'A'
	AffText    = 'B'
	AffNumeric = 'C'
	AffInteger = 'D'
	AffReal    = 'E'
)

// AffinityOf is the affinity SQLite gives a column declared with type
// decl (sqlite3AffinityType).
func AffinityOf(decl string) byte {
	if decl == "" {
		return AffBlob
	}
	aff := byte(AffNumeric)
	var h uint32
	for _, c := range []byte(strings.ToLower(decl)) {
		h = h<<8 + uint32(c)
		switch {
		case h == 'c'<<24|'h'<<16|'a'<<8|'r', h == 'c'<<24|'l'<<16|'o'<<8|'b', h == 't'<<24|'e'<<16|'x'<<8|'t':
			aff = AffText
		case h == 'b'<<24|'l'<<16|'o'<<8|'b' && (aff == AffNumeric || aff == AffReal):
			aff = AffBlob
		case (h == 'r'<<24|'e'<<16|'a'<<8|'l' || h == 'f'<<24|'l'<<16|'o'<<8|'a' || h == 'd'<<24|'o'<<16|'u'<<8|'b') && aff == AffNumeric:
			aff = AffReal
		case h&0x00ffffff == 'i'<<16|'n'<<8|'t':
			return AffInteger
		}
	}
	return aff
}

// Store turns v into what SQLite stores when v is inserted into a column
// of affinity aff, as sqlite3_bind_* and the INSERT's affinity would: NaN
// is NULL, a real with an integer's value is an integer in a numeric
// column. It reports false, leaving v as it was, when only SQLite's own
// number parser can tell: text that may be a number in a numeric column,
// a number in a text column.
func Store(v *Datum, aff byte) bool {
	if v.Kind == ValFloat && math.IsNaN(v.Float) {
		*v = Datum{}
		return true
	}
	switch aff {
	case AffNumeric, AffInteger, AffReal:
		switch v.Kind {
		case ValFloat:
			if i, ok := realToInt(v.Float); ok {
				*v = Datum{Kind: ValInt, Int: i}
			}
		case ValText:
			return !mayBeNumber(v.Text)
		}
	case AffText:
		return v.Kind != ValInt && v.Kind != ValFloat
	}
	return true
}

// realToInt is f as an integer when it is one, the largest and smallest
// excepted (sqlite3VdbeIntegerAffinity).
func realToInt(f float64) (int64, bool) {
	if !(f > -9.2233720368547758e18 && f < 9.2233720368547758e18) {
		return 0, false
	}
	i := int64(f)
	return i, float64(i) == f && i > math.MinInt64 && i < math.MaxInt64
}

// mayBeNumber reports whether SQLite could read b as a number: spaces,
// a sign, digits with at most one point, an exponent, spaces
// (sqlite3AtoF's grammar). A false answer is certain.
func mayBeNumber(b []byte) bool {
	i, n := 0, len(b)
	space := func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
	for i < n && space(b[i]) {
		i++
	}
	if i < n && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < n && b[i] >= '0' && b[i] <= '9' {
		i++
		digits++
	}
	if i < n && b[i] == '.' {
		i++
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	for i < n && space(b[i]) {
		i++
	}
	return i == n
}

// Oracle stores values the way SQLite does, for the values Store cannot
// decide: it inserts them into a column of the same affinity of a private
// in-memory database and reads them back.
type Oracle struct {
	c   *Conn
	put map[byte]*Stmt
	get map[byte]*Stmt
	b   map[byte]*Binder
}

// oracleColumns names the oracle's column of each affinity.
var oracleColumns = map[byte]string{AffBlob: "a", AffText: "b", AffNumeric: "c", AffInteger: "d", AffReal: "e"}

// NewOracle opens an Oracle; Close releases it.
func NewOracle() (*Oracle, error) {
	c, err := Open(":memory:", OpenReadWrite|OpenCreate|OpenMemory|OpenNoMutex)
	if err != nil {
		return nil, err
	}
	o := &Oracle{c: c, put: map[byte]*Stmt{}, get: map[byte]*Stmt{}, b: map[byte]*Binder{}}
	if err := c.Exec("CREATE TABLE v (a, b TEXT, c NUMERIC, d INTEGER, e REAL)"); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// Check prepares sql (a CREATE TABLE statement) in the oracle's database:
// an error is the one SQLite gives.
func (o *Oracle) Check(sql string) error {
	return o.c.Exec(sql)
}

// Store turns v into what SQLite stores in a column of affinity aff; the
// bytes of text it returns are its own.
func (o *Oracle) Store(v *Datum, aff byte) error {
	if Store(v, aff) {
		return nil
	}
	col := oracleColumns[aff]
	put, get := o.put[aff], o.get[aff]
	if put == nil {
		var err error
		if put, _, err = o.c.Prepare("REPLACE INTO v (rowid, " + col + ") VALUES (1, ?)"); err != nil {
			return err
		}
		o.put[aff], o.b[aff] = put, put.NewBinder()
		if get, _, err = o.c.Prepare("SELECT " + col + " FROM v"); err != nil {
			return err
		}
		o.get[aff] = get
	}
	b := o.b[aff]
	var err error
	switch v.Kind {
	case ValInt:
		err = b.Int(1, v.Int)
	case ValFloat:
		err = b.Float(1, v.Float)
	case ValText:
		err = b.Text(1, v.Text)
	case ValBlob:
		err = b.Blob(1, v.Text)
	default:
		err = b.Null(1)
	}
	if err == nil {
		err = b.Exec()
	}
	if err != nil {
		return err
	}
	defer get.Reset()
	if _, err := get.Step(); err != nil {
		return err
	}
	switch get.Type(0) {
	case Integer:
		*v = Datum{Kind: ValInt, Int: get.Int64(0)}
	case Float:
		*v = Datum{Kind: ValFloat, Float: get.Float64(0)}
	case Text:
		*v = Datum{Kind: ValText, Text: append([]byte{}, get.RawText(0)...)}
	case Blob:
		*v = Datum{Kind: ValBlob, Text: append([]byte{}, get.RawBlob(0)...)}
	default:
		*v = Datum{}
	}
	return nil
}

// Close releases the oracle.
func (o *Oracle) Close() {
	for aff, st := range o.put {
		o.b[aff].Close()
		st.Finalize()
	}
	for _, st := range o.get {
		st.Finalize()
	}
	o.c.Close()
}
