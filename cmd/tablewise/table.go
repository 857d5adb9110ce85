package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

type tableStyle struct {
	color bool
	width int // terminal width; columns shrink to fit
}

const (
	maxCellWidth = 48
	minCellWidth = 8
	// sizingRows rows are held to size the columns; the rows after them
	// are written as they come, cut to those widths.
	sizingRows = 200
	// maxCellBytes bounds the bytes of a value looked at: far more than
	// maxCellWidth cells need.
	maxCellBytes = 1024
	sgrBold      = "\x1b[1m"
	sgrDim       = "\x1b[2m"
	sgrReset     = "\x1b[0m"
)

// tableWriter is a query.Sink that writes an aligned table as the rows
// stream: numbers right-aligned, NULL shown distinctly, long cells cut with
// "…", control characters made visible (format.PrintableLine), and a
// row-count footer. It holds only the first sizingRows rows (to size the
// columns) and only the columns that can fit the width, so its time and
// memory per row do not grow with the result's width or length.
type tableWriter struct {
	out   *bufio.Writer
	st    tableStyle
	names []string // printable column names, for the columns kept
	total int      // columns in the result
	// kept columns are read at all: no more than can ever fit the width.
	kept   int
	widths []int
	right  []bool
	sample [][]tableCell // rows held until the columns are sized
	sized  bool
	rows   int
}

type tableCell struct {
	text    string // printable, one line
	null    bool
	numeric bool
}

func newTableWriter(w io.Writer, st tableStyle) *tableWriter {
	return &tableWriter{out: bufio.NewWriterSize(w, 64<<10), st: st}
}

func (t *tableWriter) Begin(cols []query.Column) error {
	t.total = len(cols)
	// A column takes at least minCellWidth cells and two of separation.
	t.kept = min(len(cols), max(1, (t.st.width+2)/(minCellWidth+2)))
	t.names = make([]string, t.kept)
	for i := range t.names {
		t.names[i] = clipCell(cols[i].Name)
	}
	return nil
}

func (t *tableWriter) Row(cur query.Cursor) error {
	row := make([]tableCell, t.kept)
	for i := range row {
		switch cur.Kind(i) {
		case query.Null:
			row[i] = tableCell{text: "NULL", null: true}
		case query.Integer:
			row[i] = tableCell{text: strconv.FormatInt(cur.Int64(i), 10), numeric: true}
		case query.Real:
			row[i] = tableCell{text: format.Float(cur.Float64(i)), numeric: true}
		case query.Text:
			row[i] = tableCell{text: textCell(cur.Bytes(i))}
		case query.Blob:
			row[i] = tableCell{text: format.Blob(cur.Bytes(i))}
		}
	}
	return t.add(row)
}

// addValues adds a row of values (nil, int64, float64, string, []byte).
func (t *tableWriter) addValues(vals []any) error {
	row := make([]tableCell, t.kept)
	for i := range row {
		switch x := vals[i].(type) {
		case nil:
			row[i] = tableCell{text: "NULL", null: true}
		case int64:
			row[i] = tableCell{text: strconv.FormatInt(x, 10), numeric: true}
		case float64:
			row[i] = tableCell{text: format.Float(x), numeric: true}
		case string:
			row[i] = tableCell{text: textCell(x)}
		case []byte:
			row[i] = tableCell{text: format.Blob(x)}
		default:
			row[i] = tableCell{text: clipCell(fmt.Sprint(x))}
		}
	}
	return t.add(row)
}

func (t *tableWriter) add(row []tableCell) error {
	t.rows++
	if !t.sized {
		t.sample = append(t.sample, row)
		if len(t.sample) < sizingRows {
			return nil
		}
		t.size() // writes the rows held, this one included
	} else {
		t.line(row, false)
	}
	if t.out.Buffered() >= 32<<10 {
		return t.out.Flush()
	}
	return nil
}

// size fixes the column widths and alignment from the header and the rows
// held, writes the header and the held rows.
func (t *tableWriter) size() {
	t.sized = true
	t.widths = make([]int, t.kept)
	t.right = make([]bool, t.kept)
	for i, n := range t.names {
		t.widths[i] = min(format.Width(n), maxCellWidth)
	}
	for _, row := range t.sample {
		for i, c := range row {
			t.widths[i] = max(t.widths[i], min(format.Width(c.text), maxCellWidth))
			t.right[i] = t.right[i] || c.numeric
		}
	}
	shown := fit(t.widths, t.st.width)
	t.widths, t.right, t.names = t.widths[:shown], t.right[:shown], t.names[:shown]
	names := make([]tableCell, shown)
	rule := make([]tableCell, shown)
	for i := range names {
		names[i] = tableCell{text: t.names[i]}
		rule[i] = tableCell{text: strings.Repeat("─", t.widths[i])}
	}
	t.line(names, true)
	t.line(rule, true)
	for _, row := range t.sample {
		t.line(row, false)
	}
	t.sample = nil
}

// line writes one row of cells, each cut or padded to its column.
func (t *tableWriter) line(cells []tableCell, header bool) {
	last := len(t.widths) - 1
	for i, w := range t.widths {
		if i > 0 {
			t.out.WriteString("  ")
		}
		c := cells[i]
		v := format.ClipWidth(c.text, w)
		pad := w - format.Width(v)
		right := t.right[i] && !header
		if right {
			writeSpaces(t.out, pad)
		}
		switch {
		case header && t.st.color:
			t.out.WriteString(sgrBold + v + sgrReset)
		case c.null && t.st.color:
			t.out.WriteString(sgrDim + v + sgrReset)
		default:
			t.out.WriteString(v)
		}
		if !right && i < last {
			writeSpaces(t.out, pad)
		}
	}
	t.out.WriteByte('\n')
}

// Finish writes the held rows if the result was short, then the footer,
// and flushes. With sum nil (the run failed) it writes nothing more.
func (t *tableWriter) Finish(sum *query.Summary) error {
	if sum == nil {
		return nil
	}
	if !t.sized {
		t.size()
	}
	var foot string
	switch {
	case t.rows < sum.RowCount && sum.Truncated:
		foot = fmt.Sprintf("(first %d of %d+ rows)", t.rows, sum.RowCount)
	case t.rows < sum.RowCount:
		foot = fmt.Sprintf("(first %d of %d rows)", t.rows, sum.RowCount)
	case sum.Truncated:
		foot = fmt.Sprintf("(first %s; more exist)", format.Plural(int64(sum.RowCount), "row"))
	default:
		foot = fmt.Sprintf("(%s)", format.Plural(int64(sum.RowCount), "row"))
	}
	if len(t.widths) < t.total {
		foot += fmt.Sprintf(" — %d of %d columns shown: --format csv or json has them all", len(t.widths), t.total)
	}
	if t.st.color {
		foot = sgrDim + foot + sgrReset
	}
	t.out.WriteString(foot + "\n")
	return t.out.Flush()
}

// renderTable writes a collected result as a table (see tableWriter).
func renderTable(w io.Writer, res *query.Result, st tableStyle) {
	t := newTableWriter(w, st)
	_ = t.Begin(res.Columns)
	for _, row := range res.Rows {
		_ = t.addValues(row)
	}
	_ = t.Finish(&query.Summary{RowCount: res.RowCount, Truncated: res.Truncated})
}

// fit shrinks the widest columns until the table fits total cells, none
// below minCellWidth, and returns how many columns are shown: the leading
// ones that fit when even the narrowest widths do not (at least one).
func fit(widths []int, total int) int {
	need := func(ws []int, limit int) int {
		s := 2 * (len(ws) - 1)
		for _, w := range ws {
			s += min(w, limit)
		}
		return s
	}
	shown := len(widths)
	for shown > 1 && need(widths[:shown], minCellWidth) > total {
		shown--
	}
	ws := widths[:shown]
	if need(ws, maxCellWidth) <= total {
		return shown
	}
	// The largest limit at which the columns fit; every column above it
	// is cut to it, and the room left goes one cell each to the rightmost
	// of them (as shaving the leftmost widest column a cell at a time
	// would leave them).
	limit := maxCellWidth
	for limit > minCellWidth && need(ws, limit) > total {
		limit--
	}
	room := total - need(ws, limit)
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i] > limit && room > 0 {
			ws[i] = limit + 1
			room--
			continue
		}
		ws[i] = min(ws[i], limit)
	}
	return shown
}

// clipCell makes s a printable line of at most maxCellWidth cells.
func clipCell(s string) string {
	return format.ClipWidth(format.PrintableLine(s), maxCellWidth)
}

// textCell is a text value as a cell: only its first maxCellBytes bytes
// are looked at.
func textCell[T string | []byte](v T) string {
	v = v[:min(len(v), maxCellBytes+utf8.UTFMax)] // converted below: bound it first
	return clipCell(format.ClipBytes(string(v), maxCellBytes))
}

const spaces = "                                                                "

func writeSpaces(w *bufio.Writer, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		w.WriteString(spaces[:k])
		n -= k
	}
}
