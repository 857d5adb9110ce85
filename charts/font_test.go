package charts

import (
	"context"
	"image"
	"image/color"
	"slices"
	"sync"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// drawLabel draws s in the chart theme's tick style on a white 400x60 image.
func drawLabel(s string) *image.RGBA {
	cv := vgimg.NewWith(vgimg.UseImage(image.NewRGBA(image.Rect(0, 0, 400, 60))), vgimg.UseDPI(96))
	dc := draw.New(cv)
	dc.FillText(newTheme().tick, vg.Point{X: vg.Points(4), Y: vg.Points(12)}, s)
	return cv.Image().(*image.RGBA)
}

// ink counts the pixels of img that are not white.
func ink(img *image.RGBA) int {
	n := 0
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if img.At(x, y) != (color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}) {
				n++
			}
		}
	}
	return n
}

// TestCJKLabelsDrawGlyphs draws every Japanese and Korean city and customer
// name of the built-in sample one character at a time: each must leave ink,
// and not the ink of a character no font has (the missing-glyph box).
func TestCJKLabelsDrawGlyphs(t *testing.T) {
	d := testdb.Sample(t)
	res, err := query.Collect(context.Background(), d, `SELECT DISTINCT c.city || c.name FROM customers c JOIN countries n USING (country_id) WHERE n.name IN ('Japan', 'South Korea')`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[rune]bool{}
	for _, row := range res.Rows {
		for _, r := range row[0].(string) {
			if r >= 0x2E80 {
				seen[r] = true
			}
		}
	}
	if len(seen) < 50 {
		t.Fatalf("only %d CJK characters in the sample's Japanese and Korean names", len(seen))
	}
	missing := drawLabel("\uE000") // private use: in no font
	for r := range seen {
		img := drawLabel(string(r))
		if ink(img) == 0 || string(img.Pix) == string(missing.Pix) {
			t.Errorf("%q (U+%04X) draws blank or as the missing-glyph box", r, r)
		}
	}
	// Mixed text keeps Latin letters in Liberation and puts the CJK ones
	// after them, not over them.
	if a, b := ink(drawLabel("Tokyo")), ink(drawLabel("Tokyo 東京")); b <= a {
		t.Errorf("\"Tokyo 東京\" has %d ink pixels, \"Tokyo\" %d: the CJK part is blank", b, a)
	}
	if w1, w2 := newTheme().tick.Width("東京"), newTheme().tick.Width("東京東京"); w2 < 2*w1*0.99 || w1 <= 0 {
		t.Errorf("widths %v and %v: CJK text is not measured", w1, w2)
	}
}

// drawnTexts renders spec from res as a PNG and returns every text drawn.
func drawnTexts(t *testing.T, spec answer.ChartSpec, res *query.Result) []string {
	t.Helper()
	var mu sync.Mutex
	var texts []string
	hook := func(s string) {
		mu.Lock()
		texts = append(texts, s)
		mu.Unlock()
	}
	testHookText.Store(&hook)
	defer testHookText.Store(nil)
	if _, err := PNG(context.Background(), spec, res, Options{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return texts
}

// TestPieLegendKeepsLabelsThatFit: the longest label of a pie's legend is
// written whole when there is room ("marketplace", not "marketpla…").
func TestPieLegendKeepsLabelsThatFit(t *testing.T) {
	res := result([]query.Column{{Name: "channel", Type: "TEXT"}, {Name: "orders", Type: "INTEGER"}},
		[]query.Row{{"web", int64(7650)}, {"mobile_app", int64(3170)}, {"marketplace", int64(580)}, {"phone", int64(480)}})
	texts := drawnTexts(t, answer.ChartSpec{Kind: answer.KindPie, X: "channel", Y: "orders"}, res)
	for _, want := range []string{"web", "mobile_app", "marketplace", "phone"} {
		if !slices.Contains(texts, want) {
			t.Errorf("legend label %q not drawn whole; texts drawn: %q", want, texts)
		}
	}
}
