package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// askBut asks q and checks that the SQL holds every part and none of
// the strings in not.
func askBut(t *testing.T, tp *testPlanner, not []string, q string, parts ...string) {
	t.Helper()
	sql := askWant(t, tp, q, parts...)
	for _, n := range not {
		if strings.Contains(sql, n) {
			t.Errorf("%q: SQL holds %q\n%s", q, n, sql)
		}
	}
}

// smallPlanner returns a planner on a database built from the SQL script.
func smallPlanner(t *testing.T, name, script string) *testPlanner {
	t.Helper()
	d := testdb.Open(t, testdb.Build(t, name, script))
	return &testPlanner{d: d, p: New(d)}
}

// ticketsScript: support tickets opened over 2023–2024, some closed, with
// a status value that is also the verb of the closing date.
func ticketsScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE ticket (id INTEGER PRIMARY KEY, subject TEXT NOT NULL, status TEXT NOT NULL, opened_on TEXT NOT NULL, closed_on TEXT, hours_spent INTEGER NOT NULL, resolution TEXT, escalated_on TEXT);
`)
	for i := 0; i < 120; i++ {
		opened := fmt.Sprintf("%d-%02d-%02d", 2023+i/60, i%12+1, i%27+1)
		status, closed, resolution := "open", "NULL", "NULL"
		if i%3 != 0 {
			status = "closed"
			closed = fmt.Sprintf("'%d-%02d-%02d'", 2023+(i+30)/60, (i+5)%12+1, i%27+1)
			resolution = []string{"'fixed'", "'fixed'", "'duplicate'", "'wontfix'"}[i%4]
		}
		escalated := "NULL"
		if i%5 == 0 {
			escalated = fmt.Sprintf("'%d-%02d-%02d'", 2023+i/60, i%12+1, i%27+2)
		}
		fmt.Fprintf(&b, "INSERT INTO ticket VALUES (%d, 'subject %d', '%s', '%s', %s, %d, %s, %s);\n", i+1, i, status, opened, closed, i%9+1, resolution, escalated)
	}
	return b.String()
}

// A verb of the question that names one of the table's dates ("closed"
// → closed_on) places the rows in time, not the table's main date, even
// when the word is also a value of a status column or part of another
// column's name.
func TestVerbNamesTheDate(t *testing.T) {
	tp := smallPlanner(t, "tickets.db", ticketsScript())
	askBut(t, tp, []string{"opened_on"}, "How many tickets were closed in 2024?", "closed_on >= '2024-01-01'", "closed_on < '2025-01-01'")
	askWant(t, tp, "How many tickets were opened in 2024?", "opened_on >= '2024-01-01'")
}

// A ranking of a nullable column's values ranks the values recorded: the
// open tickets, which have no resolution, are not "the most frequent
// resolution".
func TestRankingSkipsMissingValues(t *testing.T) {
	tp := smallPlanner(t, "tickets.db", ticketsScript())
	q := "What is the most frequent resolution?"
	b, err := tp.p.Answer(context.Background(), q)
	if err != nil || b.SQL == "" {
		t.Fatalf("%q: %v %s", q, err, b.Answer)
	}
	wantAll(t, q, b.SQL, "resolution IS NOT NULL")
	if b.RowCount != 1 || !strings.Contains(b.Answer, "fixed") {
		t.Errorf("%q: %d rows, want the one value fixed: %s", q, b.RowCount, b.Answer)
	}
}

// membersScript: teams, their members (a table named with a qualifier,
// team_member) and the members' activity.
func membersScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE team (id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE team_member (id INTEGER PRIMARY KEY, account_id TEXT NOT NULL REFERENCES team(id), email TEXT NOT NULL, role TEXT NOT NULL, joined_at TEXT NOT NULL);
CREATE TABLE activity (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES team_member(id), kind TEXT NOT NULL, happened_at TEXT NOT NULL);
`)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "INSERT INTO team VALUES ('tm_%d', 'team %d');\n", i+1, i)
	}
	for i := 0; i < 90; i++ {
		role := []string{"owner", "editor", "viewer"}[i%3]
		fmt.Fprintf(&b, "INSERT INTO team_member VALUES (%d, 'tm_%d', 'm%d@example.com', '%s', '2024-%02d-%02d');\n", i+1, i%20+1, i, role, i%12+1, i%28+1)
	}
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "INSERT INTO activity VALUES (%d, %d, '%s', '2024-%02d-%02d');\n", i+1, i%90+1, []string{"login", "export"}[i%2], i%12+1, i%28+1)
	}
	return b.String()
}

// A word that is the head noun of one table's name ("members" for
// team_member) names that table, above a reference to it from another
// table (activity.member_id) or the table it belongs to, when no table is
// that word alone; a verb with the same stem ("listed" for play_list)
// does not.
func TestHeadNounNamesTable(t *testing.T) {
	tp := smallPlanner(t, "members.db", membersScript())
	askBut(t, tp, []string{"FROM team ", "activity"}, "How many members have the owner role?", "FROM team_member", "role = 'owner'")
	askWant(t, tp, "How many members joined in March 2024?", "FROM team_member", "joined_at >= '2024-03-01'")
	for _, tt := range []struct {
		word string
		raw  []string
		want bool
	}{
		{"members", []string{"team", "member"}, true},
		{"categories", []string{"product", "category"}, true},
		{"requested", []string{"leave", "requests"}, false},
		{"listed", []string{"play", "list"}, false},
		{"members", []string{"member"}, false}, // a one-word name is matched in full already
	} {
		if got := headNamed(tokenize(tt.word), tt.raw); got != tt.want {
			t.Errorf("headNamed(%q, %v) = %v, want %v", tt.word, tt.raw, got, tt.want)
		}
	}
}

// shopsScript: shops and their sales, each with a currency; titles held
// by the shops and reservations of them.
func shopsScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE shop (id INTEGER PRIMARY KEY, name TEXT NOT NULL, currency TEXT NOT NULL);
CREATE TABLE sale (id INTEGER PRIMARY KEY, shop_id INTEGER NOT NULL REFERENCES shop(id), currency TEXT NOT NULL, amount REAL NOT NULL);
CREATE TABLE volume (id INTEGER PRIMARY KEY, title TEXT NOT NULL, publisher TEXT NOT NULL);
CREATE TABLE reservation (id INTEGER PRIMARY KEY, volume_id INTEGER NOT NULL REFERENCES volume(id), made_on TEXT NOT NULL);
`)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO shop VALUES (%d, 'shop %d', '%s');\n", i+1, i, []string{"EUR", "USD"}[i%2])
	}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "INSERT INTO sale VALUES (%d, %d, '%s', %d.5);\n", i+1, i%12+1, []string{"EUR", "USD", "GBP"}[i%3], i)
	}
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "INSERT INTO volume VALUES (%d, 'volume %d', '%s');\n", i+1, i, []string{"Acme Press", "Blue House", "Corner House"}[i%3])
	}
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "INSERT INTO reservation VALUES (%d, %d, '2024-%02d-%02d');\n", i+1, i%60+1, i%12+1, i%28+1)
	}
	return b.String()
}

// "Which <plural column> … <table>": the distinct values of the column of
// the table named, when several tables have such a column.
func TestPluralColumnOfNamedTable(t *testing.T) {
	tp := smallPlanner(t, "shops.db", shopsScript())
	askBut(t, tp, []string{"sale", "name"}, "Which currencies are our shops in?", "DISTINCT", "FROM shop")
	askWant(t, tp, "Which currencies are our sales in?", "DISTINCT", "FROM sale")

	// A table read only through a related word (below an exact name)
	// does not take the column from its own table; an exact one does
	// when the column is not its own.
	volume, reservation := &tableInfo{name: "volume"}, &tableInfo{name: "reservation"}
	publisher := &colInfo{tab: volume, name: "publisher", kind: kindText}
	ent := &mention{cands: []*cand{{t: volume, c: publisher, score: 1.2}}}
	if c := pluralColumnOf(ent, &cand{t: reservation, score: 0.9}); c == nil || c.c != publisher {
		t.Errorf("a related-word table took the column: %v", c)
	}
	if c := pluralColumnOf(ent, &cand{t: reservation, score: 1.2}); c != nil {
		t.Errorf("listed %v for a table named exactly that does not hold it", c)
	}
}

// "How many were escalated": a count whose only thing named is a nullable
// date read as a verb counts the rows where that date is set, not the
// different dates.
func TestCountEventDateSet(t *testing.T) {
	tp := smallPlanner(t, "tickets.db", ticketsScript())
	askBut(t, tp, []string{"DISTINCT"}, "How many were escalated?", "COUNT(*)", "escalated_on IS NOT NULL")
}

// clubScript: members, some suspended, and their loans of equipment,
// some not yet returned (an open period pointing at the member).
func clubScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT NOT NULL, suspended_on TEXT);
CREATE TABLE loan (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES member(id), lent_on TEXT NOT NULL, returned_on TEXT);
`)
	for i := 0; i < 60; i++ {
		susp := "NULL"
		if i%6 == 0 {
			susp = fmt.Sprintf("'2024-%02d-%02d'", i%12+1, i%27+1)
		}
		fmt.Fprintf(&b, "INSERT INTO member VALUES (%d, 'member %d', %s);\n", i+1, i, susp)
	}
	for i := 0; i < 300; i++ {
		ret := "NULL"
		if i%7 != 0 {
			ret = fmt.Sprintf("'2024-%02d-%02d'", i%12+1, i%27+2)
		}
		fmt.Fprintf(&b, "INSERT INTO loan VALUES (%d, %d, '2024-%02d-%02d', %s);\n", i+1, i%60+1, i%12+1, i%27+1, ret)
	}
	return b.String()
}

// "Currently" with a state the base's own rows record ("currently
// suspended": suspended_on is set) qualifies that state; it does not
// require an open row in another table (a loan not yet returned). With
// no such state, it still does ("current members").
func TestCurrentlyQualifiesOwnState(t *testing.T) {
	tp := smallPlanner(t, "club.db", clubScript())
	askBut(t, tp, []string{"loan"}, "List the members who are currently suspended", "suspended_on IS NOT NULL")
	askWant(t, tp, "List the current members", "loan.returned_on IS NULL")
}

// vouchersScript: vouchers and the payments made against them, both with a
// creation date.
func vouchersScript() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE payment (id INTEGER PRIMARY KEY, voucher_id INTEGER NOT NULL REFERENCES voucher(id), amount REAL NOT NULL, status TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE voucher (id INTEGER PRIMARY KEY, total REAL NOT NULL, created TEXT NOT NULL);
`)
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "INSERT INTO voucher VALUES (%d, %d.0, '%d-%02d-%02d');\n", i+1, 10+i, 2022+i%3, i%12+1, i%27+1)
	}
	for i := 0; i < 260; i++ {
		fmt.Fprintf(&b, "INSERT INTO payment VALUES (%d, %d, %d.0, '%s', '%d-%02d-%02d');\n", i+1, i%100+1, i%40+1, []string{"succeeded", "failed"}[i%2], 2022+i%4, i%12+1, i%27+1)
	}
	return b.String()
}

// "How many vouchers were created per year": the verb names the date of the
// things counted, which are their own event, not the rows of a table
// that points at them and has a date of the same name.
func TestCountedRowsOwnEventDate(t *testing.T) {
	tp := smallPlanner(t, "vouchers.db", vouchersScript())
	askBut(t, tp, []string{"payment"}, "How many vouchers were created per year?", "FROM voucher", "created")
}

// A plural typed with a letter wrong ("lians") that is no English word is
// corrected to the plural of the schema's word; a real word ("scorers")
// is not compared with a plural it is one letter from.
func TestPluralTypo(t *testing.T) {
	tp := smallPlanner(t, "club.db", clubScript())
	askWant(t, tp, "How many lians are there?", "COUNT(*)", "FROM loan")
	ix := testIndex(t, tp)
	if got := ix.correct(tokenize("scorers"))[0].low; got != "scorers" {
		t.Errorf("corrected the word scorers to %q", got)
	}
}

// A count per entity keyed by a text code shows the code beside the
// entity's label: the rows counted record the code.
func TestCodeKeyShown(t *testing.T) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE tier (tiercode TEXT NOT NULL PRIMARY KEY, description TEXT NOT NULL);
CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tiercode TEXT NOT NULL REFERENCES tier(tiercode));
INSERT INTO tier VALUES ('G', 'Gold'), ('S', 'Silver'), ('B', 'Bronze'), ('N', 'Novice'), ('P', 'Platinum'), ('D', 'Diamond');
`)
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&b, "INSERT INTO player VALUES (%d, 'player %d', '%s');\n", i+1, i, []string{"G", "S", "S", "B", "B", "B"}[i%6])
	}
	tp := smallPlanner(t, "tiers.db", b.String())
	askWant(t, tp, "How many players are in each tier?", "SELECT tier.tiercode, tier.description", "COUNT(player.")
}

// A one-word value of another table's column ("active" as an enrolment
// status) that also names a yes/no column of the table asked about (a
// course's active flag) has two readings: the planner asks instead of
// picking the value.
func TestValueOrFlagAsks(t *testing.T) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE course (id INTEGER PRIMARY KEY, title TEXT NOT NULL, active INTEGER NOT NULL);
CREATE TABLE enrolment (id INTEGER PRIMARY KEY, course_id INTEGER NOT NULL REFERENCES course(id), status TEXT NOT NULL);
`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO course VALUES (%d, 'course %d', %d);\n", i+1, i, min(1, i%4))
	}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "INSERT INTO enrolment VALUES (%d, %d, '%s');\n", i+1, i%30+1, []string{"active", "dropped", "completed"}[i%3])
	}
	tp := smallPlanner(t, "courses.db", b.String())
	q := "List the courses that are no longer active"
	ans, err := tp.p.Answer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if ans.SQL != "" || !strings.Contains(ans.Answer, "course.active") {
		t.Errorf("%q: answered without asking: %s\n%s", q, ans.SQL, ans.Answer)
	}
	// The value alone, in its own table, is still read.
	askWant(t, tp, "How many enrolments are active?", "status = 'active'")
}
