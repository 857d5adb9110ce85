package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// recordsScript: albums named by their title, each in one or two genres
// through a link table, on one of four labels.
func recordsScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE genres (genreid INTEGER PRIMARY KEY, genre TEXT NOT NULL UNIQUE);
CREATE TABLE albums (albumnumber INTEGER PRIMARY KEY, title TEXT NOT NULL, labelcode TEXT NOT NULL, releaseyear INTEGER NOT NULL, remasterdate INTEGER NOT NULL, format TEXT NOT NULL);
CREATE TABLE album_genres (albumnumber INTEGER NOT NULL REFERENCES albums (albumnumber), genreid INTEGER NOT NULL REFERENCES genres (genreid), PRIMARY KEY (albumnumber, genreid));
`)
	for i, n := range []string{"jazz", "rock", "folk", "blues", "soul", "punk"} {
		fmt.Fprintf(&b, "INSERT INTO genres VALUES (%d, '%s');\n", i+1, n)
	}
	labels := []string{"Verve", "Blue Note", "Island", "Motown"}
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&b, "INSERT INTO albums VALUES (%d, 'Album %d', '%s', %d, %d, '%s');\n", i+1, i, labels[(i*i)%4], 1960+i%50, 1990+i%30, []string{"LP", "CD", "CS"}[i%3])
		fmt.Fprintf(&b, "INSERT INTO album_genres VALUES (%d, %d);\n", i+1, i%6+1)
		if i%3 == 0 && (i*7)%6 != i%6 {
			fmt.Fprintf(&b, "INSERT INTO album_genres VALUES (%d, %d);\n", i+1, (i*7)%6+1)
		}
	}
	return b.String()
}

// The plural of a table's label column counted or ranked by count
// ("the most titles", "titles in each genre") counts the table's rows,
// through the link table when the grouping is on the other side of a
// many-to-many.
func TestLabelPluralCountsRows(t *testing.T) {
	tp := smallPlanner(t, "records.db", recordsScript())
	askBut(t, tp, []string{"DISTINCT"}, "Which label has the most titles?", "GROUP BY labelcode", "COUNT(*)", "FROM albums")
	askWant(t, tp, "Which genre has the most titles?", "album_genres", "GROUP BY genres.genreid")
	askWant(t, tp, "How many titles are there in each genre?", "album_genres", "GROUP BY genres.genreid")
}

// The plural of a short upper-case code ("CDs") is that value: the
// stemmer keeps the "s" of a word with no vowel.
func TestCodePlural(t *testing.T) {
	tp := smallPlanner(t, "records.db", recordsScript())
	askWant(t, tp, "How many CDs are there?", "COUNT(*)", "format = 'CD'")
	askWant(t, tp, "List the LPs from 1965", "format = 'LP'", "releaseyear")
}

// A word the vocabulary does not hold that starts a run-together column
// name ending in a common word ("remaster" → remasterdate) names that
// column.
func TestWordStartsColumnName(t *testing.T) {
	tp := smallPlanner(t, "records.db", recordsScript())
	askWant(t, tp, "How many albums per remaster date?", "remasterdate")
}

// "The oldest/latest <column of years>" asks for the year itself, the
// smallest or largest of the column, not the row that holds it.
func TestYearSuperlativeIsAValue(t *testing.T) {
	tp := smallPlanner(t, "records.db", recordsScript())
	askBut(t, tp, []string{"title"}, "What is the latest release year?", "MAX(releaseyear)")
	askBut(t, tp, []string{"title"}, "What is the oldest remaster date?", "MIN(remasterdate)")
	askBut(t, tp, []string{"title"}, "What is the highest release year?", "MAX(releaseyear)")
	// The answer says the year as a year: 2009, not 2,009.
	b, err := tp.p.Answer(context.Background(), "What is the latest release year?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Answer, "latest release year") || !strings.Contains(b.Answer, " 2009") || strings.Contains(b.Answer, "2,009") {
		t.Errorf("the latest year (2009) said as %q", b.Answer)
	}
}

// invoicesScript: customers and their invoices, with what is left to pay.
func invoicesScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id), billed REAL NOT NULL, balance_outstanding REAL NOT NULL);
`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO customers VALUES (%d, 'Customer %d');\n", i+1, i)
	}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "INSERT INTO invoices VALUES (%d, %d, %d.5, %d);\n", i+1, i%30+1, 100+i, (i*7)%40)
	}
	return b.String()
}

// A three-letter word links through a synonym ("owe" → outstanding), and
// "how much … in total" is one sum, not two aggregates.
func TestShortSynonymAndHowMuchInTotal(t *testing.T) {
	tp := smallPlanner(t, "invoices.db", invoicesScript())
	askWant(t, tp, "How much is owed?", "SUM(balance_outstanding)")
	askWant(t, tp, "How much do customers still owe in total?", "SUM(balance_outstanding)")
}
