package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// courierScript: a small courier's depots, agents and boxes. The agents'
// first names include 'Mark' and 'Grant', which inflected verbs of a
// question stem to.
func courierScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE depot (depot_id INTEGER PRIMARY KEY, depot_name TEXT NOT NULL, city TEXT NOT NULL, cntry TEXT NOT NULL);
CREATE TABLE agent (agent_id INTEGER PRIMARY KEY, depot_id INTEGER NOT NULL REFERENCES depot(depot_id), first_name TEXT NOT NULL, last_name TEXT NOT NULL, hired_on TEXT NOT NULL);
CREATE TABLE box (box_id INTEGER PRIMARY KEY, agent_id INTEGER NOT NULL REFERENCES agent(agent_id), from_depot INTEGER NOT NULL REFERENCES depot(depot_id), to_cntry TEXT NOT NULL, weight_kg REAL NOT NULL, is_damaged INTEGER NOT NULL, postage_cost REAL NOT NULL, insured_value REAL, posted_at TEXT NOT NULL, sent_on TEXT, due_on TEXT NOT NULL, arrived_on TEXT);
`)
	cities := [][2]string{{"Lyon", "FR"}, {"Porto", "PT"}, {"Graz", "AT"}, {"Turku", "FI"}}
	for i, c := range cities {
		fmt.Fprintf(&b, "INSERT INTO depot VALUES (%d, 'Depot %s', '%s', '%s');\n", i+1, c[0], c[0], c[1])
	}
	first := []string{"Mark", "Grant", "Ada", "Lena", "Omar", "Rui", "Sofia", "Tomas"}
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&b, "INSERT INTO agent VALUES (%d, %d, '%s', 'Surname%d', '20%02d-03-01');\n", i+1, i%4+1, first[i%8], i, 10+i%12)
	}
	dest := []string{"FR", "PT", "AT", "FI", "DE", "DE", "NL"}
	for i := 0; i < 300; i++ {
		sent, arrived := "NULL", "NULL"
		if i%6 != 0 {
			sent = fmt.Sprintf("'2024-%02d-%02d'", i%12+1, i%25+2)
			if i%4 != 0 {
				arrived = fmt.Sprintf("'2024-%02d-%02d'", i%12+1, i%25+2+i%4)
			}
		}
		insured := "NULL"
		if i%3 == 0 {
			insured = fmt.Sprintf("%d.5", 100+i)
		}
		fmt.Fprintf(&b, "INSERT INTO box VALUES (%d, %d, %d, '%s', %d.25, %d, %d.75, %s, '2024-%02d-%02d 09:%02d:00', %s, '2024-%02d-%02d', %s);\n",
			i+1, i%24+1, i%4+1, dest[i%7], i%30+1, min(1, i%5), 5+i%40, insured, i%12+1, i%25+1, i%60, sent, i%12+1, i%25+4, arrived)
	}
	return b.String()
}

// A proper name is not inflected: "marked" is not the agent 'Mark'. A
// word that only shares its stem with a person's name is no value of it,
// and "marked"/"flagged" before a yes/no column are fillers.
func TestInflectedWordIsNoName(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askBut(t, tp, []string{"Mark", "agent"}, "How many boxes are marked damaged?", "COUNT(*)", "is_damaged = 1")
	askBut(t, tp, []string{"Grant", "agent"}, "How many boxes are flagged as damaged?", "COUNT(*)", "is_damaged = 1")
	// The name itself is still read.
	askWant(t, tp, "How many boxes did Mark handle?", "first_name = 'Mark'")
}

// "on file", "on record": the rows the database holds, a filler phrase.
func TestOnFileIsFiller(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askBut(t, tp, []string{"WHERE"}, "How many agents are on file?", "COUNT(*)", "FROM agent")
	askBut(t, tp, []string{"WHERE"}, "How many depots do we have on record?", "COUNT(*)", "FROM depot")
}

// "spend" is money paid out: a cost, not any amount or value ("how much
// did we spend on postage" sums the postage cost, not the insured value).
func TestSpendIsACost(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askBut(t, tp, []string{"insured_value"}, "How much did we spend on postage for damaged boxes?", "SUM(postage_cost)", "is_damaged = 1")
	askBut(t, tp, []string{"insured_value"}, "Top 3 agents by postage spend", "SUM(box.postage_cost)", "LIMIT 3")
}

// A word naming two words of a column name equally ("spent": total and
// cost in TOTALCOST) matches the name's head noun, so a table with a base
// cost and a total cost is asked about, not answered with the base cost.
func TestSynonymPrefersTheHeadNoun(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE stay (id INTEGER PRIMARY KEY, guest TEXT NOT NULL, base_cost REAL NOT NULL, totalcost REAL NOT NULL);\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO stay VALUES (%d, 'guest %d', %d.5, %d.5);\n", i+1, i, 50+i, 80+2*i)
	}
	tp := smallPlanner(t, "stays.db", b.String())
	q := "How much was spent on stays?"
	ans, err := tp.p.Answer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if ans.SQL != "" || !strings.Contains(ans.Answer, "base cost") || !strings.Contains(ans.Answer, "totalcost") && !strings.Contains(ans.Answer, "total cost") {
		t.Errorf("%q: not asked which cost: %s\n%s", q, ans.SQL, ans.Answer)
	}
}

// A filler word links to a column only when it is, by its stem, a word of
// the column's name: "recorded" is not a tracking code through the synonym
// "recording" (of a music track).
func TestFillerNamesOnlyLiterally(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE visitor (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tracking_code TEXT NOT NULL, signed_in TEXT NOT NULL);\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO visitor VALUES (%d, 'visitor %d', 'TC%03d', '2024-%02d-%02d');\n", i+1, i, i, i%12+1, i%27+1)
	}
	tp := smallPlanner(t, "visitors.db", b.String())
	askBut(t, tp, []string{"WHERE"}, "How many visitors are on record?", "COUNT(*)", "FROM visitor")
	askBut(t, tp, []string{"tracking_code"}, "How many visitors were recorded in March 2024?", "COUNT(*)", "signed_in >= '2024-03-01'")
}

// Goods or mail that "went out" were sent: the date of sending, not the
// row's creation, places them in time; "out of" is no sending.
func TestWentOutIsSent(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askBut(t, tp, []string{"posted_at"}, "How many boxes went out between March 1 and March 15 2024?", "COUNT(*)", "sent_on >= '2024-03-01'", "sent_on < '2024-03-16'")
	askBut(t, tp, []string{"posted_at"}, "How many boxes were sent out in May 2024?", "sent_on >= '2024-05-01'")
}

// "the countries we post to": a verb of the rows followed by "to" at the
// end of its clause names the destination column of the verb's table
// (to_cntry), not a country of another table (the depot's).
func TestVerbToNamesTheDestination(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askBut(t, tp, []string{"depot"}, "How many different countries do we post to?", "COUNT(DISTINCT to_cntry)", "FROM box")
	askBut(t, tp, []string{"depot"}, "Which country do we post to most often?", "GROUP BY to_cntry")
}

// A country named in words ("Germany", "United Kingdom") is its ISO 3166
// code in a column of such codes (DE), by the English names of the
// Unicode CLDR; a column of other codes that happen to be country codes
// too (IT, HR for departments) is not read as countries.
func TestCountryNamesAsCodes(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askWant(t, tp, "How many boxes were sent to Germany?", "COUNT(*)", "to_cntry = 'DE'")
	askWant(t, tp, "Which depots are in Portugal or Finland?", "depot_name", "cntry IN ('PT', 'FI')")

	var b strings.Builder
	b.WriteString("CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT NOT NULL, dept TEXT NOT NULL);\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "INSERT INTO staff VALUES (%d, 'person %d', '%s');\n", i+1, i, []string{"IT", "HR", "OPS", "FIN", "MKT", "LEGAL"}[i%6])
	}
	depts := smallPlanner(t, "depts.db", b.String())
	q := "How many staff are in Italy?"
	ans, err := depts.p.Answer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if ans.SQL != "" {
		t.Errorf("%q: read a department code as a country: %s", q, ans.SQL)
	}
}

// "employs" is a verb of having, like "employ" and "employed": not the
// hiring date that "employment" names.
func TestEmploysIsFiller(t *testing.T) {
	tp := smallPlanner(t, "courier.db", courierScript())
	askBut(t, tp, []string{"hired_on"}, "Which depot employs the most agents?", "depot.depot_name", "COUNT(agent.agent_id)")
}

// deliveriesScript: packages of deliveries that leave from sites.
func deliveriesScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE site (site_id INTEGER PRIMARY KEY, site_name TEXT NOT NULL, town TEXT NOT NULL);
CREATE TABLE delivery (delivery_id INTEGER PRIMARY KEY, origin_site INTEGER NOT NULL REFERENCES site(site_id), made_on TEXT NOT NULL);
CREATE TABLE package (package_id INTEGER PRIMARY KEY, delivery_id INTEGER NOT NULL REFERENCES delivery(delivery_id), weight REAL NOT NULL);
`)
	for i, town := range []string{"Oslo", "Bergen", "Tromso"} {
		fmt.Fprintf(&b, "INSERT INTO site VALUES (%d, 'Site %d', '%s');\n", i+1, i+1, town)
	}
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "INSERT INTO delivery VALUES (%d, %d, '2024-%02d-%02d');\n", i+1, i%3+1, i%12+1, i%27+1)
	}
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "INSERT INTO package VALUES (%d, %d, %d.5);\n", i+1, i%60+1, i%20+1)
	}
	return b.String()
}

// "packages delivered out of …": a past participle after a noun begins a
// clause about it, not a name qualified by the noun (package.delivery_id
// through "delivery").
func TestParticipleAfterNounIsNoName(t *testing.T) {
	tp := smallPlanner(t, "deliveries.db", deliveriesScript())
	askWant(t, tp, "What is the total weight of the packages delivered out of the Oslo site?", "SUM(package.weight)", "site.town = 'Oslo'")
}

// "parcels that were shipped to Chile": a verb naming a date, right before a value
// whose column it names (ship_country), is part of that value, not a
// filter on the date of its own.
func TestVerbBeforeValueIsPartOfIt(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE parcel (id INTEGER PRIMARY KEY, ship_country TEXT NOT NULL, shipped_on TEXT, fee REAL NOT NULL);\n")
	for i := 0; i < 60; i++ {
		shipped := "NULL"
		if i%4 != 0 {
			shipped = fmt.Sprintf("'2024-%02d-%02d'", i%12+1, i%27+1)
		}
		fmt.Fprintf(&b, "INSERT INTO parcel VALUES (%d, '%s', %s, %d.5);\n", i+1, []string{"Chile", "Peru", "Bolivia"}[i%3], shipped, i%9+1)
	}
	tp := smallPlanner(t, "parcels.db", b.String())
	askBut(t, tp, []string{"shipped_on"}, "What's the total fee of the parcels that were shipped to Chile?", "SUM(fee)", "ship_country = 'Chile'")
}

// A column of country codes is found whatever value of it is read first:
// nine two-letter codes and one three-letter one are a column of codes
// (nine in ten of one length), every time it is built.
func TestCountryColumnsDoNotDependOnOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE site (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ctry TEXT NOT NULL);\n")
	codes := []string{"FR", "PT", "AT", "FI", "DE", "NL", "BE", "ES", "IT", "SWE"}
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO site VALUES (%d, 'site %d', '%s');\n", i+1, i, codes[i%len(codes)])
	}
	tp := smallPlanner(t, "sites.db", b.String())
	ix, err := tp.p.index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		cc := buildCountryColumns(ix.values)
		if len(cc) != 1 {
			t.Fatalf("build %d: %d columns of country codes, want 1 (ctry)", i, len(cc))
		}
		for c, refs := range cc {
			if c.name != "ctry" || len(refs) != len(codes) {
				t.Fatalf("build %d: column %s with %d codes, want ctry with %d", i, c.name, len(refs), len(codes))
			}
		}
	}
}
