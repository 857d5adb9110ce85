package dotcmd

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		text string
		ok   bool
		name string
		args []string
		kind Kind
	}{
		{".tables", true, "tables", nil, Tables},
		{"  .TABLES cust%  ", true, "tables", []string{"cust%"}, Tables},
		{".schema customers orders;", true, "schema", []string{"customers", "orders"}, Schema},
		{`.schema "Order Details"`, true, "schema", []string{"Order Details"}, Schema},
		{".mode csv", true, "mode", []string{"csv"}, Output},
		{".headers on", true, "headers", []string{"on"}, Output},
		{".quit", true, "quit", nil, Quit},
		{".open other.db", true, "open", []string{"other.db"}, Open},
		{".dump", true, "dump", nil, Write},
		{".databases", true, "databases", nil, Other},
		{".frobnicate", true, "frobnicate", nil, Unknown},
		{"SELECT 1", false, "", nil, Unknown},
		{".5 + 1", false, "", nil, Unknown},
		{".tables\nSELECT 1", false, "", nil, Unknown},
		{"-- .tables\nSELECT 1", false, "", nil, Unknown},
		{".", false, "", nil, Unknown},
		// psql's spellings read as the dot-commands they mean.
		{`\dt`, true, "tables", nil, Tables},
		{`\d "Order Details"`, true, "schema", []string{"Order Details"}, Schema},
		{`\di orders`, true, "indexes", []string{"orders"}, Indexes},
		{`\q`, true, "quit", nil, Quit},
		{`\?`, true, "help", nil, Help},
		{`\copy t TO x`, true, `\copy`, []string{"t", "TO", "x"}, Unknown},
		{`\ `, false, "", nil, Unknown},
		{`\1`, false, "", nil, Unknown},
	} {
		got, ok := Parse(c.text)
		if ok != c.ok || got.Name != c.name || !slices.Equal(got.Args, c.args) || got.Kind != c.kind {
			t.Errorf("Parse(%q) = %+v, %v; want %s %q kind %d, %v", c.text, got, ok, c.name, c.args, c.kind, c.ok)
		}
	}
}
