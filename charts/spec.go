// Package charts turns a chart spec and a query result into pictures: PNG
// images drawn with gonum.org/v1/plot, text charts that fit an exact number of
// terminal cells, and escape sequences that show a PNG inline in terminals
// that speak the Kitty, iTerm2 or Sixel image protocols. It also suggests a
// chart from the shape of a result.
//
// The rules for a spec — which kinds exist, which columns fit, what is
// suggested or filled in — live in core/chartspec, where the core can use
// them too. Every entry point here validates the spec against the result
// first (chartspec.Resolve); a spec the result cannot satisfy is reported as
// a *chartspec.SpecError that says what is wrong and what to pick instead.
package charts

import (
	"image/color"
	"path/filepath"
	"strings"

	"github.com/tablewise/tablewise/core/chartspec"
)

// Limits on what is drawn. Results bigger than chartspec.MaxRows (and
// scatters bigger than chartspec.MaxScatterPoints) are refused; bars and
// pies aggregate, lines are downsampled and histograms are binned.
const (
	maxBars        = 25   // bars of categories in a PNG: the largest are kept
	maxPieSlices   = 8    // pie slices; beyond it the rest become "other"
	maxOrderedBars = 1000 // bars of dates or numbers in a PNG: the last are kept
	maxSeries      = chartspec.MaxSeries
	maxLinePoints  = 1000 // points per line series after LTTB
	maxHistBins    = 50
	maxLabelRunes  = 18 // category labels longer than this are truncated with "…"
)

// Options sizes a PNG chart in pixels (zero values mean 1200x800) and
// says what to do with categories beyond the 25 largest bars.
type Options struct {
	Width, Height int
	// Other adds up the categories beyond the largest bars into a last
	// "other (n)" bar; without it they are left out. Either way a note
	// under the title says how many.
	Other bool
	// Format is the image format: FormatPNG (the default) or FormatJPEG.
	Format string
}

// Image formats of PNG's output.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
)

// FormatFor is the image format a file name asks for by its extension:
// .png (or none) is PNG, .jpg and .jpeg are JPEG; any other is "" (not
// supported).
func FormatFor(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", "":
		return FormatPNG
	case ".jpg", ".jpeg":
		return FormatJPEG
	}
	return ""
}

// Default and allowed PNG sizes in pixels.
const (
	DefaultWidth  = 1200
	DefaultHeight = 800
	MinPixels     = 100
	MaxPixels     = 8192
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
