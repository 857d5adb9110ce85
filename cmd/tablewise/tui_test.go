package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/testdb"
)

// explorer is runTUI running in the background on a database, with a
// pipe for its keyboard.
type explorer struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *testdb.Buffer
	done  chan error
	state string // XDG_STATE_HOME: the test's own
}

// startExplorer opens the database at path (as --db PATH does; "" is the
// built-in sample), closed when the test ends, and starts the explorer on
// it with a state directory of the test's own.
func startExplorer(t *testing.T, path string) *explorer {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ctx := context.Background()
	d, err := openDB(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	inR, inW := io.Pipe()
	e := &explorer{t: t, in: inW, out: &testdb.Buffer{}, done: make(chan error, 1), state: state}
	s := &streams{in: inR, out: e.out, err: io.Discard, getenv: func(string) string { return "" }}
	go func() { e.done <- runTUI(ctx, d, s, nil) }()
	return e
}

// waitOut waits up to 10 seconds for the screen to show want.
func (e *explorer) waitOut(want string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(e.out.String(), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("the explorer never showed %q; output:\n%q", want, e.out.String())
}

// quit types ctrl+c and requires runTUI to return nil within 10 seconds.
func (e *explorer) quit() {
	e.t.Helper()
	io.WriteString(e.in, "\x03")
	if err := testdb.Within(e.t, 10*time.Second, func() error { return <-e.done }); err != nil {
		e.t.Fatalf("runTUI after ctrl+c: %v", err)
	}
	e.in.Close()
}

// TestRunTUI drives the explorer through runTUI with a pipe for the
// keyboard: it draws the sample's schema, runs a query typed on the
// keyboard, quits on ctrl+c, and logs to the state directory.
func TestRunTUI(t *testing.T) {
	e := startExplorer(t, "")
	e.waitOut("order_items")
	io.WriteString(e.in, "SELECT 6 * 7 AS answer\r")
	e.waitOut("answer")
	e.waitOut("1 row")
	e.quit() // ctrl+c: nothing runs, so it quits

	log, err := os.ReadFile(filepath.Join(e.state, "tablewise", "tui.log"))
	if err != nil {
		t.Fatalf("no log in the state directory: %v", err)
	}
	if !strings.Contains(string(log), "explorer start") || !strings.Contains(string(log), "query done") {
		t.Errorf("log lacks the start and the query:\n%s", log)
	}
	hist, err := os.ReadFile(filepath.Join(e.state, "tablewise", "history"))
	if err != nil || !strings.Contains(string(hist), `"SELECT 6 * 7 AS answer"`) {
		t.Errorf("history %q, %v", hist, err)
	}
	if strings.Contains(e.out.String(), "level=") {
		t.Error("log lines reached the terminal")
	}
}
