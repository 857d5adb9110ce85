package trace_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/trace"
)

// TestOpenPipeWithoutReaderDoesNotBlock: a trace file that is a named
// pipe nobody reads is an error at once. Before, Open blocked in the
// kernel until a reader came, where no deadline or signal reaches: `ask
// --trace pipe` hung for good and SIGTERM did not end it. A pipe with a
// reader is written.
func TestOpenPipeWithoutReaderDoesNotBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := trace.Open(path)
		if err == nil {
			w.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "no reader") {
			t.Errorf("Open of a pipe with no reader: %v, want an error naming it", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock Open so the test binary can end.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			go func() { io.Copy(io.Discard, r); r.Close() }()
		}
		t.Fatal("Open of a pipe with no reader blocked")
	}

	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := trace.Open(path)
	if err != nil {
		t.Fatalf("Open of a pipe with a reader: %v", err)
	}
	w.Write(trace.Event{Kind: "tool", Summary: "x"})
	w.Close()
	b := make([]byte, 4096)
	n, _ := r.Read(b)
	if !strings.Contains(string(b[:n]), `"kind":"tool"`) {
		t.Errorf("the reader got %q", b[:n])
	}
}
