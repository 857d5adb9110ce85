package charts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

// Deterministic datasets shared by the tests, goldens and benchmarks.

func result(cols []query.Column, rows []query.Row) *query.Result {
	return &query.Result{Columns: cols, Rows: rows, RowCount: len(rows)}
}

// monthlySales is 36 months of sales with a trend, a December peak and a
// little noise.
func monthlySales() *query.Result {
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []query.Row
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 36 {
		m := start.AddDate(0, i, 0)
		season := 1 + 0.35*math.Sin(2*math.Pi*float64(i%12)/12) + map[bool]float64{true: 0.6, false: 0}[m.Month() == time.December]
		v := (120000 + 2500*float64(i)) * season * (1 + 0.05*rng.NormFloat64())
		rows = append(rows, query.Row{m.Format("2006-01"), math.Round(v*100) / 100})
	}
	return result([]query.Column{{Name: "month", Type: "TEXT"}, {Name: "sales", Type: "REAL"}}, rows)
}

// regionalSales is monthlySales for three regions: a multi-line chart.
func regionalSales() *query.Result {
	rng := rand.New(rand.NewPCG(3, 4))
	var rows []query.Row
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	regions := []struct {
		name string
		base float64
	}{{"North America", 90000}, {"Europe", 60000}, {"Asia Pacific", 35000}}
	for i := range 36 {
		m := start.AddDate(0, i, 0).Format("2006-01-02")
		for j, r := range regions {
			v := r.base * (1 + 0.02*float64(i)*float64(j+1)/2) * (1 + 0.25*math.Sin(2*math.Pi*float64(i)/12+float64(j))) * (1 + 0.04*rng.NormFloat64())
			rows = append(rows, query.Row{m, r.name, int64(v)})
		}
	}
	return result([]query.Column{{Name: "day", Type: "TEXT"}, {Name: "region", Type: "TEXT"}, {Name: "revenue", Type: "INTEGER"}}, rows)
}

var genres = []string{"Rock", "Latin", "Metal", "Alternative & Punk", "Jazz", "TV Shows", "Blues", "Classical", "Drama", "R&B/Soul", "Reggae", "Pop"}

// genreSales is 12 categories with integer totals.
func genreSales(scale float64) *query.Result {
	var rows []query.Row
	for i, g := range genres {
		v := 8260 * scale / (1 + 0.55*float64(i))
		if i%3 == 1 {
			v *= 1.3
		}
		rows = append(rows, query.Row{g, int64(v)})
	}
	return result([]query.Column{{Name: "genre", Type: "TEXT"}, {Name: "revenue", Type: "INTEGER"}}, rows)
}

// longNames is 12 categories with long labels for horizontal bars.
func longNames() *query.Result {
	names := []string{
		"Antônio Carlos Jobim", "Audioslave", "Battlestar Galactica (Classic)", "Cidade Negra",
		"Deep Purple", "Eric Clapton", "Faith No More", "Foo Fighters",
		"Gilberto Gil", "Iron Maiden", "Led Zeppelin", "The Office",
	}
	var rows []query.Row
	for i, n := range names {
		rows = append(rows, query.Row{n, float64(1200-i*83) + 0.5})
	}
	return result([]query.Column{{Name: "artist", Type: "TEXT"}, {Name: "total", Type: "REAL"}}, rows)
}

// manyCategories has n categories: more than a chart shows.
func manyCategories(n int) *query.Result {
	var rows []query.Row
	for i := range n {
		rows = append(rows, query.Row{fmt.Sprintf("customer %02d", i+1), int64(1000 + (i*7919)%2000)})
	}
	return result([]query.Column{{Name: "customer", Type: "TEXT"}, {Name: "spend", Type: "INTEGER"}}, rows)
}

// groupedSales is 5 quarters by 3 channels: grouped bars.
func groupedSales() *query.Result {
	var rows []query.Row
	for q := range 5 {
		for c, ch := range []string{"Online", "Retail", "Partner"} {
			rows = append(rows, query.Row{fmt.Sprintf("2024 Q%d", q%4+1) + map[bool]string{true: "+", false: ""}[q == 4], ch, int64(20000 + 9000*c + 4000*q - 3000*c*q%7)})
		}
	}
	res := result([]query.Column{{Name: "quarter", Type: "TEXT"}, {Name: "channel", Type: "TEXT"}, {Name: "orders", Type: "INTEGER"}}, rows)
	res.SQL = "SELECT quarter, channel, orders FROM sales ORDER BY quarter, channel"
	return res
}

// scatterPoints is n correlated points from a fixed seed.
func scatterPoints(n int) *query.Result {
	rng := rand.New(rand.NewPCG(5, 6))
	var rows []query.Row
	for range n {
		x := 5 + 45*rng.Float64()
		y := 120 + 38*x + 160*rng.NormFloat64()
		rows = append(rows, query.Row{math.Round(x*100) / 100, math.Round(y*100) / 100})
	}
	return result([]query.Column{{Name: "minutes", Type: "REAL"}, {Name: "price_cents", Type: "REAL"}}, rows)
}

// pieShares is six slices.
func pieShares() *query.Result {
	rows := []query.Row{
		{"MPEG audio file", int64(3034)},
		{"Protected AAC audio file", int64(237)},
		{"Protected MPEG-4 video file", int64(214)},
		{"Purchased AAC audio file", int64(7)},
		{"AAC audio file", int64(11)},
		{"Other", int64(120)},
	}
	return result([]query.Column{{Name: "media_type", Type: "TEXT"}, {Name: "tracks", Type: "INTEGER"}}, rows)
}

// normalValues is n normal-ish values.
func normalValues(n int) *query.Result {
	rng := rand.New(rand.NewPCG(7, 8))
	var rows []query.Row
	for range n {
		rows = append(rows, query.Row{math.Round((52+11*rng.NormFloat64())*10) / 10})
	}
	return result([]query.Column{{Name: "age", Type: "REAL"}}, rows)
}

// longSeries is n points of a noisy random walk with a few spikes, keyed by
// a second counter: the 100k-point line benchmark.
func longSeries(n int) *query.Result {
	rng := rand.New(rand.NewPCG(9, 10))
	rows := make([]query.Row, n)
	v := 1000.0
	for i := range rows {
		v += rng.NormFloat64() * 5
		y := v
		if i%25013 == 7 {
			y += 900
		}
		rows[i] = query.Row{int64(i), y}
	}
	return result([]query.Column{{Name: "tick", Type: "INTEGER"}, {Name: "price", Type: "REAL"}}, rows)
}

// goldenCases is one chart per kind (and per shape worth a look).
var goldenCases = []struct {
	name string
	spec answer.ChartSpec
	res  func() *query.Result
}{
	{"bar", answer.ChartSpec{Kind: answer.KindBar, X: "genre", Y: "revenue"}, func() *query.Result { return genreSales(1) }},
	{"hbar", answer.ChartSpec{Kind: answer.KindHBar, X: "artist", Y: "total", Title: "Top artists by revenue"}, longNames},
	{"bar_many", answer.ChartSpec{Kind: answer.KindBar, X: "customer", Y: "spend"}, func() *query.Result { return manyCategories(40) }},
	{"bar_grouped", answer.ChartSpec{Kind: answer.KindBar, X: "quarter", Y: "orders", Series: "channel"}, groupedSales},
	{"line", answer.ChartSpec{Kind: answer.KindLine, X: "month", Y: "sales", Title: "Monthly sales"}, monthlySales},
	{"line_series", answer.ChartSpec{Kind: answer.KindLine, X: "day", Y: "revenue", Series: "region"}, regionalSales},
	{"line_100k", answer.ChartSpec{Kind: answer.KindLine, X: "tick", Y: "price"}, func() *query.Result { return longSeries(100_000) }},
	{"scatter", answer.ChartSpec{Kind: answer.KindScatter, X: "minutes", Y: "price_cents"}, func() *query.Result { return scatterPoints(500) }},
	{"pie", answer.ChartSpec{Kind: answer.KindPie, X: "media_type", Y: "tracks", Title: "Tracks by media type"}, pieShares},
	{"histogram", answer.ChartSpec{Kind: answer.KindHistogram, X: "age"}, func() *query.Result { return normalValues(2000) }},
}
