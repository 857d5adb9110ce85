package charts

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// TextOptions tunes a text chart.
type TextOptions struct {
	// Color draws series in the palette's colors with ANSI escape
	// sequences. The default is plain text.
	Color bool
}

// Smallest text chart.
const (
	minTextWidth  = 8
	minTextHeight = 2
)

// Text draws the chart spec describes from res as plain text that fills
// exactly width x height terminal cells: at most height lines, each
// exactly width cells wide (as ansi.StringWidth measures it), padded with
// spaces. Bars (bar and hbar alike) are horizontal block bars with labels
// and values, lines and scatters are braille dots, a pie is a proportional
// strip over a legend of shares, a histogram is columns of blocks. The
// title takes the first line when there are at least 6 lines. Bars that do
// not fit are left out (the largest are kept) and a last line says how
// many; pie slices that do not fit are folded into "other". The spec is validated first
// (see Validate); text from the database is stripped of control
// characters, so the only escape sequences in the result are the colors
// TextOptions asks for.
//
// Text is TextWithOptions with the default options (no color).
func Text(spec answer.ChartSpec, res *query.Result, width, height int) (string, error) {
	return TextWithOptions(spec, res, width, height, TextOptions{})
}

// TextWithOptions is Text with options.
func TextWithOptions(spec answer.ChartSpec, res *query.Result, width, height int, opt TextOptions) (string, error) {
	if width < minTextWidth || height < minTextHeight {
		return "", fmt.Errorf("text chart: %dx%d cells is too small (at least %dx%d)", width, height, minTextWidth, minTextHeight)
	}
	kind := strings.ToLower(strings.TrimSpace(spec.Kind))
	lim := limits{series: maxSeries, points: 2 * width, bins: width}
	d, err := prepare(spec, res, lim)
	if err != nil {
		return "", err
	}
	t := &textChart{w: width, color: opt.Color}
	body := height
	if height >= 6 {
		t.add(fit(d.title, width))
		body--
	}
	switch kind {
	case answer.KindBar, answer.KindHBar:
		t.bars(d, body)
	case answer.KindPie:
		t.pie(d, body)
	case answer.KindLine, answer.KindScatter:
		t.xy(d, body)
	case answer.KindHistogram:
		t.histogram(d, body)
	}
	return t.String(height), nil
}

// textChart collects the lines of a text chart.
type textChart struct {
	w     int
	color bool
	lines []string
}

// add appends a line, cut or padded to exactly the chart's width.
func (t *textChart) add(line string) {
	t.lines = append(t.lines, pad(line, t.w))
}

// String joins exactly height lines.
func (t *textChart) String(height int) string {
	lines := t.lines
	if len(lines) > height {
		lines = lines[:height]
	}
	blank := strings.Repeat(" ", t.w)
	for len(lines) < height {
		lines = append(lines, blank)
	}
	return strings.Join(lines, "\n")
}

// paint colors s with series i's color when colors are on.
func (t *textChart) paint(s string, i int, other bool) string {
	if !t.color || s == "" || strings.TrimSpace(s) == "" {
		return s
	}
	return lipgloss.NewStyle().Foreground(toColor(seriesColor(i, other))).Render(s)
}

func toColor(c color.RGBA) color.Color {
	return lipgloss.Color(fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B))
}

// pad cuts s to w cells or pads it with spaces to exactly w.
func pad(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "")
		sw = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", max(0, w-sw))
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	s = fit(s, w)
	return strings.Repeat(" ", max(0, w-ansi.StringWidth(s))) + s
}

// fit shortens s to at most w cells, ending it with "…" when cut.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Glyphs that tell series and slices apart without color.
var (
	seriesGlyphs = []string{"█", "▓", "▒", "░", "▚", "▞", "▀", "▄"}
	eighths      = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}
	risers       = []string{"", "▁", "▂", "▃", "▄", "▅", "▆", "▇"}
)

// glyph is the block series i is drawn with.
func (t *textChart) glyph(i int) string {
	if t.color {
		return "█"
	}
	return seriesGlyphs[i%len(seriesGlyphs)]
}

// yAxis is row r (of ph) of a text chart's y axis yw wide: top's label
// on the first row, bottom's on the last, the axis line between; nothing
// when yw is negative (no axis).
func yAxis(r, ph, yw int, top, bottom string) string {
	if yw < 0 {
		return ""
	}
	switch r {
	case 0:
		return padLeft(top, yw) + "┤"
	case ph - 1:
		return padLeft(bottom, yw) + "┤"
	default:
		return strings.Repeat(" ", yw) + "│"
	}
}
