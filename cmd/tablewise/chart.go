package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/charts"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
)

type chartOptions struct {
	dbPath        string
	sql           string
	spec          answer.ChartSpec
	out           string
	width, height int
	timeout       time.Duration
	other         bool
}

func runChart(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("chart")
	var o chartOptions
	dbFlag(fs, &o.dbPath)
	fs.StringVar(&o.sql, "sql", "", "the query to chart (\"-\" reads stdin)")
	fs.StringVar(&o.spec.Kind, "kind", "", "chart kind: "+strings.Join(answer.Kinds, ", ")+" (default: suggested from the result)")
	fs.StringVar(&o.spec.X, "x", "", "column for the x axis or categories")
	fs.StringVar(&o.spec.Y, "y", "", "numeric column for the values")
	fs.StringVar(&o.spec.Series, "series", "", "column that splits the data into series")
	fs.StringVar(&o.spec.Title, "title", "", "chart title (default: derived from the columns)")
	fs.StringVar(&o.out, "out", "", "image to write: .png, or .jpg/.jpeg for JPEG; - writes PNG to stdout")
	fs.BoolVar(&o.other, "other", false, "add up the categories beyond the 25 largest bars in an \"other\" bar (default: leave them out, and say how many)")
	fs.IntVar(&o.width, "width", charts.DefaultWidth, "image width in pixels")
	fs.IntVar(&o.height, "height", charts.DefaultHeight, "image height in pixels")
	fs.DurationVar(&o.timeout, "timeout", query.DefaultTimeout, "deadline for opening the database and the query, and again for drawing")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := sqlAndOut(fs, &o.sql, pos, o.out, s); err != nil {
		return err
	}
	for _, side := range []struct {
		flag string
		v    int
	}{{"--width", o.width}, {"--height", o.height}} {
		if side.v < charts.MinPixels || side.v > charts.MaxPixels {
			return usagef("chart: %s %d: give a size between %d and %d pixels (default %dx%d)", side.flag, side.v, charts.MinPixels, charts.MaxPixels, charts.DefaultWidth, charts.DefaultHeight)
		}
	}
	if o.timeout <= 0 {
		return usagef("chart: --timeout %s: give a deadline of more than 0, such as 30s (the query and the drawing run under it)", o.timeout)
	}
	if o.out == "-" && s.outTTY {
		return usagef("chart: refusing to write PNG bytes to a terminal; give --out FILE.png")
	}
	if err := checkOut("chart", o.out); err != nil {
		return err
	}
	return chartCmd(ctx, o, s)
}

func chartCmd(ctx context.Context, o chartOptions, s *streams) error {
	d, q, err := s.openWithin(ctx, o.dbPath, o.timeout)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.CheckOutput(o.out); err != nil {
		return err
	}
	if o.out != "-" && charts.FormatFor(o.out) == "" {
		return usagef("chart: --out %s: charts are written as PNG or JPEG; name the file .png, .jpg or .jpeg", o.out)
	}
	q.MaxRows, q.MaxBytes = chartspec.MaxRows, 256<<20
	res, err := query.Collect(ctx, d, o.sql, q)
	if err != nil {
		return overdue(ctx, err, o.timeout)
	}
	spec, _, err := chartspec.Complete(o.spec, res.Columns, res.Rows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	imgFormat := charts.FormatPNG
	if o.out != "-" {
		imgFormat = charts.FormatFor(o.out)
	}
	img, err := charts.PNG(ctx, spec, res, charts.Options{Width: o.width, Height: o.height, Other: o.other, Format: imgFormat})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return &query.LimitError{Kind: "deadline", Msg: "drawing the chart took longer than the deadline", Hint: "chart fewer rows, or allow more time (--timeout)"}
		}
		return fmt.Errorf("chart: %w", err)
	}
	if res.Truncated {
		fmt.Fprintf(s.err, "note: the result was cut at %d rows; the chart shows those\n", res.RowCount)
	}
	if o.out == "-" {
		_, err := s.out.Write(img)
		return err
	}
	if err := atomicfile.WriteFileContext(ctx, o.out, img, 0o644); err != nil {
		return outError("chart", o.out, fmt.Errorf("chart: %w", err))
	}
	series := ""
	if spec.Series != "" {
		series = " per " + spec.Series
	}
	fmt.Fprintln(s.err, format.PrintableLine(fmt.Sprintf("wrote %s: %s chart of %s by %s%s (%dx%d)", o.out, spec.Kind, cmp.Or(spec.Y, "count"), spec.X, series, o.width, o.height)))
	return nil
}
