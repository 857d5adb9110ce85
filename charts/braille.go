package charts

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/answer"
)

// xy draws lines or scatter points with braille dots: two dots across and
// four down per cell.
func (t *textChart) xy(d *chartData, rows int) {
	legend := len(d.series) > 1 && rows >= 5
	xAxis := rows >= 3
	ph := rows
	if legend {
		ph--
	}
	if xAxis {
		ph--
	}
	ph = max(1, ph)

	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range d.series {
		for i := range s.xs {
			xmin, xmax = math.Min(xmin, s.xs[i]), math.Max(xmax, s.xs[i])
			ymin, ymax = math.Min(ymin, s.ys[i]), math.Max(ymax, s.ys[i])
		}
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	if xmin == xmax {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymin == ymax {
		ymin, ymax = ymin-1, ymax+1
	}

	top, bottom := formatCompact(ymax), formatCompact(ymin)
	yw := max(len(top), len(bottom))
	if t.w-yw-1 < 4 || ph < 2 {
		yw = -1 // no y labels
	}
	pw := t.w - yw - 1

	grid := newBraille(pw, ph)
	for si, s := range d.series {
		px := func(x float64) int { return int(math.Round((x - xmin) / (xmax - xmin) * float64(pw*2-1))) }
		py := func(y float64) int { return int(math.Round((ymax - y) / (ymax - ymin) * float64(ph*4-1))) }
		xs, ys := s.xs, s.ys
		if d.kind == answer.KindLine {
			xs, ys = LTTB(xs, ys, pw*2)
		}
		for i := range xs {
			x, y := px(xs[i]), py(ys[i])
			if d.kind == answer.KindLine && i > 0 {
				grid.line(px(xs[i-1]), py(ys[i-1]), x, y, si)
			} else {
				grid.set(x, y, si)
			}
		}
	}
	for r := range ph {
		var b strings.Builder
		b.WriteString(yAxis(r, ph, yw, top, bottom))
		b.WriteString(grid.row(r, t, d))
		t.add(b.String())
	}
	if xAxis {
		left, right := xLabel(d, xmin, xmax, xmin), xLabel(d, xmin, xmax, xmax)
		indent := max(0, yw+1)
		room := t.w - indent
		var line string
		if ansi.StringWidth(left)+1+ansi.StringWidth(right) <= room {
			line = left + strings.Repeat(" ", room-ansi.StringWidth(left)-ansi.StringWidth(right)) + right
		} else {
			line = fit(left, room)
		}
		t.add(strings.Repeat(" ", indent) + line)
	}
	if legend {
		var parts []string
		for si, s := range d.series {
			mark := "⣿"
			if !t.color {
				mark = fmt.Sprintf("%d:", si+1)
			}
			parts = append(parts, t.paint(mark, si, s.other)+" "+s.name)
		}
		t.add(fit(strings.Join(parts, "  "), t.w))
	}
}

// xLabel formats an x position for the axis line under a braille plot.
func xLabel(d *chartData, lo, hi, v float64) string {
	switch d.xAxis {
	case axisTime:
		tm := time.Unix(int64(v), 0).UTC()
		span := hi - lo
		switch {
		case span >= 3*365*86400:
			return tm.Format("2006")
		case span >= 60*86400:
			return tm.Format("2006-01")
		case span >= 2*86400:
			return tm.Format("2006-01-02")
		}
		return tm.Format("01-02 15:04")
	case axisYear:
		return fmt.Sprintf("%d", int64(math.Round(v)))
	case axisCategory:
		i := int(math.Round(v))
		if i >= 0 && i < len(d.cats) {
			return d.cats[i]
		}
		return ""
	}
	return formatCompact(v)
}

// braille is a grid of braille cells, each 2 dots wide and 4 high, that
// remembers which series drew last in each cell.
type braille struct {
	w, h   int
	dots   []uint8
	series []int8
}

func newBraille(w, h int) *braille {
	return &braille{w: w, h: h, dots: make([]uint8, w*h), series: make([]int8, w*h)}
}

// brailleBits maps a dot's position in its cell to its bit.
var brailleBits = [4][2]uint8{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// set turns on the dot at x, y (dots, from the top left) for a series;
// dots outside the grid are ignored.
func (b *braille) set(x, y, series int) {
	if x < 0 || y < 0 || x >= b.w*2 || y >= b.h*4 {
		return
	}
	i := (y/4)*b.w + x/2
	b.dots[i] |= brailleBits[y%4][x%2]
	b.series[i] = int8(series)
}

// line draws the dots between two points (Bresenham).
func (b *braille) line(x0, y0, x1, y1, series int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for n := 0; n < 4*(b.w+b.h)*4; n++ {
		b.set(x0, y0, series)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

// row renders one line of cells, coloring runs of one series.
func (b *braille) row(r int, t *textChart, d *chartData) string {
	var out strings.Builder
	var run strings.Builder
	runSeries := -1
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if runSeries >= 0 && runSeries < len(d.series) {
			out.WriteString(t.paint(run.String(), runSeries, d.series[runSeries].other))
		} else {
			out.WriteString(run.String())
		}
		run.Reset()
	}
	for c := range b.w {
		i := r*b.w + c
		s := -1
		ch := " "
		if b.dots[i] != 0 {
			s = int(b.series[i])
			ch = string(rune(0x2800 + int(b.dots[i])))
		}
		if s != runSeries && s >= 0 {
			flush()
			runSeries = s
		}
		run.WriteString(ch)
	}
	flush()
	return out.String()
}
