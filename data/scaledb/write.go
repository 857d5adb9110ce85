// Package scaledb writes the databases tablewise's scale figures are
// measured on: a wide schema of many small tables (Wide) and a shop with
// one big orders table (Orders). The output is deterministic (fixed seeds);
// cmd/scaledb writes them, data/testdata/scale.sh measures them.
package scaledb

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/tablewise/tablewise/data/internal/sqlitefile"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// write builds the database in path+".tmp" with fill and renames it into
// place. The load is a fast one-off: no journal, no syncs (the file is
// renamed into place only when complete).
func write(path string, fill func(tx *sql.Tx) error, after ...string) error {
	tmp := path + ".tmp"
	for _, p := range []string{tmp, tmp + "-journal"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	pragmas := []string{"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF", "PRAGMA cache_size = -65536"}
	err := sqlitefile.Fill(tmp, pragmas, func(db *sql.DB) error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if err := fill(tx); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		for _, q := range after {
			if _, err := db.Exec(q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// inserter inserts rows of n columns, batch rows per statement.
type inserter struct {
	tx    *sql.Tx
	table string
	n     int
	batch int
	stmt  *sql.Stmt
	args  []any
}

func newInserter(tx *sql.Tx, table string, n int) (*inserter, error) {
	in := &inserter{tx: tx, table: table, n: n, batch: max(1, 500/n)}
	s, err := tx.Prepare(in.sql(in.batch))
	in.stmt = s
	return in, err
}

func (in *inserter) sql(rows int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", in.n), ",") + ")"
	return "INSERT INTO " + in.table + " VALUES " + strings.TrimSuffix(strings.Repeat(row+",", rows), ",")
}

func (in *inserter) add(row ...any) error {
	in.args = append(in.args, row...)
	if len(in.args) == in.n*in.batch {
		_, err := in.stmt.Exec(in.args...)
		in.args = in.args[:0]
		return err
	}
	return nil
}

func (in *inserter) flush() error {
	defer in.stmt.Close()
	if len(in.args) == 0 {
		return nil
	}
	_, err := in.tx.Exec(in.sql(len(in.args)/in.n), in.args...)
	in.args = in.args[:0]
	return err
}

// Wide is a schema of many small tables of one business's departments:
// names made of an area and a thing (billing_invoice_lines), each table
// with an id, a few references to tables before it, and columns of text,
// numbers and dates.
type Wide struct {
	Tables, Columns, Rows int
}

var (
	areas = []string{"billing", "crm", "hr", "inventory", "logistics", "marketing", "finance", "support",
		"sales", "procurement", "legal", "payroll", "warehouse", "fleet", "catalog", "web", "audit",
		"compliance", "research", "training"}
	things = []string{"accounts", "invoices", "invoice_lines", "contacts", "leads", "employees", "contracts",
		"shipments", "carriers", "campaigns", "budgets", "tickets", "orders", "order_lines", "suppliers",
		"products", "locations", "vehicles", "documents", "approvals", "payments", "refunds", "claims",
		"assets", "licenses", "events", "sessions", "courses", "grants", "reviews", "returns", "quotes",
		"forecasts", "targets", "regions", "teams", "projects", "tasks", "timesheets", "expenses", "audits",
		"policies", "rates", "fees", "discounts", "coupons", "subscriptions", "plans", "devices", "alerts"}
	colWords = []string{"name", "code", "status", "amount", "quantity", "price", "created_at", "updated_at",
		"owner", "region", "priority", "category", "notes", "score", "currency", "due_date", "country",
		"channel", "level", "reference", "title", "email", "phone", "weight", "volume", "approved",
		"start_date", "end_date", "rate", "source", "kind", "stage", "label", "rank", "balance"}
	statuses = []string{"open", "closed", "pending", "approved", "rejected", "archived"}
	regions  = []string{"north", "south", "east", "west", "central"}
)

// WideName is the name of table i of a wide schema (0-based).
func WideName(i int) string {
	n := areas[i%len(areas)] + "_" + things[(i/len(areas))%len(things)]
	if k := i / (len(areas) * len(things)); k > 0 {
		n += fmt.Sprintf("_%d", k+1)
	}
	return n
}

func (w Wide) Write(path string) error {
	rng := rand.New(rand.NewPCG(19, 2000))
	return write(path, func(tx *sql.Tx) error {
		for i := range w.Tables {
			name := WideName(i)
			cols := []string{"id INTEGER PRIMARY KEY"}
			kinds := []string{"id"}
			for j := 1; j < w.Columns; j++ {
				word := colWords[(i*7+j*3)%len(colWords)]
				col := fmt.Sprintf("%s_%d", word, j)
				if j <= 2 && i > 0 {
					ref := WideName(rng.IntN(i))
					col = fmt.Sprintf("%s_id_%d", strings.TrimSuffix(ref, "s"), j)
					cols = append(cols, fmt.Sprintf("%s INTEGER REFERENCES %s(id)", col, ref))
					kinds = append(kinds, "ref")
					continue
				}
				typ, kind := "TEXT", "text"
				switch {
				case strings.HasSuffix(word, "_at") || strings.HasSuffix(word, "_date"):
					typ, kind = "TEXT", "date"
				case strings.Contains("amount quantity price score weight volume rate balance rank", word):
					typ, kind = "REAL", "number"
				case word == "status" || word == "stage":
					kind = "status"
				case word == "region":
					kind = "region"
				}
				cols = append(cols, col+" "+typ)
				kinds = append(kinds, kind)
			}
			if _, err := tx.Exec(fmt.Sprintf("CREATE TABLE %s (\n  %s\n)", name, strings.Join(cols, ",\n  "))); err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			in, err := newInserter(tx, name, len(cols))
			if err != nil {
				return err
			}
			for r := range w.Rows {
				row := make([]any, len(kinds))
				for j, k := range kinds {
					switch k {
					case "id":
						row[j] = r + 1
					case "ref":
						row[j] = 1 + rng.IntN(max(1, w.Rows))
					case "date":
						row[j] = fmt.Sprintf("2024-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))
					case "number":
						row[j] = float64(rng.IntN(100000)) / 100
					case "status":
						row[j] = statuses[rng.IntN(len(statuses))]
					case "region":
						row[j] = regions[rng.IntN(len(regions))]
					default:
						row[j] = fmt.Sprintf("%s %d", strings.TrimSuffix(name, "s"), rng.IntN(1000))
					}
				}
				if err := in.add(row...); err != nil {
					return err
				}
			}
			if err := in.flush(); err != nil {
				return err
			}
		}
		return nil
	}, "ANALYZE")
}

// Orders is a shop with a big orders table: customers in countries, orders
// with a status, an amount and dates.
type Orders struct {
	Orders, Customers int
}

// Statuses of orders, with their weights out of 100.
var orderStatuses = []struct {
	name   string
	weight int
}{{"delivered", 55}, {"shipped", 20}, {"processing", 8}, {"pending", 7}, {"cancelled", 6}, {"returned", 4}}

var countries = []string{"Germany", "France", "United States", "United Kingdom", "Italy", "Spain",
	"Netherlands", "Poland", "Sweden", "Austria", "Belgium", "Denmark", "Japan", "Canada", "Brazil",
	"Australia", "Switzerland", "Norway", "Ireland", "Portugal"}

var firstNames = []string{"Anna", "Ben", "Clara", "David", "Emma", "Felix", "Greta", "Hugo", "Ida",
	"Jonas", "Karla", "Lukas", "Mia", "Noah", "Olga", "Paul", "Rosa", "Sven", "Tara", "Umar"}

var lastNames = []string{"Schmidt", "Martin", "Smith", "Rossi", "Garcia", "de Vries", "Nowak",
	"Larsson", "Gruber", "Peeters", "Jensen", "Sato", "Tremblay", "Silva", "Brown", "Keller",
	"Hansen", "Murphy", "Costa", "Weber"}

func (o Orders) Write(path string) error {
	rng := rand.New(rand.NewPCG(19, 5_000_000))
	return write(path, func(tx *sql.Tx) error {
		for _, q := range []string{
			`CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  city TEXT,
  country TEXT NOT NULL,
  signup_date TEXT NOT NULL
)`,
			`CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  status TEXT NOT NULL,
  amount REAL NOT NULL,
  order_date TEXT NOT NULL,
  shipped_date TEXT
)`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		in, err := newInserter(tx, "customers", 6)
		if err != nil {
			return err
		}
		for i := 1; i <= o.Customers; i++ {
			first, last := firstNames[rng.IntN(len(firstNames))], lastNames[rng.IntN(len(lastNames))]
			country := countries[rng.IntN(len(countries))]
			if err := in.add(i, first+" "+last, fmt.Sprintf("%s.%s%d@example.com", strings.ToLower(first), strings.ToLower(strings.ReplaceAll(last, " ", "")), i),
				fmt.Sprintf("%s city %d", country, rng.IntN(40)), country,
				fmt.Sprintf("%d-%02d-%02d", 2019+rng.IntN(5), 1+rng.IntN(12), 1+rng.IntN(28))); err != nil {
				return err
			}
		}
		if err := in.flush(); err != nil {
			return err
		}
		if in, err = newInserter(tx, "orders", 6); err != nil {
			return err
		}
		for i := 1; i <= o.Orders; i++ {
			w, status := rng.IntN(100), ""
			for _, s := range orderStatuses {
				if w < s.weight {
					status = s.name
					break
				}
				w -= s.weight
			}
			y, m, d := 2021+rng.IntN(5), 1+rng.IntN(12), 1+rng.IntN(28)
			date := fmt.Sprintf("%d-%02d-%02d", y, m, d)
			var shipped any
			if status == "shipped" || status == "delivered" || status == "returned" {
				shipped = fmt.Sprintf("%d-%02d-%02d", y, m, min(28, d+1+rng.IntN(5)))
			}
			if err := in.add(i, 1+rng.IntN(max(1, o.Customers)), status, float64(500+rng.IntN(50000))/100, date, shipped); err != nil {
				return err
			}
		}
		if err := in.flush(); err != nil {
			return err
		}
		for _, q := range []string{
			"CREATE INDEX orders_customer ON orders(customer_id)",
			"CREATE INDEX orders_date ON orders(order_date)",
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	}, "ANALYZE")
}
