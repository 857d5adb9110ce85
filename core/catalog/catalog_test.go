package catalog_test

import (
	"testing"

	"github.com/tablewise/tablewise/core/catalog"
)

func TestLookups(t *testing.T) {
	orders := &catalog.Table{Name: "Orders", Kind: "table", Columns: []catalog.Column{{Name: "id"}, {Name: "customer_id"}}}
	customers := &catalog.Table{Schema: "sales", Name: "customers", Kind: "table", Columns: []catalog.Column{{Name: "id"}}}
	orders.ForeignKeys = []catalog.ForeignKey{{Columns: []string{"customer_id"}, RefTable: "customers", RefColumns: []string{"id"}}}
	other := &catalog.Table{Schema: "archive", Name: "customers", Kind: "view"}
	cat := catalog.New([]*catalog.Table{orders, customers, other})

	if cat.Table("orders") != orders || cat.Table("ORDERS") != orders {
		t.Error("lookup is not case-insensitive")
	}
	if cat.Table("customers") != customers {
		t.Error("an unqualified name must find the first table of that name")
	}
	if cat.Table("archive.customers") != other || cat.Table("Sales.Customers") != customers {
		t.Error("a schema-qualified name must find its own table")
	}
	if cat.Table("missing") != nil {
		t.Error("a missing table must be nil")
	}
	if got := cat.ColumnNames("orders"); len(got) != 2 || got[1] != "customer_id" {
		t.Errorf("ColumnNames = %v", got)
	}
	refs := cat.ReferencedBy("Customers")
	if len(refs) != 1 || refs[0].Table != "Orders" || refs[0].Columns[0] != "customer_id" {
		t.Errorf("ReferencedBy = %+v", refs)
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{`"Order Details"`: "Order Details", `"a ""b"""`: `a "b"`, "`x`": "x", "[x y]": "x y", "plain": "plain", `"`: `"`} {
		if got := catalog.Unquote(in); got != want {
			t.Errorf("Unquote(%q) = %q, want %q", in, got, want)
		}
	}
}
