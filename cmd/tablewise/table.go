package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/query"
)

type tableStyle struct {
	color bool
	width int // terminal width; columns shrink to fit
}

const (
	maxCellWidth = 48
	sgrBold      = "\x1b[1m"
	sgrDim       = "\x1b[2m"
	sgrReset     = "\x1b[0m"
)

// renderTable writes an aligned table: numbers right-aligned, NULL shown
// distinctly, long cells cut with "…", and a row-count footer.
func renderTable(w io.Writer, res *query.Result, st tableStyle) {
	n := len(res.Columns)
	cells := make([][]string, len(res.Rows))
	widths := make([]int, n)
	right := make([]bool, n)
	for i, c := range res.Columns {
		widths[i] = ansi.StringWidth(c.Name)
	}
	for r, row := range res.Rows {
		cells[r] = make([]string, n)
		for i, v := range row {
			s := cellText(v)
			cells[r][i] = s
			widths[i] = max(widths[i], min(ansi.StringWidth(s), maxCellWidth))
			if _, num := v.(int64); num {
				right[i] = true
			} else if _, num := v.(float64); num {
				right[i] = true
			}
		}
	}
	fit(widths, st.width)
	var b strings.Builder
	line := func(vals []string, header bool, nulls []bool) {
		for i, v := range vals {
			if i > 0 {
				b.WriteString("  ")
			}
			v = ansi.Truncate(v, widths[i], "…")
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(v))
			if right[i] && !header {
				b.WriteString(pad)
			}
			switch {
			case header && st.color:
				b.WriteString(sgrBold + v + sgrReset)
			case nulls != nil && nulls[i] && st.color:
				b.WriteString(sgrDim + v + sgrReset)
			default:
				b.WriteString(v)
			}
			if !right[i] || header {
				if i < len(vals)-1 {
					b.WriteString(pad)
				}
			}
		}
		b.WriteString("\n")
	}
	names := make([]string, n)
	for i, c := range res.Columns {
		names[i] = c.Name
	}
	line(names, true, nil)
	rule := make([]string, n)
	for i := range rule {
		rule[i] = strings.Repeat("─", widths[i])
	}
	line(rule, true, nil)
	for r, row := range res.Rows {
		nulls := make([]bool, n)
		for i, v := range row {
			nulls[i] = v == nil
		}
		line(cells[r], false, nulls)
	}
	var foot string
	switch {
	case len(res.Rows) < res.RowCount && res.Truncated:
		foot = fmt.Sprintf("(first %d of %d+ rows)", len(res.Rows), res.RowCount)
	case len(res.Rows) < res.RowCount:
		foot = fmt.Sprintf("(first %d of %d rows)", len(res.Rows), res.RowCount)
	case res.Truncated:
		foot = fmt.Sprintf("(first %s; more exist)", plural(res.RowCount, "row"))
	default:
		foot = fmt.Sprintf("(%s)", plural(res.RowCount, "row"))
	}
	if st.color {
		foot = sgrDim + foot + sgrReset
	}
	b.WriteString(foot + "\n")
	io.WriteString(w, b.String())
}

// fit shrinks the widest columns until the table fits the terminal.
func fit(widths []int, total int) {
	sum := func() int {
		s := 2 * (len(widths) - 1)
		for _, w := range widths {
			s += w
		}
		return s
	}
	for sum() > total {
		wi := 0
		for i, w := range widths {
			if w > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 8 {
			return
		}
		widths[wi]--
	}
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return string(export.AppendFloat(nil, x))
	case string:
		return strings.NewReplacer("\n", "↵", "\r", "", "\t", " ").Replace(x)
	case []byte:
		if len(x) > 16 {
			return fmt.Sprintf("<blob %d bytes>", len(x))
		}
		return fmt.Sprintf("0x%x", x)
	}
	return fmt.Sprint(v)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
