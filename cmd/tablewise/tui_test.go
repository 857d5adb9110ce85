package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an io.Writer the test can read while the explorer writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunTUI drives the explorer through runTUI with a pipe for the
// keyboard: it draws the sample's schema, runs a query typed on the
// keyboard, quits on ctrl+c, and logs to the state directory.
func TestRunTUI(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ctx := context.Background()
	d, err := openDB(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	inR, inW := io.Pipe()
	out := &lockedBuffer{}
	s := &streams{in: inR, out: out, err: io.Discard, getenv: func(string) string { return "" }}
	done := make(chan error, 1)
	go func() { done <- runTUI(ctx, d, s, nil) }()

	waitOut := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(out.String(), want) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the explorer never showed %q; output:\n%q", want, out.String())
	}
	waitOut("order_items")
	io.WriteString(inW, "SELECT 6 * 7 AS answer\r")
	waitOut("answer")
	waitOut("1 row")
	io.WriteString(inW, "\x03") // ctrl+c: nothing runs, so it quits
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runTUI: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ctrl+c did not quit")
	}
	inW.Close()

	log, err := os.ReadFile(filepath.Join(state, "tablewise", "tui.log"))
	if err != nil {
		t.Fatalf("no log in the state directory: %v", err)
	}
	if !strings.Contains(string(log), "explorer start") || !strings.Contains(string(log), "query done") {
		t.Errorf("log lacks the start and the query:\n%s", log)
	}
	hist, err := os.ReadFile(filepath.Join(state, "tablewise", "history"))
	if err != nil || !strings.Contains(string(hist), `"SELECT 6 * 7 AS answer"`) {
		t.Errorf("history %q, %v", hist, err)
	}
	if strings.Contains(out.String(), "level=") {
		t.Error("log lines reached the terminal")
	}
}
