package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/tick"
)

// loadQuiet is how long a load of data files goes before a progress line
// shows: small files load without one.
const loadQuiet = 500 * time.Millisecond

// showLoadProgress rewrites one stderr line four times a second while
// data files load, from loadQuiet on; stop clears it and, when it was
// shown, says what was loaded and how fast.
func showLoadProgress(w io.Writer, p *engine.LoadProgress) (stop func()) {
	start := time.Now()
	shown := false
	ticking := tick.Every(250*time.Millisecond, func() bool {
		if time.Since(start) >= loadQuiet {
			fmt.Fprint(w, "\r\x1b[K"+loadLine(p))
			shown = true
		}
		return true
	})
	return func() {
		ticking()
		if shown {
			el := time.Since(start)
			fmt.Fprintf(w, "\r\x1b[Kloaded %s in %s (%s/s)\n", format.Plural(p.Rows.Load(), "row"), format.Seconds(el), format.Bytes(int64(float64(p.Bytes.Load())/max(el.Seconds(), 0.001))))
		}
	}
}

// loadLine is the progress line: the file, how much of it is read, the
// rows so far.
func loadLine(p *engine.LoadProgress) string {
	name := ""
	if f := p.File.Load(); f != nil {
		name = filepath.Base(*f)
	}
	read, total := p.Bytes.Load(), p.Total.Load()
	pct := 0
	if total > 0 {
		pct = int(min(100, read*100/total))
	}
	return fmt.Sprintf("loading %s… %s of %s (%d%%), %s", format.PrintableLine(name), format.Bytes(read), format.Bytes(total), pct, format.Plural(p.Rows.Load(), "row"))
}
