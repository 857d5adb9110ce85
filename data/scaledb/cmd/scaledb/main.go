// Command scaledb writes the two databases tablewise's scale figures are
// measured on (data/testdata/scale.sh prints them): a wide schema of many
// small tables, and a shop with one big orders table.
//
//	go run ./data/scaledb/cmd/scaledb -kind wide -out /tmp/wide.db      # 2,000 tables × 20 columns × 3 rows
//	go run ./data/scaledb/cmd/scaledb -kind orders -out /tmp/orders.db  # 5,000,000 orders, 200,000 customers
//
// The output is deterministic (a fixed seed) and never committed: the
// orders database is about 300 MB. -tables, -columns, -rows, -orders and
// -customers change the sizes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tablewise/tablewise/data/scaledb"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scaledb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "", "wide or orders")
	out := fs.String("out", "", "the database file to write (replaced if it exists)")
	w := scaledb.Wide{}
	o := scaledb.Orders{}
	fs.IntVar(&w.Tables, "tables", 2000, "wide: tables")
	fs.IntVar(&w.Columns, "columns", 20, "wide: columns per table")
	fs.IntVar(&w.Rows, "rows", 3, "wide: rows per table")
	fs.IntVar(&o.Orders, "orders", 5_000_000, "orders: orders")
	fs.IntVar(&o.Customers, "customers", 200_000, "orders: customers")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || (*kind != "wide" && *kind != "orders") {
		fmt.Fprintln(stderr, "usage: scaledb -kind wide|orders -out FILE [-tables N -columns N -rows N] [-orders N -customers N]")
		return 2
	}
	start := time.Now()
	var err error
	if *kind == "wide" {
		err = w.Write(*out)
	} else {
		err = o.Write(*out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "scaledb:", err)
		return 1
	}
	st, err := os.Stat(*out)
	if err != nil {
		fmt.Fprintln(stderr, "scaledb:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d bytes in %s\n", *out, st.Size(), time.Since(start).Round(time.Millisecond))
	return 0
}
