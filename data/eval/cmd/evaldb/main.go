// Command evaldb writes the cross-domain evaluation databases (hr,
// airlines, health, campus, logistics, and the held-out saas, library and
// restaurant) that the question sets
// in data/eval are asked against.
//
//	go run ./data/eval/cmd/evaldb -dir /tmp/evaldb
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tablewise/tablewise/data/eval/evaldb"
)

func main() {
	dir := flag.String("dir", ".", "directory to write <name>.db files into (created if missing)")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "evaldb:", err)
		os.Exit(1)
	}
	for _, name := range evaldb.Names {
		start := time.Now() // timing only; never influences the output
		p := filepath.Join(*dir, name+".db")
		if err := evaldb.BuildOne(name, p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		st, err := os.Stat(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "evaldb:", err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s: %d bytes in %s\n", p, st.Size(), time.Since(start).Round(time.Millisecond))
	}
}
