package mysql_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestCatalogChinook: tables with their mixed-case names, columns and
// declared types, primary keys (composite too), foreign keys, indexes and
// exact row counts for small tables.
func TestCatalogChinook(t *testing.T) {
	f := chinook(t)
	f.exec(t, "ALTER TABLE `Genre` COMMENT = 'kinds of music'")
	f.exec(t, "ALTER TABLE `Genre` MODIFY `Name` VARCHAR(120) COMMENT 'as the store shows it'")
	f.exec(t, "CREATE VIEW `Long Tracks` AS SELECT TrackId, Name FROM Track WHERE Milliseconds > 600000")
	cat, err := f.eng.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tables) != 12 {
		t.Errorf("%d tables and views: %v", len(cat.Tables), cat.TableNames())
	}
	pt := cat.Table("PlaylistTrack")
	if pt == nil || pt.Name != "PlaylistTrack" || pt.Kind != "table" {
		t.Fatalf("PlaylistTrack: %+v", pt)
	}
	if !reflect.DeepEqual(pt.PrimaryKey, []string{"PlaylistId", "TrackId"}) || pt.Columns[0].PK != 1 || pt.Columns[1].PK != 2 {
		t.Errorf("composite key: %v, columns %+v", pt.PrimaryKey, pt.Columns)
	}
	if len(pt.ForeignKeys) != 2 {
		t.Errorf("PlaylistTrack foreign keys: %+v", pt.ForeignKeys)
	}
	track := cat.Table("track")
	if track.RowCount != 3503 || track.RowCountEstimated {
		t.Errorf("Track rows %d (estimated %v), want 3503 exactly", track.RowCount, track.RowCountEstimated)
	}
	want := map[string]string{"TrackId": "INT(11)", "Name": "VARCHAR(200)", "UnitPrice": "DECIMAL(10,2)"}
	for _, c := range track.Columns {
		if w, ok := want[c.Name]; ok && c.Type != w {
			t.Errorf("Track.%s type %q, want %q", c.Name, c.Type, w)
		}
	}
	var albumFK *catalog.ForeignKey
	for i, fk := range track.ForeignKeys {
		if fk.RefTable == "Album" {
			albumFK = &track.ForeignKeys[i]
		}
	}
	if albumFK == nil || !reflect.DeepEqual(albumFK.Columns, []string{"AlbumId"}) || !reflect.DeepEqual(albumFK.RefColumns, []string{"AlbumId"}) {
		t.Errorf("Track → Album: %+v", track.ForeignKeys)
	}
	if len(track.Indexes) == 0 || track.Indexes[0].Name != "PRIMARY" || track.Indexes[0].Origin != "pk" || !track.Indexes[0].Unique {
		t.Errorf("Track indexes: %+v", track.Indexes)
	}
	if len(track.Sample) != catalog.SampleRows || track.Sample[0][0] != int64(1) {
		t.Errorf("Track sample: %v", track.Sample)
	}
	genre := cat.Table("Genre")
	if genre.Comment != "kinds of music" || genre.Columns[1].Comment != "as the store shows it" {
		t.Errorf("comments: table %q, column %+v", genre.Comment, genre.Columns[1])
	}
	view := cat.Table("Long Tracks")
	if view == nil || view.Kind != "view" || len(view.Columns) != 2 || view.RowCountEstimated || view.RowCount == 0 || view.SQL == "" {
		t.Errorf("view: %+v", view)
	}
	names, err := f.eng.Names(context.Background())
	if err != nil || names.Table("InvoiceLine") == nil || len(names.ColumnNames("InvoiceLine")) != 5 {
		t.Errorf("names: %v %v", names, err)
	}
}

// TestCatalogSample: the built-in sample's views, comments and
// references keep their names on MariaDB ("promo codes" has a space).
func TestCatalogSample(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the sample (-short)")
	}
	f := open(t, servers.MySQLSample(t))
	cat, err := f.eng.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	views := 0
	for _, tb := range cat.Tables {
		if tb.Kind == "view" {
			views++
		}
	}
	if len(cat.Tables) != 16 || views != 2 {
		t.Errorf("%d tables and views (%d views), want 16 and 2: %v", len(cat.Tables), views, cat.TableNames())
	}
	orders := cat.Table("orders")
	found := false
	for _, fk := range orders.ForeignKeys {
		found = found || fk.RefTable == "promo codes"
	}
	if !found {
		t.Errorf("orders → promo codes: %+v", orders.ForeignKeys)
	}
	commented := 0
	for _, c := range cat.Table("countries").Columns {
		if c.Comment != "" {
			commented++
		}
	}
	if commented == 0 {
		t.Error("countries has no column comments")
	}
	if cat.Table("customers").RowCount != 2400 {
		t.Errorf("customers: %d rows", cat.Table("customers").RowCount)
	}
}
