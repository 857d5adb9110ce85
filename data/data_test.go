package data_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	_ "modernc.org/sqlite"

	"github.com/tablewise/tablewise/core/testdb/servers"
	"github.com/tablewise/tablewise/data"
	"github.com/tablewise/tablewise/data/internal/sampledb"
)

// isolateCache points os.UserCacheDir at a fresh directory so tests never
// touch the real user cache. It only works where UserCacheDir honours
// XDG_CACHE_HOME (Linux and other Unix systems except macOS).
func isolateCache(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "ios" {
		t.Skip("cache isolation via XDG_CACHE_HOME is not supported on " + runtime.GOOS)
	}
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	return dir
}

func TestEmbeddedSampleIsFreshAndDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	start := time.Now()
	for _, p := range []string{a, b} {
		if err := sampledb.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("generated twice in %s", time.Since(start))
	ab, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ab, bb) {
		t.Fatal("the sample generator is not deterministic: two runs produced different bytes")
	}
	if !bytes.Equal(ab, data.SampleBytes()) {
		t.Fatalf("embedded data/sample.db (%d bytes) differs from what the generator produces (%d bytes); run `go generate ./data/...`",
			len(data.SampleBytes()), len(ab))
	}
}

func TestSampleBytesHeader(t *testing.T) {
	b := data.SampleBytes()
	if !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		t.Fatal("embedded sample is not an SQLite 3 file")
	}
	if got := int(b[16])<<8 | int(b[17]); got != 4096 {
		t.Errorf("page size = %d, want 4096", got)
	}
	// Bytes 18 and 19 are 2 in WAL mode; a WAL file cannot be opened
	// read-only without a -shm file.
	if b[18] != 1 || b[19] != 1 {
		t.Errorf("file format versions = %d/%d, want 1/1 (rollback journal, not WAL)", b[18], b[19])
	}
	b[0] = 'X'
	if data.SampleBytes()[0] != 'S' {
		t.Error("SampleBytes returns shared memory; modifying it changed the embedded sample")
	}
}

func TestSamplePath(t *testing.T) {
	cache := isolateCache(t)
	var wg sync.WaitGroup
	paths := make([]string, 8)
	errs := make([]error, 8)
	for i := range paths {
		wg.Go(func() { paths[i], errs[i] = data.SamplePath() })
	}
	wg.Wait()
	for i := range paths {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if paths[i] != paths[0] {
			t.Fatalf("concurrent calls returned different paths: %q and %q", paths[0], paths[i])
		}
	}
	p := paths[0]
	again, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	if again != p {
		t.Fatalf("SamplePath changed between calls: %q then %q", p, again)
	}
	if dir := filepath.Join(cache, "tablewise"); filepath.Dir(p) != dir {
		t.Errorf("sample copy at %q, want it in %q", p, dir)
	}
	if base := filepath.Base(p); !strings.HasPrefix(base, "sample-") || len(base) != len("sample-")+12+len(".db") {
		t.Errorf("unexpected file name %q", base)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data.SampleBytes()) {
		t.Fatal("the cached copy differs from SampleBytes()")
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Errorf("cached copy mode = %v, want 0444", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("cache dir holds %d entries, want just the sample (leftover temp files?)", len(entries))
	}

	// A truncated copy (wrong size) is replaced.
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := data.SamplePath(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, data.SampleBytes()) {
		t.Fatal("a wrong-sized cached copy was not replaced")
	}
}

func TestSamplePathFallsBackToTempDir(t *testing.T) {
	isolateCache(t)
	tmp := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "") // now os.UserCacheDir fails
	t.Setenv("TMPDIR", tmp)
	if _, err := os.UserCacheDir(); err == nil {
		t.Skip("os.UserCacheDir still succeeds without HOME and XDG_CACHE_HOME")
	}
	p, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(tmp, "tablewise"); filepath.Dir(p) != want {
		t.Fatalf("fallback copy at %q, want it in %q", p, want)
	}
}

func TestSamplePathUnwritableCache(t *testing.T) {
	cache := isolateCache(t)
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := os.Chmod(cache, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(cache, 0o755) })
	p, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, tmp) {
		t.Fatalf("with an unwritable cache dir the copy went to %q, want under %q", p, tmp)
	}
}

// openSample opens the cached copy read-only, as the application does.
func openSample(t *testing.T) *sql.DB {
	t.Helper()
	isolateCache(t)
	p, err := data.SamplePath()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(p)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func TestSampleContents(t *testing.T) {
	db := openSample(t)
	tables := servers.Column[string](t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)

	t.Run("tables and rows", func(t *testing.T) {
		if len(tables) < 10 {
			t.Errorf("%d tables, want at least 10: %v", len(tables), tables)
		}
		total := 0
		for _, tb := range tables {
			n := queryInt(t, db, "SELECT count(*) FROM "+quote(tb))
			t.Logf("%-12s %6d rows", tb, n)
			total += n
		}
		t.Logf("total        %6d rows", total)
		if total < 50000 {
			t.Errorf("%d rows in total, want at least 50000", total)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		if _, err := db.Exec(`DELETE FROM regions`); err == nil {
			t.Error("DELETE succeeded on a mode=ro connection")
		}
	})

	t.Run("views", func(t *testing.T) {
		for _, v := range []string{"order_totals", "monthly_sales"} {
			if n := queryInt(t, db, `SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = ?`, v); n != 1 {
				t.Errorf("view %s missing", v)
				continue
			}
			if n := queryInt(t, db, "SELECT count(*) FROM "+v); n == 0 {
				t.Errorf("view %s returns no rows", v)
			}
		}
		if a, b := queryInt(t, db, `SELECT count(*) FROM order_totals`), queryInt(t, db, `SELECT count(*) FROM orders`); a != b {
			t.Errorf("order_totals has %d rows, orders %d: some orders have no items", a, b)
		}
	})

	t.Run("foreign keys", func(t *testing.T) {
		if bad := servers.Column[string](t, db, `SELECT "table" || ' row ' || rowid FROM pragma_foreign_key_check`); len(bad) > 0 {
			t.Errorf("foreign_key_check: %d violations, e.g. %v", len(bad), bad[0])
		}
		// Longest chain of foreign keys between distinct tables.
		edges := map[string][]string{}
		for _, tb := range tables {
			for _, parent := range servers.Column[string](t, db, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, tb) {
				if parent != tb {
					edges[tb] = append(edges[tb], parent)
				}
			}
		}
		var depth func(string, int) int
		depth = func(tb string, guard int) int {
			best := 0
			if guard > len(tables) {
				return 0
			}
			for _, p := range edges[tb] {
				best = max(best, 1+depth(p, guard+1))
			}
			return best
		}
		longest := 0
		for _, tb := range tables {
			longest = max(longest, depth(tb, 0))
		}
		if longest < 3 {
			t.Errorf("longest foreign-key chain has %d hops, want at least 3", longest)
		}
		// The 4-hop chain actually joins for every row.
		items := queryInt(t, db, `SELECT count(*) FROM order_items`)
		joined := queryInt(t, db, `SELECT count(*) FROM order_items oi
			JOIN orders o ON o.order_id = oi.order_id
			JOIN customers c ON c.customer_id = o.customer_id
			JOIN countries co ON co.country_id = c.country_id
			JOIN regions r ON r.region_id = co.region_id`)
		if joined != items {
			t.Errorf("order_items→orders→customers→countries→regions joins %d of %d rows", joined, items)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM employees e JOIN employees m ON m.employee_id = e.reports_to`); n == 0 {
			t.Error("employees.reports_to self-reference is never used")
		}
	})

	t.Run("nulls", func(t *testing.T) {
		for _, c := range []struct{ table, col string }{
			{"orders", "shipped_date"}, {"orders", "promo_code_id"}, {"customers", "phone"},
			{"customers", "company"}, {"products", "notes"}, {"employees", "reports_to"},
			{"employees", "termination_date"}, {"reviews", "body"}, {"reviews", "order_id"},
			{"shipments", "delivered_date"}, {"payments", "settled_at"}, {"promo codes", "value"},
		} {
			nulls := queryInt(t, db, "SELECT count(*) FROM "+quote(c.table)+" WHERE "+quote(c.col)+" IS NULL")
			vals := queryInt(t, db, "SELECT count(*) FROM "+quote(c.table)+" WHERE "+quote(c.col)+" IS NOT NULL")
			if nulls == 0 || vals == 0 {
				t.Errorf("%s.%s: %d NULL and %d non-NULL values, want both", c.table, c.col, nulls, vals)
			}
		}
		if n := queryInt(t, db, `SELECT count(*) FROM orders
			WHERE (shipped_date IS NULL) <> (status IN ('pending', 'processing', 'cancelled'))`); n != 0 {
			t.Errorf("%d orders where shipped_date NULL-ness disagrees with status", n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM products WHERE discontinued = 1 AND notes IS NULL`); n != 0 {
			t.Errorf("%d discontinued products without notes", n)
		}
	})

	t.Run("text", func(t *testing.T) {
		scripts := map[string]*unicode.RangeTable{
			"Han": unicode.Han, "Cyrillic": unicode.Cyrillic, "Arabic": unicode.Arabic, "Hangul": unicode.Hangul,
		}
		found := map[string]string{}
		for _, name := range servers.Column[string](t, db, `SELECT name FROM customers`) {
			for script, rt := range scripts {
				if _, ok := found[script]; !ok && strings.IndexFunc(name, func(r rune) bool { return unicode.Is(rt, r) }) >= 0 {
					found[script] = name
				}
			}
		}
		for script := range scripts {
			if found[script] == "" {
				t.Errorf("no customer name in %s script", script)
			}
		}
		t.Logf("non-Latin names: %v", found)
		for _, city := range []string{"São Paulo", "Kraków", "東京"} {
			if n := queryInt(t, db, `SELECT count(*) FROM customers WHERE city = ?`, city); n == 0 {
				t.Errorf("no customer in %s", city)
			}
		}
		if n := queryInt(t, db, `SELECT count(*) FROM customers WHERE name LIKE '%''%'`); n == 0 {
			t.Error("no customer name with an apostrophe")
		}
	})

	t.Run("repeated column names", func(t *testing.T) {
		for _, col := range []string{"status", "name", "type"} {
			var in []string
			for _, tb := range tables {
				if queryInt(t, db, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, tb, col) > 0 {
					in = append(in, tb)
				}
			}
			if len(in) < 2 {
				t.Errorf("column %q appears in %v, want at least 2 tables", col, in)
			}
		}
	})

	t.Run("injection row", func(t *testing.T) {
		if n := queryInt(t, db, `SELECT count(*) FROM reviews WHERE instr(body, ?) > 0`, data.InjectionMarker); n != 1 {
			t.Errorf("reviews.body contains the injection marker %d times, want exactly 1", n)
		}
		total := 0
		for _, tb := range tables {
			for _, col := range servers.Column[string](t, db, `SELECT name FROM pragma_table_info(?)`, tb) {
				total += queryInt(t, db, "SELECT count(*) FROM "+quote(tb)+" WHERE instr(CAST("+quote(col)+" AS TEXT), ?) > 0", data.InjectionMarker)
			}
		}
		if total != 1 {
			t.Errorf("injection marker found in %d cells across the database, want exactly 1", total)
		}
	})

	t.Run("dates", func(t *testing.T) {
		const d = `[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]`
		if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE order_date NOT GLOB ?`, d+` [0-2][0-9]:[0-5][0-9]:[0-5][0-9]`); n != 0 {
			t.Errorf("%d order_date values are not 'YYYY-MM-DD HH:MM:SS'", n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE shipped_date NOT GLOB ? OR required_date NOT GLOB ?`, d, d); n != 0 {
			t.Errorf("%d shipped_date/required_date values are not 'YYYY-MM-DD'", n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM orders WHERE shipped_date < date(order_date)`); n != 0 {
			t.Errorf("%d orders shipped before they were placed", n)
		}
		span := queryInt(t, db, `SELECT CAST(julianday(max(order_date)) - julianday(min(order_date)) AS INTEGER) FROM orders`)
		if span < 3*365 {
			t.Errorf("order dates span %d days, want at least 3 years", span)
		}
	})

	t.Run("seasonality and growth", func(t *testing.T) {
		rows, err := db.Query(`SELECT CAST(substr(order_date, 1, 4) AS INTEGER) AS y,
				count(*),
				sum(substr(order_date, 6, 2) = '12'),
				sum(substr(order_date, 6, 2) = '07'),
				count(DISTINCT substr(order_date, 6, 2))
			FROM orders GROUP BY y ORDER BY y`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		full, prev := 0, 0
		for rows.Next() {
			var y, n, dec, jul, months int
			if err := rows.Scan(&y, &n, &dec, &jul, &months); err != nil {
				t.Fatal(err)
			}
			if months != 12 {
				continue
			}
			full++
			avg := float64(n) / 12
			t.Logf("%d: %d orders, monthly average %.0f, December %d, July %d", y, n, avg, dec, jul)
			if float64(dec) <= avg {
				t.Errorf("%d: December has %d orders, not above the monthly average %.0f", y, dec, avg)
			}
			if float64(jul) >= avg {
				t.Errorf("%d: July has %d orders, no summer dip below the monthly average %.0f", y, jul, avg)
			}
			if prev > 0 && n <= prev {
				t.Errorf("%d: %d orders, no growth over the previous year's %d", y, n, prev)
			}
			prev = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if full < 3 {
			t.Errorf("%d complete years of orders, want at least 3", full)
		}
	})

	t.Run("customers by country", func(t *testing.T) {
		counts := servers.Column[string](t, db, `SELECT co.name || ':' || count(*) FROM customers c
			JOIN countries co USING (country_id) GROUP BY co.name ORDER BY count(*) DESC LIMIT 2`)
		a := queryInt(t, db, `SELECT count(*) FROM customers GROUP BY country_id ORDER BY 1 DESC LIMIT 1`)
		b := queryInt(t, db, `SELECT count(*) FROM customers GROUP BY country_id ORDER BY 1 DESC LIMIT 1 OFFSET 1`)
		if float64(a) < 1.5*float64(b) {
			t.Errorf("no clear country with most customers: %v", counts)
		}
		for _, c := range []string{"France", "Germany", "Brazil", "Mexico", "United States", "Japan", "Poland"} {
			if n := queryInt(t, db, `SELECT count(*) FROM customers JOIN countries USING (country_id) WHERE countries.name = ?`, c); n == 0 {
				t.Errorf("no customers in %s", c)
			}
		}
		if n := queryInt(t, db, `SELECT count(*) FROM countries WHERE country_id NOT IN (SELECT country_id FROM customers)`); n == 0 {
			t.Error("every country has customers; want at least one without (for LEFT JOIN questions)")
		}
	})
}
