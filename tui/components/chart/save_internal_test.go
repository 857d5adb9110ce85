package chart

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	coreanswer "github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// TestSaveToAPipeEnds: saving the chart to a named pipe that no program
// reads ends with an error once the save's time is up, instead of waiting
// for a reader for as long as the explorer runs.
func TestSaveToAPipeEnds(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "chart.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	res := &query.Result{
		Columns:  []query.Column{{Name: "genre", Type: "TEXT"}, {Name: "tracks", Type: "INTEGER"}},
		Rows:     []query.Row{{"Rock", int64(1297)}, {"Jazz", int64(130)}},
		RowCount: 2,
	}
	spec := coreanswer.ChartSpec{Kind: coreanswer.KindBar, X: "genre", Y: "tracks"}
	done := make(chan SavedMsg, 1)
	start := time.Now()
	go func() {
		done <- savePNG(context.Background(), spec, res, fifo, false, 300*time.Millisecond)().(SavedMsg)
	}()
	select {
	case msg := <-done:
		if msg.Err == nil || !strings.Contains(msg.Err.Error(), "pipe") {
			t.Errorf("saving to a pipe no program reads: %v, want an error naming the pipe", msg.Err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the save took %v with a 300ms bound", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("saving the chart to a pipe no program reads was still waiting after 10s")
	}
}
