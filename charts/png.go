package charts

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"
	"sync/atomic"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PNG draws the chart spec describes from res as a PNG image (a JPEG when
// opt.Format is FormatJPEG) of opt.Width x opt.Height pixels (1200x800
// when zero; each side between 100 and 8192).
//
// The spec is validated first (see Validate). Bars of categories keep the
// 25 largest, sorted largest first unless the query ordered its rows (a
// top-level ORDER BY in res.SQL), and leave the rest out, or add them up in
// an "other" bar when opt.Other is set; bars of dates or numbers keep
// their order and are never regrouped (at most the last 1,000). Pies keep
// the 7 largest slices and an "other" slice. At most 8 series are drawn
// (bars and lines leave the smallest out; scatters fold them into
// "other"); lines are downsampled to 1,000 points per series with LTTB.
// What was left out, folded or downsampled is said under the title.
//
// Rendering runs in its own goroutine and PNG returns when it finishes or
// when ctx is done, whichever comes first; in the second case the error
// wraps ctx.Err() and the abandoned render finishes in the background, still
// reading res, so res must not be modified afterwards. A panic while
// rendering is returned as an error.
func PNG(ctx context.Context, spec answer.ChartSpec, res *query.Result, opt Options) ([]byte, error) {
	w, h, err := opt.size()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	type outcome struct {
		png []byte
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("render chart: panic: %v", p)}
			}
		}()
		b, err := renderPNG(ctx, spec, res, w, h, opt)
		done <- outcome{b, err}
	}()
	select {
	case o := <-done:
		return o.png, o.err
	case <-ctx.Done():
		return nil, fmt.Errorf("render chart: %w", ctx.Err())
	}
}

// size applies the defaults and bounds to the requested size.
func (o Options) size() (w, h int, err error) {
	if o.Format != "" && o.Format != FormatPNG && o.Format != FormatJPEG {
		return 0, 0, &chartspec.SpecError{Field: "format", Msg: fmt.Sprintf("unknown image format %q", o.Format), Hint: "use png or jpeg"}
	}
	w, h = o.Width, o.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	if w < MinPixels || h < MinPixels || w > MaxPixels || h > MaxPixels {
		return 0, 0, &chartspec.SpecError{Field: "size", Msg: fmt.Sprintf("chart size %dx%d: each side must be between %d and %d pixels", w, h, MinPixels, MaxPixels),
			Hint: fmt.Sprintf("the default is %dx%d", DefaultWidth, DefaultHeight)}
	}
	return w, h, nil
}

// testHookDraw, when set, runs just before drawing: tests make rendering
// panic or stall with it.
var testHookDraw atomic.Pointer[func()]

func renderPNG(ctx context.Context, spec answer.ChartSpec, res *query.Result, w, h int, opt Options) ([]byte, error) {
	lim := pngLimits(strings.ToLower(strings.TrimSpace(spec.Kind)))
	lim.other = lim.other || opt.Other
	d, err := prepare(spec, res, lim)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	if hook := testHookDraw.Load(); hook != nil {
		(*hook)()
	}
	img := drawChart(d, w, h)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(64 << 10)
	if opt.Format == FormatJPEG {
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
			return nil, fmt.Errorf("encode jpeg: %w", err)
		}
		return buf.Bytes(), nil
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// drawChart draws d on a new w x h image.
func drawChart(d *chartData, w, h int) image.Image {
	// Points scale with the image so that a smaller image is the same chart,
	// smaller; 1200x800 is 96 dpi.
	scale := math.Min(float64(w)/DefaultWidth, float64(h)/DefaultHeight)
	scale = math.Max(0.6, math.Min(scale, 3))
	dpi := int(math.Round(96 * scale))
	cv := vgimg.NewWith(vgimg.UseImage(image.NewRGBA(image.Rect(0, 0, w, h))), vgimg.UseDPI(dpi))
	dc := draw.New(cv)
	th := newTheme()
	margin := vg.Points(16)
	dc = draw.Crop(dc, margin, -margin, margin*0.75, -margin)
	dc = drawHeader(dc, d, th)

	p := newPlot(d, th)
	switch d.kind {
	case answer.KindPie:
		p.HideAxes()
		p.X.Label.Text, p.Y.Label.Text = "", ""
		p.Add(newPiePlotter(d, th))
	case answer.KindBar, answer.KindHBar:
		addBars(p, d, th, dc)
	case answer.KindLine, answer.KindScatter:
		addXY(p, d, th, dc)
	case answer.KindHistogram:
		addHistogram(p, d)
	}
	p.Draw(dc)
	return cv.Image()
}

// newPlot is a plot with the theme's fonts and quiet axes.
func newPlot(d *chartData, th theme) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil // the canvas is already white
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = th.axisLabel.Font
		ax.Label.TextStyle.Handler = th.axisLabel.Handler
		ax.Label.TextStyle.Color = th.axisLabel.Color
		ax.Label.Padding = vg.Points(6)
		ax.Tick.Label.Font = th.tick.Font
		ax.Tick.Label.Handler = th.tick.Handler
		ax.Tick.Label.Color = th.tick.Color
		ax.LineStyle.Color = axisColor
		ax.Tick.LineStyle.Color = axisColor
		ax.Tick.Length = vg.Points(4)
		ax.Tick.Marker = numberTicks{}
	}
	p.Y.AutoRescale = true // the value axis ends on a tick
	p.X.Label.Text = d.xLabel
	p.Y.Label.Text = d.yLabel
	return p
}

// valueGrid draws light grid lines across the value axis only.
func valueGrid(horizontalValues bool) *plotter.Grid {
	g := plotter.NewGrid()
	line := draw.LineStyle{Color: gridColor, Width: vg.Points(0.75)}
	none := draw.LineStyle{}
	if horizontalValues {
		g.Vertical, g.Horizontal = line, none
	} else {
		g.Vertical, g.Horizontal = none, line
	}
	return g
}

// categoryAxis labels an axis with category names, truncated, rotated
// when they would overlap and thinned when even rotated they would.
func categoryAxis(ax *plot.Axis, labels []string, th theme, length vg.Length, vertical bool) {
	short := make([]string, len(labels))
	widest := vg.Length(0)
	for i, l := range labels {
		short[i] = format.ClipRunes(l, maxLabelRunes)
		widest = max(widest, th.tick.Width(short[i]))
	}
	ax.Tick.Length = 0
	ax.Tick.LineStyle.Width = 0
	every := 1
	shift := 0.0
	slot := length / vg.Length(max(1, len(labels)))
	lineH := th.tick.Height("Xg")
	if vertical {
		if need := lineH * 1.2; slot < need {
			every = int(math.Ceil(float64(need / slot)))
		}
	} else if widest <= slot*0.92 {
		// An invisible tick: room between the axis and labels whose glyphs
		// (CJK ones) reach the top of the line.
		ax.Tick.Length = vg.Points(3)
		ax.Tick.LineStyle = draw.LineStyle{Color: color.Transparent, Width: 1}
	} else {
		ax.Tick.Label.Rotation = math.Pi / 4
		ax.Tick.Label.XAlign = draw.XRight
		ax.Tick.Label.YAlign = draw.YTop
		if need := lineH * 1.5; slot < need {
			every = int(math.Ceil(float64(need / slot)))
		}
		// The anchor is the top corner of the rotated text; move it so the
		// middle of the text's end sits under the category.
		shift = float64(lineH*0.45) / float64(slot)
	}
	ax.Tick.Marker = categoryTicks{labels: short, every: every, shift: shift}
}

// addBars adds vertical or horizontal, single or grouped bars.
func addBars(p *plot.Plot, d *chartData, th theme, area draw.Canvas) {
	horizontal := d.kind == answer.KindHBar
	b := &barsPlotter{d: d, horizontal: horizontal, labelStyle: th.value}
	b.labels = len(d.series) == 1 && (horizontal || len(d.cats) <= 12)
	p.Add(valueGrid(horizontal), b)
	if horizontal {
		// The first category on top.
		rev := make([]string, len(d.cats))
		for i, c := range d.cats {
			rev[len(d.cats)-1-i] = c
		}
		categoryAxis(&p.Y, rev, th, area.Max.Y-area.Min.Y-vg.Points(60), true)
		p.X.Label.Text, p.Y.Label.Text = d.yLabel, d.xLabel
		p.X.AutoRescale, p.Y.AutoRescale = true, false
		p.Y.Padding = 0
	} else {
		categoryAxis(&p.X, d.cats, th, area.Max.X-area.Min.X-vg.Points(80), false)
		p.X.Padding = 0
	}
}

// addXY adds lines or scatter points, one plotter per series.
func addXY(p *plot.Plot, d *chartData, th theme, area draw.Canvas) {
	p.Add(valueGrid(false))
	for i, s := range d.series {
		col := seriesColor(i, s.other)
		xys := make(plotter.XYs, len(s.xs))
		for j := range s.xs {
			xys[j] = plotter.XY{X: s.xs[j], Y: s.ys[j]}
		}
		if len(xys) == 0 {
			continue
		}
		if d.kind == answer.KindScatter {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				continue
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: withAlpha(col, 0xB0), Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			continue
		}
		if len(xys) > 1 {
			ln, err := plotter.NewLine(xys)
			if err != nil {
				continue
			}
			ln.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(2)}
			p.Add(ln)
		}
		if len(xys) <= 60 {
			sc, err := plotter.NewScatter(xys)
			if err == nil {
				sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.4), Shape: draw.CircleGlyph{}}
				p.Add(sc)
			}
		}
	}
	width := area.Max.X - area.Min.X - vg.Points(80)
	switch d.xAxis {
	case axisTime:
		p.X.Tick.Marker = timeTicks{most: max(2, int(width/vg.Points(85)))}
	case axisYear:
		p.X.Tick.Marker = integerTicks{}
	case axisCategory:
		// Half a slot of room on each side, as bars have.
		p.X.Min, p.X.Max = math.Min(p.X.Min, -0.5), math.Max(p.X.Max, float64(len(d.cats))-0.5)
		categoryAxis(&p.X, d.cats, th, width, false)
	case axisNumber:
		p.X.AutoRescale = true
	}
}

// addHistogram adds the bins as adjacent bars.
func addHistogram(p *plot.Plot, d *chartData) {
	p.Add(valueGrid(false))
	h := &plotter.Histogram{FillColor: palette[0], LineStyle: draw.LineStyle{Color: whiteColor, Width: vg.Points(0.75)}}
	for _, b := range d.bins {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: b.lo, Max: b.hi, Weight: float64(b.n)})
	}
	if len(d.bins) > 0 {
		h.Width = d.bins[0].hi - d.bins[0].lo
	}
	p.Add(h)
	p.Y.Tick.Marker = integerTicks{separators: true}
	p.X.Padding = 0
}
