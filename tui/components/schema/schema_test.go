package schema_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/schema"
	"github.com/tablewise/tablewise/tui/internal/tuitest"
)

func TestTree(t *testing.T) {
	m := schema.New(common.Default())
	m.SetSize(40, 12)
	m.Focus()
	cat := &catalog.Catalog{Tables: []*catalog.Table{
		{Name: "customers", Kind: "table", RowCount: 2400, Columns: []catalog.Column{{Name: "id", Type: "INTEGER", PK: 1}, {Name: "country_id", Type: "INTEGER"}}, ForeignKeys: []catalog.ForeignKey{{Columns: []string{"country_id"}, RefTable: "countries"}}},
		{Name: "countries", Kind: "table", RowCount: 1_234_567, RowCountEstimated: true, Columns: []catalog.Column{{Name: "country_id", Type: "INTEGER", PK: 1}, {Name: "name", Type: "TEXT"}}},
		{Name: "slow view", Kind: "view", RowCount: -1, Columns: []catalog.Column{{Name: "x"}}},
	}}
	m.SetCatalog(cat, testdb.Sample(t).Dialect(), nil)
	v := ansi.Strip(m.View())
	for _, want := range []string{"▸ customers", "2,400", "~1,234,567", "▹ slow view", "?"} {
		if !strings.Contains(v, want) {
			t.Errorf("tree lacks %q:\n%s", want, v)
		}
	}
	if m.Summary(40) != "2 tables · 1 view" || m.Summary(9) != "2 tables" {
		t.Errorf("summary %q / %q", m.Summary(40), m.Summary(9))
	}

	// Expand: columns with types and key markers.
	m.Update(tuitest.Key("space"))
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "├ id PK integer") || !strings.Contains(v, "└ country_id FK→countries integer") {
		t.Errorf("expanded tree:\n%s", v)
	}
	// Enter on a table previews it; on a column inserts its name.
	if msg := m.Update(tuitest.Key("enter"))(); msg != (schema.PreviewMsg{Table: "customers"}) {
		t.Errorf("enter on a table gave %#v", msg)
	}
	m.Update(tuitest.Key("down"))
	if msg := m.Update(tuitest.Key("enter"))(); msg != (schema.InsertMsg{Text: "id"}) {
		t.Errorf("enter on a column gave %#v", msg)
	}

	// The filter matches table and column names; esc clears it.
	m.Update(tuitest.Key("/"))
	for _, r := range "name" {
		m.Update(tuitest.Key(string(r)))
	}
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "/ name") || !strings.Contains(v, "countries") || strings.Contains(v, "customers") || !strings.Contains(v, "└ name") {
		t.Errorf("filtered tree:\n%s", v)
	}
	m.Update(tuitest.Key("esc"))
	if v = ansi.Strip(m.View()); !strings.Contains(v, "customers") || strings.Contains(v, "/ ") {
		t.Errorf("esc did not clear the filter:\n%s", v)
	}
	for i, l := range strings.Split(m.View(), "\n") {
		if w := ansi.StringWidth(l); w != 40 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
}
