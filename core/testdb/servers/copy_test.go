package servers_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
	"github.com/tablewise/tablewise/data"
	_ "modernc.org/sqlite"
)

// The faithful-copy check: every table's rows, each value normalized
// (integers, decimals at their scale, floats shortest, text, dates and
// timestamps ISO 8601, blobs hex, NULL apart), read from SQLite and from
// the server, are the same multiset. The SQLite side is normalized from
// the declared types here, not by the loader's code.

// sources are the SQLite databases the loader is checked on: Chinook
// (mixed-case names, NUMERIC(10,2), DATETIME, composite key), the sample
// (comments, CHECKs, defaults, BOOLEAN, DATE, bare NUMERIC, views, a table
// name with a space) and the fixture (a keyword table name, a BLOB, a
// composite key on text, a table without a key, non-Latin text).
func sources(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"chinook": func(t *testing.T) string { return testdb.SharedData(t, "chinook.sqlite") },
		"sample": func(t *testing.T) string {
			p, err := data.SamplePath()
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
		"fixture":  func(t *testing.T) string { return testdb.Fixture(t) },
		"features": func(t *testing.T) string { return testdb.Build(t, "features.db", featuresSQL) },
	}
}

// featuresSQL has what the three databases lack: a table comment, a
// BIGINT and an INTEGER beyond 32 bits, a decimal to round, a bare
// DECIMAL of mixed scales, microseconds, an empty blob and an empty
// string, quotes, backslashes and emoji, a column with no declared type, a
// descending index, an expression and a partial index (not copied), an ON
// DELETE action, a composite key on text, and a view with a comment.
const featuresSQL = `
CREATE TABLE "Feature Set" -- a table comment
(
  "Id" INTEGER PRIMARY KEY,
  "Big" BIGINT,
  "Huge" INTEGER, -- holds 2^62
  "Flag" BOOLEAN NOT NULL DEFAULT 1,
  "Price" NUMERIC(8,3),
  "Ratio" DECIMAL,
  "Score" REAL,
  "Label" VARCHAR(20) NOT NULL DEFAULT 'none' CHECK ("Label" IN ('none', 'it''s', 'back\slash')),
  "Body" TEXT,
  "Day" DATE,
  "At" DATETIME,
  "Raw" BLOB,
  "Loose",
  UNIQUE ("Label", "Day")
);
CREATE INDEX "Feature Set by At" ON "Feature Set" ("At" DESC, "Id");
CREATE INDEX feature_expr ON "Feature Set" (lower("Body"));
CREATE INDEX feature_partial ON "Feature Set" ("Score") WHERE "Score" > 0;
CREATE TABLE child (a INTEGER, b VARCHAR(20), note TEXT, -- the note
  PRIMARY KEY (a, b), FOREIGN KEY (a) REFERENCES "Feature Set" ("Id") ON DELETE CASCADE);
CREATE VIEW "Feature View" /* a view comment */ AS SELECT "Id", [Label] FROM "Feature Set" WHERE "Flag";
INSERT INTO "Feature Set" VALUES
  (1, 9223372036854775807, 4611686018427387904, 1, 1.0005, 0.1, 0.1, 'none', 'plain', '2024-02-29', '2024-02-29 23:59:59.123456', x'00ff00', 7),
  (2, -9223372036854775808, -1, 0, 2.5, 12345.678901, 1e-300, 'it''s', 'quote '' "double" back\slash \n 🎉 中文', '1999-12-31', '2000-01-01 00:00:00', x'', 8),
  (3, NULL, NULL, 0, NULL, NULL, NULL, 'back\slash', '', NULL, NULL, NULL, NULL);
INSERT INTO child VALUES (1, 'x', NULL), (1, 'y', 'two'), (2, 'x', 'three');
`

func TestFaithfulCopy(t *testing.T) {
	for name, src := range sources(t) {
		t.Run(name, func(t *testing.T) {
			path := src(t)
			want := readSQLite(t, path)
			if len(want) == 0 {
				t.Fatalf("%s has no tables", path)
			}
			t.Run("postgres", func(t *testing.T) {
				compare(t, want, readPostgres(t, servers.PostgresOf(t, path), want))
			})
			t.Run("mysql", func(t *testing.T) {
				compare(t, want, readMySQL(t, servers.MySQLOf(t, path), want))
			})
		})
	}
}

// tableRows is one table: its columns' declared types and its normalized
// rows, sorted.
type tableRows struct {
	name    string
	columns []string
	decl    []string
	rows    []string
}

func (tr *tableRows) digest() string {
	h := sha256.New()
	for _, r := range tr.rows {
		fmt.Fprintf(h, "%d:%s", len(r), r)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// collect appends every row of rows to tr, scan giving the current row's
// normalized values (nil for NULL), then sorts them.
func (tr *tableRows) collect(t *testing.T, rows interface {
	Next() bool
	Err() error
}, scan func() []*string) {
	t.Helper()
	for rows.Next() {
		tr.rows = append(tr.rows, row(scan()))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(tr.rows)
}

// cells normalizes a row of driver values: nil stays NULL, any other value
// becomes conv(column, value).
func cells(vs []any, conv func(i int, v any) string) []*string {
	vals := make([]*string, len(vs))
	for i, v := range vs {
		if v != nil {
			s := conv(i, v)
			vals[i] = &s
		}
	}
	return vals
}

func compare(t *testing.T, want, got []*tableRows) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tables read from the server, %d in SQLite", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if len(g.rows) != len(w.rows) {
			t.Errorf("%s: %d rows on the server, %d in SQLite", w.name, len(g.rows), len(w.rows))
			continue
		}
		if g.digest() != w.digest() {
			var diff []string
			for j := range w.rows {
				if w.rows[j] != g.rows[j] {
					diff = append(diff, fmt.Sprintf("sqlite %s\nserver %s", w.rows[j], g.rows[j]))
				}
				if len(diff) == 3 {
					break
				}
			}
			t.Errorf("%s: the rows differ (checksum %s, SQLite %s); first differences:\n%s", w.name, g.digest(), w.digest(), strings.Join(diff, "\n"))
		}
	}
}

// row encodes normalized values: NULL as \N, a value as its length and
// text, so no two rows share an encoding.
func row(vals []*string) string {
	var b strings.Builder
	for _, v := range vals {
		if v == nil {
			b.WriteString(`\N|`)
			continue
		}
		fmt.Fprintf(&b, "%d:%s|", len(*v), *v)
	}
	return b.String()
}

var declScale = regexp.MustCompile(`(?i)^\s*(?:NUMERIC|DECIMAL)\s*\(\s*\d+\s*,\s*(\d+)\s*\)`)

// scaleOf is the declared scale of a NUMERIC(p,s) type, -1 for none.
func scaleOf(decl string) int {
	if m := declScale.FindStringSubmatch(decl); m != nil {
		s, _ := strconv.Atoi(m[1])
		return s
	}
	return -1
}

// decimalText is text as an exact decimal at scale digits (rounded half
// away from zero), or with no trailing zeros when scale < 0.
func decimalText(t *testing.T, text string, scale int) string {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		t.Fatalf("%q is not a decimal", text)
	}
	if scale >= 0 {
		return r.FloatString(scale)
	}
	s := strings.TrimSuffix(strings.TrimRight(r.FloatString(30), "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// openSQLite opens the SQLite file at path read-only for the test's length.
func openSQLite(t *testing.T, path string) *sql.DB {
	t.Helper()
	abs, _ := filepath.Abs(path)
	d, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro"}).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func readSQLite(t *testing.T, path string) []*tableRows {
	t.Helper()
	d := openSQLite(t, path)
	names := servers.Column[string](t, d, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	var out []*tableRows
	for _, name := range names {
		tr := &tableRows{name: name}
		rows, err := d.Query(`SELECT name, type FROM pragma_table_info(?) ORDER BY cid`, name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c, decl string
			rows.Scan(&c, &decl)
			tr.columns = append(tr.columns, c)
			tr.decl = append(tr.decl, decl)
		}
		rows.Close()
		var sel []string
		for _, c := range tr.columns {
			// typeof and the value as text: no driver conversion.
			q := `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			sel = append(sel, "typeof("+q+")", "CAST("+q+" AS TEXT)", "hex("+q+")", "CASE typeof("+q+") WHEN 'real' THEN "+q+" END")
		}
		rows, err = d.Query("SELECT " + strings.Join(sel, ", ") + ` FROM "` + strings.ReplaceAll(name, `"`, `""`) + `"`)
		if err != nil {
			t.Fatal(err)
		}
		n := len(tr.columns)
		raw := make([]sql.NullString, 3*n)
		reals := make([]sql.NullFloat64, n)
		ptrs := make([]any, 0, 4*n)
		for i := range n {
			ptrs = append(ptrs, &raw[3*i], &raw[3*i+1], &raw[3*i+2], &reals[i])
		}
		tr.collect(t, rows, func() []*string {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			vals := make([]*string, n)
			for i := range n {
				class, text, hx := raw[3*i].String, raw[3*i+1].String, raw[3*i+2].String
				if class == "null" {
					continue
				}
				if class == "real" {
					// CAST(real AS TEXT) keeps 15 digits: the float's
					// shortest exact decimal instead.
					text = strconv.FormatFloat(reals[i].Float64, 'f', -1, 64)
				}
				v := normalizeSQLite(t, tr.decl[i], class, text, hx)
				vals[i] = &v
			}
			return vals
		})
		rows.Close()
		out = append(out, tr)
	}
	return out
}

// normalizeSQLite is the value a server column of the mapped type must
// hold, from SQLite's storage class, text and hex of it.
func normalizeSQLite(t *testing.T, decl, class, text, hx string) string {
	u := strings.ToUpper(decl)
	switch {
	case u == "BOOLEAN" || u == "BOOL", strings.Contains(u, "INT"):
		return text
	case u == "DATE":
		return text
	case u == "DATETIME" || u == "TIMESTAMP":
		for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02T15:04:05.999999", "2006-01-02 15:04", "2006-01-02"} {
			if ts, err := time.Parse(layout, text); err == nil {
				return iso(ts)
			}
		}
		t.Fatalf("%q is no timestamp", text)
	case strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") || strings.Contains(u, "TEXT"):
		return text
	case strings.Contains(u, "BLOB") || u == "":
		if class == "blob" {
			return strings.ToLower(hx)
		}
		return text
	case strings.Contains(u, "REAL") || strings.Contains(u, "FLOA") || strings.Contains(u, "DOUB"):
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return decimalText(t, text, scaleOf(decl))
}

func iso(ts time.Time) string { return ts.Format("2006-01-02T15:04:05.999999") }

// connectPostgres connects to the database at url for the test's length.
func connectPostgres(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	return servers.PostgresClient(t, url)
}

// openMySQL opens the database at a mysql:// url (with the driver's
// params appended) for the test's length.
func openMySQL(t *testing.T, url, params string) *sql.DB {
	t.Helper()
	return servers.MySQLClient(t, url, params)
}

func selectList(tr *tableRows, q string) string {
	cols := make([]string, len(tr.columns))
	for i, c := range tr.columns {
		cols[i] = q + strings.ReplaceAll(c, q, q+q) + q
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + q + strings.ReplaceAll(tr.name, q, q+q) + q
}

func readPostgres(t *testing.T, dsn string, like []*tableRows) []*tableRows {
	t.Helper()
	ctx := context.Background()
	conn := connectPostgres(t, dsn)
	var out []*tableRows
	for _, w := range like {
		tr := &tableRows{name: w.name, columns: w.columns, decl: w.decl}
		rows, err := conn.Query(ctx, selectList(tr, `"`))
		if err != nil {
			t.Fatalf("%s: %v", tr.name, err)
		}
		fields := rows.FieldDescriptions()
		tr.collect(t, rows, func() []*string {
			vs, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			return cells(vs, func(i int, v any) (s string) {
				switch v := v.(type) {
				case int16, int32, int64:
					s = fmt.Sprint(v)
				case bool:
					s = map[bool]string{false: "0", true: "1"}[v]
				case float64:
					s = strconv.FormatFloat(v, 'g', -1, 64)
				case pgtype.Numeric:
					dv, err := v.Value()
					if err != nil {
						t.Fatal(err)
					}
					s = dv.(string)
					if scaleOf(tr.decl[i]) < 0 {
						s = decimalText(t, s, -1)
					}
				case time.Time:
					if fields[i].DataTypeOID == pgtype.DateOID {
						s = v.Format("2006-01-02")
					} else {
						s = iso(v)
					}
				case string:
					s = v
				case []byte:
					s = hex.EncodeToString(v)
				default:
					t.Fatalf("%s.%s: pgx returned a %T", tr.name, tr.columns[i], v)
				}
				return s
			})
		})
		out = append(out, tr)
	}
	return out
}

func readMySQL(t *testing.T, dsn string, like []*tableRows) []*tableRows {
	t.Helper()
	d := openMySQL(t, dsn, "")
	var out []*tableRows
	for _, w := range like {
		tr := &tableRows{name: w.name, columns: w.columns, decl: w.decl}
		rows, err := d.Query(selectList(tr, "`"))
		if err != nil {
			t.Fatalf("%s: %v", tr.name, err)
		}
		types, _ := rows.ColumnTypes()
		raw := make([]any, len(types))
		ptrs := make([]any, len(raw))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		tr.collect(t, rows, func() []*string {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			return cells(raw, func(i int, v any) (s string) {
				switch v := v.(type) {
				case int64:
					s = strconv.FormatInt(v, 10)
				case float64:
					s = strconv.FormatFloat(v, 'g', -1, 64)
				case []byte:
					switch typ := types[i].DatabaseTypeName(); typ {
					case "BLOB", "VARBINARY", "BINARY", "LONGBLOB", "MEDIUMBLOB", "TINYBLOB":
						s = hex.EncodeToString(v)
					case "DATETIME", "TIMESTAMP":
						ts, err := time.Parse("2006-01-02 15:04:05.999999", string(v))
						if err != nil {
							t.Fatal(err)
						}
						s = iso(ts)
					case "DECIMAL":
						s = string(v)
						if scaleOf(tr.decl[i]) < 0 {
							s = decimalText(t, s, -1)
						}
					default:
						s = string(v)
					}
				default:
					t.Fatalf("%s.%s: go-sql-driver returned a %T", tr.name, tr.columns[i], v)
				}
				return s
			})
		})
		rows.Close()
		out = append(out, tr)
	}
	return out
}
