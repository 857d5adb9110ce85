package mysql_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/query"
)

// TestDialectOnServer: the dialect's SQL runs on the server and gives
// what SQLite's gives (weeks as strftime's %W, from the first Monday),
// and its quoting round-trips awkward names and strings.
func TestDialectOnServer(t *testing.T) {
	f := chinook(t)
	d := f.eng.Dialect()
	if !strings.HasPrefix(d.Name(), "MariaDB 10.") {
		t.Errorf("dialect name %q", d.Name())
	}
	want := map[string][5]string{ // year, quarter, month, week, day
		"2024-01-01 10:00:00": {"2024", "2024-Q1", "2024-01", "2024-W01", "2024-01-01"},
		"2023-01-01 00:00:00": {"2023", "2023-Q1", "2023-01", "2023-W00", "2023-01-01"},
		"2024-03-05 23:59:59": {"2024", "2024-Q1", "2024-03", "2024-W10", "2024-03-05"},
		"2024-12-31 12:00:00": {"2024", "2024-Q4", "2024-12", "2024-W53", "2024-12-31"},
		"2020-12-31 00:00:00": {"2020", "2020-Q4", "2020-12", "2020-W52", "2020-12-31"},
	}
	for ts, w := range want {
		expr := "TIMESTAMP " + d.QuoteString(ts)
		var cols []string
		for _, u := range []engine.TimeUnit{engine.Year, engine.Quarter, engine.Month, engine.Week, engine.Day} {
			cols = append(cols, d.DateBucket(expr, u))
		}
		res, err := query.Collect(context.Background(), f.eng, "SELECT "+strings.Join(cols, ", "), query.Options{})
		if err != nil {
			t.Fatalf("%s: %v", ts, err)
		}
		for i := range w {
			if res.Rows[0][i] != w[i] {
				t.Errorf("%s bucket %d = %v, want %s", ts, i, res.Rows[0][i], w[i])
			}
		}
	}
	res, err := query.Collect(context.Background(), f.eng, "SELECT "+d.DateBucket(d.FromUnixSeconds("86400"), engine.Day)+", "+
		d.QuoteString(`it's a \ back`)+" AS "+d.QuoteIdent("odd `name`")+", COUNT(*) FROM Track WHERE "+d.Like("Name", `%rock\_%`)+" OR "+d.Like("Name", "BALLS TO%")+" "+d.Limit(1), query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != "1970-01-02" || r[1] != `it's a \ back` || res.Columns[1].Name != "odd `name`" || r[2] != int64(1) {
		t.Errorf("FromUnixSeconds, QuoteString, QuoteIdent, Like: %v %v", res.Columns, r)
	}
	for in, want := range map[string]string{"Track": "Track", "promo codes": "`promo codes`", "order": "`order`", "123": "`123`", "a`b": "`a``b`"} {
		if got := d.QuoteIdentIfNeeded(in); got != want {
			t.Errorf("QuoteIdentIfNeeded(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestConfig: the URL forms tablewise reads, the parameters it refuses
// (nothing that loosens the engine reaches the driver), and errors that
// never show the password.
func TestConfig(t *testing.T) {
	cfg, err := twmysql.Config("mariadb://ro:s3cret@db.example:3307/shop?tls=true&timeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "ro" || cfg.Passwd != "s3cret" || cfg.Addr != "db.example:3307" || cfg.DBName != "shop" || cfg.MultiStatements || cfg.AllowAllFiles || cfg.Timeout.String() != "2s" {
		t.Errorf("config %+v", cfg)
	}
	cfg, err = twmysql.Config("mysql://db.example/shop")
	if err != nil || cfg.User != "root" || cfg.Addr != "db.example:3306" {
		t.Errorf("defaults: %+v %v", cfg, err)
	}
	for _, bad := range []string{
		"mysql://u:s3cret@h/shop?multiStatements=true",
		"mysql://u:s3cret@h/shop?allowAllFiles=true",
		"mysql://u:s3cret@h/shop?allowLocalInfile=true",
		"mysql://u:s3cret@h/",
		"mysql://u:s3cret@h/shop?charset=x;DROP",
		"mysql://u:s3cret@h/shop?role=reader",
		"mysql://u:s3cret@h/shop?timeout=soon",
	} {
		_, err := twmysql.Config(bad)
		if !errors.Is(err, engine.ErrBadPath) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "u:xxxxx@h") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	_, err = twmysql.Open(context.Background(), "mysql://u:s3cret@127.0.0.1:1/shop?timeout=1s", engine.Options{})
	if !errors.Is(err, engine.ErrUnavailable) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("unreachable server: %v", err)
	}
}

// TestExplain: a plan names the table a query scans in full, and EXPLAIN
// is vetted like the statement (EXPLAIN of a write is refused).
func TestExplain(t *testing.T) {
	f := chinook(t)
	p, err := f.eng.Explain(context.Background(), "EXPLAIN SELECT * FROM Track WHERE Composer LIKE '%a%' ORDER BY Bytes")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Scan != "Track" || p.Steps[0].Rows < 3000 || p.Steps[0].Note == "" || !strings.Contains(p.Text(), "SCAN Track") {
		t.Errorf("plan %+v\n%s", p.Steps, p.Text())
	}
	if _, err := f.eng.Explain(context.Background(), "DELETE FROM Track"); err == nil {
		t.Error("EXPLAIN DELETE was not refused")
	}
}

// TestExactText: the server's default collation takes 'Lazão' and 'Lazao'
// (two of Chinook's composers) for one value; through ExactText DISTINCT
// counts what SQLite counts (853), and text that differs only in case or
// trailing spaces stays apart too.
func TestExactText(t *testing.T) {
	f := chinook(t)
	d := f.eng.Dialect()
	res, err := query.Collect(context.Background(), f.eng, "SELECT COUNT(DISTINCT Composer), COUNT(DISTINCT "+d.ExactText("Composer")+") FROM Track", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != int64(852) || r[1] != int64(853) {
		t.Errorf("distinct composers under the collation and exactly: %v, want [852 853]", r)
	}
	x := d.ExactText("x")
	res, err = query.Collect(context.Background(), f.eng, "SELECT COUNT(DISTINCT "+x+"), COUNT("+x+") FROM (SELECT 'a' AS x UNION ALL SELECT 'A' UNION ALL SELECT 'a ' UNION ALL SELECT 'á' UNION ALL SELECT 'a' UNION ALL SELECT NULL) t", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != int64(4) || r[1] != int64(5) {
		t.Errorf("distinct and counted values of a, A, 'a ', á, a, NULL: %v, want [4 5]", r)
	}
}
