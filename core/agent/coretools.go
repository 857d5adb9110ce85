package agent

import (
	"context"
	"strings"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/tools"
)

// CoreTools returns the schema tools of core/tools over d: the same tools,
// with the same texts, that the MCP server offers.
func CoreTools(d *db.DB) SchemaTools { return coreTools{d} }

type coreTools struct{ d *db.DB }

var _ SchemaTools = coreTools{}

// listBytes bounds list_tables for the model: past it, the tables are
// summarised (tools.TableList.Summary) and search_schema finds the rest.
const listBytes = 2500

// searchBytes bounds search_schema for the model, and the cards retrieved
// for a question on a big schema.
const searchBytes = 2500

func (c coreTools) ListTables(ctx context.Context) (string, error) {
	return tools.SummarizeTables(ctx, c.d, listBytes)
}

func (c coreTools) DescribeTable(ctx context.Context, table string) (string, error) {
	t, err := tools.DescribeTable(ctx, c.d, table)
	if err != nil {
		return "", err
	}
	t.Bound("", 0)
	return t.Text(), nil
}

func (c coreTools) SearchSchema(ctx context.Context, q string) (string, error) {
	// The most detail that fits searchBytes: summaries of 8 tables, of 4,
	// else the names of 8.
	var text string
	for _, try := range []struct {
		detail string
		limit  int
	}{{tools.DetailSummary, 8}, {tools.DetailSummary, 4}, {tools.DetailNames, 8}} {
		r, err := tools.SearchSchema(ctx, c.d, q, try.detail, try.limit)
		if err != nil {
			return "", err
		}
		if text = r.Text(); len(text) <= searchBytes {
			break
		}
	}
	return format.ClipBytes(text, searchBytes), nil
}

func (c coreTools) SampleValues(ctx context.Context, table, column, like string) (string, error) {
	s, err := tools.SampleValues(ctx, c.d, table, column, like, 30)
	if err != nil {
		return "", err
	}
	return s.Text(), nil
}

func (c coreTools) SchemaText(ctx context.Context) (string, error) {
	cat, err := c.d.Catalog(ctx)
	if err != nil {
		return "", err
	}
	return tools.SchemaText(c.d.Dialect(), cat), nil
}

// cardsBytes bounds the cards retrieved for a question on a schema whose
// cards do not all fit in the system prompt.
const cardsBytes = 2200

// RetrieveCards is the schema cards of the tables a search for question
// ranks best, as many as fit cardsBytes, then the foreign-key neighbours
// of the top ones by name.
func (c coreTools) RetrieveCards(ctx context.Context, question string) (string, error) {
	r, err := tools.SearchSchema(ctx, c.d, question, tools.DetailFull, 8)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, h := range r.Hits {
		if b.Len()+len(h.Card)+1 > cardsBytes {
			if b.Len() == 0 {
				b.WriteString(format.ClipBytes(h.Card, cardsBytes) + "\n")
			}
			continue
		}
		b.WriteString(h.Card + "\n")
	}
	for _, n := range r.Neighbours {
		line := "joins to " + n.Table + ": " + n.Join + "\n"
		if b.Len()+len(line) > cardsBytes {
			break
		}
		b.WriteString(line)
	}
	return b.String(), nil
}
