package tools

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/testdb"
)

var update = flag.Bool("update", false, "rewrite golden files")

// openSample is the built-in sample database, shared by the package's tests.
func openSample(t *testing.T) *db.DB { return testdb.Sample(t) }

func openFixture(t *testing.T) *db.DB { return testdb.Open(t, testdb.Fixture(t)) }

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	assert.Equal(t, string(want), got, "golden %s differs; run go test -update and review the diff", path)
}

func TestNotFoundError(t *testing.T) {
	e := &NotFoundError{Kind: "table", Name: "custmers", Nearest: []string{"customers"}}
	assert.Equal(t, "no such table: custmers — did you mean customers? (list_tables shows every table)", e.Error())
	assert.True(t, errors.Is(e, ErrNotFound))
	c := &NotFoundError{Kind: "column", Name: "x", Table: "t"}
	assert.Equal(t, "no such column: x in table t — describe_table shows its columns", c.Error())
}

func TestRowsJSON(t *testing.T) {
	rows := Rows{{nil, int64(3), 2.5, "a\"b", []byte{0, 0xff, 0x10}}}
	b, err := json.Marshal(rows)
	require.NoError(t, err)
	assert.Equal(t, `[[null,3,2.5,"a\"b","AP8Q"]]`, string(b))
	b, err = json.Marshal(Rows(nil))
	require.NoError(t, err)
	assert.Equal(t, `[]`, string(b))
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, "NULL"},
		{int64(-7), "-7"},
		{3.0, "3.0"},
		{"a|b\nc", `a\|b\nc`},
		{[]byte{0, 0xff}, "x'00ff'"},
		{make([]byte, 20), "x'00000000000000000000000000000000…' (20 bytes)"},
		{strings.Repeat("é", 130), strings.Repeat("é", 119) + "…"}, // 120 runes, the ellipsis included
	} {
		assert.Equal(t, tc.want, formatValue(tc.in))
	}
}

func TestLookupTolerance(t *testing.T) {
	d := openFixture(t)
	ctx := context.Background()
	for _, name := range []string{"Order Details", "order details", `"Order Details"`, "[Order Details]", " order details "} {
		td, err := DescribeTable(ctx, d, name)
		require.NoError(t, err, name)
		assert.Equal(t, "Order Details", td.Name)
	}
	_, err := DescribeTable(ctx, d, "ordr")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, "table", nf.Kind)
	assert.Contains(t, nf.Nearest, "order")
	assert.Contains(t, err.Error(), "did you mean")
	assert.False(t, errors.Is(err, guard.ErrRefused))
}
