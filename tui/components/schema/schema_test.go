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

// zoo is a catalog of the tables named, each with the columns id and
// name.
func zoo(names ...string) *catalog.Catalog {
	var tables []*catalog.Table
	for _, n := range names {
		tables = append(tables, &catalog.Table{Name: n, Kind: "table", Columns: []catalog.Column{{Name: "id"}, {Name: "name"}}})
	}
	return &catalog.Catalog{Tables: tables}
}

// A catalog read again after the schema changed keeps the user's place:
// the selected table on the same row of the view, the expanded table,
// the filter; a selection that is gone leaves the cursor where it was.
func TestSetCatalogKeepsPlace(t *testing.T) {
	dl := testdb.Sample(t).Dialect()
	m := schema.New(common.Default())
	m.SetSize(40, 6)
	m.Focus()
	m.SetCatalog(zoo("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"), dl, nil)
	for range 7 {
		m.Update(tuitest.Key("down"))
	}
	m.Update(tuitest.Key("space")) // t7 expanded
	m.Update(tuitest.Key("down"))  // on its column id
	row := func(name string) int {
		for i, l := range strings.Split(ansi.Strip(m.View()), "\n") {
			if strings.Contains(l, name) {
				return i
			}
		}
		return -1
	}
	before := row("├ id")
	if tb, col := m.Selected(); tb.Name != "t7" || col != "id" || before < 0 {
		t.Fatalf("selected %s.%s on row %d:\n%s", tb.Name, col, before, ansi.Strip(m.View()))
	}

	// Tables added above and below: t7.id stays selected on its row, t7
	// expanded.
	m.SetCatalog(zoo("a", "b", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "z"), dl, nil)
	if tb, col := m.Selected(); tb.Name != "t7" || col != "id" {
		t.Errorf("after tables were added, selected %s.%s", tb.Name, col)
	}
	if r := row("├ id"); r != before || row("▾ t7") != before-1 {
		t.Errorf("t7.id moved from row %d to %d:\n%s", before, r, ansi.Strip(m.View()))
	}

	// t7 dropped: the cursor stays on the line where it was.
	m.SetCatalog(zoo("a", "b", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t8", "z"), dl, nil)
	if tb, col := m.Selected(); tb.Name != "t8" || col != "" {
		t.Errorf("after t7 was dropped, selected %s.%s, want t8", tb.Name, col)
	}

	// The filter stays.
	m.Update(tuitest.Key("/"))
	m.Update(tuitest.Key("t"))
	m.Update(tuitest.Key("enter"))
	m.SetCatalog(zoo("a", "t0", "t9", "z"), dl, nil)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "/ t") || !strings.Contains(v, "t9") || strings.Contains(v, "▸ a") || strings.Contains(v, "▸ z") {
		t.Errorf("the filter after the catalog changed:\n%s", v)
	}
	// All of them dropped: nothing selected, nothing breaks.
	m.SetCatalog(zoo(), dl, nil)
	m.Update(tuitest.Key("down"))
	m.Update(tuitest.Key("enter"))
	if tb, _ := m.Selected(); tb != nil || !strings.Contains(ansi.Strip(m.View()), "no table or column matches") {
		t.Errorf("an empty catalog: selected %v:\n%s", tb, ansi.Strip(m.View()))
	}

	// A cursor on the first line stays there, as when the whole catalog,
	// sorted, replaces the names in the order they were created.
	m = schema.New(common.Default())
	m.SetSize(40, 6)
	m.SetCatalog(zoo("t8", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"), dl, nil)
	m.SetCatalog(zoo("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"), dl, nil)
	if tb, _ := m.Selected(); tb.Name != "t0" || row("t0") != 0 {
		t.Errorf("the first line's cursor went to %s:\n%s", tb.Name, ansi.Strip(m.View()))
	}
}
