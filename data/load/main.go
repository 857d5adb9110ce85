// Command load copies a SQLite database into a new PostgreSQL or
// MariaDB/MySQL database, for development and tests:
//
//	go run ./data/load --from ../shared/data/chinook.sqlite --to 'postgres://postgres@127.0.0.1:5432/chinook?sslmode=disable'
//	go run ./data/load --from sample --to mysql://root@127.0.0.1:3306/sample
//
// --from sample is the built-in sample database. The database --to names
// must not exist: load creates it, and writes nothing else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/tablewise/tablewise/core/testdb/servers"
	"github.com/tablewise/tablewise/data"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "SQLite file to copy (\"sample\": the built-in sample database)")
	to := fs.String("to", "", "postgres:// or mysql:// URL of the database to create")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *from == "" || *to == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: load --from FILE.sqlite --to postgres://…/NEWDB | mysql://…/NEWDB")
		return 2
	}
	if *from == "sample" {
		p, err := data.SamplePath()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		*from = p
	}
	if _, err := os.Stat(*from); err != nil {
		fmt.Fprintf(stderr, "load: %v (--from names a SQLite file, or sample)\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := servers.Load(ctx, *from, *to)
	if err != nil {
		fmt.Fprintln(stderr, "load:", err)
		if errors.Is(err, servers.ErrExists) {
			fmt.Fprintln(stderr, "choose a database name that does not exist yet: load writes only to a database it creates")
			return 2
		}
		if errors.Is(err, servers.ErrURL) {
			return 2
		}
		if ctx.Err() != nil {
			return 130
		}
		return 4
	}
	fmt.Fprintf(stdout, "%s: %d tables, %d rows, %d views in %v\n", r.Database, r.Tables, r.Rows, r.Views, r.Elapsed.Round(1e6))
	for _, n := range r.Notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	return 0
}
