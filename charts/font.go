package charts

import (
	_ "embed"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// cjkFontData is a subset of Noto Sans CJK JP (SIL Open Font License 1.1,
// fonts/OFL.txt): kana, Hangul syllables, the common Han characters of
// Japanese, Chinese and Korean text, and every CJK character of the
// built-in sample. fonts/subset.py rebuilds it.
//
//go:embed fonts/cjk-subset.otf
var cjkFontData []byte

// cjkTypeface names the fallback face in the font cache.
const cjkTypeface font.Typeface = "TablewiseCJK"

var (
	fontsOnce sync.Once
	fonts     *fallbackText
)

// textHandler is the text handler of every PNG chart: Liberation Sans, and
// the CJK subset for the characters Liberation lacks.
func textHandler() text.Handler {
	fontsOnce.Do(func() {
		cache := font.NewCache(liberation.Collection())
		cjk, err := opentype.Parse(cjkFontData)
		if err != nil {
			panic("charts: the embedded CJK font does not parse: " + err.Error())
		}
		cache.Add(font.Collection{{Font: font.Font{Typeface: cjkTypeface}, Face: cjk}})
		fonts = &fallbackText{fonts: cache, fallback: []font.Typeface{cjkTypeface}}
	})
	return fonts
}

// fallbackText is a text.Handler that draws each character with the first
// face that has a glyph for it: the style's own font, then each fallback
// typeface in turn. A character none of them has is drawn with the style's
// font (its missing-glyph box). Layout (ascent, descent, line height) is
// the style's font's, so mixed text sits on one baseline.
type fallbackText struct {
	fonts    *font.Cache
	fallback []font.Typeface
}

var _ text.Handler = (*fallbackText)(nil)

// Cache implements text.Handler.
func (h *fallbackText) Cache() *font.Cache { return h.fonts }

// Extents implements text.Handler.
func (h *fallbackText) Extents(fnt font.Font) font.Extents {
	face := h.fonts.Lookup(fnt, fnt.Size)
	return face.Extents()
}

// Lines implements text.Handler.
func (h *fallbackText) Lines(txt string) []string {
	return strings.Split(strings.TrimRight(txt, "\n"), "\n")
}

// Box implements text.Handler.
func (h *fallbackText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	ext := h.Extents(fnt)
	for _, r := range h.runs(txt, fnt) {
		width += r.face.Width(r.text)
	}
	return width, ext.Ascent, ext.Descent
}

// Draw implements text.Handler, as text.Plain does but one run of
// characters of the same face at a time.
func (h *fallbackText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	if hook := testHookText.Load(); hook != nil {
		(*hook)(txt)
	}
	ext := h.Extents(sty.Font)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	lines := h.Lines(txt)
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - ext.Ascent
	for i, line := range lines {
		runs := h.runs(line, sty.Font)
		width := vg.Length(0)
		for _, r := range runs {
			width += r.face.Width(r.text)
		}
		at := pt.Add(vg.Point{X: vg.Length(sty.XAlign) * width, Y: vg.Length(len(lines)-i) * sty.Font.Size})
		for _, r := range runs {
			c.FillString(r.face, at, r.text)
			at.X += r.face.Width(r.text)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// testHookText, when set, is called with every text drawn: tests read
// what a chart wrote with it.
var testHookText atomic.Pointer[func(string)]

// run is a stretch of text drawn with one face.
type run struct {
	face font.Face
	text string
}

// runs splits txt into stretches by the face that draws each character.
func (h *fallbackText) runs(txt string, fnt font.Font) []run {
	primary := h.fonts.Lookup(fnt, fnt.Size)
	faces := []font.Face{primary}
	for _, tf := range h.fallback {
		f := fnt
		f.Typeface, f.Variant = tf, ""
		faces = append(faces, h.fonts.Lookup(f, fnt.Size))
	}
	var (
		out   []run
		buf   sfnt.Buffer
		start int
		cur   = -1
	)
	for i, r := range txt {
		k := 0 // the primary face, also for characters no face has
		for j, f := range faces {
			if g, err := f.Face.GlyphIndex(&buf, r); err == nil && g != 0 {
				k = j
				break
			}
		}
		if r == ' ' && cur >= 0 {
			k = cur // a space stays in the run it is in
		}
		if k != cur {
			if cur >= 0 {
				out = append(out, run{faces[cur], txt[start:i]})
			}
			start, cur = i, k
		}
	}
	if cur >= 0 {
		out = append(out, run{faces[cur], txt[start:]})
	}
	return out
}
