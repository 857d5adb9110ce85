// Command tuidemo opens the explorer on a database (the built-in sample by
// default) without the rest of the CLI: a harness for the tmux end-to-end
// script while the main command's wiring changes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/data"
	"github.com/tablewise/tablewise/tui"
)

func main() {
	path := flag.String("db", "", "SQLite file (default: the built-in sample)")
	flag.Parse()
	if flag.NArg() > 0 && *path == "" {
		*path = flag.Arg(0)
	}
	ctx := context.Background()
	label := ""
	if *path == "" {
		p, err := data.SamplePath()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		*path, label = p, data.SampleName
	}
	d, err := db.Open(ctx, *path, db.Options{Label: label})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer d.Close()
	if err := tui.Run(ctx, d, tui.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
