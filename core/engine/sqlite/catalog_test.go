package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite"
	"github.com/tablewise/tablewise/core/testdb"
)

const slowViews = `CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x');
CREATE VIEW zslow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c;
CREATE VIEW zslow2 AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c WHERE x = 0;`

type catOutcome struct {
	cat     *catalog.Catalog
	err     error
	elapsed time.Duration
}

func readCatalog(ctx context.Context, d *sqlite.Engine) catOutcome {
	start := time.Now()
	cat, err := d.Catalog(ctx)
	return catOutcome{cat, err, time.Since(start)}
}

// TestCatalogSlowViews: counting and sampling a view whose query never ends
// are cut at their budgets; the catalog still describes the views.
func TestCatalogSlowViews(t *testing.T) {
	d, err := sqlite.Open(context.Background(), testdb.Build(t, "slow.db", slowViews), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := testdb.Within(t, 20*time.Second, func() catOutcome { return readCatalog(context.Background(), d) })
	if out.err != nil {
		t.Fatal(out.err)
	}
	// two views × (count + sample), each cut by its budget of
	// instructions (about 250 ms idle) or at worst by its 1 s time bound,
	// plus slack
	if out.elapsed > 4500*time.Millisecond {
		t.Errorf("catalog took %v", out.elapsed)
	}
	for _, name := range []string{"zslow", "zslow2"} {
		v := out.cat.Table(name)
		if v == nil || v.RowCount != -1 || v.Sample != nil || len(v.Columns) != 1 {
			t.Errorf("%s: %+v", name, v)
		}
	}
	if tt := out.cat.Table("t"); tt == nil || tt.RowCount != 1 || len(tt.Sample) != 1 {
		t.Errorf("t: %+v", tt)
	}
}

// TestCatalogSortingView: SQLite sorts in one instruction, which neither
// an interrupt nor the budget of instructions stops. A view whose window
// sorts 10,000 rows on 2,000 keys (seconds: see TestSortPastDeadline) held
// its count, and then its sample, seconds past their 1 s bound each, wherever
// the budget of instructions had not ended them first (here: budgets too
// large to). The catalog answers at each bound, the view uncounted and
// unsampled, and reads the next view on another connection.
func TestCatalogSortingView(t *testing.T) {
	path := testdb.Build(t, "sortview.db", `CREATE TABLE k(a INTEGER PRIMARY KEY, c INTEGER, b INTEGER);
WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r LIMIT 10000)
INSERT INTO k SELECT x, 0, (x * 7919) % 10007 FROM r;
CREATE VIEW v AS SELECT b, row_number() OVER (ORDER BY `+strings.Repeat("c, ", 1999)+`b) AS n FROM k;
CREATE TABLE z(a); INSERT INTO z VALUES (1), (2);
CREATE VIEW w AS SELECT a FROM z;`)
	bound := sqlite.NoCatalogSteps(t)
	sqlite.WaitStepping(t)
	d, err := sqlite.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := testdb.Within(t, 4*bound+20*time.Second, func() catOutcome { return readCatalog(context.Background(), d) })
	if out.err != nil {
		t.Fatal(out.err)
	}
	t.Logf("catalog read in %v", out.elapsed)
	// the view's count and its sample, each cut at its bound, plus slack
	if limit := 2*bound + time.Second; out.elapsed > limit {
		t.Errorf("catalog took %v, want at most %v", out.elapsed, limit)
	}
	if v := out.cat.Table("v"); v == nil || v.RowCount != -1 || v.Sample != nil || len(v.Columns) != 2 {
		t.Errorf("v: %v", brief(v))
	}
	// w, read after v, on another connection
	for name, n := range map[string]int64{"k": 10000, "z": 2, "w": 2} {
		if tb := out.cat.Table(name); tb == nil || tb.RowCount != n || tb.RowCountEstimated || len(tb.Sample) == 0 {
			t.Errorf("%s: %v", name, brief(tb))
		}
	}
	countsAtOnce(t, d, "z", 2)
}

// TestCatalogBrokenView: a view whose table was dropped fails to describe;
// it keeps its card (without columns) instead of failing the whole catalog.
func TestCatalogBrokenView(t *testing.T) {
	cat := sqlite.CatalogOf(t, testdb.Build(t, "broken.db", "CREATE TABLE x(a); CREATE VIEW v AS SELECT a FROM x; DROP TABLE x; CREATE TABLE t(a, b);"))
	if v := cat.Table("v"); v == nil || v.Kind != "view" || len(v.Columns) != 0 {
		t.Errorf("v: %+v", v)
	}
	if got := strings.Join(cat.ColumnNames("t"), ","); got != "a,b" {
		t.Errorf("t columns %q", got)
	}
}

func TestCatalog(t *testing.T) {
	cat := sqlite.CatalogOf(t, testdb.Fixture(t))
	names := strings.Join(cat.TableNames(), ",")
	if names != "customer,Match,order,Order Details,t,big_orders" {
		t.Fatalf("tables %s", names)
	}
	od := cat.Table("order details")
	if od == nil || od.Kind != "table" || od.RowCount != 3 || od.RowCountEstimated {
		t.Fatalf("Order Details: %+v", od)
	}
	if strings.Join(od.PrimaryKey, ",") != "order_id,product" {
		t.Errorf("pk %v", od.PrimaryKey)
	}
	if len(od.ForeignKeys) != 1 || od.ForeignKeys[0].RefTable != "order" || od.ForeignKeys[0].Columns[0] != "order_id" {
		t.Errorf("fks %+v", od.ForeignKeys)
	}
	if len(od.Sample) != 3 || len(od.Sample[0]) != 4 {
		t.Errorf("sample %v", od.Sample)
	}
	ord := cat.Table("order")
	if len(ord.Indexes) != 1 || ord.Indexes[0].Name != "order_customer" || ord.Indexes[0].Columns[0] != "customer_id" {
		t.Errorf("indexes %+v", ord.Indexes)
	}
	refs := cat.ReferencedBy("order")
	if len(refs) != 1 || refs[0].Table != "Order Details" {
		t.Errorf("referenced by %+v", refs)
	}
	cust := cat.Table("customer")
	if cust.Columns[2].Name != "country" || cust.Columns[2].Comment != "where they live" || !cust.Columns[1].NotNull {
		t.Errorf("customer columns %+v", cust.Columns)
	}
	v := cat.Table("big_orders")
	if v.Kind != "view" || v.RowCount != 2 || len(v.Columns) != 4 {
		t.Errorf("view %+v", v)
	}
	if got := cat.ColumnNames("Match"); strings.Join(got, ",") != "id,home,away,data" {
		t.Errorf("Match columns %v", got)
	}
}

// TestCatalogCommentsAndChecks: a table's comment and the values its CHECK
// constraints allow are read into the catalog, so that nothing above the
// engine parses CREATE texts.
func TestCatalogCommentsAndChecks(t *testing.T) {
	path := testdb.Build(t, "checks.db", `CREATE TABLE ticket ( -- support tickets, one per request
  id INTEGER PRIMARY KEY,
  status TEXT CHECK (status IN ('open', 'closed')),
  priority INTEGER);`)
	cat := sqlite.CatalogOf(t, path)
	tk := cat.Table("ticket")
	if tk.Comment != "support tickets, one per request" {
		t.Errorf("comment %q", tk.Comment)
	}
	if len(tk.Checks) != 1 || tk.Checks[0].Column != "status" || strings.Join(tk.Checks[0].Values, ",") != "open,closed" {
		t.Errorf("checks %+v", tk.Checks)
	}
}

// brief is what the catalog read of a table, without its SQL.
func brief(t *catalog.Table) string {
	if t == nil {
		return "missing"
	}
	return fmt.Sprintf("row count %d, sample %v (nil: %v), %d columns", t.RowCount, t.Sample, t.Sample == nil, len(t.Columns))
}
