package postgres_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

// TestDatesAsTheServerWritesThem: dates arrive in their binary form
// (days since 2000-01-01) and are written as the server writes their
// text: every day of 1899-2101, and the edges (the first and last day
// the server takes, around 1 BC and year 10000, the infinities, leap
// days of centuries) come out as date::text does. A domain over date
// arrives as text and is passed on as it is.
func TestDatesAsTheServerWritesThem(t *testing.T) {
	url := servers.PostgresSample(t)
	exec(t, admin(t, url), "CREATE DOMAIN day AS date")
	e := openOne(t, url)
	res, err := query.Collect(context.Background(), e, `SELECT d, d::text FROM (
		SELECT (date '1899-01-01' + n) AS d FROM generate_series(0, 74000) n
		UNION ALL SELECT unnest(ARRAY['4713-01-01 BC', '0001-12-31 BC', '0001-01-01', '0001-02-29 BC', '0005-02-29 BC', '1600-02-29', '1900-02-28',
			'1900-03-01', '2000-02-29', '9999-12-31', '10000-01-01', '5874897-12-31', 'infinity', '-infinity']::date[])) AS x`,
		query.Options{Timeout: 20e9})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 74001+14 {
		t.Fatalf("%d rows, want %d", len(res.Rows), 74001+14)
	}
	bad := 0
	for _, r := range res.Rows {
		if r[0] != r[1] && bad < 10 {
			bad++
			t.Errorf("date written %#v, the server's text %#v", r[0], r[1])
		}
	}
	if res.Columns[0].Type != "date" {
		t.Errorf("column type %q, want date", res.Columns[0].Type)
	}
	res, err = query.Collect(context.Background(), e, `SELECT '0044-03-15 BC'::day, '2024-02-29'::day`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0] != "0044-03-15 BC" || r[1] != "2024-02-29" {
		t.Errorf("a domain over date: %#v", r)
	}
}
