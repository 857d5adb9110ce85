// Command gen writes tablewise's built-in sample database.
//
//	go run ./data/internal/gen -out data/sample.db
//
// It is run by `go generate ./data/...`; the output is byte-for-byte
// reproducible.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tablewise/tablewise/data/internal/sampledb"
)

func main() {
	out := flag.String("out", "sample.db", "output file")
	flag.Parse()
	start := time.Now() // timing only; never influences the output
	if err := sampledb.Write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	b, err := os.ReadFile(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d bytes, sha256 %x, %s\n", *out, len(b), sha256.Sum256(b), time.Since(start).Round(time.Millisecond))
}
