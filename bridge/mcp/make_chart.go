package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/charts"
	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/chartspec"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

// Chart limits: rows read for one chart, and the picture's size.
const (
	chartMaxRows  = 100_000
	chartMaxBytes = 64 << 20
	chartWidth    = 1200
	chartHeight   = 800
)

// ChartResult is the structured content of make_chart; the PNG travels as
// image content beside it.
type ChartResult struct {
	SQL  string           `json:"sql"`
	Spec answer.ChartSpec `json:"spec"`
	// Suggested says tablewise chose (part of) the spec from the result's
	// shape.
	Suggested bool `json:"suggested"`
	RowCount  int  `json:"row_count"`
	// Truncated means the chart shows only the first rows of the result.
	Truncated bool   `json:"truncated"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	MIMEType  string `json:"mime_type"`
	Bytes     int    `json:"bytes"`
}

// Text says what was drawn.
func (c *ChartResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s chart of %s", c.Spec.Kind, c.Spec.X)
	if c.Spec.Y != "" {
		fmt.Fprintf(&b, " against %s", c.Spec.Y)
	}
	if c.Spec.Series != "" {
		fmt.Fprintf(&b, " by %s", c.Spec.Series)
	}
	fmt.Fprintf(&b, " from %d rows", c.RowCount)
	if c.Spec.Title != "" {
		fmt.Fprintf(&b, ", titled %q", c.Spec.Title)
	}
	fmt.Fprintf(&b, " (%dx%d PNG", c.Width, c.Height)
	if c.Suggested {
		b.WriteString("; tablewise chose the chart from the result's shape")
	}
	b.WriteString(")\n")
	if c.Truncated {
		fmt.Fprintf(&b, "only the first %d rows are drawn; aggregate in SQL to chart them all\n", c.RowCount)
	}
	fmt.Fprintf(&b, "SQL: %s\n", c.SQL)
	return b.String()
}

var makeChart = tool{
	name: tools.NameMakeChart,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("sql", mcpgo.Required()),
		mcpgo.WithString("kind", mcpgo.Enum(answer.Kinds...)),
		mcpgo.WithString("x", mcpgo.Description("column (histogram: the values)")),
		mcpgo.WithString("y", mcpgo.Description("numeric column")),
		mcpgo.WithString("series", mcpgo.Description("column to group by")),
		mcpgo.WithString("title", mcpgo.MaxLength(200)),
		outputSchema[ChartResult](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		sql := a.str("sql")
		res, err := query.Collect(ctx, d, sql, query.Options{MaxRows: chartMaxRows, MaxBytes: chartMaxBytes, Timeout: tools.Timeout})
		if err != nil {
			return nil, err
		}
		spec := answer.ChartSpec{Kind: strings.ToLower(a.str("kind")), X: a.str("x"), Y: a.str("y"), Series: a.str("series"), Title: a.str("title")}
		spec, suggested, err := chartspec.Complete(spec, res.Columns, res.Rows)
		if err != nil {
			return nil, err
		}
		if err := chartspec.Validate(spec, res.Columns, res.Rows); err != nil {
			return nil, err
		}
		png, err := charts.PNG(ctx, spec, res, charts.Options{Width: chartWidth, Height: chartHeight})
		if err != nil {
			return nil, err
		}
		out := &ChartResult{
			SQL: res.SQL, Spec: spec, Suggested: suggested, RowCount: res.RowCount, Truncated: res.Truncated,
			Width: chartWidth, Height: chartHeight, MIMEType: "image/png", Bytes: len(png),
		}
		r := structured(out)
		r.Content = append(r.Content, mcpgo.NewImageContent(base64.StdEncoding.EncodeToString(png), "image/png"))
		return r, nil
	},
}
