package servers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// description is what a database declares, written alike for every
// engine: table names (case kept), primary keys, foreign keys, indexes
// made with CREATE INDEX, UNIQUE constraints, column comments, views.
type description struct {
	tables   []string
	pk       map[string]string   // table → "a,b"
	fks      map[string][]string // table → "a,b→T(x,y)", sorted
	indexes  map[string][]string // table → "name(a,b)", sorted
	uniques  map[string][]string // table → "a,b", sorted
	comments map[string]string   // "table.column" → comment
	views    []string
}

func newDescription() *description {
	return &description{pk: map[string]string{}, fks: map[string][]string{}, indexes: map[string][]string{}, uniques: map[string][]string{}, comments: map[string]string{}}
}

// addComments records the comments of table's columns from rows of
// (column, comment).
func (d *description) addComments(table string, rows interface {
	Next() bool
	Scan(dest ...any) error
}) {
	for rows.Next() {
		var c, cm string
		rows.Scan(&c, &cm)
		d.comments[table+"."+c] = cm
	}
}

// TestSchemaCopied: every table keeps its name's case, its primary key
// (in key order), its foreign keys, its CREATE INDEX indexes and UNIQUE
// constraints and its column comments, on both servers, for every source.
func TestSchemaCopied(t *testing.T) {
	for name, src := range sources(t) {
		t.Run(name, func(t *testing.T) {
			path := src(t)
			want := describeSQLite(t, path)
			t.Run("postgres", func(t *testing.T) {
				compareDescriptions(t, want, describePostgres(t, servers.PostgresOf(t, path)))
			})
			t.Run("mysql", func(t *testing.T) {
				compareDescriptions(t, want, describeMySQL(t, servers.MySQLOf(t, path)))
			})
		})
	}
}

func compareDescriptions(t *testing.T, want, got *description) {
	t.Helper()
	if !slices.Equal(got.tables, want.tables) {
		t.Errorf("tables %q, want %q", got.tables, want.tables)
	}
	for _, tb := range want.tables {
		if got.pk[tb] != want.pk[tb] {
			t.Errorf("%s: primary key (%s), want (%s)", tb, got.pk[tb], want.pk[tb])
		}
		if !slices.Equal(got.fks[tb], want.fks[tb]) {
			t.Errorf("%s: foreign keys %q, want %q", tb, got.fks[tb], want.fks[tb])
		}
		for _, x := range want.indexes[tb] {
			if !slices.Contains(got.indexes[tb], x) {
				t.Errorf("%s: no index %s among %q", tb, x, got.indexes[tb])
			}
		}
		for _, u := range want.uniques[tb] {
			if !slices.Contains(got.uniques[tb], u) {
				t.Errorf("%s: no unique key (%s) among %q", tb, u, got.uniques[tb])
			}
		}
	}
	for k, c := range want.comments {
		if got.comments[k] != c {
			t.Errorf("comment of %s: %q, want %q", k, got.comments[k], c)
		}
	}
	if len(got.comments) != len(want.comments) {
		t.Errorf("%d column comments, want %d", len(got.comments), len(want.comments))
	}
}

func describeSQLite(t *testing.T, path string) *description {
	t.Helper()
	d := openSQLite(t, path)
	tw := testdb.Open(t, path)
	cat, err := tw.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := newDescription()
	out.tables = servers.Column[string](t, d, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	for _, tb := range out.tables {
		out.pk[tb] = strings.Join(servers.Column[string](t, d, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, tb), ",")
		rows, err := d.Query(`SELECT id, "table", "from", coalesce("to", '') FROM pragma_foreign_key_list(?) ORDER BY id, seq`, tb)
		if err != nil {
			t.Fatal(err)
		}
		type fk struct{ from, ref, to []string }
		byID := map[int]*fk{}
		var ids []int
		for rows.Next() {
			var id int
			var ref, from, to string
			rows.Scan(&id, &ref, &from, &to)
			if byID[id] == nil {
				byID[id] = &fk{ref: []string{ref}}
				ids = append(ids, id)
			}
			byID[id].from = append(byID[id].from, from)
			if to != "" {
				byID[id].to = append(byID[id].to, to)
			}
		}
		rows.Close()
		for _, id := range ids {
			f := byID[id]
			if len(f.to) == 0 {
				f.to = servers.Column[string](t, d, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, f.ref[0])
			}
			out.fks[tb] = append(out.fks[tb], fmt.Sprintf("%s→%s(%s)", strings.Join(f.from, ","), f.ref[0], strings.Join(f.to, ",")))
		}
		slices.Sort(out.fks[tb])
		// Indexes on columns (an expression or partial index is not copied).
		for _, x := range servers.Column[string](t, d, `SELECT name FROM pragma_index_list(?) WHERE origin = 'c' AND NOT partial`, tb) {
			cols := servers.Column[string](t, d, `SELECT coalesce(name, '') FROM pragma_index_info(?) ORDER BY seqno`, x)
			if !slices.Contains(cols, "") {
				out.indexes[tb] = append(out.indexes[tb], x+"("+strings.Join(cols, ",")+")")
			}
		}
		for _, x := range servers.Column[string](t, d, `SELECT name FROM pragma_index_list(?) WHERE origin = 'u'`, tb) {
			out.uniques[tb] = append(out.uniques[tb], strings.Join(servers.Column[string](t, d, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`, x), ","))
		}
		for _, c := range cat.Table(tb).Columns {
			if c.Comment != "" {
				out.comments[tb+"."+c.Name] = c.Comment
			}
		}
	}
	return out
}

func describePostgres(t *testing.T, dsn string) *description {
	t.Helper()
	ctx := context.Background()
	conn := connectPostgres(t, dsn)
	strs := func(q string, args ...any) []string {
		return servers.PostgresColumn[string](t, conn, q, args...)
	}
	// cols is the column list of an array of attribute numbers.
	const cols = `(SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(%s) WITH ORDINALITY AS k(n, ord) JOIN pg_attribute a ON a.attrelid = %s AND a.attnum = k.n)`
	out := newDescription()
	out.tables = strs(`SELECT relname::text FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname COLLATE "C"`)
	for _, tb := range out.tables {
		rel := `(SELECT oid FROM pg_class WHERE relname = $1 AND relnamespace = 'public'::regnamespace)`
		if pk := strs(`SELECT `+fmt.Sprintf(cols, "c.conkey", "c.conrelid")+` FROM pg_constraint c WHERE c.contype = 'p' AND c.conrelid = `+rel, tb); len(pk) == 1 {
			out.pk[tb] = pk[0]
		}
		out.fks[tb] = strs(`SELECT `+fmt.Sprintf(cols, "c.conkey", "c.conrelid")+` || '→' || r.relname || '(' || `+fmt.Sprintf(cols, "c.confkey", "c.confrelid")+` || ')'
			FROM pg_constraint c JOIN pg_class r ON r.oid = c.confrelid WHERE c.contype = 'f' AND c.conrelid = `+rel+``, tb)
		slices.Sort(out.fks[tb])
		out.indexes[tb] = strs(`SELECT i.relname || '(' || `+fmt.Sprintf(cols, "x.indkey::int2[]", "x.indrelid")+` || ')'
			FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = `+rel, tb)
		out.uniques[tb] = strs(`SELECT `+fmt.Sprintf(cols, "c.conkey", "c.conrelid")+` FROM pg_constraint c WHERE c.contype = 'u' AND c.conrelid = `+rel, tb)
		rows, _ := conn.Query(ctx, `SELECT a.attname, d.description FROM pg_description d JOIN pg_attribute a ON a.attrelid = d.objoid AND a.attnum = d.objsubid WHERE d.objoid = `+rel+` AND d.objsubid > 0`, tb)
		out.addComments(tb, rows)
		rows.Close()
	}
	return out
}

func describeMySQL(t *testing.T, dsn string) *description {
	t.Helper()
	d := openMySQL(t, dsn, "")
	out := newDescription()
	out.tables = servers.Column[string](t, d, `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY CAST(TABLE_NAME AS BINARY)`)
	for _, tb := range out.tables {
		out.pk[tb] = strings.Join(servers.Column[string](t, d, `SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX`, tb), ",")
		out.fks[tb] = servers.Column[string](t, d, `SELECT CONCAT(GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION), '→', MIN(REFERENCED_TABLE_NAME), '(', GROUP_CONCAT(REFERENCED_COLUMN_NAME ORDER BY ORDINAL_POSITION), ')')
			FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND REFERENCED_TABLE_NAME IS NOT NULL GROUP BY CONSTRAINT_NAME ORDER BY 1`, tb)
		slices.Sort(out.fks[tb])
		out.indexes[tb] = servers.Column[string](t, d, `SELECT CONCAT(INDEX_NAME, '(', GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX), ')') FROM information_schema.STATISTICS
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? GROUP BY INDEX_NAME`, tb)
		out.uniques[tb] = servers.Column[string](t, d, `SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY' GROUP BY INDEX_NAME`, tb)
		rows, err := d.Query(`SELECT COLUMN_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_COMMENT <> ''`, tb)
		if err != nil {
			t.Fatal(err)
		}
		out.addComments(tb, rows)
		rows.Close()
	}
	return out
}

// TestTypesMapped: the declared SQLite types become the documented server
// types, widths and scales from the declaration or, where it has none,
// from the values; table comments and views arrive too.
func TestTypesMapped(t *testing.T) {
	chinook := sources(t)["chinook"]
	features := sources(t)["features"]
	type want struct{ table, column, postgres, mysql string }
	cases := map[string][]want{
		"chinook": {
			{"Track", "TrackId", "integer", "int(11)"},
			{"Track", "Name", "character varying(200)", "varchar(200)"},
			{"Track", "UnitPrice", "numeric(10,2)", "decimal(10,2)"},
			{"Invoice", "InvoiceDate", "timestamp without time zone", "datetime"},
		},
		"features": {
			{"Feature Set", "Big", "bigint", "bigint(20)"},
			{"Feature Set", "Huge", "bigint", "bigint(20)"}, // INTEGER holding 2^62
			{"Feature Set", "Flag", "boolean", "tinyint(1)"},
			{"Feature Set", "Price", "numeric(8,3)", "decimal(8,3)"},
			{"Feature Set", "Ratio", "numeric", "decimal(11,6)"}, // MySQL: as wide as the values
			{"Feature Set", "Score", "double precision", "double"},
			{"Feature Set", "Label", "character varying(20)", "varchar(20)"},
			{"Feature Set", "Body", "text", "text"},
			{"Feature Set", "Day", "date", "date"},
			{"Feature Set", "At", "timestamp without time zone", "datetime(6)"},
			{"Feature Set", "Raw", "bytea", "longblob"},
			{"Feature Set", "Loose", "integer", "int(11)"},
			{"child", "b", "character varying(20)", "varchar(20)"},
			{"child", "note", "text", "text"},
		},
	}
	for name, src := range map[string]func(*testing.T) string{"chinook": chinook, "features": features} {
		t.Run(name, func(t *testing.T) {
			path := src(t)
			t.Run("postgres", func(t *testing.T) {
				ctx := context.Background()
				conn := connectPostgres(t, servers.PostgresOf(t, path))
				for _, w := range cases[name] {
					var got string
					err := conn.QueryRow(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2`, `"`+w.table+`"`, w.column).Scan(&got)
					if err != nil || got != w.postgres {
						t.Errorf("%s.%s: %q (%v), want %q", w.table, w.column, got, err, w.postgres)
					}
				}
				if name != "features" {
					return
				}
				var comment, view string
				conn.QueryRow(ctx, `SELECT obj_description('"Feature Set"'::regclass, 'pg_class'), obj_description('"Feature View"'::regclass, 'pg_class')`).Scan(&comment, &view)
				if comment != "a table comment" || view != "a view comment" {
					t.Errorf("table comment %q, view comment %q", comment, view)
				}
				rows, _ := conn.Query(ctx, `SELECT "Id" FROM "Feature View" ORDER BY 1`)
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
				if err != nil || !slices.Equal(ids, []int32{1}) {
					t.Errorf("the view's rows: %v (%v), want [1]", ids, err)
				}
				var def, action string
				conn.QueryRow(ctx, `SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = '"Feature Set"'::regclass AND adnum = 4`).Scan(&def)
				conn.QueryRow(ctx, `SELECT confdeltype FROM pg_constraint WHERE conrelid = 'child'::regclass AND contype = 'f'`).Scan(&action)
				if def != "true" || action != "c" {
					t.Errorf("Flag's default %q (want true), child's ON DELETE %q (want c, cascade)", def, action)
				}
				var label string
				if _, err := conn.Exec(ctx, `INSERT INTO "Feature Set" ("Id", "Label") VALUES (9, 'other')`); err == nil || !strings.Contains(err.Error(), "check") {
					t.Errorf("a Label outside the CHECK list: %v, want a check violation", err)
				}
				conn.QueryRow(ctx, `SELECT "Label" FROM "Feature Set" WHERE "Id" = 3`).Scan(&label)
				if label != `back\slash` {
					t.Errorf("Label of row 3: %q", label)
				}
			})
			t.Run("mysql", func(t *testing.T) {
				d := openMySQL(t, servers.MySQLOf(t, path), "")
				for _, w := range cases[name] {
					var got string
					err := d.QueryRow(`SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?`, w.table, w.column).Scan(&got)
					if err != nil || got != w.mysql {
						t.Errorf("%s.%s: %q (%v), want %q", w.table, w.column, got, err, w.mysql)
					}
				}
				if name != "features" {
					return
				}
				var comment string
				d.QueryRow(`SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Feature Set'`).Scan(&comment)
				if comment != "a table comment" {
					t.Errorf("table comment %q", comment)
				}
				if ids := servers.Column[int](t, d, "SELECT `Id` FROM `Feature View` ORDER BY 1"); !slices.Equal(ids, []int{1}) {
					t.Errorf("the view's rows: %v, want [1]", ids)
				}
				var def, action string
				d.QueryRow(`SELECT COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Feature Set' AND COLUMN_NAME = 'Flag'`).Scan(&def)
				d.QueryRow(`SELECT DELETE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'child'`).Scan(&action)
				if def != "1" || action != "CASCADE" {
					t.Errorf("Flag's default %q (want 1), child's ON DELETE %q (want CASCADE)", def, action)
				}
				if _, err := d.Exec("INSERT INTO `Feature Set` (`Id`, `Label`) VALUES (9, 'other')"); err == nil || !strings.Contains(err.Error(), "Error 4025") {
					t.Errorf("a Label outside the CHECK list: %v, want a check violation", err)
				}
			})
		})
	}
}
