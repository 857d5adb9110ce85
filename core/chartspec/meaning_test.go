package chartspec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestSuggestNoMeaninglessChart: a listing of rows (every order, or row
// numbers beside labels) gets no chart rather than one of keys against
// dates or of a row number against its label.
func TestSuggestNoMeaninglessChart(t *testing.T) {
	d := testdb.Sample(t)
	for _, sql := range []string{
		"SELECT * FROM orders",
		"SELECT * FROM customers",
		"WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 5000) SELECT x, 'row ' || x AS label FROM s",
		"WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 5000) SELECT 'row ' || x AS label, x FROM s",
	} {
		res, err := query.Collect(context.Background(), d, sql, query.Options{MaxRows: MaxRows})
		if err != nil {
			t.Fatal(err)
		}
		if spec, ok := Suggest(res.Columns, res.Rows); ok {
			t.Errorf("%s: suggested %+v, want no chart", sql, spec)
		}
	}
}

// TestSuggestPrefersMeasures: y is a column named like an amount or a
// count over an earlier number that is not, and never a key.
func TestSuggestPrefersMeasures(t *testing.T) {
	cols := []query.Column{{Name: "product", Type: "TEXT"}, {Name: "shelf", Type: "INTEGER"}, {Name: "product_id", Type: "INTEGER"}, {Name: "units_sold", Type: "INTEGER"}}
	var rows []query.Row
	for i := range 6 {
		rows = append(rows, query.Row{fmt.Sprintf("p%d", i), int64(i % 3), int64(100 + i), int64(40 - 3*i)})
	}
	spec, ok := Suggest(cols, rows)
	if !ok || spec.X != "product" || spec.Y != "units_sold" {
		t.Errorf("Suggest = %+v, %v; want units_sold by product", spec, ok)
	}
}

// TestCompleteKindOnlyUsesSuggestion: a kind alone takes the columns the
// suggestion would pick.
func TestCompleteKindOnlyUsesSuggestion(t *testing.T) {
	d := testdb.Sample(t)
	for _, sql := range []string{
		"SELECT channel, count(*) AS orders FROM orders GROUP BY 1",
		"SELECT count(*) AS orders, channel FROM orders GROUP BY 2",
		"SELECT p.name AS product, sum(i.quantity) AS units FROM order_items i JOIN products p USING (product_id) GROUP BY 1 ORDER BY 2 DESC LIMIT 6",
	} {
		res, err := query.Collect(context.Background(), d, sql, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sug, ok := Suggest(res.Columns, res.Rows)
		if !ok {
			t.Fatalf("%s: no suggestion", sql)
		}
		for _, kind := range answer.Kinds {
			if kind == answer.KindHistogram || kind == answer.KindScatter {
				continue
			}
			got, _, err := Complete(answer.ChartSpec{Kind: kind}, res.Columns, res.Rows)
			if err != nil || got.X != sug.X || got.Y != sug.Y || got.Kind != kind {
				t.Errorf("%s: Complete(kind %s) = %+v, %v; want x %q and y %q as suggested", sql, kind, got, err, sug.X, sug.Y)
				continue
			}
			if err := Validate(got, res.Columns, res.Rows); err != nil {
				t.Errorf("%s: kind %s: %v", sql, kind, err)
			}
		}
	}
}

// TestCompleteNoRows: an empty result says so, whatever was given.
func TestCompleteNoRows(t *testing.T) {
	cols := []query.Column{{Name: "channel", Type: "TEXT"}, {Name: "n"}}
	for _, spec := range []answer.ChartSpec{{}, {Kind: "pie"}, {X: "channel"}, {Kind: "bar", X: "channel", Y: "n"}} {
		_, _, err := Complete(spec, cols, nil)
		if err == nil {
			err = Validate(spec, cols, nil)
		}
		var se *SpecError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "no rows to chart") || strings.Contains(se.Msg, "?") {
			t.Errorf("%+v on no rows: %v; want \"no rows to chart\"", spec, err)
		}
	}
}
