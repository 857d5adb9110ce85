// Command csvgen writes a CSV file of orders of about the size asked, for
// measuring how fast tablewise loads CSV (data/testdata/csv-load.sh).
// Every column type tablewise infers appears: integers, reals, ISO dates
// and datetimes, booleans, text with quotes, commas and non-ASCII letters,
// and empty fields.
//
// Usage: go run ./data/testdata/csvgen -size 1GB > /tmp/orders.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	size := flag.String("size", "100MB", "approximate size: a number with KB, MB or GB")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csvgen:", err)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	written := int64(0)
	header := "order_id,ordered_at,day,customer,city,amount,quantity,paid,note\n"
	w.WriteString(header)
	written += int64(len(header))
	cities := []string{"Lisbon", "Zürich", "São Paulo", "Kraków", "Montréal", "Osaka", "Reykjavík", "Austin"}
	names := []string{"Ana Silva", "Jürgen Maier", "Chloé Martin", "Øyvind Berg", "Li Wei", "Sam O'Neil", "Zoë Brown", "Ravi Kumar"}
	notes := []string{"", "gift wrap", `said "thanks", twice`, "deliver after 5pm", "", "fragile; glass", "call first", ""}
	x := uint64(88172645463325252)
	next := func() uint64 { // xorshift64
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	buf := make([]byte, 0, 256)
	for id := 1; written < n; id++ {
		r := next()
		day := r % 1096
		y, m, d := 2022+day/365, 1+(day%365)/31%12, 1+day%28
		buf = buf[:0]
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = fmt.Appendf(buf, ",%04d-%02d-%02dT%02d:%02d:%02d,%04d-%02d-%02d,", y, m, d, r>>8%24, r>>16%60, r>>24%60, y, m, d)
		buf = append(buf, names[r>>32%8]...)
		buf = append(buf, ',')
		buf = append(buf, cities[r>>35%8]...)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, float64(r>>40%100000)/100, 'f', 2, 64)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(1+r>>20%9), 10)
		buf = append(buf, ',')
		buf = strconv.AppendBool(buf, r>>50%3 != 0)
		buf = append(buf, ',')
		note := notes[r>>53%8]
		if strings.ContainsAny(note, "\",;") {
			note = `"` + strings.ReplaceAll(note, `"`, `""`) + `"`
		}
		buf = append(buf, note...)
		buf = append(buf, '\n')
		w.Write(buf)
		written += int64(len(buf))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "csvgen:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(s)
	for _, unit := range []struct {
		suffix string
		m      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if strings.HasSuffix(u, unit.suffix) {
			mult, u = unit.m, strings.TrimSuffix(u, unit.suffix)
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(u), 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q: give a number with KB, MB or GB, such as 1GB", s)
	}
	return int64(n * float64(mult)), nil
}
