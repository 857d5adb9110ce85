package files_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/files"
)

// BenchmarkLoadCSV loads a 64 MiB CSV of orders (the columns of
// data/testdata/csvgen) into memory; MB/s is the load's speed. For the 1 GB
// figure run data/testdata/csv-load.sh.
func BenchmarkLoadCSV(b *testing.B) {
	p := filepath.Join(b.TempDir(), "orders.csv")
	size := writeOrders(b, p, 64<<20)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		e, err := files.Open(context.Background(), p, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

// writeOrders writes a CSV of orders of about size bytes to p and returns
// its size.
func writeOrders(tb testing.TB, p string, size int) int64 {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	written, _ := w.WriteString("order_id,ordered_at,day,customer,city,amount,quantity,paid,note\n")
	cities := []string{"Lisbon", "Zürich", "São Paulo", "Kraków", "Osaka"}
	notes := []string{"", "gift wrap", `"said ""thanks"", twice"`, "call first"}
	two := func(buf []byte, n int) []byte { return append(buf, byte('0'+n/10), byte('0'+n%10)) }
	buf := make([]byte, 0, 256)
	for i := 0; written < size; i++ {
		d := i % 1000
		date := func(buf []byte) []byte {
			buf = strconv.AppendInt(buf, int64(2022+d/365), 10)
			buf = two(append(buf, '-'), 1+d%12)
			return two(append(buf, '-'), 1+d%28)
		}
		buf = strconv.AppendInt(buf[:0], int64(i), 10)
		buf = date(append(buf, ','))
		buf = two(append(buf, 'T'), i%24)
		buf = append(two(append(buf, ':'), i%60), ":00"...)
		buf = date(append(buf, ','))
		buf = strconv.AppendInt(append(buf, ",Customer "...), int64(i%997), 10)
		buf = append(append(buf, ','), cities[i%5]...)
		buf = strconv.AppendInt(append(buf, ','), int64(i%1000), 10)
		buf = two(append(buf, '.'), i%100)
		buf = strconv.AppendInt(append(buf, ','), int64(1+i%9), 10)
		buf = strconv.AppendBool(append(buf, ','), i%3 != 0)
		buf = append(append(buf, ','), notes[i%4]...)
		buf = append(buf, '\n')
		n, _ := w.Write(buf)
		written += n
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return int64(written)
}
