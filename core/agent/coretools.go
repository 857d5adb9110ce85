package agent

import (
	"context"
	"errors"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/tools"
)

// CoreTools returns the schema tools of core/tools over d: the same tools,
// with the same texts, that the MCP server offers.
func CoreTools(d *db.DB) SchemaTools { return coreTools{d} }

type coreTools struct{ d *db.DB }

var _ SchemaTools = coreTools{}

// asToolError turns the errors a model can act on into *ToolError.
func asToolError(err error) error {
	var nf *tools.NotFoundError
	if errors.As(err, &nf) {
		msg := nf.Error()
		if h := nf.Hint(); h != "" {
			msg += " — " + h
		}
		return &ToolError{Msg: msg}
	}
	return err
}

func (c coreTools) ListTables(ctx context.Context) (string, error) {
	l, err := tools.ListTables(ctx, c.d)
	if err != nil {
		return "", err
	}
	return l.Text(), nil
}

func (c coreTools) DescribeTable(ctx context.Context, table string) (string, error) {
	t, err := tools.DescribeTable(ctx, c.d, table)
	if err != nil {
		return "", asToolError(err)
	}
	return t.Text(), nil
}

func (c coreTools) SearchSchema(ctx context.Context, q string) (string, error) {
	r, err := tools.SearchSchema(ctx, c.d, q, tools.DetailSummary, 8)
	if err != nil {
		return "", asToolError(err)
	}
	return r.Text(), nil
}

func (c coreTools) SampleValues(ctx context.Context, table, column, like string) (string, error) {
	s, err := tools.SampleValues(ctx, c.d, table, column, like, 30)
	if err != nil {
		return "", asToolError(err)
	}
	return s.Text(), nil
}

func (c coreTools) SchemaText(ctx context.Context) (string, error) {
	cat, err := c.d.Catalog(ctx)
	if err != nil {
		return "", err
	}
	return tools.SchemaText(cat), nil
}
