package charts

import (
	"image/color"
	"math"

	"github.com/tablewise/tablewise/core/format"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// piePlotter draws a pie chart, which gonum/plot does not have, from vg
// paths: one filled arc sector per slice, clockwise from twelve o'clock in
// data order, with white seams, the share written on slices big enough to
// hold it, and a legend of labels and percentages on the right. It ignores
// the plot's axes (hide them).
type piePlotter struct {
	labels []string
	values []float64
	pcts   []float64
	colors []color.Color
	legend text.Style
	inside text.Style
}

var _ plot.Plotter = (*piePlotter)(nil)

func newPiePlotter(d *chartData, th theme) *piePlotter {
	pp := &piePlotter{legend: th.legend, inside: th.legend}
	pp.legend.Font.Size = th.legend.Font.Size * 1.1
	pp.inside.Font.Size = th.legend.Font.Size
	if len(d.series) == 0 {
		return pp
	}
	pp.values = d.series[0].ys
	pp.pcts = percentages(pp.values, 1)
	for i, l := range d.cats {
		pp.labels = append(pp.labels, format.ClipRunes(l, maxLabelRunes*2))
		pp.colors = append(pp.colors, seriesColor(i, d.other && i == len(d.cats)-1))
	}
	return pp
}

// Plot implements plot.Plotter.
func (pp *piePlotter) Plot(c draw.Canvas, _ *plot.Plot) {
	if len(pp.values) == 0 {
		return
	}
	// Legend geometry first: the pie gets what is left.
	sty := pp.legend
	sty.YAlign = draw.YCenter
	lineH := sty.Height("Xg") * 1.7
	sw := sty.Height("X")
	labelW, pctW := vg.Length(0), sty.Width("100.0%")
	for _, l := range pp.labels {
		labelW = max(labelW, sty.Width(l))
	}
	gap := vg.Points(12)
	fixed := sw + vg.Points(8) + gap + pctW // the legend less its names
	w, h := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	// The names get their widest width, unless the legend would take
	// more than 45% of the chart. (Computed, not recovered by
	// subtracting, which loses the last bit and cut the widest name.)
	nameW := min(labelW, w*0.45-fixed)
	legendW := fixed + nameW
	r := min((w-legendW-vg.Points(40))/2, h/2) * 0.96
	if r <= 0 {
		return
	}
	center := vg.Point{X: c.Min.X + (w-legendW-vg.Points(40))/2, Y: c.Min.Y + h/2}

	total := 0.0
	for _, v := range pp.values {
		total += math.Max(v, 0)
	}
	if total <= 0 {
		return
	}
	angle := math.Pi / 2
	type mid struct {
		a, share float64
	}
	mids := make([]mid, len(pp.values))
	for i, v := range pp.values {
		share := math.Max(v, 0) / total
		sweep := -share * 2 * math.Pi // clockwise
		if share > 0 {
			var path vg.Path
			path.Move(center)
			if share < 1 {
				path.Line(vg.Point{X: center.X + r*vg.Length(math.Cos(angle)), Y: center.Y + r*vg.Length(math.Sin(angle))})
			}
			path.Arc(center, r, angle, sweep)
			path.Close()
			c.SetColor(pp.colors[i])
			c.Fill(path)
			if len(pp.values) > 1 {
				c.SetLineStyle(draw.LineStyle{Color: whiteColor, Width: vg.Points(1.5)})
				c.Stroke(path)
			}
		}
		mids[i] = mid{angle + sweep/2, share}
		angle += sweep
	}

	// Shares on the slices that have room for them.
	in := pp.inside
	in.XAlign, in.YAlign = draw.XCenter, draw.YCenter
	for i, m := range mids {
		if m.share < 0.045 {
			continue
		}
		in.Color = contrastText(pp.colors[i])
		pt := vg.Point{X: center.X + r*0.68*vg.Length(math.Cos(m.a)), Y: center.Y + r*0.68*vg.Length(math.Sin(m.a))}
		c.FillText(in, pt, formatPercent(pp.pcts[i]))
	}

	// Legend: swatch, label, share.
	x := c.Max.X - legendW
	y := center.Y + lineH*vg.Length(len(pp.labels))/2 - lineH/2
	right := sty
	right.XAlign = draw.XRight
	for i, l := range pp.labels {
		c.FillPolygon(pp.colors[i], []vg.Point{{X: x, Y: y - sw/2}, {X: x + sw, Y: y - sw/2}, {X: x + sw, Y: y + sw/2}, {X: x, Y: y + sw/2}})
		c.FillText(sty, vg.Point{X: x + sw + vg.Points(8), Y: y}, fitText(sty, l, nameW))
		c.FillText(right, vg.Point{X: c.Max.X, Y: y}, formatPercent(pp.pcts[i]))
		y -= lineH
	}
}

// contrastText picks black or white text for a fill color.
func contrastText(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	lum := 0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)
	if lum/65535 > 0.55 {
		return inkColor
	}
	return whiteColor
}
