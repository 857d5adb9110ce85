package servers

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// exists reports whether database name is on srv.
func exists(t *testing.T, srv server, name string) bool {
	t.Helper()
	return slices.Contains(databasesLike(t, srv, name), name)
}

// TestLoad: Load says what it copied and what it left out, refuses a
// database that exists (and leaves it as it was), refuses a value that
// does not fit before creating anything, and drops the database it
// created when the copy fails half-way.
func TestLoad(t *testing.T) {
	src := testdb.Build(t, "notes.db", `
CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT, at DATETIME);
CREATE INDEX p_lower ON p (lower(name));
CREATE INDEX p_some ON p (name) WHERE id > 1;
CREATE VIEW by_month AS SELECT strftime('%Y-%m', at) AS month, count(*) AS n FROM p GROUP BY 1;
CREATE VIEW plain AS SELECT id FROM p;
INSERT INTO p VALUES (1, 'a', '2024-01-01 10:00:00'), (2, 'b', '2024-02-01 10:00:00');`)
	tooLong := testdb.Build(t, "long.db", `CREATE TABLE q (code VARCHAR(3)); INSERT INTO q VALUES ('abc'), ('abcde');`)
	dangling := testdb.Build(t, "dangling.db", `CREATE TABLE parent (id INTEGER PRIMARY KEY);
CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1, 1), (2, 7);`)
	ctx := context.Background()
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			srv := reach(t, engine)
			name := freshName(t)
			t.Cleanup(func() { dropDatabase(t, srv, name) })
			r, err := Load(ctx, src, srv.database(name))
			if err != nil {
				t.Fatal(err)
			}
			if r.Tables != 1 || r.Rows != 2 || r.Views != 1 || r.Database != srv.database(name) {
				t.Errorf("result %+v: want 1 table, 2 rows, 1 view (plain) in %s", r, srv.database(name))
			}
			notes := strings.Join(r.Notes, "\n")
			for _, want := range []string{"index p_lower of p on an expression is not copied", "partial index p_some of p is not copied", "view by_month is not copied"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes do not say %q:\n%s", want, notes)
				}
			}

			_, err = Load(ctx, src, srv.database(name))
			if !errors.Is(err, ErrExists) {
				t.Errorf("Load into the existing %s: %v, want ErrExists", name, err)
			}
			if got := databasesLike(t, srv, name); !slices.Equal(got, []string{name}) {
				t.Errorf("databases %v after the refused load", got)
			}

			other := freshName(t)
			_, err = Load(ctx, tooLong, srv.database(other))
			if err == nil || !strings.Contains(err.Error(), "q.code is declared VARCHAR(3) but holds a value of 5 characters") {
				t.Errorf("a value longer than its VARCHAR: %v", err)
			}
			if exists(t, srv, other) {
				t.Errorf("the refused load left database %s", other)
			}
			if engine != "postgres" {
				return // MySQL's loader does not check foreign keys
			}
			_, err = Load(ctx, dangling, srv.database(other))
			if err == nil || !strings.Contains(err.Error(), "foreign key of child") {
				t.Errorf("a foreign key the rows break: %v", err)
			}
			if exists(t, srv, other) {
				t.Errorf("the failed load left database %s", other)
			}
		})
	}
}

func TestToDecimal(t *testing.T) {
	for _, c := range []struct {
		text  string
		scale int
		want  decimal
	}{
		{"0.99", 2, "0.99"},
		{"1", 2, "1.00"},
		{"1.005", 2, "1.01"}, // halves away from zero, as the servers round
		{"-1.005", 2, "-1.01"},
		{"1.0049", 2, "1.00"},
		{"0.15", -1, "0.15"},
		{"12.50", -1, "12.5"},
		{"-0.0", -1, "0"},
		{"100", -1, "100"},
	} {
		got, err := toDecimal(c.text, c.scale)
		if err != nil || got != c.want {
			t.Errorf("toDecimal(%q, %d) = %q, %v; want %q", c.text, c.scale, got, err, c.want)
		}
	}
	if _, err := toDecimal("1/3", 2); err == nil {
		t.Error("toDecimal accepted a fraction")
	}
}

func TestRequote(t *testing.T) {
	in := `SELECT [Track Id], "Na""me", ` + "`x`" + ` FROM "Track" WHERE a = 'it''s "not" [an] identifier' -- "comment"` + "\n" + `/* [kept] */ AND b = "c"`
	want := "SELECT `Track Id`, `Na\"me`, `x` FROM `Track` WHERE a = 'it''s \"not\" [an] identifier' -- \"comment\"\n/* [kept] */ AND b = `c`"
	if got := requote(in, '`'); got != want {
		t.Errorf("requote:\n got %s\nwant %s", got, want)
	}
	if got := requote("SELECT [a]", '"'); got != `SELECT "a"` {
		t.Errorf("requote to PostgreSQL: %s", got)
	}
}

func TestClassify(t *testing.T) {
	for decl, want := range map[string]string{
		"INTEGER":          "integer",
		"BIGINT":           "integer big",
		"NVARCHAR(160)":    "text 160",
		"VARCHAR ( 20 )":   "text 20",
		"TEXT":             "text",
		"NUMERIC(10,2)":    "decimal 10,2",
		"DECIMAL(5)":       "decimal 5,0",
		"NUMERIC":          "decimal",
		"MONEY":            "decimal",
		"REAL":             "float",
		"DOUBLE PRECISION": "float",
		"BOOLEAN":          "boolean",
		"DATE":             "date",
		"DATETIME":         "timestamp",
		"TIMESTAMP":        "timestamp",
		"BLOB":             "blob",
		"":                 "blob",
	} {
		c := &column{Decl: decl}
		classify(c)
		got := c.Kind.String()
		switch {
		case c.Big:
			got += " big"
		case c.Length > 0:
			got += " " + strconv.Itoa(c.Length)
		case c.Scale >= 0:
			got += " " + strconv.Itoa(c.Precision) + "," + strconv.Itoa(c.Scale)
		}
		if got != want {
			t.Errorf("classify(%q) = %s, want %s", decl, got, want)
		}
	}
}
