package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/bridge/mcp/mcptest"
)

type schemaInner struct {
	Names []string `json:"names"`
}

type schemaSample struct {
	Name   string         `json:"name"`
	Count  int64          `json:"count"`
	Score  float64        `json:"score"`
	OK     bool           `json:"ok"`
	Tags   []string       `json:"tags"`
	Inner  schemaInner    `json:"inner"`
	List   []schemaInner  `json:"list"`
	Ptr    *schemaInner   `json:"ptr,omitempty"`
	Rows   [][]any        `json:"rows"`
	Note   string         `json:"note,omitempty"`
	Extra  []int          `json:"extra,omitempty"`
	Values map[string]any `json:"values"`
	hidden []string
}

func TestCompactSchema(t *testing.T) {
	tool := mcpgo.NewTool("t", outputSchema[schemaSample]())
	assert.JSONEq(t, `{"type":"object","properties":{
		"name":{"type":"string"},"count":{"type":"integer"},"score":{"type":"number"},"ok":{"type":"boolean"},
		"tags":{"type":"array"},"inner":{"type":"object"},"list":{"type":"array"},"ptr":{"type":"object"},
		"rows":{"type":"array"},"note":{"type":"string"},"extra":{"type":"array"},"values":{"type":"object"}}}`,
		string(tool.RawOutputSchema))
}

func TestFillNilSlices(t *testing.T) {
	v := &schemaSample{List: []schemaInner{{}, {Names: []string{"a"}}}, Ptr: &schemaInner{}, Rows: [][]any{nil, {1}}}
	fillNilSlices(reflect.ValueOf(v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"","count":0,"score":0,"ok":false,"tags":[],"inner":{"names":[]},
		"list":[{"names":[]},{"names":["a"]}],"ptr":{"names":[]},"rows":[[],[1]],"values":null}`, string(b),
		"lists are empty, not null; omitempty lists stay out")
	assert.Nil(t, v.hidden, "unexported fields are left alone")
	fillNilSlices(reflect.ValueOf((*schemaSample)(nil))) // no panic
}

// A view has no primary key, foreign keys or indexes: its description
// holds empty lists, which its output schema accepts (the server validates
// every result against it).
func TestStructuredListsAreNeverNull(t *testing.T) {
	c := sampleClient(t)
	res := mcptest.Call(t, c, "describe_table", map[string]any{"table": "order_totals"})
	require.False(t, res.IsError, text(t, res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "view", m["kind"])
	for _, k := range []string{"primary_key", "foreign_keys", "referenced_by", "indexes"} {
		assert.Equal(t, []any{}, m[k], k)
	}
}
