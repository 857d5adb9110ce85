package schema_test

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/tui/common"
	"github.com/tablewise/tablewise/tui/components/schema"
	"github.com/tablewise/tablewise/tui/keymap"
	"github.com/tablewise/tablewise/tui/styles"
)

func key(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
}

func TestTree(t *testing.T) {
	km := keymap.Default()
	m := schema.New(common.Common{Styles: styles.Default(), Keys: &km})
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
	m.Update(key("space"))
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "├ id PK integer") || !strings.Contains(v, "└ country_id FK→countries integer") {
		t.Errorf("expanded tree:\n%s", v)
	}
	// Enter on a table previews it; on a column inserts its name.
	if msg := m.Update(key("enter"))(); msg != (schema.PreviewMsg{Table: "customers"}) {
		t.Errorf("enter on a table gave %#v", msg)
	}
	m.Update(key("down"))
	if msg := m.Update(key("enter"))(); msg != (schema.InsertMsg{Text: "id"}) {
		t.Errorf("enter on a column gave %#v", msg)
	}

	// The filter matches table and column names; esc clears it.
	m.Update(key("/"))
	for _, r := range "name" {
		m.Update(key(string(r)))
	}
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "/ name") || !strings.Contains(v, "countries") || strings.Contains(v, "customers") || !strings.Contains(v, "└ name") {
		t.Errorf("filtered tree:\n%s", v)
	}
	m.Update(key("esc"))
	if v = ansi.Strip(m.View()); !strings.Contains(v, "customers") || strings.Contains(v, "/ ") {
		t.Errorf("esc did not clear the filter:\n%s", v)
	}
	for i, l := range strings.Split(m.View(), "\n") {
		if w := ansi.StringWidth(l); w != 40 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
}
