package charts

import (
	"image/color"

	"github.com/tablewise/tablewise/core/format"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barsPlotter draws one bar per category and series. Unlike
// plotter.BarChart its bar widths are in data units, so they follow the
// plot's size. Category i sits at position i (vertical bars) or n-1-i
// (horizontal bars, first category on top).
type barsPlotter struct {
	d          *chartData
	horizontal bool
	labels     bool // write each bar's value at its end
	labelStyle text.Style
}

var (
	_ plot.Plotter    = (*barsPlotter)(nil)
	_ plot.DataRanger = (*barsPlotter)(nil)
)

const groupWidth = 0.8 // share of a category slot the bars fill

// DataRange implements plot.DataRanger: the value axis always includes zero,
// with room for the value labels.
func (b *barsPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	lo, hi := 0.0, 0.0
	for _, s := range b.d.series {
		for _, v := range s.ys {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if b.labels {
		span := hi - lo
		room := 0.06
		if b.horizontal {
			room = 0.14
		}
		if hi > 0 {
			hi += span * room
		}
		if lo < 0 {
			lo -= span * room
		}
	}
	cmin, cmax := -0.5, float64(len(b.d.cats))-0.5
	if b.horizontal {
		return lo, hi, cmin, cmax
	}
	return cmin, cmax, lo, hi
}

// Plot implements plot.Plotter.
func (b *barsPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(b.d.cats)
	k := len(b.d.series)
	bw := groupWidth / float64(k)
	gap := 0.0
	if k > 1 {
		gap = bw * 0.08
	}
	for si, s := range b.d.series {
		for ci, v := range s.ys {
			// A folded category is gray when the bars have one color.
			col := seriesColor(si, s.other || k == 1 && b.d.other && ci == n-1)
			pos := float64(ci)
			if b.horizontal {
				pos = float64(n - 1 - ci)
			}
			c0 := pos - groupWidth/2 + bw*float64(si) + gap/2
			c1 := c0 + bw - gap
			var pts []vg.Point
			if b.horizontal {
				x0, x1, y0, y1 := trX(0), trX(v), trY(c0), trY(c1)
				pts = []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			} else {
				x0, x1, y0, y1 := trX(c0), trX(c1), trY(0), trY(v)
				pts = []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			}
			c.FillPolygon(col, c.ClipPolygonXY(pts))
			if b.labels {
				b.valueLabel(c, trX, trY, (c0+c1)/2, v)
			}
		}
	}
}

// valueLabel writes v just past the end of its bar.
func (b *barsPlotter) valueLabel(c draw.Canvas, trX, trY func(float64) vg.Length, mid, v float64) {
	sty := b.labelStyle
	pad := vg.Points(4)
	var pt vg.Point
	if b.horizontal {
		sty.YAlign = draw.YCenter
		pt = vg.Point{X: trX(v) + pad, Y: trY(mid)}
		if v < 0 {
			sty.XAlign = draw.XRight
			pt.X = trX(v) - pad
		}
	} else {
		sty.XAlign = draw.XCenter
		pt = vg.Point{X: trX(mid), Y: trY(v) + pad}
		if v < 0 {
			sty.YAlign = draw.YTop
			pt.Y = trY(v) - pad
		}
	}
	c.FillText(sty, pt, format.Measure(v))
}

// withAlpha returns c with the given opacity.
func withAlpha(c color.RGBA, a uint8) color.Color {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}
