package charts

import (
	"math"
	"strings"
)

// histogram draws bins as columns of blocks, eighths at their tops.
func (t *textChart) histogram(d *chartData, rows int) {
	xAxis := rows >= 3
	ph := rows
	if xAxis {
		ph--
	}
	// Counts in compact form are at most four characters ("150k"), so
	// bin for the narrowest plot first, then size the labels.
	yw := 4
	if t.w-yw-1 < 4 || ph < 2 {
		yw = -1 // no y labels
	}
	bins := d.bins
	if len(bins) > t.w-yw-1 {
		bins = histBins(d.values, t.w-yw-1)
	}
	maxN := 0
	for _, b := range bins {
		maxN = max(maxN, b.n)
	}
	top := formatCompact(float64(maxN))
	if yw >= 0 {
		yw = len(top)
	}
	pw := t.w - yw - 1
	nb := max(1, len(bins))
	colW := max(1, pw/nb)
	gap := colW >= 3

	for r := range ph {
		var b strings.Builder
		b.WriteString(yAxis(r, ph, yw, top, "0"))
		var cols strings.Builder
		for _, bin := range bins {
			height := 0
			if maxN > 0 {
				height = int(math.Round(float64(bin.n) / float64(maxN) * float64(ph*8)))
			}
			if height == 0 && bin.n > 0 {
				height = 1
			}
			level := (ph - 1 - r) * 8
			ch := " "
			switch fill := height - level; {
			case fill >= 8:
				ch = "█"
			case fill > 0:
				ch = risers[fill]
			}
			w := colW
			if gap {
				w--
			}
			cols.WriteString(strings.Repeat(ch, w))
			if gap {
				cols.WriteString(" ")
			}
		}
		b.WriteString(t.paint(cols.String(), 0, false))
		t.add(b.String())
	}
	if xAxis && len(bins) > 0 {
		left, right := formatCompact(bins[0].lo), formatCompact(bins[len(bins)-1].hi)
		indent := max(0, yw+1)
		room := min(t.w-indent, colW*nb)
		var line string
		if len(left)+1+len(right) <= room {
			line = left + strings.Repeat(" ", room-len(left)-len(right)) + right
		} else {
			line = fit(left, t.w-indent)
		}
		t.add(strings.Repeat(" ", indent) + line)
	}
}
