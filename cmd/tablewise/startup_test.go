package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initLine is one line of GODEBUG=inittrace=1: "init PKG @T ms, C ms clock,
// BYTES bytes, N allocs".
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// maxInitBytes bounds what one tablewise package may allocate while the
// program starts. Every command, export and version included, runs every
// package's initialisation and keeps the memory it touched, so tables,
// schemas and regular expressions that only some commands use are built
// on first use instead (sync.OnceValue).
const maxInitBytes = 128 << 10

// TestStartupInitIsLight runs `tablewise version` with the runtime's init
// trace and checks that no tablewise package allocates more than
// maxInitBytes at start-up.
func TestStartupInitIsLight(t *testing.T) {
	r := runProc(t, []string{"GODEBUG=inittrace=1"}, "", "version")
	if r.code != 0 {
		t.Fatalf("version exited %d: %s", r.code, r.stderr)
	}
	ours := 0
	for _, line := range strings.Split(r.stderr, "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || !strings.HasPrefix(m[1], "github.com/tablewise/tablewise/") {
			continue
		}
		ours++
		n, err := strconv.Atoi(m[2])
		if err != nil {
			t.Fatalf("parse %q: %v", line, err)
		}
		if n > maxInitBytes {
			t.Errorf("%s allocates %d bytes (%s allocs) at start-up, more than %d: build what only some commands use on first use", m[1], n, m[3], maxInitBytes)
		}
	}
	if ours < 10 {
		t.Fatalf("init trace names %d tablewise packages, want at least 10; stderr:\n%s", ours, r.stderr)
	}
}
