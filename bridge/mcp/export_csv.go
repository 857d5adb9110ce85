package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/export"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/tools"
)

// Export caps: an MCP message is not a file transfer.
const (
	exportMaxRows  = 100_000
	exportMaxBytes = 5 << 20
	// exportMaxValueBytes bounds the values read, so that an engine never
	// reads a row far past the CSV cap into memory. engine.Caps counts 16
	// bytes a value besides its text, and a value takes at least 2 bytes
	// of CSV: the CSV cap always comes first.
	exportMaxValueBytes = 8 * exportMaxBytes
)

// exportTimeout bounds an export: longer than a query, it reads more rows.
const exportTimeout = 3 * tools.Timeout

// CSVExport is the structured content of export_csv; the CSV travels as an
// embedded text resource beside it.
type CSVExport struct {
	SQL      string `json:"sql"`
	URI      string `json:"uri"`
	RowCount int    `json:"row_count"`
	Bytes    int    `json:"bytes"`
	// Capped says the export stopped early; CappedBy is "rows" or "bytes".
	Capped   bool   `json:"capped"`
	CappedBy string `json:"capped_by,omitempty"`
}

// Text says what was exported and whether it was capped.
func (e *CSVExport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CSV of %s (%s) attached as %s\n", format.Plural(int64(e.RowCount), "row"), format.Bytes(int64(e.Bytes)), e.URI)
	if e.Capped {
		fmt.Fprintf(&b, "capped at the %s limit (%d rows, about %s): more rows exist; filter or aggregate in SQL, or export with the tablewise CLI (tablewise export)\n",
			e.CappedBy, exportMaxRows, format.Bytes(exportMaxBytes))
	}
	fmt.Fprintf(&b, "SQL: %s\n", e.SQL)
	return b.String()
}

var exportCSV = tool{
	name:    tools.NameExportCSV,
	timeout: exportTimeout + 5*time.Second,
	params: []mcpgo.ToolOption{
		mcpgo.WithString("sql", mcpgo.Required()),
		outputSchema[CSVExport](),
	},
	handle: func(ctx context.Context, _ *Server, d *db.DB, a args) (*mcpgo.CallToolResult, error) {
		sql := a.str("sql")
		var buf bytes.Buffer
		w, err := export.New("csv", &buf, export.Options{})
		if err != nil {
			return nil, err
		}
		sink := &cappedSink{Writer: w, buf: &buf}
		sum, err := query.Run(ctx, d, sql, query.Options{MaxRows: exportMaxRows, MaxBytes: exportMaxValueBytes, Timeout: exportTimeout}, sink)
		if err != nil && !errors.Is(err, errCapped) {
			return nil, err
		}
		if err := w.Finish(sum); err != nil {
			return nil, err
		}
		sum2 := sha256.Sum256([]byte(sql))
		out := &CSVExport{SQL: sql, URI: "tablewise://export/" + hex.EncodeToString(sum2[:6]) + ".csv", RowCount: sum.RowCount, Bytes: buf.Len()}
		switch {
		case sink.capped:
			out.Capped, out.CappedBy = true, "bytes"
		case sum.Truncated:
			out.Capped, out.CappedBy = true, sum.TruncatedBy
		}
		r := structured(out)
		r.Content = append(r.Content, mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: out.URI, MIMEType: "text/csv", Text: buf.String()}))
		return r, nil
	},
}

// errCapped stops an export at the byte cap.
var errCapped = errors.New("export capped")

// exportRowSlack is how far past exportMaxBytes the row that reaches the
// cap may take the CSV: a row longer than that is never written.
const exportRowSlack = 64 << 10

// cappedSink stops the run once the CSV passes exportMaxBytes, or before
// a row whose values alone would take it past exportMaxBytes +
// exportRowSlack (one row may hold values of many megabytes). The CSV
// writer buffers up to 64 KB, so the cap is approximate.
type cappedSink struct {
	export.Writer
	buf    *bytes.Buffer
	capped bool
}

func (c *cappedSink) Row(cur query.Cursor) error {
	if c.buf.Len() >= exportMaxBytes || c.buf.Len()+query.TextBytes(cur) > exportMaxBytes+exportRowSlack {
		c.capped = true
		return errCapped
	}
	return c.Writer.Row(cur)
}
