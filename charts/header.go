package charts

import (
	"strings"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/format"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawHeader draws the title, the notes and, for several series, a legend
// along the top, and returns the canvas left below them.
func drawHeader(c draw.Canvas, d *chartData, th theme) draw.Canvas {
	width := c.Max.X - c.Min.X
	y := c.Max.Y

	title := fitText(th.title, d.title, width)
	sty := th.title
	sty.YAlign = draw.YTop
	c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, title)
	y -= sty.Height(title) + vg.Points(4)

	if len(d.notes) > 0 {
		sub := fitText(th.subtitle, strings.Join(d.notes, " · "), width)
		sty := th.subtitle
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, sub)
		y -= sty.Height(sub) + vg.Points(2)
	}

	if len(d.series) > 1 && d.kind != answer.KindPie {
		y -= vg.Points(6)
		y = drawLegendRow(c, d, th, y)
	}
	c.Max.Y = y - vg.Points(10)
	return c
}

// drawLegendRow lays the series names out left to right under the title,
// wrapping when a line is full, and returns the y below them.
func drawLegendRow(c draw.Canvas, d *chartData, th theme, y vg.Length) vg.Length {
	sty := th.legend
	sty.YAlign = draw.YCenter
	lineH := sty.Height("Xg") * 1.5
	sw := sty.Height("X") * 0.9 // swatch side
	x := c.Min.X
	mid := y - lineH/2
	for i, s := range d.series {
		name := format.ClipRunes(s.name, maxLabelRunes*2)
		itemW := sw + vg.Points(5) + sty.Width(name)
		if x > c.Min.X && x+itemW > c.Max.X {
			x = c.Min.X
			mid -= lineH
		}
		col := seriesColor(i, s.other)
		if d.kind == answer.KindLine {
			c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(2.5)}, x, mid, x+sw*1.6, mid)
			itemW += sw * 0.6
			c.FillText(sty, vg.Point{X: x + sw*1.6 + vg.Points(5), Y: mid}, name)
		} else {
			c.FillPolygon(col, []vg.Point{{X: x, Y: mid - sw/2}, {X: x + sw, Y: mid - sw/2}, {X: x + sw, Y: mid + sw/2}, {X: x, Y: mid + sw/2}})
			c.FillText(sty, vg.Point{X: x + sw + vg.Points(5), Y: mid}, name)
		}
		x += itemW + vg.Points(16)
	}
	return mid - lineH/2
}
