package funcs_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite/funcs"
	"github.com/tablewise/tablewise/core/testdb"
)

// The limits core/db puts on every connection that matter here.
var limits = map[int]int{
	lite.LimitLength:            50_000_000,
	lite.LimitLikePatternLength: 10_000,
	lite.LimitFunctionArg:       100,
}

var (
	connsOnce         sync.Once
	builtin, replaced *lite.Conn
	connsErr          error
)

// conns returns two in-memory connections: one with SQLite's built-in
// functions, one with this package's redefinitions.
func conns(t testing.TB) (*lite.Conn, *lite.Conn) {
	t.Helper()
	connsOnce.Do(func() {
		open := func(register bool) *lite.Conn {
			c, err := lite.Open(":memory:", lite.OpenReadOnly|lite.OpenNoMutex)
			if err != nil {
				connsErr = err
				return nil
			}
			for id, v := range limits {
				c.Limit(id, v)
			}
			if register {
				if err := funcs.Register(c); err != nil {
					connsErr = err
				}
			}
			return c
		}
		builtin, replaced = open(false), open(true)
	})
	if connsErr != nil {
		t.Fatal(connsErr)
	}
	return builtin, replaced
}

// result is everything observable about one value or error.
type result struct {
	typ     int
	val     string
	subtype int64
	err     string
}

func (r result) String() string {
	if r.err != "" {
		return "error " + r.err
	}
	return fmt.Sprintf("type %d subtype %d %q", r.typ, r.subtype, r.val)
}

// eval runs SELECT expr, subtype(expr) on c.
func eval(c *lite.Conn, expr string) result {
	st, _, err := c.Prepare("SELECT " + expr + ", subtype(" + expr + ")")
	if err != nil {
		return result{err: "prepare: " + err.Error()}
	}
	defer st.Finalize()
	if _, err := st.Step(); err != nil {
		var le *lite.Error
		if errors.As(err, &le) {
			return result{err: fmt.Sprintf("%s (%d)", le.Msg, le.Ext)}
		}
		return result{err: err.Error()}
	}
	r := result{typ: st.Type(0), subtype: st.Int64(1)}
	switch r.typ {
	case lite.Integer:
		r.val = fmt.Sprint(st.Int64(0))
	case lite.Float:
		r.val = fmt.Sprint(st.Float64(0))
	case lite.Text:
		r.val = string(st.RawText(0))
	case lite.Blob:
		r.val = string(st.RawBlob(0))
	}
	return r
}

// same fails the test when expr differs between SQLite's built-ins and the
// redefinitions.
func same(t testing.TB, expr string) {
	t.Helper()
	b, r := conns(t)
	want, got := eval(b, expr), eval(r, expr)
	if want != got {
		t.Fatalf("%s:\n  SQLite: %v\n  ours:   %v", clipText(expr), want, got)
	}
}

func clipText(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// text is a SQL expression for a text value holding exactly b.
func text(b []byte) string {
	if len(b) == 0 {
		return "''"
	}
	return "CAST(X'" + hex.EncodeToString(b) + "' AS TEXT)"
}

func blob(b []byte) string { return "X'" + hex.EncodeToString(b) + "'" }

// pieces are the building blocks of generated strings: ASCII, both cases,
// SQL and GLOB wildcards, multi-byte characters, malformed sequences
// (stray continuation bytes, lone lead bytes, overlong, surrogates), NUL.
var pieces = []string{
	"a", "b", "A", "B", "z", " ", ".", "%", "_", "*", "?", "[", "]", "^", "-", "\\", "x", "0", "f", "F", "9",
	"é", "É", "ß", "€", "😀", "中", "\u00a0", "\x80", "\xa9", "\xc3", "\xe2\x82", "\xc0\x80", "\xed\xa0\x80", "\xff", "\x00",
	"ab", "aba", "aaa", "\xc3\xa9\xa9",
}

func randBytes(r *rand.Rand, maxPieces int, from []string) []byte {
	var b []byte
	for n := r.IntN(maxPieces + 1); n > 0; n-- {
		b = append(b, from[r.IntN(len(from))]...)
	}
	return b
}

// arg is a random argument expression: mostly text, sometimes a blob, a
// number or NULL.
func arg(r *rand.Rand, b []byte) string {
	switch r.IntN(20) {
	case 0:
		return "NULL"
	case 1:
		return blob(b)
	case 2:
		return fmt.Sprint(r.IntN(2000) - 1000)
	case 3:
		return fmt.Sprintf("%g", r.Float64()*100)
	}
	return text(b)
}

const cases = 3000

func TestInstrMatchesSQLite(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range cases {
		h := randBytes(r, 12, pieces)
		var n []byte
		if len(h) > 0 && r.IntN(2) == 0 { // a piece of h, often found
			i := r.IntN(len(h))
			n = h[i : i+r.IntN(len(h)-i+1)]
		} else {
			n = randBytes(r, 3, pieces)
		}
		same(t, fmt.Sprintf("instr(%s, %s)", arg(r, h), arg(r, n)))
	}
	// Long needles (two-way search), periodic and not, found and not.
	for _, c := range [][2]string{
		{strings.Repeat("a", 1000) + "b", strings.Repeat("a", 40) + "b"},
		{strings.Repeat("a", 1000), strings.Repeat("a", 40) + "b"},
		{strings.Repeat("ab", 500) + "abc", strings.Repeat("ab", 20) + "c"},
		{strings.Repeat("é", 300) + "x" + strings.Repeat("é", 30), strings.Repeat("é", 20) + "x"},
		{strings.Repeat("abcabd", 100), "abcabdabcabdabcabdab"},
		{"xyz" + strings.Repeat("€", 100), strings.Repeat("€", 50)},
		{strings.Repeat("\xa9é", 50), strings.Repeat("\xa9é", 10)},
	} {
		same(t, fmt.Sprintf("instr(%s, %s)", text([]byte(c[0])), text([]byte(c[1]))))
		same(t, fmt.Sprintf("instr(%s, %s)", blob([]byte(c[0])), blob([]byte(c[1]))))
	}
	for range 300 {
		h := randBytes(r, 400, []string{"a", "b", "ab", "é"})
		i := r.IntN(len(h) + 1)
		n := h[i : i+min(len(h)-i, 17+r.IntN(60))]
		same(t, fmt.Sprintf("instr(%s, %s)", text(h), text(n)))
	}
}

func TestReplaceMatchesSQLite(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range cases {
		s := randBytes(r, 12, pieces)
		var p []byte
		if len(s) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(s))
			p = s[i : i+r.IntN(len(s)-i+1)]
		} else {
			p = randBytes(r, 2, pieces)
		}
		rep := randBytes(r, 3, pieces)
		same(t, fmt.Sprintf("replace(%s, %s, %s)", arg(r, s), arg(r, p), arg(r, rep)))
	}
	for range 200 {
		s := randBytes(r, 300, []string{"a", "b", "ab"})
		p := randBytes(r, 25, []string{"a", "b"})
		same(t, fmt.Sprintf("replace(%s, %s, 'X')", text(s), text(p)))
	}
}

func TestReplaceLengthLimit(t *testing.T) {
	b, rp := conns(t)
	for _, c := range []*lite.Conn{b, rp} {
		c.Limit(lite.LimitLength, 100)
	}
	defer func() {
		for _, c := range []*lite.Conn{b, rp} {
			c.Limit(lite.LimitLength, limits[lite.LimitLength])
		}
	}()
	for _, e := range []string{
		"replace(printf('%.*c', 99, 'a'), 'b', 'c')",
		"replace(printf('%.*c', 99, 'a'), 'a', 'a')",
		"replace(printf('%.*c', 50, 'a'), 'a', 'aa')",
		"replace(printf('%.*c', 51, 'a'), 'a', 'aa')",
		"replace(printf('%.*c', 60, 'a'), 'aa', 'aaa')",
		"replace(printf('%.*c', 99, 'a'), 'a', '')",
		"replace(printf('%.*c', 10, 'a'), 'a', printf('%.*c', 10, 'b'))",
	} {
		same(t, e)
	}
}

func TestTrimMatchesSQLite(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range cases {
		in := randBytes(r, 12, pieces)
		set := randBytes(r, 4, pieces)
		f := []string{"trim", "ltrim", "rtrim"}[r.IntN(3)]
		same(t, fmt.Sprintf("%s(%s, %s)", f, arg(r, in), arg(r, set)))
	}
	// Sets of well-formed characters only, the fast paths.
	valid := []string{"a", "b", " ", "é", "€", "😀", "中", "x"}
	for range cases {
		in := randBytes(r, 12, valid)
		set := randBytes(r, 3, valid)
		f := []string{"trim", "ltrim", "rtrim"}[r.IntN(3)]
		same(t, fmt.Sprintf("%s(%s, %s)", f, text(in), text(set)))
	}
}

func TestLikeGlobMatchesSQLite(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pat := append([]string{"%", "%", "_", "*", "*", "?", "[a-c]", "[^b]", "[]a]", "[-]", "[a-]", "[é-ü]"}, pieces...)
	for range 3 * cases {
		s := randBytes(r, 10, pieces)
		var p []byte
		if r.IntN(3) == 0 && len(s) > 0 { // a pattern built from s, often matching
			for _, c := range s {
				switch r.IntN(6) {
				case 0:
					p = append(p, '%')
				case 1:
					p = append(p, '_')
				case 2:
					p = append(p, '*')
				case 3:
					p = append(p, '?')
				default:
					p = append(p, c)
				}
			}
		} else {
			p = randBytes(r, 6, pat)
		}
		switch r.IntN(4) {
		case 0:
			same(t, fmt.Sprintf("%s GLOB %s", arg(r, s), arg(r, p)))
		case 1:
			esc := [][]byte{[]byte("\\"), []byte("%"), []byte("_"), []byte("é"), []byte("ab"), {}, []byte("a")}[r.IntN(7)]
			same(t, fmt.Sprintf("%s LIKE %s ESCAPE %s", arg(r, s), arg(r, p), arg(r, esc)))
		default:
			same(t, fmt.Sprintf("%s LIKE %s", arg(r, s), arg(r, p)))
		}
	}
	for _, e := range []string{
		"'x' LIKE printf('%.*c', 10001, '%')",
		"'x' LIKE printf('%.*c', 10000, '%')",
		"'ABC' LIKE 'a_c'", "'abc' GLOB 'A?C'", "'a%c' LIKE 'a\\%c' ESCAPE '\\'", "'abc' LIKE 'a\\%c' ESCAPE '\\'",
		"'a_c' LIKE 'a%_c' ESCAPE '%'", "'aXc' LIKE 'a%_c' ESCAPE '%'", "'É' LIKE 'é'", "like('%', 'x', NULL)",
		"like('a', 'a', '')", "like('a', 'a', 'ab')", "'abc' GLOB '*[c]'", "']' GLOB '[]]'", "'b' GLOB '[^a-c]'",
	} {
		same(t, e)
	}
}

func TestUnhexMatchesSQLite(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	hexPieces := []string{"0", "1", "a", "F", "f", "9", "3", "g", " ", "-", ":", "é", "\xc3", "\x80", "\x00", "ab", "12"}
	for range cases {
		x := randBytes(r, 12, hexPieces)
		y := randBytes(r, 3, hexPieces[6:])
		same(t, fmt.Sprintf("unhex(%s, %s)", arg(r, x), arg(r, y)))
	}
}

func TestJSONMatchesSQLite(t *testing.T) {
	docs := []string{
		`'{"a":1,"b":{"c":[1,2,{"d":null}]},"e":"x\u0041"}'`,
		`'[1,2,[3,4],{"k":"v"}]'`,
		`'{a:1, b:0x10, c:''single'', /* comment */ d:[1,2,],}'`, // JSON5
		`jsonb('{"a":1,"b":{"c":[1,2,{"d":null}]}}')`,
		`'not json'`, `NULL`, `'{"a":1,"a":2}'`, `x'0102'`,
	}
	patches := []string{`'{"a":null}'`, `'{"b":{"c":5},"z":[1]}'`, `'{"b":null,"a":{"x":1}}'`, `'[1]'`, `'3'`, `'{a:2}'`,
		`jsonb('{"e":{"f":1}}')`, `NULL`, `'bad'`, `json('{"q":1}')`}
	for _, d := range docs {
		for _, p := range patches {
			same(t, fmt.Sprintf("json_patch(%s, %s)", d, p))
			same(t, fmt.Sprintf("jsonb_patch(%s, %s)", d, p))
			same(t, fmt.Sprintf("json_patch(%s, %s) -> '$.a'", d, p))
		}
		paths := []string{`'$.a'`, `'$.b.c[2]'`, `'$.zz'`, `'$[1]'`, `'$'`, `'bad'`, `'$.e'`}
		for n := 2; n <= len(paths); n++ {
			ps := strings.Join(paths[:n], ", ")
			for _, f := range []string{"json_extract", "jsonb_extract", "json_remove", "jsonb_remove"} {
				same(t, fmt.Sprintf("%s(%s, %s)", f, d, ps))
			}
		}
		for _, f := range []string{"json_set", "jsonb_set", "json_insert", "jsonb_insert", "json_replace", "jsonb_replace", "json_array_insert", "jsonb_array_insert"} {
			same(t, fmt.Sprintf(`%s(%s, '$.a', 1, '$.n', json('[1,{"x":2}]'))`, f, d))
			same(t, fmt.Sprintf(`%s(%s, '$.a', '[1]', '$.b.c[#]', jsonb('{"y":3}'), '$[0]', x'00')`, f, d))
			same(t, fmt.Sprintf(`%s(%s, '$.a', 1, '$.b')`, f, d)) // even: an error
		}
	}
	same(t, `json_object('k', json_patch('{"a":1}', '{"b":2}'))`)
	same(t, `json_array(json_extract('{"a":[1]}', '$.a', '$.a'))`)
}

// TestJSONWorkIsBounded: several paths into a big document, or a patch of
// many labels into an object of many labels, fail fast with SQLITE_TOOBIG
// instead of running for seconds inside one call.
func TestJSONWorkIsBounded(t *testing.T) {
	_, rp := conns(t)
	big := "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 300000) SELECT json_group_object(x, x) FROM c)"
	for _, e := range []string{
		"json_extract(" + big + ", " + strings.Repeat("'$.x', ", 98) + "'$.y')",
		"json_patch(" + big + ", " + big + ")",
	} {
		res := eval(rp, e)
		if !strings.Contains(res.err, "more work than one call may do") || !strings.Contains(res.err, "(18)") {
			t.Errorf("%s: %v", clipText(e), res)
		}
	}
	res := eval(rp, "json_extract("+big+", '$.7', '$.300000')")
	if res.err != "" || res.val != "[7,300000]" {
		t.Errorf("two paths into the same document: %v", res)
	}
}

// Fuzz tests: go test ./core/internal/lite/funcs -fuzz FuzzLike (and so
// on) keeps comparing with SQLite; without -fuzz the seeds run.

func FuzzLike(f *testing.F) {
	f.Add([]byte("a%b_c"), []byte("aXXbYc"), []byte("\\"), uint8(0))
	f.Add([]byte("[a-z]*?"), []byte("hello"), []byte(""), uint8(1))
	f.Add([]byte("%é%"), []byte("\xc3\xa9\xa9"), []byte("é"), uint8(2))
	f.Fuzz(func(t *testing.T, pat, str, esc []byte, mode uint8) {
		switch mode % 3 {
		case 0:
			same(t, fmt.Sprintf("%s LIKE %s", text(str), text(pat)))
		case 1:
			same(t, fmt.Sprintf("%s GLOB %s", text(str), text(pat)))
		default:
			same(t, fmt.Sprintf("%s LIKE %s ESCAPE %s", text(str), text(pat), text(esc)))
		}
	})
}

func FuzzInstrReplace(f *testing.F) {
	f.Add([]byte("hello world"), []byte("o w"), []byte("0"))
	f.Add([]byte(strings.Repeat("ab", 40)), []byte(strings.Repeat("ab", 12)+"c"), []byte(""))
	f.Add([]byte("é\xa9é"), []byte("\xa9"), []byte("xyz"))
	f.Fuzz(func(t *testing.T, h, n, rep []byte) {
		same(t, fmt.Sprintf("instr(%s, %s)", text(h), text(n)))
		same(t, fmt.Sprintf("instr(%s, %s)", blob(h), blob(n)))
		same(t, fmt.Sprintf("replace(%s, %s, %s)", text(h), text(n), text(rep)))
	})
}

func FuzzTrim(f *testing.F) {
	f.Add([]byte("  xx  "), []byte(" "))
	f.Add([]byte("ééaéé"), []byte("é"))
	f.Add([]byte("\xc3\xa9\xa9a\xa9"), []byte("\xc3\xa9\xa9x\xa9"))
	f.Fuzz(func(t *testing.T, in, set []byte) {
		for _, fn := range []string{"trim", "ltrim", "rtrim"} {
			same(t, fmt.Sprintf("%s(%s, %s)", fn, text(in), text(set)))
		}
	})
}

func FuzzUnhex(f *testing.F) {
	f.Add([]byte("01 02-03"), []byte(" -"))
	f.Add([]byte("ab\xc3\xa9cd"), []byte("é"))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		same(t, fmt.Sprintf("unhex(%s, %s)", text(x), text(y)))
	})
}

// TestSlowCallsStopAtInterrupt: the calls that stay super-linear (SQLite's
// own algorithm, for exact results) poll the interrupt flag, so an
// interrupt (the deadline) ends them with SQLITE_INTERRUPT. The built-in
// versions of these calls run for minutes to hours.
func TestSlowCallsStopAtInterrupt(t *testing.T) {
	_, rp := conns(t)
	a10M := "printf('%.*c', 10000000, 'a')"
	for _, e := range []string{
		a10M + " LIKE '%' || printf('%.*c', 9000, 'a') || 'b'",
		a10M + " GLOB '*' || printf('%.*c', 9000, 'a') || 'b'",
		a10M + " GLOB '*[a]' || printf('%.*c', 3000, 'a') || 'b'",
		"trim(printf('%.*c', 1000000, 'a'), printf('%.*c', 1000000, 'b') || CAST(x'c38080' AS TEXT) || 'a')",
		"rtrim(printf('%.*c', 1000000, 'a'), printf('%.*c', 1000000, 'b') || CAST(x'c38080' AS TEXT) || 'a')",
	} {
		stop := rp.InterruptAfter(200*time.Millisecond, context.Background())
		start := time.Now()
		res := eval(rp, e)
		fired := stop()
		if !fired || !strings.Contains(res.err, "(9)") {
			t.Errorf("%s: %v (interrupt fired: %v)", clipText(e), res, fired)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: stopped only after %v", clipText(e), d)
		}
	}
}

// TestChinookMatchesSQLite compares the redefinitions with SQLite's
// built-ins over every text column of the Chinook database: real names,
// titles and addresses in many languages.
func TestChinookMatchesSQLite(t *testing.T) {
	path := testdb.SharedData(t, "chinook.sqlite")
	b, r := openFile(t, "file:"+path+"?mode=ro&immutable=1")
	cols := rowsOf(t, b, false, `SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' AND p.type LIKE '%CHAR%' ORDER BY 1, 2`)
	if len(cols) < 20 {
		t.Fatalf("only %d text columns found", len(cols))
	}
	exprs := []string{
		"%[1]s LIKE '%%a%%'", "%[1]s LIKE '_a%%'", "%[1]s LIKE '%%E_'", "%[1]s NOT LIKE '%%s'", "%[1]s GLOB '*e*'", "%[1]s GLOB '[A-M]*'",
		"%[1]s GLOB '*[^a-z ]*'", "%[1]s LIKE '%%\\_%%' ESCAPE '\\'", "instr(%[1]s, 'e')", "instr(%[1]s, 'an')", "instr(%[1]s, 'é')",
		"replace(%[1]s, 'a', 'XY')", "replace(%[1]s, ' ', '')", "trim(%[1]s, 'aeiou ')", "ltrim(%[1]s, 'ABCDEFGHIJ')",
		"rtrim(%[1]s, 's.é ')", "trim(%[1]s, 'ñéüö')", "unhex(hex(%[1]s), 'x')",
	}
	values := 0
	for _, c := range cols {
		var list []string
		for _, e := range exprs {
			list = append(list, fmt.Sprintf(e, `"`+c[1]+`"`))
		}
		q := fmt.Sprintf(`SELECT %s FROM "%s"`, strings.Join(list, ", "), c[0])
		want, got := rowsOf(t, b, true, q), rowsOf(t, r, true, q)
		if len(want) == 0 {
			t.Errorf("%s: no rows", c[0])
		}
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s.%s differs", c[0], c[1])
		}
		values += len(want) * len(exprs)
	}
	t.Logf("%d text columns, %d values compared", len(cols), values)
}

// openFile opens uri twice, read-only: with SQLite's built-in functions
// and with the redefinitions.
func openFile(t testing.TB, uri string) (builtin, replaced *lite.Conn) {
	t.Helper()
	open := func(register bool) *lite.Conn {
		c, err := lite.Open(uri, lite.OpenReadOnly|lite.OpenURI|lite.OpenNoMutex)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		if register {
			if err := funcs.Register(c); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	return open(false), open(true)
}

// rowsOf collects q's rows as text, with each value's storage class when
// typed is true.
func rowsOf(t *testing.T, c *lite.Conn, typed bool, q string) [][]string {
	t.Helper()
	var out [][]string
	err := c.Each(q, func(st *lite.Stmt) error {
		row := make([]string, st.ColumnCount())
		for i := range row {
			row[i] = st.Text(i)
			if typed {
				row[i] = fmt.Sprintf("%d:%q", st.Type(i), row[i])
			}
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestLikeOptimisationKept: with LIKE and GLOB redefined, SQLite still
// answers a prefix pattern from an index (the planner's LIKE optimisation,
// which MarkLike keeps), and with the same rows as its built-ins. If a new
// version of the library lays its structures out differently, MarkLike
// finds nothing and this test fails.
func TestLikeOptimisationKept(t *testing.T) {
	path := testdb.Build(t, "like.db", `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5000)
		INSERT INTO t(name) SELECT printf('%s%s%04d', char(65 + x % 3, 97 + x / 3 % 26), CASE x % 7 WHEN 0 THEN '_é' WHEN 1 THEN '%' ELSE 'z' END, x) FROM c;
		CREATE INDEX t_nocase ON t(name COLLATE NOCASE); CREATE INDEX t_name ON t(name);`)
	b, r := openFile(t, "file:"+path+"?mode=ro")
	matched := 0
	for _, q := range []string{
		"name LIKE 'ab%'", "name LIKE 'AB%'", "name LIKE 'Ab_é%'", "name LIKE 'ba\\_%' ESCAPE '\\'", "name LIKE 'Ca\\%%' ESCAPE '\\'",
		"name GLOB 'Ab*'", "name GLOB 'ab*'", "name GLOB 'Bc_*'", "name GLOB 'Ca[%]*'", "name LIKE 'é%'",
	} {
		sql := "SELECT id FROM t WHERE " + q + " ORDER BY id"
		p := rowsOf(t, r, false, "EXPLAIN QUERY PLAN "+sql)
		if len(p) == 0 || !strings.HasPrefix(p[0][3], "SEARCH t USING COVERING INDEX") {
			t.Errorf("%s: plan %v, want an index search", q, p)
		}
		want, got := rowsOf(t, b, false, sql), rowsOf(t, r, false, sql)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: %d rows, SQLite %d", q, len(got), len(want))
		}
		matched += len(want)
	}
	if matched < 100 {
		t.Errorf("the patterns matched only %d rows", matched)
	}
}
