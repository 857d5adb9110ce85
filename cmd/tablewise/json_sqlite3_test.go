package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// TestJSONMatchesSQLite3 compares "tablewise sql --format json" with
// "sqlite3 -json" value for value on Chinook: same JSON types (integers stay
// integers, reals stay reals, NULL is null) and equal values. (Sums are
// rounded where rows are ordered by them: SQLite 3.54 sums REALs more
// exactly than older sqlite3 builds, which reorders ties.)
func TestJSONMatchesSQLite3(t *testing.T) {
	chinook := testdb.SharedData(t, "chinook.sqlite")
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("skipping: the sqlite3 command-line tool is not installed (apt-get install sqlite3)")
	}
	queries := []string{
		"SELECT * FROM Track ORDER BY TrackId LIMIT 200",
		"SELECT * FROM Customer ORDER BY CustomerId",
		"SELECT * FROM Invoice ORDER BY InvoiceId LIMIT 100",
		"SELECT * FROM Employee",
		"SELECT InvoiceId, sum(UnitPrice * Quantity) AS total, avg(UnitPrice) AS avg_price FROM InvoiceLine GROUP BY InvoiceId ORDER BY InvoiceId LIMIT 50",
		"SELECT g.Name, count(*) AS tracks, round(avg(t.Milliseconds) / 60000.0, 3) AS minutes FROM Track t JOIN Genre g USING (GenreId) GROUP BY g.Name ORDER BY tracks DESC",
		"SELECT BillingCountry, round(sum(Total), 2) AS revenue, max(Total) AS biggest, min(InvoiceDate) AS first FROM Invoice GROUP BY BillingCountry ORDER BY revenue DESC, BillingCountry",
		"SELECT Composer, count(*) AS n FROM Track GROUP BY Composer ORDER BY n DESC, Composer LIMIT 20",
		"SELECT 1 AS one, 1.0 AS one_real, 0.1 AS tenth, 1e20 AS big, -5 AS neg, NULL AS nul, 'é \"q\" \\ tab\t' AS text, 9223372036854775807 AS maxint, 2.0/3 AS third, 1.5e-7 AS tiny",
		"SELECT a.Title, ar.Name FROM Album a JOIN Artist ar USING (ArtistId) WHERE ar.Name LIKE 'A%' ORDER BY a.AlbumId",
		"SELECT strftime('%Y', InvoiceDate) AS year, count(*) AS invoices, total(Total) AS revenue FROM Invoice GROUP BY year",
		"SELECT TrackId, Bytes / 1048576.0 AS mb, UnitPrice FROM Track WHERE Composer IS NULL ORDER BY TrackId LIMIT 30",
	}
	for _, q := range queries {
		t.Run(q[:min(len(q), 50)], func(t *testing.T) {
			want, err := exec.Command(sqlite3, "-json", chinook, q).Output()
			if err != nil {
				t.Fatalf("sqlite3: %v", err)
			}
			var out, errb bytes.Buffer
			if code := run(context.Background(), []string{"sql", "--db", chinook, "--format", "json", "--max-rows", "0", q}, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var ours struct {
				Columns []struct{ Name string } `json:"columns"`
				Rows    [][]json.RawMessage     `json:"rows"`
			}
			if err := json.Unmarshal(out.Bytes(), &ours); err != nil {
				t.Fatalf("our JSON: %v", err)
			}
			var theirs []map[string]json.RawMessage
			if err := json.Unmarshal(want, &theirs); err != nil {
				t.Fatalf("sqlite3 JSON: %v", err)
			}
			if len(theirs) != len(ours.Rows) {
				t.Fatalf("%d rows, sqlite3 has %d", len(ours.Rows), len(theirs))
			}
			if len(theirs) == 0 {
				t.Fatal("query returned no rows; pick one that does")
			}
			for r, row := range ours.Rows {
				for c, col := range ours.Columns {
					if msg := sameJSONValue(row[c], theirs[r][col.Name]); msg != "" {
						t.Errorf("row %d column %s: ours %s, sqlite3 %s: %s", r, col.Name, row[c], theirs[r][col.Name], msg)
					}
				}
			}
		})
	}
}

// sameJSONValue compares two JSON scalars as values of the same type.
func sameJSONValue(a, b json.RawMessage) string {
	kind := func(m json.RawMessage) string {
		s := strings.TrimSpace(string(m))
		switch {
		case s == "null":
			return "null"
		case strings.HasPrefix(s, `"`):
			return "string"
		case strings.ContainsAny(s, ".eE"):
			return "real"
		}
		return "integer"
	}
	ka, kb := kind(a), kind(b)
	if ka != kb {
		return "type " + ka + " vs " + kb
	}
	switch ka {
	case "string":
		var sa, sb string
		json.Unmarshal(a, &sa)
		json.Unmarshal(b, &sb)
		if sa != sb {
			return "different text"
		}
	case "integer":
		if strings.TrimSpace(string(a)) != strings.TrimSpace(string(b)) {
			return "different integer"
		}
	case "real":
		var fa, fb float64
		if err := json.Unmarshal(a, &fa); err != nil {
			return err.Error()
		}
		if err := json.Unmarshal(b, &fb); err != nil {
			return err.Error()
		}
		if fa != fb && math.Abs(fa-fb) > 1e-12*math.Max(math.Abs(fa), math.Abs(fb)) {
			return "different real"
		}
	}
	return ""
}
