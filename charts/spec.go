// Package charts turns a chart spec and a query result into pictures: PNG
// images drawn with gonum.org/v1/plot, text charts that fit an exact number of
// terminal cells, and escape sequences that show a PNG inline in terminals
// that speak the Kitty, iTerm2 or Sixel image protocols. It also suggests a
// chart from the shape of a result.
//
// Every entry point validates the spec against the result first (Validate);
// a spec the result cannot satisfy is reported as a *SpecError that says what
// is wrong and what to pick instead.
package charts

import (
	"errors"
	"image/color"
)

// Limits on what is drawn. Results bigger than these are aggregated,
// downsampled or refused, never drawn as they are.
const (
	// MaxScatterPoints is the largest scatter plot Validate accepts: every
	// point of a scatter is drawn, so its cost grows with the input.
	MaxScatterPoints = 10_000
	// MaxRows is the largest input any other kind accepts. Bars and pies
	// aggregate, lines are downsampled and histograms are binned, so their
	// drawing cost does not grow with the input, but scanning it does.
	MaxRows = 1_000_000

	maxBars       = 25   // bars drawn in a PNG; beyond it the rest become "other"
	maxPieSlices  = 8    // pie slices; beyond it the rest become "other"
	maxSeries     = 8    // series in grouped bars, lines and scatters
	maxLinePoints = 1000 // points per line series after LTTB
	maxHistBins   = 50
	maxLabelRunes = 18 // category labels longer than this are truncated with "…"
)

// ErrTooManyPoints is wrapped by the *SpecError Validate returns when a
// result has more points than its chart kind can draw.
var ErrTooManyPoints = errors.New("too many points")

// SpecError says why a chart spec does not fit the result it should be drawn
// from. Field is the spec field at fault ("kind", "x", "y", "series") or
// "rows" when the data itself is the problem; Hint says what to do instead.
// Callers detect it with errors.As (the CLI maps it to exit code 2).
type SpecError struct {
	Field string
	Msg   string
	Hint  string

	err error // wrapped sentinel, e.g. ErrTooManyPoints
}

// Error returns the message followed by the hint.
func (e *SpecError) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + " — " + e.Hint
}

// Unwrap returns the sentinel error this one refines, if any.
func (e *SpecError) Unwrap() error { return e.err }

// Options sizes a PNG chart in pixels. Zero values mean 1200x800.
type Options struct {
	Width, Height int
}

// Default and allowed PNG sizes in pixels.
const (
	DefaultWidth  = 1200
	DefaultHeight = 800
	minPixels     = 100
	maxPixels     = 8192
)

// palette is the Okabe–Ito palette, ordered for a white background: eight
// colors that stay distinguishable with the common forms of color
// blindness. Series and slices take colors in this order; "other" buckets
// are drawn in otherColor. PNG and text charts share it.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	{0x33, 0x33, 0x33, 0xFF}, // near black
}

// otherColor fills "other" buckets.
var otherColor = color.RGBA{0xA0, 0xA0, 0xA0, 0xFF}

// seriesColor returns the palette color for series i, or otherColor for a
// folded "other" bucket.
func seriesColor(i int, other bool) color.RGBA {
	if other {
		return otherColor
	}
	return palette[i%len(palette)]
}
