package charts

import (
	"image/color"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Colors of the parts of a chart that are not data.
var (
	inkColor   = color.RGBA{0x22, 0x22, 0x22, 0xFF} // title
	textColor  = color.RGBA{0x44, 0x44, 0x44, 0xFF} // labels and ticks
	noteColor  = color.RGBA{0x66, 0x66, 0x66, 0xFF} // subtitle
	axisColor  = color.RGBA{0x99, 0x99, 0x99, 0xFF}
	gridColor  = color.RGBA{0xE3, 0xE3, 0xE3, 0xFF}
	whiteColor = color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
)

// theme holds the text styles of one chart. Sizes are in points; the PNG
// renderer scales points to pixels with the image size.
type theme struct {
	title, subtitle, axisLabel, tick, legend, value text.Style
}

func newTheme() theme {
	return theme{
		title:     textStyle(17, true, inkColor),
		subtitle:  textStyle(11, false, noteColor),
		axisLabel: textStyle(12, false, textColor),
		tick:      textStyle(10.5, false, textColor),
		legend:    textStyle(11, false, textColor),
		value:     textStyle(10, false, textColor),
	}
}

func textStyle(size vg.Length, bold bool, c color.Color) text.Style {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{
		Color:   c,
		Font:    font.From(f, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: textHandler(),
	}
}

// fitText shortens s with "…" until it is at most width wide in sty.
func fitText(sty text.Style, s string, width vg.Length) string {
	if width <= 0 {
		return ""
	}
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest prefix that fits is r[:lo]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sty.Width(strings.TrimRight(string(r[:mid]), " ")+"…") <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return ""
	}
	return strings.TrimRight(string(r[:lo]), " ") + "…"
}
