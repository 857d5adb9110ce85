package chartspec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

func TestSuggest(t *testing.T) {
	col := func(name, typ string) query.Column { return query.Column{Name: name, Type: typ} }
	rowsOf := func(n int, f func(i int) query.Row) []query.Row {
		rows := make([]query.Row, n)
		for i := range rows {
			rows[i] = f(i)
		}
		return rows
	}
	tests := []struct {
		name string
		cols []query.Column
		rows []query.Row
		want answer.ChartSpec // Kind "" means no chart
	}{
		{
			name: "category and number: bar",
			cols: []query.Column{col("genre", "TEXT"), col("total", "REAL")},
			rows: rowsOf(5, func(i int) query.Row { return query.Row{fmt.Sprintf("g%d", i), float64(10 + i)} }),
			want: answer.ChartSpec{Kind: answer.KindBar, X: "genre", Y: "total", Title: "Total by genre"},
		},
		{
			name: "few positive categories are still a bar, never a pie",
			cols: []query.Column{col("media", "TEXT"), col("tracks", "INTEGER")},
			rows: []query.Row{{"mp3", int64(3000)}, {"aac", int64(200)}, {"video", int64(20)}},
			want: answer.ChartSpec{Kind: answer.KindBar, X: "media", Y: "tracks", Title: "Tracks by media"},
		},
		{
			name: "many categories: hbar",
			cols: []query.Column{col("customer", "TEXT"), col("spend", "INTEGER")},
			rows: rowsOf(13, func(i int) query.Row { return query.Row{fmt.Sprintf("c%d", i), int64(i)} }),
			want: answer.ChartSpec{Kind: answer.KindHBar, X: "customer", Y: "spend", Title: "Spend by customer"},
		},
		{
			name: "long labels: hbar",
			cols: []query.Column{col("artist", "TEXT"), col("total", "REAL")},
			rows: []query.Row{{"Battlestar Galactica (Classic)", 1.0}, {"U2", 2.0}},
			want: answer.ChartSpec{Kind: answer.KindHBar, X: "artist", Y: "total", Title: "Total by artist"},
		},
		{
			name: "y is the first numeric column that is not x",
			cols: []query.Column{col("n", "INTEGER"), col("name", "TEXT"), col("total", "REAL")},
			rows: []query.Row{{int64(1), "a", 2.5}, {int64(2), "b", 3.5}},
			want: answer.ChartSpec{Kind: answer.KindBar, X: "name", Y: "n", Title: "N by name"},
		},
		{
			name: "month and number: line",
			cols: []query.Column{col("month", "TEXT"), col("sales", "REAL")},
			rows: rowsOf(12, func(i int) query.Row { return query.Row{fmt.Sprintf("2024-%02d", i+1), float64(i)} }),
			want: answer.ChartSpec{Kind: answer.KindLine, X: "month", Y: "sales", Title: "Sales by month"},
		},
		{
			name: "date, category and number: line per category",
			cols: []query.Column{col("day", "TEXT"), col("region", "TEXT"), col("revenue", "INTEGER")},
			rows: rowsOf(12, func(i int) query.Row {
				return query.Row{fmt.Sprintf("2024-01-%02d 10:00:00", i/3+1), []string{"n", "s", "e"}[i%3], int64(i)}
			}),
			want: answer.ChartSpec{Kind: answer.KindLine, X: "day", Y: "revenue", Series: "region", Title: "Revenue by day and region"},
		},
		{
			name: "two numbers: scatter",
			cols: []query.Column{col("minutes", "REAL"), col("price", "REAL")},
			rows: rowsOf(30, func(i int) query.Row { return query.Row{float64((i * 7) % 30), float64(i)} }),
			want: answer.ChartSpec{Kind: answer.KindScatter, X: "minutes", Y: "price", Title: "Price by minutes"},
		},
		{
			name: "year and number: line",
			cols: []query.Column{col("year", "INTEGER"), col("total", "REAL")},
			rows: []query.Row{{int64(2021), 5.0}, {int64(2023), 7.0}, {int64(2022), 6.0}},
			want: answer.ChartSpec{Kind: answer.KindLine, X: "year", Y: "total", Title: "Total by year"},
		},
		{
			name: "ascending id and number: line",
			cols: []query.Column{col("InvoiceId", "INTEGER"), col("Total", "REAL")},
			rows: rowsOf(20, func(i int) query.Row { return query.Row{int64(100 + 3*i), float64(i % 5)} }),
			want: answer.ChartSpec{Kind: answer.KindLine, X: "InvoiceId", Y: "Total", Title: "Total by InvoiceId"},
		},
		{
			name: "one numeric column: histogram",
			cols: []query.Column{col("age", "REAL")},
			rows: rowsOf(50, func(i int) query.Row { return query.Row{float64(i % 17)} }),
			want: answer.ChartSpec{Kind: answer.KindHistogram, X: "age", Title: "Distribution of age"},
		},
		{name: "single row", cols: []query.Column{col("genre", "TEXT"), col("total", "REAL")}, rows: []query.Row{{"rock", 1.0}}},
		{name: "no rows", cols: []query.Column{col("genre", "TEXT"), col("total", "REAL")}},
		{name: "no columns", rows: []query.Row{{}, {}}},
		{
			name: "text only",
			cols: []query.Column{col("first", "TEXT"), col("last", "TEXT")},
			rows: []query.Row{{"a", "b"}, {"c", "d"}},
		},
		{
			name: "one numeric column with few rows",
			cols: []query.Column{col("n", "INTEGER")},
			rows: []query.Row{{int64(1)}, {int64(2)}, {int64(3)}},
		},
		{
			name: "numbers stored as text are not suggested as y",
			cols: []query.Column{col("name", "TEXT"), col("zip", "TEXT")},
			rows: []query.Row{{"a", "02134"}, {"b", "10001"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Suggest(tt.cols, tt.rows)
			if ok != (tt.want.Kind != "") {
				t.Fatalf("Suggest = %+v, %v; want ok %v", got, ok, tt.want.Kind != "")
			}
			if got != tt.want {
				t.Errorf("Suggest = %+v\nwant      %+v", got, tt.want)
			}
			if ok {
				if err := Validate(got, tt.cols, tt.rows); err != nil {
					t.Errorf("the suggested spec does not validate: %v", err)
				}
			}
		})
	}
}

func TestIDLike(t *testing.T) {
	for name, want := range map[string]bool{
		"id": true, "customer_id": true, "AlbumId": true, "TrackID": true, "ID": true,
		"revenue": false, "orders": false, "paid": false, "valid": false, "Id": true, "width": false,
	} {
		if got := IDLike(name); got != want {
			t.Errorf("IDLike(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestComplete checks the one policy every front door uses to fill in a
// partial spec: what is given is kept, the rest is chosen as Suggest would.
func TestComplete(t *testing.T) {
	col := func(name, typ string) query.Column { return query.Column{Name: name, Type: typ} }
	sales := []query.Column{col("region", "TEXT"), col("month", "TEXT"), col("orders", "INTEGER"), col("revenue", "REAL")}
	var rows []query.Row
	for i := range 12 {
		rows = append(rows, query.Row{[]string{"north", "south", "east"}[i%3], fmt.Sprintf("2024-%02d", i/3+1), int64(10 + i), float64(100 + 7*i)})
	}
	ids := []query.Column{col("customer_id", "INTEGER"), col("name", "TEXT")}
	idRows := []query.Row{{int64(1), "a"}, {int64(2), "b"}, {int64(3), "c"}}
	for _, tc := range []struct {
		name   string
		spec   answer.ChartSpec
		cols   []query.Column
		rows   []query.Row
		want   answer.ChartSpec
		filled bool
		errIn  string // a *SpecError whose message holds this
	}{
		{name: "complete spec is kept", spec: answer.ChartSpec{Kind: "pie", X: "region", Y: "orders"}, cols: sales, rows: rows,
			want: answer.ChartSpec{Kind: "pie", X: "region", Y: "orders"}},
		{name: "kind is normalised", spec: answer.ChartSpec{Kind: " HBar ", X: "region", Y: "orders"}, cols: sales, rows: rows,
			want: answer.ChartSpec{Kind: "hbar", X: "region", Y: "orders"}},
		{name: "nothing given: the suggestion", cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "line", X: "month", Y: "orders", Series: "region", Title: "Orders by month and region"}},
		{name: "nothing given keeps the title", spec: answer.ChartSpec{Title: "Mine"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "line", X: "month", Y: "orders", Series: "region", Title: "Mine"}},
		{name: "kind only: the suggestion's columns", spec: answer.ChartSpec{Kind: "bar"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "bar", X: "month", Y: "orders", Series: "region", Title: "Orders by month and region"}},
		{name: "kind only: a pie has no series", spec: answer.ChartSpec{Kind: "pie"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "pie", X: "month", Y: "orders", Title: "Orders by month"}},
		{name: "kind only keeps the given series and title", spec: answer.ChartSpec{Kind: "bar", Series: "region", Title: "Mine"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "bar", X: "month", Y: "orders", Series: "region", Title: "Mine"}},
		{name: "kind only: a pie drops a given series, keeps the title", spec: answer.ChartSpec{Kind: "pie", Series: "region", Title: "Mine"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "pie", X: "month", Y: "orders", Title: "Mine"}},
		{name: "kind and y: x that suits it", spec: answer.ChartSpec{Kind: "pie", Y: "revenue"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "pie", X: "region", Y: "revenue", Title: "Revenue by region"}},
		{name: "x only: kind from x, y the first measure", spec: answer.ChartSpec{X: "region"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "bar", X: "region", Y: "orders", Title: "Orders by region"}},
		{name: "x and y keep the given series and title", spec: answer.ChartSpec{X: "month", Y: "revenue", Series: "region", Title: "Mine"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "line", X: "month", Y: "revenue", Series: "region", Title: "Mine"}},
		{name: "x and y: kind from x", spec: answer.ChartSpec{X: "month", Y: "revenue"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "line", X: "month", Y: "revenue", Title: "Revenue by month"}},
		{name: "histogram needs no y", spec: answer.ChartSpec{Kind: "histogram"}, cols: sales, rows: rows, filled: true,
			want: answer.ChartSpec{Kind: "histogram", X: "orders", Title: "Distribution of orders"}},
		{name: "an unknown column is left for Validate", spec: answer.ChartSpec{X: "nope"}, cols: sales, rows: rows,
			want: answer.ChartSpec{X: "nope"}},
		{name: "identifiers are not measures", cols: ids, rows: idRows, errIn: "no chart suits this result on its own (3 rows; columns customer_id INTEGER, name TEXT)"},
		{name: "no measure for the kind", spec: answer.ChartSpec{Kind: "bar"}, cols: ids, rows: idRows, errIn: `a bar chart needs a numeric column for y, and the result has none besides "name"`},
		{name: "no rows", spec: answer.ChartSpec{Kind: "bar"}, cols: sales, errIn: "the result has no rows to chart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, filled, err := Complete(tc.spec, tc.cols, tc.rows)
			if tc.errIn != "" {
				var se *SpecError
				if !errors.As(err, &se) || !strings.Contains(se.Msg, tc.errIn) || se.Hint == "" {
					t.Fatalf("Complete = %+v, %v; want a *SpecError with %q and a hint", got, err, tc.errIn)
				}
				return
			}
			if err != nil || got != tc.want || filled != tc.filled {
				t.Fatalf("Complete = %+v, %v, %v\nwant       %+v, %v", got, filled, err, tc.want, tc.filled)
			}
			if filled {
				if err := Validate(got, tc.cols, tc.rows); err != nil {
					t.Errorf("the filled spec does not validate: %v", err)
				}
			}
		})
	}
}
