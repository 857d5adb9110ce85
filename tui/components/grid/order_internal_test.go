package grid

import (
	"context"
	"fmt"
	"testing"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/common"
)

// benchRows is 100,000 rows of an id, a price, a name and a sometimes-NULL
// note, in no particular order.
func benchRows() []query.Row {
	rows := make([]query.Row, 100_000)
	for i := range rows {
		k := (i * 7919) % len(rows)
		var note any
		if k%3 != 0 {
			note = fmt.Sprintf("note %d for Customer %d", k%977, k)
		}
		rows[i] = query.Row{int64(k), float64(k%10_000) / 7, fmt.Sprintf("Product %05d", k), note}
	}
	return rows
}

// BenchmarkOrder measures ordering the grid's 100,000 kept rows (the work a
// tea.Cmd does off the UI goroutine for results over syncRows rows):
//
//	go test ./tui/components/grid -run '^$' -bench Order -benchmem
func BenchmarkOrder(b *testing.B) {
	rows := benchRows()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		o    order
	}{
		{"sort_int", order{col: 0}},
		{"sort_float_desc", order{col: 1, desc: true}},
		{"sort_text", order{col: 2}},
		{"sort_nullable_text", order{col: 3}},
		{"filter_rare", order{col: -1, filter: "customer 4242"}},
		{"filter_common", order{col: -1, filter: "note 1"}},
		{"filter_and_sort", order{col: 1, filter: "note 1"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := computeView(ctx, rows, c.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppend measures streaming 100,000 rows into the grid, widths
// measured on every row.
func BenchmarkAppend(b *testing.B) {
	rows := benchRows()
	for b.Loop() {
		g := New(common.Default(), 0)
		g.Begin([]query.Column{{Name: "id"}, {Name: "price"}, {Name: "name"}, {Name: "note"}})
		for i := 0; i < len(rows); i += 4096 {
			g.Append(rows[i:min(i+4096, len(rows))])
		}
	}
}

// TestComputeViewCancelled: a cancelled order stops with the context's
// error.
func TestComputeViewCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := computeView(ctx, benchRows(), order{col: 2, filter: "product"}); err == nil {
		t.Error("a cancelled order finished")
	}
}

func TestIntWidth(t *testing.T) {
	for _, x := range []int64{0, 9, 10, -1, -10, 99999, 100000, 1<<63 - 1, -1 << 63} {
		if got, want := intWidth(x), len(fmt.Sprint(x)); got != want {
			t.Errorf("intWidth(%d) = %d, want %d", x, got, want)
		}
	}
}
