package charts

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/format"
)

// bars draws horizontal bars, one line per category and series, with the
// value after each bar.
func (t *textChart) bars(d *chartData, rows int) {
	k := max(1, len(d.series))
	legend := k > 1 && rows >= 3
	avail := rows
	if legend {
		avail--
	}
	if most := max(1, avail/k); len(d.cats) > most {
		// One line says how many are not shown.
		most = max(1, (avail-1)/k)
		limitCategories(d, most, false, most)
	}

	labelW := 0
	for _, c := range d.cats {
		labelW = max(labelW, ansi.StringWidth(c))
	}
	labelW = min(labelW, max(3, t.w*2/5))
	maxAbs, neg := 0.0, false
	valueW := 0
	for _, s := range d.series {
		for _, v := range s.ys {
			maxAbs = math.Max(maxAbs, math.Abs(v))
			neg = neg || v < 0
			valueW = max(valueW, len(format.Measure(v)))
		}
	}
	compact := valueW > t.w/4
	if compact {
		valueW = 0
		for _, s := range d.series {
			for _, v := range s.ys {
				valueW = max(valueW, len(formatCompact(v)))
			}
		}
	}
	barW := t.w - labelW - 1 - 1 - valueW
	if barW < 3 {
		valueW = -1 // no values
		barW = t.w - labelW - 1
	}
	if barW < 3 {
		labelW = max(0, t.w-1-3)
		barW = t.w - labelW - 1
	}

	for ci, cat := range d.cats {
		for si, s := range d.series {
			label := ""
			if si == 0 {
				label = fit(cat, labelW)
			}
			v := s.ys[ci]
			other := s.other || (k == 1 && d.other && ci == len(d.cats)-1)
			bar := t.bar(v, maxAbs, barW, si, k > 1 || neg && v < 0)
			line := pad(label, labelW) + " " + t.paint(bar, si, other)
			if valueW >= 0 {
				val := format.Measure(v)
				if compact {
					val = formatCompact(v)
				}
				line += " " + val
			}
			t.add(line)
		}
	}
	if d.hidden > 0 {
		more := fmt.Sprintf("… %d more not shown", d.hidden)
		if d.xOrder {
			more = fmt.Sprintf("… %d earlier not shown", d.hidden)
		}
		t.add(fit(more, t.w))
	}
	if legend {
		var parts []string
		for si, s := range d.series {
			parts = append(parts, t.paint(t.glyph(si), si, s.other)+" "+s.name)
		}
		t.add(fit(strings.Join(parts, "  "), t.w))
	}
}

// bar is a block bar of |v|/maxAbs of w cells: eighth blocks at the end for
// the first series, whole cells of the series glyph otherwise.
func (t *textChart) bar(v, maxAbs float64, w, series int, whole bool) string {
	if maxAbs <= 0 || w <= 0 {
		return ""
	}
	cells := math.Abs(v) / maxAbs * float64(w)
	g := t.glyph(series)
	if whole || g != "█" {
		n := int(math.Round(cells))
		if n == 0 && v != 0 {
			n = 1
		}
		if v < 0 && !t.color {
			g = "░"
		}
		return strings.Repeat(g, n)
	}
	full := int(cells)
	rest := int(math.Round((cells - float64(full)) * 8))
	if rest == 8 {
		full, rest = full+1, 0
	}
	s := strings.Repeat("█", full) + eighths[rest]
	if s == "" && v != 0 {
		s = "▏"
	}
	return s
}

// pie draws a strip whose cells are shared out like the slices, and a
// legend of labels and percentages below it.
func (t *textChart) pie(d *chartData, rows int) {
	legendRows := rows - 1
	slices := maxPieSlices
	if legendRows >= 1 {
		slices = min(slices, legendRows)
	}
	limitCategories(d, slices, true, 0)
	if len(d.series) == 0 {
		return
	}
	vals := d.series[0].ys
	pcts := percentages(vals, 1)
	glyph := func(i int) string {
		if t.color {
			return "█"
		}
		return seriesGlyphs[i%len(seriesGlyphs)]
	}
	other := func(i int) bool { return d.other && i == len(d.cats)-1 }

	// The strip: cells shared out by largest remainder.
	cells := shareOut(vals, t.w)
	var strip strings.Builder
	for i, n := range cells {
		strip.WriteString(t.paint(strings.Repeat(glyph(i), n), i, other(i)))
	}
	t.add(strip.String())

	pctW := len("100.0%")
	for i, c := range d.cats {
		if i >= legendRows {
			break
		}
		nameW := t.w - 2 - 1 - pctW
		t.add(t.paint(glyph(i), i, other(i)) + " " + pad(fit(c, nameW), nameW) + " " + padLeft(formatPercent(pcts[i]), pctW))
	}
}

// shareOut splits w cells in proportion to vals (largest remainder).
func shareOut(vals []float64, w int) []int {
	total := 0.0
	for _, v := range vals {
		total += math.Max(v, 0)
	}
	out := make([]int, len(vals))
	if total <= 0 {
		return out
	}
	type rem struct {
		i int
		r float64
	}
	used := 0
	rems := make([]rem, len(vals))
	for i, v := range vals {
		exact := math.Max(v, 0) / total * float64(w)
		out[i] = int(exact)
		used += out[i]
		rems[i] = rem{i, exact - float64(out[i])}
	}
	for ; used < w; used++ {
		best := 0
		for j := range rems {
			if rems[j].r > rems[best].r {
				best = j
			}
		}
		out[rems[best].i]++
		rems[best].r = -1
	}
	return out
}
