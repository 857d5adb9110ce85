package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/charts"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
)

type chartOptions struct {
	dbPath        string
	sql           string
	spec          answer.ChartSpec
	out           string
	width, height int
	timeout       time.Duration
}

func runChart(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("chart")
	var o chartOptions
	fs.StringVar(&o.dbPath, "db", "", "SQLite database file or file: URI (default: the built-in sample)")
	fs.StringVar(&o.sql, "sql", "", "the query to chart (\"-\" reads stdin)")
	fs.StringVar(&o.spec.Kind, "kind", "", "chart kind: "+strings.Join(answer.Kinds, ", ")+" (default: suggested from the result)")
	fs.StringVar(&o.spec.X, "x", "", "column for the x axis or categories")
	fs.StringVar(&o.spec.Y, "y", "", "numeric column for the values")
	fs.StringVar(&o.spec.Series, "series", "", "column that splits the data into series")
	fs.StringVar(&o.spec.Title, "title", "", "chart title (default: derived from the columns)")
	fs.StringVar(&o.out, "out", "", "PNG file to write, or - for stdout")
	fs.IntVar(&o.width, "width", charts.DefaultWidth, "image width in pixels")
	fs.IntVar(&o.height, "height", charts.DefaultHeight, "image height in pixels")
	fs.DurationVar(&o.timeout, "timeout", query.DefaultTimeout, "deadline for the query and for drawing")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if o.sql, err = sqlText(o.sql, pos, s); err != nil {
		return err
	}
	if o.sql == "" || o.out == "" {
		return usagef("chart: give --sql and --out\n\n%s", flagHelp(fs))
	}
	if o.out == "-" && s.outTTY {
		return usagef("chart: refusing to write PNG bytes to a terminal; give --out FILE.png")
	}
	return chartCmd(ctx, o, s)
}

func chartCmd(ctx context.Context, o chartOptions, s *streams) error {
	d, err := openDB(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.CheckOutput(o.out); err != nil {
		return usagef("%v", err)
	}
	res, err := query.Collect(ctx, d, o.sql, query.Options{MaxRows: charts.MaxRows, MaxBytes: 256 << 20, Timeout: o.timeout})
	if err != nil {
		return err
	}
	spec := o.spec
	if spec.Kind == "" && spec.X == "" && spec.Y == "" {
		sug, ok := charts.Suggest(res.Columns, res.Rows)
		if !ok {
			return usagef("chart: no chart suits this result (%s); pick one with --kind, --x and --y", describeColumns(res.Columns))
		}
		sug.Title = firstNonEmpty(spec.Title, sug.Title)
		sug.Series = firstNonEmpty(spec.Series, sug.Series)
		spec = sug
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	png, err := charts.PNG(ctx, spec, res, charts.Options{Width: o.width, Height: o.height})
	if err != nil {
		var se *charts.SpecError
		if errors.As(err, &se) {
			return usagef("chart: %v", err)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return &query.LimitError{Kind: "deadline", Msg: "drawing the chart took longer than the deadline", Hint: "chart fewer rows, or allow more time (--timeout)"}
		}
		return fmt.Errorf("chart: %w", err)
	}
	if res.Truncated {
		fmt.Fprintf(s.err, "note: the result was cut at %d rows; the chart shows those\n", res.RowCount)
	}
	if o.out == "-" {
		_, err := s.out.Write(png)
		return err
	}
	if err := writeFileAtomic(o.out, png); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	series := ""
	if spec.Series != "" {
		series = " per " + spec.Series
	}
	fmt.Fprintf(s.err, "wrote %s: %s chart of %s by %s%s (%dx%d)\n", o.out, spec.Kind, firstNonEmpty(spec.Y, "count"), spec.X, series, o.width, o.height)
	return nil
}

func describeColumns(cols []query.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + firstNonEmpty(c.Type, "?")
	}
	return "columns: " + strings.Join(parts, ", ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
