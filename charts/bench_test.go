package charts

import (
	"context"
	"fmt"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// Reproduce with: go test -bench . -run '^$' ./charts

func BenchmarkPNGBar20(b *testing.B) {
	var rows []query.Row
	for i := range 20 {
		rows = append(rows, query.Row{fmt.Sprintf("category %d", i+1), int64(1000 + (i*7919)%5000)})
	}
	res := result([]query.Column{{Name: "category", Type: "TEXT"}, {Name: "total", Type: "INTEGER"}}, rows)
	benchPNG(b, answer.ChartSpec{Kind: answer.KindBar, X: "category", Y: "total"}, res)
}

// benchPNG measures drawing spec over res as a PNG with default options.
func benchPNG(b *testing.B, spec answer.ChartSpec, res *query.Result) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PNG(ctx, spec, res, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPNGLine100k(b *testing.B) {
	benchPNG(b, answer.ChartSpec{Kind: answer.KindLine, X: "tick", Y: "price"}, longSeries(100_000))
}

func BenchmarkText(b *testing.B) {
	res := monthlySales()
	spec := answer.ChartSpec{Kind: answer.KindLine, X: "month", Y: "sales"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Text(spec, res, 80, 20); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTextBar(b *testing.B) {
	res := manyCategories(40)
	spec := answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TextWithOptions(spec, res, 80, 20, TextOptions{Color: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLTTB100k(b *testing.B) {
	n := 100_000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = float64(i), float64(i%97)
	}
	for b.Loop() {
		LTTB(xs, ys, 1000)
	}
}
