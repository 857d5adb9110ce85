package mysql_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	mysqldriver "github.com/go-sql-driver/mysql"
	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// ordinaryCalls are reads calling the server's own functions, of the
// kinds people write (aggregates, dates, text, JSON, regular
// expressions, window functions, geometry, WITH), that a user who cannot
// read mysql.func still runs.
var ordinaryCalls = []string{
	"SELECT COUNT(*), MAX(CHAR_LENGTH(Name)), GROUP_CONCAT(Name ORDER BY Name SEPARATOR ', ') FROM Genre",
	"SELECT DATE_FORMAT(InvoiceDate, '%Y-%m'), YEAR(InvoiceDate), MONTHNAME(InvoiceDate), LAST_DAY(InvoiceDate), TIMESTAMPDIFF(DAY, InvoiceDate, NOW()) FROM Invoice LIMIT 1",
	"SELECT JSON_VALUE('[1]', '$[0]'), JSON_EXTRACT('{\"a\": 2}', '$.a'), JSON_OBJECT('n', 1), JSON_ARRAYAGG(GenreId) FROM Genre",
	"SELECT REGEXP_REPLACE(Name, '[aeiou]', ''), REGEXP_SUBSTR(Name, '[A-Z]+'), Name REGEXP '^R' FROM Genre",
	"SELECT Name, ROW_NUMBER() OVER (ORDER BY Name), RANK() OVER w, LAG(Name) OVER w, NTILE(4) OVER w FROM Genre WINDOW w AS (ORDER BY GenreId)",
	"SELECT ST_AsText(ST_GeomFromText('POINT(1 1)')), ST_X(POINT(1, 2)), IF(1 > 0, 'a', 'b'), LEFT('abc', 1), CAST(1.5 AS DECIMAL(4, 1)), CONVERT('a' USING utf8mb4)",
	"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT SUM(n) FROM c",
	"SELECT Name FROM Genre WHERE GenreId IN (SELECT GenreId FROM Track) AND EXISTS (SELECT 1 FROM Track) ORDER BY Name LIMIT 2",
	"SELECT * FROM JSON_TABLE('[{\"a\": 1}]', '$[*]' COLUMNS (a INT PATH '$.a')) AS j",
	"SELECT j.a, j.b FROM Genre g, JSON_TABLE(CONCAT('[{\"a\": ', g.GenreId, ', \"b\": [1]}]'), '$[*]' COLUMNS (a INT PATH '$.a', NESTED PATH '$.b[*]' COLUMNS (b INT PATH '$'))) AS j",
	"SELECT ST_AsText(LINESTRING(POINT(0, 0), POINT(1, (1)))), ST_AsText(GEOMETRYCOLLECTION(POINT(1, 1)))",
}

// TestLoadableCallHiddenFromUser: a loadable function (CREATE FUNCTION
// … SONAME, such as sys_exec) is callable by every user without a
// privilege, and acts outside the transaction. The guard knew the
// server's loadable functions only from mysql.func, which the user
// tablewise doctor recommends (SELECT on the database) cannot read: to
// that user, a call of a name no list shows as the server's own or as a
// stored function reached the server (here, with no such function
// installed, it answered "FUNCTION … does not exist"; with one, it would
// have run). Such a call is refused before it is sent, bare, quoted,
// in a condition, and in the definition of a view the user may read
// (also by a user who may read mysql.proc but not mysql.func), naming
// the function and saying what to do; the server's own functions still
// run, for that user and for an administrator.
func TestLoadableCallHiddenFromUser(t *testing.T) {
	f := chinook(t)
	// A view whose definition calls a name that is neither the server's
	// function nor a stored one, as a view calling a loadable function
	// is written: made with a stored function, then dropped.
	f.session(t,
		"SET SESSION sql_quote_show_create = 0",
		"CREATE FUNCTION tw_unlisted(n INT) RETURNS INT RETURN n",
		"CREATE VIEW calls_unlisted AS SELECT tw_unlisted(GenreId) AS g FROM Genre",
		"DROP FUNCTION tw_unlisted",
	)
	u := f.watch(t, "/tmp/tw-my-udf-")
	calls := []string{
		"SELECT tw_unlisted('touch /tmp/tw-my-udf')",
		"SELECT `tw_unlisted`('touch /tmp/tw-my-udf')",
		"SELECT Name FROM Genre WHERE tw_unlisted(GenreId) > 0",
		"SELECT COUNT(*) FROM Genre g JOIN (SELECT tw_unlisted (1) AS x) s ON s.x = g.GenreId",
	}
	views := []string{"SELECT * FROM calls_unlisted", "SELECT COUNT(*) FROM Genre WHERE GenreId IN (SELECT g FROM calls_unlisted)"}
	for _, grants := range []struct {
		name, grants string
		also         []string
	}{
		{"select", "SELECT, SHOW VIEW", nil},
		{"select and mysql.proc", "SELECT, SHOW VIEW", []string{"mysql.proc"}},
	} {
		t.Run(grants.name, func(t *testing.T) {
			eng := f.reader(t, grants.grants, grants.also...)
			defer eng.Close()
			f.refusesSaying(t, eng, "tw_unlisted", calls...)
			f.refusesSaying(t, eng, "mysql.func", calls...)
			f.refusesSaying(t, eng, "tw_unlisted", views...)
			// Words the server lists as its own that it looks up among
			// the loadable functions before a parenthesis, a constructor
			// with other arguments than it takes, and a function of
			// MySQL's alone.
			f.refusesSaying(t, eng, "mysql.func", "SELECT status(1)", "SELECT Name FROM Genre WHERE columns(Name)", "SELECT json_table('x')",
				"SELECT point(1)", "SELECT polygon()", "SELECT regexp_like(Name, 'R') FROM Genre")
			// An executable comment is refused whatever it holds.
			refuses(t, eng, "SELECT 1 /*! + tw_unlisted(1) */")
			for _, q := range ordinaryCalls {
				if _, err := query.Collect(context.Background(), eng, q, query.Options{}); err != nil {
					t.Errorf("%q: %v", q, err)
				}
			}
		})
	}
	// An administrator reads mysql.func: the server's own functions run,
	// and a name it does not list reaches the server, which has no such
	// function.
	eng := f.single(t)
	defer eng.Close()
	for _, q := range ordinaryCalls {
		if _, err := query.Collect(context.Background(), eng, q, query.Options{}); err != nil {
			t.Errorf("as an administrator, %q: %v", q, err)
		}
	}
	_, err := query.Collect(context.Background(), eng, calls[0], query.Options{})
	var rej *guard.Rejection
	if err == nil || errors.As(err, &rej) {
		t.Errorf("as an administrator, %q: %v, want the server's error", calls[0], err)
	}
	u.check(t)
}

// TestGoldCallsPassLeastPrivilege: the calls of the gold SQL of every
// question set (data/eval) pass the guard for the user tablewise doctor
// recommends, who cannot read mysql.func: a call the guard refuses as
// unlisted must be of a name the server has no function of (it answers
// "FUNCTION … does not exist" to an administrator too; the gold SQL is
// written for SQLite, whose strftime MariaDB lacks). go test -run
// TestGoldCallsPassLeastPrivilege -v prints the counts.
func TestGoldCallsPassLeastPrivilege(t *testing.T) {
	f := chinook(t)
	files, err := filepath.Glob("../../../data/eval/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no question sets: %v", err)
	}
	var statements []string
	for _, file := range files {
		cases, err := eval.LoadCases(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.GoldSQL != "" {
				statements = append(statements, c.GoldSQL)
			}
		}
	}
	statements = append(statements, ordinaryCalls...)
	eng := f.reader(t, "SELECT, SHOW VIEW")
	defer eng.Close()
	lacks := map[string]bool{}
	lacked := func(name string) bool {
		if _, ok := lacks[name]; !ok {
			lacks[name] = !f.serverHas(t, name)
		}
		return lacks[name]
	}
	refused, absent := 0, map[string]int{}
	for _, q := range statements {
		err := eng.Check(context.Background(), q)
		var rej *guard.Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.Reason, "does not list it among its own functions") {
			continue
		}
		name := strings.TrimPrefix(rej.What, "function ")
		if lacked(name) {
			absent[strings.ToUpper(name)]++
			continue
		}
		refused++
		t.Errorf("%q: refused as calling %s, one of the server's own functions", q, name)
	}
	t.Logf("%d statements; %d refused calling a function the server has; refused calling a name the server has no function of: %v", len(statements), refused, absent)
}

// TestServerFunctionsPassLeastPrivilege: every function the server
// documents in its help tables (mysql.help_topic, as installed with it:
// a broad list of its native functions), and the ST_ spelling of each,
// that the server has (an administrator's call of it is not answered
// "does not exist") passes the guard, called bare, for the user
// tablewise doctor recommends, who cannot read mysql.func. go test -run
// TestServerFunctionsPassLeastPrivilege -v prints the counts.
func TestServerFunctionsPassLeastPrivilege(t *testing.T) {
	f := chinook(t)
	rows, err := f.root.Query("SELECT DISTINCT UPPER(REPLACE(name, '\\\\_', '_')) FROM mysql.help_topic")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	seen := map[string]bool{}
	plain := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !plain.MatchString(name) {
			continue
		}
		for _, n := range []string{name, "ST_" + strings.TrimPrefix(name, "ST_")} {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(names) < 200 {
		t.Fatalf("the server's help tables list %d names: not installed?", len(names))
	}
	eng := f.reader(t, "SELECT, SHOW VIEW")
	defer eng.Close()
	has, refused := 0, 0
	for _, name := range names {
		if !f.serverHas(t, name) {
			continue
		}
		has++
		err := eng.Check(context.Background(), "SELECT "+name+"(1, 1)")
		var rej *guard.Rejection
		if errors.As(err, &rej) && strings.Contains(rej.Reason, "does not list it among its own functions") {
			refused++
			t.Errorf("%s: refused, but the server has the function", name)
		}
	}
	t.Logf("%d names, %d of the server's functions; %d refused", len(names), has, refused)
}

// serverHas reports whether the server has a function of the name, as an
// administrator's calls of it with none to three arguments show: one is
// not answered "FUNCTION … does not exist" (POINT(1, 2) is a function,
// POINT() is looked up as a stored one) nor a syntax error (a word the
// server reads as syntax).
func (f *fixture) serverHas(t *testing.T, name string) bool {
	t.Helper()
	for _, args := range []string{"", "1", "1, 1", "1, 1, 1"} {
		_, err := f.root.Exec("SELECT " + name + "(" + args + ")")
		var me *mysqldriver.MySQLError
		if !errors.As(err, &me) || me.Number != 1305 && me.Number != 1630 && me.Number != 1064 {
			return true
		}
	}
	return false
}

// TestLoadableFunctionNamedAnotherWay: the server finds a loadable
// function by its name compared as utf8mb3_general_ci, which ignores
// case and accents (sql_udf.cc hashes the names with the system
// character set), as it finds a stored function (TestStoredFunction
// NamedAnotherWay). To a user who reads mysql.func, the guard refused a
// listed loadable function by its upper-cased name, and the server's
// check compared mysql.func's names as written (utf8mb3_bin): sÿs_exec(…)
// would have passed both and called sys_exec. A row of mysql.func stands
// for an installed function here (the server loads its library only at
// start): its name written with an accent is refused, before and after
// the guard learnt it, and so is the name itself.
func TestLoadableFunctionNamedAnotherWay(t *testing.T) {
	f := chinook(t)
	name := "tw_udf_" + f.scalar(t, "SELECT LOWER(HEX(RANDOM_BYTES(6)))")
	t.Cleanup(func() { f.root.Exec("DELETE FROM mysql.func WHERE name = ?", name) })
	eng := f.single(t)
	defer eng.Close()
	// The guard learns the database before the row exists, and again.
	if _, err := query.Collect(context.Background(), eng, "SELECT 1", query.Options{}); err != nil {
		t.Fatal(err)
	}
	f.exec(t, "INSERT INTO mysql.func (name, ret, dl, type) VALUES (?, 2, 'tw_udf_none.so', 'function')", name)
	accented := strings.Replace(name, "udf", "ÜDF", 1)
	for _, q := range []string{
		"SELECT " + accented + "('x')",
		"SELECT `" + accented + "`('x')",
		"SELECT Name FROM Genre WHERE " + strings.ToUpper(name) + "(Name) = 1",
	} {
		for round := 0; round < 2; round++ {
			_, err := query.Collect(context.Background(), eng, q, query.Options{Timeout: 2 * time.Second})
			var rej *guard.Rejection
			if !errors.As(err, &rej) {
				t.Errorf("%q (round %d): %v, want a refusal", q, round, err)
			}
		}
	}
}
