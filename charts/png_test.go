package charts

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata")

// Golden comparison tolerance: font rasterization may differ a little
// between platforms, a changed chart differs a lot.
const (
	channelTolerance = 48    // a pixel differs when a channel moves more than this
	maxDiffShare     = 0.005 // the images differ when more than this share of pixels do
)

// diffShare is the share of pixels of a and b that differ by more than
// channelTolerance in any channel; images of different sizes differ fully.
func diffShare(a, b image.Image) float64 {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 1
	}
	ab, bb := a.Bounds(), b.Bounds()
	differ := 0
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, a1 := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			for _, d := range [4][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
				if absDiff(d[0]>>8, d[1]>>8) > channelTolerance {
					differ++
					break
				}
			}
		}
	}
	return float64(differ) / float64(ab.Dx()*ab.Dy())
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func decodePNG(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	return img
}

func renderGolden(t *testing.T, spec answer.ChartSpec, res *query.Result) []byte {
	t.Helper()
	b, err := PNG(context.Background(), spec, res, Options{})
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	return b
}

func TestPNGGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got := renderGolden(t, c.spec, c.res())
			if gi := decodePNG(t, got); gi.Bounds().Dx() != DefaultWidth || gi.Bounds().Dy() != DefaultHeight {
				t.Errorf("image is %v, want %dx%d", gi.Bounds().Size(), DefaultWidth, DefaultHeight)
			}
			matchGolden(t, got, filepath.Join("testdata", c.name+".png"))
		})
	}
}

// matchGolden fails t when more than maxDiffShare of got's pixels differ
// from the golden PNG at path. Under -update it writes the golden instead,
// stored small: only its pixels are compared.
func matchGolden(t *testing.T, got []byte, path string) {
	t.Helper()
	gi := decodePNG(t, got)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var small bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(&small, gi); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, small.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (refresh with go test ./charts -update): %v", err)
	}
	if share := diffShare(gi, decodePNG(t, want)); share > maxDiffShare {
		actual := filepath.Join(t.TempDir(), filepath.Base(path))
		_ = os.WriteFile(actual, got, 0o644)
		t.Errorf("%.2f%% of pixels differ from %s (more than %.1f%%); actual image: %s (refresh with go test ./charts -update)",
			share*100, path, maxDiffShare*100, actual)
	}
}

// TestPNGGoldenIsSensitive proves the comparison catches a changed chart:
// the same bar chart with different bar heights must not pass.
func TestPNGGoldenIsSensitive(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "bar.png"))
	if err != nil {
		t.Skip("no golden yet: run go test ./charts -update")
	}
	wi := decodePNG(t, want)
	spec := goldenCases[0].spec
	if share := diffShare(decodePNG(t, renderGolden(t, spec, genreSales(1))), wi); share > maxDiffShare {
		t.Fatalf("the unchanged chart differs by %.2f%%; the golden is stale", share*100)
	}

	changed := genreSales(1)
	changed.Rows[0][1] = int64(4000) // Rock loses half its bar
	changed.Rows[5][1] = int64(7000) // TV Shows grows
	if share := diffShare(decodePNG(t, renderGolden(t, spec, changed)), wi); share <= maxDiffShare {
		t.Errorf("different bar heights differ from the golden by only %.2f%% of pixels; the comparison is not sensitive", share*100)
	}
	if share := diffShare(decodePNG(t, renderGolden(t, answer.ChartSpec{Kind: answer.KindBar, X: "genre", Y: "revenue", Title: "Other title"}, genreSales(1))), wi); share <= 0 {
		t.Errorf("a different title changed no pixel")
	}
}

func TestPNGOptionsSize(t *testing.T) {
	for _, sz := range [][2]int{{640, 400}, {300, 300}, {1600, 900}} {
		b, err := PNG(context.Background(), goldenCases[0].spec, genreSales(1), Options{Width: sz[0], Height: sz[1]})
		if err != nil {
			t.Fatal(err)
		}
		if got := decodePNG(t, b).Bounds().Size(); got.X != sz[0] || got.Y != sz[1] {
			t.Errorf("Options %v gave a %v image", sz, got)
		}
	}
	for _, sz := range [][2]int{{50, 400}, {400, 9000}, {-1, 100}} {
		if _, err := PNG(context.Background(), goldenCases[0].spec, genreSales(1), Options{Width: sz[0], Height: sz[1]}); err == nil {
			t.Errorf("Options %v: no error", sz)
		}
	}
}

func TestPNGRefusesBadSpec(t *testing.T) {
	_, err := PNG(context.Background(), answer.ChartSpec{Kind: answer.KindBar, X: "genre", Y: "genre"}, genreSales(1), Options{})
	var se *chartspec.SpecError
	if !errors.As(err, &se) || se.Field != "y" {
		t.Errorf("PNG with a text y = %v, want a *chartspec.SpecError on y", err)
	}
	if _, err := PNG(context.Background(), goldenCases[0].spec, nil, Options{}); !errors.As(err, &se) {
		t.Errorf("PNG of a nil result = %v, want a *chartspec.SpecError", err)
	}
}

func TestPNGCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := PNG(ctx, goldenCases[0].spec, genreSales(1), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("PNG with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestPNGDeadline(t *testing.T) {
	release := make(chan struct{})
	stall := func() { <-release }
	testHookDraw.Store(&stall)
	defer func() {
		testHookDraw.Store(nil)
		close(release)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := PNG(ctx, goldenCases[0].spec, genreSales(1), Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("PNG past its deadline = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("PNG returned after %v, long after its 50ms deadline", d)
	}
}

func TestPNGRecoversPanics(t *testing.T) {
	boom := func() { panic("kaboom") }
	testHookDraw.Store(&boom)
	defer testHookDraw.Store(nil)
	b, err := PNG(context.Background(), goldenCases[0].spec, genreSales(1), Options{})
	if err == nil || !strings.Contains(err.Error(), "panic: kaboom") || b != nil {
		t.Errorf("PNG with a panicking renderer = %v, %d bytes; want a panic error", err, len(b))
	}
}

func TestPrepareKeepsLargestCategories(t *testing.T) {
	tests := []struct {
		name      string
		spec      answer.ChartSpec
		res       *query.Result
		other     bool
		wantCats  int
		wantOther string
		wantNote  string
	}{
		{"bars beyond 25 keep the 25 largest", answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}, manyCategories(40), false, maxBars, "", "15 smaller categories not shown"},
		{"an other bar only when asked", answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}, manyCategories(40), true, maxBars, "other (16)", "“other (16)” adds up the 16 smallest"},
		{"a pie keeps the whole", answer.ChartSpec{Kind: answer.KindPie, X: "customer", Y: "spend"}, manyCategories(12), false, maxPieSlices, "other (5)", "“other (5)” adds up the 5 smallest"},
		{"bars up to 25 stay", answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}, manyCategories(25), false, 25, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := pngLimits(tt.spec.Kind)
			lim.other = tt.other
			d, err := prepare(tt.spec, tt.res, lim)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.cats) != tt.wantCats {
				t.Fatalf("%d categories, want %d", len(d.cats), tt.wantCats)
			}
			notes := strings.Join(d.notes, " · ")
			if tt.wantNote != "" && !strings.Contains(notes, tt.wantNote) || tt.wantNote == "" && notes != "" {
				t.Errorf("notes %q, want %q", notes, tt.wantNote)
			}
			last := d.cats[len(d.cats)-1]
			ys := d.series[0].ys
			n := len(ys)
			if tt.wantOther != "" {
				if last != tt.wantOther || !d.other {
					t.Fatalf("last category %q (other=%v), want %q", last, d.other, tt.wantOther)
				}
				n-- // the other bucket is last, whatever its size
			} else if d.other || strings.HasPrefix(last, "other") {
				t.Fatalf("an other bucket %q was made", last)
			}
			// Largest first, and every value left out is no larger than
			// the smallest kept.
			for i := 1; i < n; i++ {
				if ys[i] > ys[i-1] {
					t.Fatalf("bars not sorted by value: %v", ys[:n])
				}
			}
			kept := map[string]bool{}
			for _, c := range d.cats[:n] {
				kept[c] = true
			}
			for _, r := range tt.res.Rows {
				if f, _ := chartspec.ToFloat(r[1]); !kept[r[0].(string)] && f > ys[n-1] {
					t.Errorf("%v (%v) left out though larger than the smallest bar kept (%v)", r[0], f, ys[n-1])
				}
			}
		})
	}
}

// TestPrepareKeepsQueryOrder: bars come largest first unless the query
// ordered its rows; then they keep its order.
func TestPrepareKeepsQueryOrder(t *testing.T) {
	spec := answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}
	res := manyCategories(10) // rows by name, as GROUP BY returns them
	d, err := prepare(spec, res, pngLimits(spec.Kind))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(d.series[0].ys, func(a, b float64) int { return cmp.Compare(b, a) }) {
		t.Errorf("without ORDER BY the bars are %v, want largest first", d.series[0].ys)
	}
	for _, sql := range []string{"SELECT customer, spend FROM t ORDER BY customer", "select customer, spend from t order by 1 limit 40"} {
		res.SQL = sql
		d, err = prepare(spec, res, pngLimits(spec.Kind))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(d.cats) {
			t.Errorf("%s: bars %v, want the query's order", sql, d.cats)
		}
	}
	res.SQL = "SELECT customer, (SELECT spend FROM s ORDER BY 1) AS spend FROM t"
	if d, _ = prepare(spec, res, pngLimits(spec.Kind)); slices.IsSorted(d.cats) {
		t.Errorf("an ORDER BY inside parentheses kept the rows' order: %v", d.cats)
	}
}

// TestPrepareNeverRegroupsDates: bars over 42 months keep every month, in
// time order, with no other bar and nothing left out.
func TestPrepareNeverRegroupsDates(t *testing.T) {
	var rows []query.Row
	for i := range 42 {
		m := time.Date(2022, time.Month(1+i), 1, 0, 0, 0, 0, time.UTC)
		rows = append(rows, query.Row{m.Format("2006-01"), int64(300 + (i*37)%200)})
	}
	rows[5], rows[30] = rows[30], rows[5] // not in time order
	res := result([]query.Column{{Name: "month", Type: "TEXT"}, {Name: "orders", Type: "INTEGER"}}, rows)
	for _, kind := range []string{answer.KindBar, answer.KindHBar} {
		d, err := prepare(answer.ChartSpec{Kind: kind, X: "month", Y: "orders"}, res, pngLimits(kind))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.cats) != 42 || d.other || len(d.notes) != 0 {
			t.Fatalf("%s: %d categories (other %v), notes %q; want all 42 months and no note", kind, len(d.cats), d.other, d.notes)
		}
		if !slices.IsSorted(d.cats) {
			t.Errorf("%s: months %v, want time order", kind, d.cats)
		}
	}
}

// TestAlbumsPerArtist is the Chinook case: 204 artists with albums, three
// to 21 albums each. No other bar may flatten them.
func TestAlbumsPerArtist(t *testing.T) {
	path := testdb.SharedData(t, "chinook.sqlite")
	d, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	res, err := query.Collect(context.Background(), d, "SELECT ar.Name AS artist, count(*) AS albums FROM Album al JOIN Artist ar USING (ArtistId) GROUP BY 1", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := chartspec.Complete(answer.ChartSpec{}, res.Columns, res.Rows)
	if err != nil {
		t.Fatal(err)
	}
	cd, err := prepare(spec, res, pngLimits(spec.Kind))
	if err != nil {
		t.Fatal(err)
	}
	if cd.other || len(cd.cats) != maxBars || cd.cats[0] != "Iron Maiden" || cd.series[0].ys[0] != 21 {
		t.Fatalf("%d bars starting %q = %v (other %v), want %d starting Iron Maiden = 21 and no other", len(cd.cats), cd.cats[0], cd.series[0].ys[0], cd.other, maxBars)
	}
	if want := fmt.Sprintf("%d smaller categories not shown", len(res.Rows)-maxBars); !strings.Contains(strings.Join(cd.notes, " "), want) {
		t.Errorf("notes %q, want %q", cd.notes, want)
	}
}

func TestPrepareSeries(t *testing.T) {
	// 10 series: bars and lines leave the two smallest out.
	var rows []query.Row
	for s := range 10 {
		for m := range 6 {
			rows = append(rows, query.Row{fmt.Sprintf("2024-%02d", m+1), fmt.Sprintf("s%d", s), int64((s + 1) * 100)})
		}
	}
	res := result([]query.Column{{Name: "month"}, {Name: "grp"}, {Name: "v"}}, rows)
	bars, err := prepare(answer.ChartSpec{Kind: answer.KindBar, X: "month", Y: "v", Series: "grp"}, res, pngLimits(answer.KindBar))
	if err != nil {
		t.Fatal(err)
	}
	if len(bars.series) != maxSeries || bars.series[0].name != "s2" || bars.series[maxSeries-1].name != "s9" || !strings.Contains(strings.Join(bars.notes, " "), "2 smaller series not shown") {
		t.Errorf("bar series %d, %q to %q, notes %q; want the %d largest, s2 to s9, and a note", len(bars.series), bars.series[0].name, bars.series[len(bars.series)-1].name, bars.notes, maxSeries)
	}
	lines, err := prepare(answer.ChartSpec{Kind: answer.KindLine, X: "month", Y: "v", Series: "grp"}, res, pngLimits(answer.KindLine))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines.series) != maxSeries || lines.series[0].name != "s2" || lines.xAxis != axisTime {
		t.Errorf("line series %d starting %q (axis %v); want %d starting s2 on a time axis", len(lines.series), lines.series[0].name, lines.xAxis, maxSeries)
	}
	if !strings.Contains(strings.Join(lines.notes, " "), "2 more series not shown") {
		t.Errorf("line notes %q do not say series were dropped", lines.notes)
	}
}

func TestPrepareDownsamplesLines(t *testing.T) {
	d, err := prepare(answer.ChartSpec{Kind: answer.KindLine, X: "tick", Y: "price"}, longSeries(100_000), pngLimits(answer.KindLine))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.series[0].xs); n != maxLinePoints {
		t.Errorf("%d points after downsampling, want %d", n, maxLinePoints)
	}
	if want := "downsampled from 100,000 to 1,000 points (LTTB)"; !strings.Contains(strings.Join(d.notes, " "), want) {
		t.Errorf("notes %q, want %q", d.notes, want)
	}
}

// TestPNGConcurrent renders every golden case at once: renders share no
// state, so each image equals its sequential twin (run with -race).
func TestPNGConcurrent(t *testing.T) {
	want := make([][]byte, len(goldenCases))
	for i, c := range goldenCases {
		want[i] = renderGolden(t, c.spec, c.res())
	}
	type out struct {
		i   int
		b   []byte
		err error
	}
	results := make(chan out, len(goldenCases))
	for i, c := range goldenCases {
		res := c.res()
		go func() {
			b, err := PNG(context.Background(), c.spec, res, Options{})
			results <- out{i, b, err}
		}()
	}
	for range goldenCases {
		o := <-results
		if o.err != nil {
			t.Errorf("%s: %v", goldenCases[o.i].name, o.err)
			continue
		}
		if !bytes.Equal(o.b, want[o.i]) {
			t.Errorf("%s rendered concurrently differs from its sequential render", goldenCases[o.i].name)
		}
	}
}
