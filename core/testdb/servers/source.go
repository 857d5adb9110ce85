package servers

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	_ "modernc.org/sqlite"
)

// kind is what a SQLite column becomes on a server.
type kind int

const (
	kInteger   kind = iota // integer or bigint (by the data, or BIGINT declared)
	kBool                  // BOOLEAN/BOOL holding 0 and 1
	kFloat                 // REAL, FLOAT, DOUBLE: double precision / DOUBLE
	kDecimal               // NUMERIC, DECIMAL (p,s), or any other numeric affinity
	kText                  // TEXT, CLOB, or CHAR(n) types: text or varchar(n)
	kDate                  // DATE holding 'YYYY-MM-DD'
	kTimestamp             // DATETIME, TIMESTAMP holding 'YYYY-MM-DD HH:MM:SS[.f]'
	kBlob                  // BLOB
)

// schema is what Load reads from a SQLite database: its tables (with the
// statistics of their values that decide widths and scales) and views.
type schema struct {
	Tables []*table
	Views  []*view
	// Notes lists what is not copied, and why.
	Notes []string
	cat   *catalog.Catalog // tablewise's catalog of the source
}

// comment is the comment of the table or view called name.
func (s *schema) comment(name string) string {
	if t := s.cat.Table(name); t != nil {
		return t.Comment
	}
	return ""
}

type table struct {
	Name, SQL, Comment string
	Columns            []*column
	PK                 []string
	FKs                []foreignKey
	Uniques            [][]string
	Indexes            []index
	Checks             []catalog.Check
	Rows               int64
}

type view struct{ Name, Body, Comment string }

type column struct {
	Name, Decl string
	NotNull    bool
	Default    string // SQLite's text of the default, "" when none
	Comment    string
	Kind       kind
	Big        bool // kInteger: bigint
	Length     int  // kText: declared varchar length, 0 for text
	Precision  int  // kDecimal: declared precision, 0 when none
	Scale      int  // kDecimal: declared scale, -1 when none
	Keyed      bool // part of a primary key, unique constraint, index or foreign key

	// Statistics of the values, from the first pass.
	MaxChars, MaxBytes int   // kText, kBlob
	IntDigits, Frac    int   // kDecimal (digits before and after the point), kTimestamp (fraction digits)
	Min, Max           int64 // kInteger
	seen               bool
}

type foreignKey struct {
	Columns, RefColumns []string
	RefTable            string
	OnDelete, OnUpdate  string
}

type index struct {
	Name    string
	Unique  bool
	Columns []string
	Desc    []bool
}

// openSource opens a SQLite file read-only (a file: URI with mode=ro: a plain
// path would ignore the mode).
func openSource(path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro"}
	d, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := d.Ping(); err != nil {
		d.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return d, nil
}

// readSchema reads the tables, their keys, indexes and comments, and the
// views of src (the file at path), then reads every value once to decide
// the columns' types and to refuse values the servers would not hold as
// they are. Comments and CHECK … IN lists come from tablewise's own
// catalog of the file.
func readSchema(ctx context.Context, src *sql.DB, path string) (*schema, error) {
	s := &schema{}
	tw, err := db.Open(ctx, path, db.Options{})
	if err != nil {
		return nil, err
	}
	cat, err := tw.Catalog(ctx)
	tw.Close()
	if err != nil {
		return nil, fmt.Errorf("read the catalog: %w", err)
	}
	s.cat = cat
	rows, err := src.QueryContext(ctx, `SELECT l.name, l.type, coalesce(m.sql, '') FROM pragma_table_list AS l
		LEFT JOIN sqlite_schema AS m ON m.name = l.name
		WHERE l.schema = 'main' AND l.name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY m.rowid`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	for rows.Next() {
		var name, typ, text string
		if err := rows.Scan(&name, &typ, &text); err != nil {
			rows.Close()
			return nil, err
		}
		switch typ {
		case "table":
			s.Tables = append(s.Tables, &table{Name: name, SQL: text, Comment: s.comment(name)})
		case "view":
			if m := viewAS.FindStringIndex(text); m != nil {
				s.Views = append(s.Views, &view{Name: name, Body: strings.TrimSpace(text[m[1]:]), Comment: s.comment(name)})
			} else {
				s.Notes = append(s.Notes, fmt.Sprintf("view %s: cannot find its AS in %q", name, text))
			}
		default: // virtual tables and their shadow tables
			s.Notes = append(s.Notes, fmt.Sprintf("%s table %s is not copied", typ, name))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	byName := map[string]*table{}
	for _, t := range s.Tables {
		byName[strings.ToLower(t.Name)] = t
	}
	for _, t := range s.Tables {
		if err := readTable(ctx, src, t, s); err != nil {
			return nil, fmt.Errorf("read table %s: %w", t.Name, err)
		}
	}
	// Foreign keys name the referenced table and columns as written, in any
	// case, or not at all (the primary key): resolve them to the real names.
	for _, t := range s.Tables {
		kept := t.FKs[:0]
		for _, fk := range t.FKs {
			ref := byName[strings.ToLower(fk.RefTable)]
			if ref == nil {
				s.Notes = append(s.Notes, fmt.Sprintf("foreign key of %s to missing table %s is not copied", t.Name, fk.RefTable))
				continue
			}
			fk.RefTable = ref.Name
			if len(fk.RefColumns) == 0 {
				fk.RefColumns = ref.PK
			}
			fk.RefColumns = canonical(ref, fk.RefColumns)
			if len(fk.RefColumns) != len(fk.Columns) {
				s.Notes = append(s.Notes, fmt.Sprintf("foreign key of %s to %s has no matching key columns: not copied", t.Name, ref.Name))
				continue
			}
			for _, c := range fk.RefColumns {
				ref.column(c).Keyed = true
			}
			kept = append(kept, fk)
		}
		t.FKs = kept
	}
	for _, t := range s.Tables {
		if err := scanValues(ctx, src, t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var viewAS = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?VIEW\b.*?\bAS\b`)

var declared = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$`)

// classify sets a column's kind from its declared type, in the order of
// SQLite's affinity rules, with the date and boolean names first.
func classify(c *column) {
	c.Scale = -1
	m := declared.FindStringSubmatch(c.Decl)
	name := strings.ToUpper(c.Decl)
	var n1, n2 int
	if m != nil {
		name = strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
		n1, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			n2, _ = strconv.Atoi(m[3])
		} else {
			n2 = -1
		}
	}
	switch {
	case name == "BOOLEAN" || name == "BOOL":
		c.Kind = kBool
	case name == "DATE":
		c.Kind = kDate
	case name == "DATETIME" || name == "TIMESTAMP":
		c.Kind = kTimestamp
	case strings.Contains(name, "INT"):
		c.Kind = kInteger
		c.Big = name == "BIGINT" || name == "INT8" || name == "UNSIGNED BIG INT"
	case strings.Contains(name, "CHAR") || strings.Contains(name, "CLOB") || strings.Contains(name, "TEXT"):
		c.Kind = kText
		if m != nil && m[2] != "" && strings.Contains(name, "CHAR") {
			c.Length = n1
		}
	case strings.Contains(name, "BLOB") || name == "":
		c.Kind = kBlob // refined by the values when nothing is declared
	case strings.Contains(name, "REAL") || strings.Contains(name, "FLOA") || strings.Contains(name, "DOUB"):
		c.Kind = kFloat
	default:
		c.Kind = kDecimal
		if m != nil && m[2] != "" {
			c.Precision, c.Scale = n1, max(n2, 0)
		}
	}
}

func readTable(ctx context.Context, src *sql.DB, t *table, s *schema) error {
	comments := map[string]string{}
	ct := s.cat.Table(t.Name)
	if ct != nil {
		for _, c := range ct.Columns {
			comments[strings.ToLower(c.Name)] = c.Comment
		}
	}
	rows, err := src.QueryContext(ctx, `SELECT name, type, "notnull", coalesce(dflt_value, ''), pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid`, t.Name)
	if err != nil {
		return err
	}
	type pkPos struct {
		name string
		pos  int
	}
	var pk []pkPos
	for rows.Next() {
		c := &column{}
		var pos, hidden int
		if err := rows.Scan(&c.Name, &c.Decl, &c.NotNull, &c.Default, &pos, &hidden); err != nil {
			rows.Close()
			return err
		}
		if hidden == 1 { // a virtual table's hidden column
			continue
		}
		classify(c)
		c.Comment = comments[strings.ToLower(c.Name)]
		t.Columns = append(t.Columns, c)
		if pos > 0 {
			pk = append(pk, pkPos{c.Name, pos})
			c.Keyed = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for pos := 1; pos <= len(pk); pos++ {
		for _, p := range pk {
			if p.pos == pos {
				t.PK = append(t.PK, p.name)
			}
		}
	}
	if ct != nil {
		t.Checks = ct.Checks
	}

	// Foreign keys: one row per column, grouped by id.
	rows, err = src.QueryContext(ctx, `SELECT id, "table", "from", coalesce("to", ''), on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id DESC, seq`, t.Name)
	if err != nil {
		return err
	}
	last := -1
	for rows.Next() {
		var id int
		var ref, from, to, onUpdate, onDelete string
		if err := rows.Scan(&id, &ref, &from, &to, &onUpdate, &onDelete); err != nil {
			rows.Close()
			return err
		}
		if id != last {
			t.FKs = append(t.FKs, foreignKey{RefTable: ref, OnUpdate: onUpdate, OnDelete: onDelete})
			last = id
		}
		fk := &t.FKs[len(t.FKs)-1]
		fk.Columns = append(fk.Columns, from)
		if to != "" {
			fk.RefColumns = append(fk.RefColumns, to)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range t.FKs {
		t.FKs[i].Columns = canonical(t, t.FKs[i].Columns)
		for _, c := range t.FKs[i].Columns {
			t.column(c).Keyed = true
		}
	}

	// Indexes: UNIQUE constraints and CREATE INDEX (the primary key is
	// declared with the table).
	type ix struct {
		name, origin  string
		unique, parts bool
	}
	var ixs []ix
	rows, err = src.QueryContext(ctx, `SELECT name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY seq DESC`, t.Name)
	if err != nil {
		return err
	}
	for rows.Next() {
		var x ix
		if err := rows.Scan(&x.name, &x.unique, &x.origin, &x.parts); err != nil {
			rows.Close()
			return err
		}
		ixs = append(ixs, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, x := range ixs {
		if x.origin == "pk" {
			continue
		}
		if x.parts {
			s.Notes = append(s.Notes, fmt.Sprintf("partial index %s of %s is not copied", x.name, t.Name))
			continue
		}
		cols, desc, ok, err := indexColumns(ctx, src, x.name)
		if err != nil {
			return err
		}
		if !ok {
			s.Notes = append(s.Notes, fmt.Sprintf("index %s of %s on an expression is not copied", x.name, t.Name))
			continue
		}
		cols = canonical(t, cols)
		for _, c := range cols {
			t.column(c).Keyed = true
		}
		if x.origin == "u" {
			t.Uniques = append(t.Uniques, cols)
		} else {
			t.Indexes = append(t.Indexes, index{Name: x.name, Unique: x.unique, Columns: cols, Desc: desc})
		}
	}
	return nil
}

func indexColumns(ctx context.Context, src *sql.DB, name string) (cols []string, desc []bool, ok bool, err error) {
	rows, err := src.QueryContext(ctx, `SELECT cid, coalesce(name, ''), "desc" FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno`, name)
	if err != nil {
		return nil, nil, false, err
	}
	defer rows.Close()
	ok = true
	for rows.Next() {
		var cid int
		var col string
		var d bool
		if err := rows.Scan(&cid, &col, &d); err != nil {
			return nil, nil, false, err
		}
		if cid < 0 {
			ok = false
		}
		cols = append(cols, col)
		desc = append(desc, d)
	}
	return cols, desc, ok, rows.Err()
}

// column returns t's column called name (SQLite names are
// case-insensitive), or nil.
func (t *table) column(name string) *column {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// canonical spells each name as t declares it.
func canonical(t *table, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if c := t.column(n); c != nil {
			n = c.Name
		}
		out[i] = n
	}
	return out
}

// selectRaw is a SELECT of every column of t that yields SQLite's own
// storage classes: a unary + keeps the value but drops the declared type,
// which the driver would otherwise use to turn DATE and DATETIME text into
// time.Time.
func selectRaw(t *table) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("+" + quoteIdent(c.Name, '"'))
	}
	b.WriteString(" FROM " + quoteIdent(t.Name, '"'))
	return b.String()
}

// scanValues reads every value of t once: it settles the kind of columns
// with no declared type, the integer width, the text and decimal sizes and
// the timestamp precision, and fails on a value the column's server type
// cannot hold as it is.
func scanValues(ctx context.Context, src *sql.DB, t *table) error {
	untyped := map[*column]bool{}
	for _, c := range t.Columns {
		if c.Kind == kBlob && strings.TrimSpace(c.Decl) == "" {
			untyped[c] = true
		}
	}
	if len(untyped) > 0 {
		// A column without a declared type takes the one kind its values share.
		for c := range untyped {
			var classes []string
			q := fmt.Sprintf(`SELECT DISTINCT typeof(%s) FROM %s WHERE %[1]s IS NOT NULL`, quoteIdent(c.Name, '"'), quoteIdent(t.Name, '"'))
			rows, err := src.QueryContext(ctx, q)
			if err != nil {
				return fmt.Errorf("read %s.%s: %w", t.Name, c.Name, err)
			}
			for rows.Next() {
				var s string
				rows.Scan(&s)
				classes = append(classes, s)
			}
			rows.Close()
			switch strings.Join(classes, ",") {
			case "integer":
				c.Kind = kInteger
			case "integer,real", "real,integer", "real":
				c.Kind = kFloat
			case "", "text":
				c.Kind = kText
			case "blob":
				c.Kind = kBlob
			default:
				return fmt.Errorf("%s.%s has no declared type and holds values of several kinds (%s): give it a type", t.Name, c.Name, strings.Join(classes, ", "))
			}
		}
	}
	rows, err := src.QueryContext(ctx, selectRaw(t))
	if err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	defer rows.Close()
	vals := make([]any, len(t.Columns))
	ptrs := make([]any, len(t.Columns))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	t.Rows = 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", t.Name, err)
		}
		t.Rows++
		for i, c := range t.Columns {
			v, err := convert(c, vals[i])
			if err != nil {
				return fmt.Errorf("%s.%s, row %d: %w", t.Name, c.Name, t.Rows, err)
			}
			c.observe(v)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	for _, c := range t.Columns {
		if c.Kind == kText && c.Length > 0 && c.MaxChars > c.Length {
			return fmt.Errorf("%s.%s is declared %s but holds a value of %d characters", t.Name, c.Name, c.Decl, c.MaxChars)
		}
		if c.Kind == kInteger && (c.Min < math.MinInt32 || c.Max > math.MaxInt32) {
			c.Big = true
		}
		if c.Kind == kDecimal && c.Scale >= 0 && c.Precision > 0 && c.IntDigits > c.Precision-c.Scale {
			return fmt.Errorf("%s.%s is declared %s but holds a value with %d digits before the point", t.Name, c.Name, c.Decl, c.IntDigits)
		}
	}
	return nil
}

// observe records v, a value convert returned, in c's statistics.
func (c *column) observe(v any) {
	switch v := v.(type) {
	case nil:
		return
	case int64:
		if !c.seen || v < c.Min {
			c.Min = v
		}
		if !c.seen || v > c.Max {
			c.Max = v
		}
	case decimal:
		ip, fp, _ := strings.Cut(strings.TrimPrefix(string(v), "-"), ".")
		c.IntDigits = max(c.IntDigits, len(strings.TrimLeft(ip, "0")))
		c.Frac = max(c.Frac, len(fp))
	case string:
		c.MaxChars = max(c.MaxChars, len([]rune(v)))
		c.MaxBytes = max(c.MaxBytes, len(v))
	case []byte:
		c.MaxBytes = max(c.MaxBytes, len(v))
	case time.Time:
		if ns := v.Nanosecond(); ns != 0 {
			frac := strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
			c.Frac = max(c.Frac, len(frac))
		}
	}
	c.seen = true
}

// decimal is an exact decimal number as text ("-12.50"), at the column's
// declared scale when it has one.
type decimal string

var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

// convert turns a value as SQLite stores it (nil, int64, float64, string,
// []byte) into what the server column holds: nil, int64, bool, float64,
// decimal, string, time.Time (UTC, no zone meant) or []byte. It refuses a
// value that would change on the way, saying why.
func convert(c *column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.Kind {
	case kInteger:
		if i, ok := v.(int64); ok {
			return i, nil
		}
	case kBool:
		if i, ok := v.(int64); ok && (i == 0 || i == 1) {
			return i == 1, nil
		}
	case kFloat:
		switch v := v.(type) {
		case float64:
			return v, nil
		case int64:
			if f := float64(v); int64(f) == v {
				return f, nil
			}
		}
	case kDecimal:
		var text string
		switch v := v.(type) {
		case int64:
			text = strconv.FormatInt(v, 10)
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("%v is not a decimal number", v)
			}
			text = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			text = v
		default:
			return nil, fmt.Errorf("a %T is not a decimal number", v)
		}
		return toDecimal(text, c.Scale)
	case kText:
		switch v := v.(type) {
		case string:
			if strings.IndexByte(v, 0) >= 0 {
				return nil, fmt.Errorf("text holds a NUL byte, which PostgreSQL text cannot")
			}
			if !utf8.ValidString(v) {
				return nil, fmt.Errorf("text is not valid UTF-8")
			}
			return v, nil
		case int64:
			return strconv.FormatInt(v, 10), nil
		}
	case kDate:
		if s, ok := v.(string); ok {
			if t, err := time.Parse("2006-01-02", s); err == nil {
				return t, nil
			}
		}
	case kTimestamp:
		if s, ok := v.(string); ok {
			for _, layout := range timeLayouts {
				if t, err := time.Parse(layout, s); err == nil {
					if t.Nanosecond()%1000 != 0 {
						return nil, fmt.Errorf("%q is finer than a microsecond", s)
					}
					return t, nil
				}
			}
		}
	case kBlob:
		switch v := v.(type) {
		case []byte:
			if v == nil { // the driver's empty blob: the drivers would write NULL
				return []byte{}, nil
			}
			return v, nil
		case string:
			return []byte(v), nil
		}
	}
	return nil, fmt.Errorf("%s value %s does not fit the column's type %s (%s)", storageClass(v), clip(v), c.Decl, c.Kind)
}

// toDecimal parses text as an exact decimal and, when scale ≥ 0, rounds it
// to scale digits after the point, halves away from zero (as PostgreSQL
// and MySQL round a value stored into numeric(p,s)).
func toDecimal(text string, scale int) (decimal, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(text))
	if !ok || strings.Contains(text, "/") {
		return "", fmt.Errorf("%q is not a decimal number", text)
	}
	if scale >= 0 {
		return decimal(r.FloatString(scale)), nil
	}
	// As many digits as the text has after the point, no more.
	s := r.FloatString(40)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return decimal(s), nil
}

func storageClass(v any) string {
	switch v.(type) {
	case int64:
		return "integer"
	case float64:
		return "real"
	case string:
		return "text"
	case []byte:
		return "blob"
	}
	return fmt.Sprintf("%T", v)
}

func clip(v any) string {
	s := fmt.Sprint(v)
	if b, ok := v.([]byte); ok {
		s = fmt.Sprintf("x'%x'", b)
	}
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}

func (k kind) String() string {
	return [...]string{"integer", "boolean", "float", "decimal", "text", "date", "timestamp", "blob"}[k]
}

// quoteIdent quotes name with q (" or `), doubling any q inside.
func quoteIdent(name string, q byte) string {
	s := string(q)
	return s + strings.ReplaceAll(name, s, s+s) + s
}
