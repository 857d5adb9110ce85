package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/core/testdb"
)

// cuesOf reads the cues and dates of a question without an index.
func cuesOf(q string) *analysis {
	toks := tokenize(q)
	a := &analysis{question: q, text: normQuestion(q), toks: toks, cues: make([]cue, len(toks)), aggAt: make([]aggFunc, len(toks)),
		supAt: make([]superlative, len(toks)), at: make([]int, len(toks)), dayTok: make([]bool, len(toks))}
	a.markCues()
	return a
}

func TestDayLevelDates(t *testing.T) {
	tests := []struct {
		q, from, to string
		noYear      bool
	}{
		{"How many requests started between 2022-03-01 and 2022-03-31?", "2022-03-01", "2022-04-01", false},
		{"flights between August 1 and August 10, 2025", "2025-08-01", "2025-08-11", false},
		{"orders from December 20 to January 5, 2024", "2023-12-20", "2024-01-06", false},
		{"Show the flights on July 4th 2025", "2025-07-04", "2025-07-05", false},
		{"Who was hired on 2013-08-27?", "2013-08-27", "2013-08-28", false},
		{"hires since March 3, 2021", "2021-03-03", "", false},
		{"people hired in the first quarter of 2010", "2010-01-01", "2010-04-01", false},
		{"sales in Q4 2024", "2024-10-01", "2025-01-01", false},
		{"patients born in the 1980s", "1980-01-01", "1990-01-01", false},
		{"departures in the first week of July 2025", "2025-07-01", "2025-07-08", false},
		{"departures in the last week of February 2025", "2025-02-22", "2025-03-01", false},
		{"how many flights were canceled in august", "0000-08-01", "0000-09-01", true},
		{"signups during December", "0000-12-01", "0001-01-01", true},
		{"between June 1 and June 15", "0000-06-01", "0000-06-16", true},
	}
	for _, tt := range tests {
		a := cuesOf(tt.q)
		if len(a.dates) != 1 {
			t.Errorf("%q: %d date filters, want 1", tt.q, len(a.dates))
			continue
		}
		df := a.dates[0]
		if df.from != tt.from || df.to != tt.to || df.noYear != tt.noYear {
			t.Errorf("%q: [%s, %s) noYear=%v, want [%s, %s) noYear=%v", tt.q, df.from, df.to, df.noYear, tt.from, tt.to, tt.noYear)
		}
	}
	// Numbers that are not days stay numbers.
	for _, q := range []string{"top 10 customers by orders", "products priced between 10 and 20", "orders in 2024", "the 5 most recent orders"} {
		for _, df := range cuesOf(q).dates {
			if len(df.from) == 10 && df.from[5:] != "01-01" {
				t.Errorf("%q: read a day-level date [%s, %s)", q, df.from, df.to)
			}
		}
	}
}

func TestResolveYear(t *testing.T) {
	c := &colInfo{maxDate: "2025-08-15 14:30:00"}
	tests := []struct{ from, to, wantFrom, wantTo string }{
		{"0000-08-01", "0000-09-01", "2025-08-01", "2025-09-01"}, // the current, partial month
		{"0000-07-01", "0000-08-01", "2025-07-01", "2025-08-01"},
		{"0000-09-01", "0000-10-01", "2024-09-01", "2024-10-01"}, // not yet this year
		{"0000-12-01", "0001-01-01", "2024-12-01", "2025-01-01"}, // wraps into the next year
	}
	for _, tt := range tests {
		got, ok := resolveYear(dateFilter{from: tt.from, to: tt.to, noYear: true, desc: "in x"}, c)
		if !ok || got.from != tt.wantFrom || got.to != tt.wantTo || got.noYear {
			t.Errorf("resolve [%s, %s): [%s, %s) ok=%v, want [%s, %s)", tt.from, tt.to, got.from, got.to, ok, tt.wantFrom, tt.wantTo)
		}
	}
	if _, ok := resolveYear(dateFilter{from: "0000-08-01", noYear: true}, &colInfo{}); ok {
		t.Error("resolved a month without knowing the column's latest date")
	}
}

// askSQL answers q and returns the SQL, failing when the planner refused.
func askSQL(t *testing.T, tp *testPlanner, q string) string {
	t.Helper()
	b, err := tp.p.Answer(context.Background(), q)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	if b.SQL == "" {
		t.Fatalf("%q: refused: %s", q, b.Answer)
	}
	return b.SQL
}

func wantAll(t *testing.T, q, sql string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(sql, p) {
			t.Errorf("%q: SQL lacks %q\n%s", q, p, sql)
		}
	}
}

// askWant asks q and checks that the SQL holds every part; it returns the
// SQL.
func askWant(t *testing.T, tp *testPlanner, q string, parts ...string) string {
	t.Helper()
	sql := askSQL(t, tp, q)
	wantAll(t, q, sql, parts...)
	return sql
}

// The mechanisms of the second round, on the generated databases
// (questions unlike the gold ones).
func TestPeopleAndEvents(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	// "people" is the one table whose rows are people; "hired" with a
	// range is the event of that table's rows, counted, not its dates.
	askWant(t, hr, "How many people were hired in 2019?", "COUNT(*)", "FROM employees", "hire_date >= '2019-01-01'", "hire_date < '2020-01-01'")
	askWant(t, hr, "How many women were hired in 2018?", "gender = 'F'", "hire_date >= '2018-01-01'")
	// The owner of the database is not a filter.
	askWant(t, hr, "How many departments does the company have?", "COUNT(*)", "FROM departments")
	// "current": the membership table (departments), not the salary
	// history, says who is employed.
	askWant(t, hr, "How many people currently work here?", "dept_emp", "9999-01-01")

	// Two tables of people: "people" is ambiguous and refused.
	campus := testIndex(t, evalDBPlanner(t, "campus"))
	if ts := campus.personTables(); len(ts) < 2 {
		t.Errorf("campus: person tables %d, want several", len(ts))
	}
	if b, _ := evalDBPlanner(t, "campus").p.Answer(context.Background(), "How many people are there?"); b.SQL != "" {
		t.Errorf("campus has several tables of people, yet \"people\" was answered: %s", b.SQL)
	}
}

func TestNullableDateAsVerb(t *testing.T) {
	health := evalDBPlanner(t, "health")
	askWant(t, health, "How many patients had died?", "DEATHDATE IS NOT NULL")
	// "died" alone is the death date, not DRIVERS (whose letters it
	// holds in order: an English word is no abbreviation).
	askWant(t, health, "How many patients died?", "DEATHDATE IS NOT NULL")
	askWant(t, health, "How many patients have not died?", "DEATHDATE IS NULL")
	// A modifier is not a verb: the sample's "shipping cost" is not
	// "shipped".
	askBut(t, samplePlanner(t), []string{"IS NOT NULL"}, "What is the average shipping cost per order?")
}

func TestMonthWithoutYear(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	// The snapshot is 2025-08-15: "June" is June 2025.
	askWant(t, air, "How many flights were scheduled in June?", "'2025-06-01'", "'2025-07-01'")
}

func TestPluralColumnBeforeItsTable(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	askWant(t, air, "List the cities our airports are in", "SELECT DISTINCT", "city", "FROM airports")
}

// "from X to Y" fills the two roles of a pair of columns that point at
// the same table; "to X" alone fills the arrival role.
func TestDirectionPairs(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	askWant(t, air, "How many flights went from BOS to ORD?", "departure_airport = 'BOS'", "arrival_airport = 'ORD'")
	askBut(t, air, []string{"departure_airport"}, "How many flights go to Boston?",
		"arrival_airport IN (SELECT airports.airport_code FROM airports WHERE airports.city = 'Boston')")
	// Flights are listed by their flight number.
	askWant(t, air, "Show the flights from Boston to Denver on July 3rd 2025", "SELECT flight_no")
	// Two values of one column joined by "to" are not alternatives.
	if b, _ := air.p.Answer(context.Background(), "How many flights are delayed to cancelled?"); b.SQL != "" {
		t.Errorf("read two statuses joined by \"to\" as either: %s", b.SQL)
	}
}

// A person's name found in two tables of people is asked about, with
// both readings offered; naming the table decides, for the whole name.
func TestPersonNameInTwoTables(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	// A name a student and an instructor share, from the data.
	r, err := query.Collect(context.Background(), campus.d, "SELECT s.nameFirst, s.nameLast FROM Students s JOIN Instructors i "+
		"ON i.nameFirst = s.nameFirst AND i.nameLast = s.nameLast ORDER BY 1, 2 LIMIT 1", query.Options{})
	if err != nil || r.RowCount != 1 {
		t.Fatalf("no shared name: %v", err)
	}
	first, last := r.Rows[0][0].(string), r.Rows[0][1].(string)
	name := first + " " + last
	b, err := campus.p.Answer(context.Background(), "How many courses did "+name+" take?")
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != answer.StatusClarify || b.Clarification == nil || len(b.Clarification.Options) != 2 || !strings.Contains(b.Answer, name) {
		t.Fatalf("status %s: %s (%+v)", b.Status, b.Answer, b.Clarification)
	}
	q := "How many courses did student " + name + " take?"
	wantAll(t, q, askSQL(t, campus, q), "Students.nameFirst = '"+first+"'", "Students.nameLast = '"+last+"'")
}

// A verb that names a date column, followed by a time range, is the event
// that date records, not the status value spelled like it.
func TestEventVerbOverStatus(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	askBut(t, campus, []string{"enrollStatus"}, "How many students graduated in 2021?", "gradYear >= 2021", "gradYear < 2022")
	// Without a range the status is what the question asks about.
	askWant(t, campus, "How many students graduated?", "enrollStatus = 'graduated'")
}

// The parts of a composite key are what they hold (a title, a start
// date), and a table of repeated values (a title history) lists and
// counts its distinct values.
func TestCompositeKeyPartsAndValueTables(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	ix := testIndex(t, hr)
	titles := ix.s.byName["titles"]
	if c := titles.col("from_date"); c == nil || c.kind != kindDate {
		t.Errorf("titles.from_date: %+v, want a date", c)
	}
	if c := titles.col("title"); c == nil || c.kind != kindText || titles.valueColumn() != c {
		t.Errorf("titles.title: %+v, want the table's value column", c)
	}
	if ix.s.byName["employees"].valueColumn() != nil {
		t.Error("employees (one row per person) read as a table of values")
	}
	askWant(t, hr, "How many distinct titles are there?", "COUNT(DISTINCT title)")
	askWant(t, hr, "List all titles", "SELECT DISTINCT title FROM titles")
}

// A value named in the plural after a listing word is what is listed:
// the rows that hold it, or the people whose history it is; "currently"
// applies to the membership the joins pass through as well.
func TestListHoldersOfAValue(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	q := "Show the assistant engineers currently in the Marketing department"
	sql := askSQL(t, hr, q)
	wantAll(t, q, sql, "SELECT employees.first_name, employees.last_name FROM employees", "titles.title = 'Assistant Engineer'",
		"titles.to_date = '9999-01-01'", "departments.dept_name = 'Marketing'", "dept_emp.to_date = '9999-01-01'")
}

// A number kept as a history of periods (a salary per period, the last
// one open until a far-future date) is its current value unless the
// question asks for the history.
func TestHistoryMeasureIsCurrent(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "What is the total salary of senior staff?", "SUM(salaries.salary)", "salaries.to_date = '9999-01-01'", "titles.to_date = '9999-01-01'")
	askBut(t, hr, []string{"9999"}, "What is the lowest salary ever?")
}

// A length of time measured per period falls where the rows' periods
// start; a count of rows per period goes by the table's main date.
func TestDurationByPeriodStart(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "Sum of leave days per month", "strftime('%Y-%m', start_date)", "SUM(days)")
	askBut(t, hr, []string{"start_date"}, "Number of leave requests per month")
}

// "How many X were <event> in <range>" counts the events when an event
// table records what happened to X; people stay people.
func TestPassiveEventCount(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	askBut(t, campus, []string{"FROM Textbooks"}, "How many textbooks were rented in October 2024?", "COUNT(*)", "FROM TextbookRentals", "rentedOn >= '2024-10-01'")
}

// Lahman-style names: an integer yearID holding years is a year; a
// trailing Code or Flag only says what kind of column it is (termCode
// names a term); a table of facts about people shows the person.
func TestLahmanStyleNames(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	ix := testIndex(t, campus)
	if c := ix.s.byName["enrollments"].col("yearID"); c == nil || c.kind != kindDate || !c.intYear {
		t.Errorf("Enrollments.yearID: %+v, want an integer year", c)
	}
	if c := ix.s.byName["students"].col("studentID"); c == nil || c.kind == kindDate {
		t.Errorf("Students.studentID read as a date")
	}
	askWant(t, campus, "Number of offerings per term in 2022", "GROUP BY termCode", "yearID >= 2022")
	askWant(t, campus, "Top 5 athletes by games started in 2021", "Students.nameFirst", "Students.nameLast", "GS", "ORDER BY Athletes.GS DESC")
}

// "does the college offer": the owner of the database and its verb, even
// when a column is named like the owner; "math 121" is the code MATH121;
// a letter grade is averaged as the points kept next to it.
func TestOwnerCodesAndTwins(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	askBut(t, campus, []string{"college"}, "How many courses does the college offer?", "COUNT(*)", "FROM Courses")
	askWant(t, campus, "How many enrollments were there in math 121?", "'MATH121'")
	askWant(t, campus, "What is the average grade of students in 2023?", "AVG(Enrollments.gradePts)")
}

func TestParseGloss(t *testing.T) {
	got := parseGloss("A..F, W = withdrew; NULL while the term is in progress")
	if len(got) != 1 || got[0].code != "W" || len(got[0].words) != 1 || got[0].words[0] != stem("withdrew") {
		t.Errorf("grade gloss: %+v", got)
	}
	got = parseGloss("1 approved, 0 refused")
	if len(got) != 2 || got[0].code != "1" || got[1].code != "0" || got[1].words[0] != stem("refused") {
		t.Errorf("flag gloss: %+v", got)
	}
	for _, c := range []string{"LECT, ASST, ASSOC, PROF", "maximum range, km", "Y or N", ""} {
		if got := parseGloss(c); len(got) != 0 {
			t.Errorf("%q: glossed %+v", c, got)
		}
	}
}

// Words a comment gives to codes, synonyms of values, and term codes
// before a year link to the codes; a value named after "how many" or
// "who" says which rows are counted or listed.
func TestWordsForCodes(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "How many vacation requests were denied?", "approved = 0", "leave_type = 'vacation'")
	askWant(t, hr, "How many women work in Marketing?", "FROM employees", "gender = 'F'", "dept_name = 'Marketing'")
	campus := evalDBPlanner(t, "campus")
	q := "Who withdrew from MATH121 in spring 2022?"
	askWant(t, campus, q, "SELECT Students.nameFirst, Students.nameLast FROM Enrollments", "grade = 'W'", "termCode = 'SP'", "yearID >= 2022")
	// A word that only starts like a code is not that code.
	q = "How many students come from Texas?"
	if b, _ := campus.p.Answer(context.Background(), q); strings.Contains(b.SQL, "'TX'") {
		t.Errorf("%q: read a state's name as its code without a reason: %s", q, b.SQL)
	}
}

// A long value is named by its telling words ("type 2 diabetes",
// a drug's name, "cardiologists" for cardiology, "flu" for influenza);
// common words and plural class names are not.
func TestPartialValues(t *testing.T) {
	health := evalDBPlanner(t, "health")
	askWant(t, health, "How many patients had type 2 diabetes?", "'Diabetes mellitus type 2 (disorder)'")
	askWant(t, health, "How many patients took naproxen?", "'Naproxen sodium 220 MG Oral Tablet'")
	askWant(t, health, "How many cardiologists are there?", "FROM providers", "SPECIALITY = 'CARDIOLOGY'")
	askWant(t, health, "How many flu vaccinations were given in 2020?", "'Influenza, seasonal, injectable, preservative free'")
	// Neither a class named in the plural nor a word of the language in
	// a long list of names is one of the names.
	if b, _ := health.p.Answer(context.Background(), "Which cities are our clinics in?"); strings.Contains(b.SQL, "NAME =") || strings.Contains(b.SQL, "NAME IN") {
		t.Errorf("read \"clinics\" as named clinics: %s", b.SQL)
	}
	s := samplePlanner(t)
	if b, _ := s.p.Answer(context.Background(), "How many reviews were written in German?"); b.SQL != "" {
		t.Errorf("read the language as the country: %s", b.SQL)
	}
}

// A word of the language is no typing error for a longer word ("late"
// is not "later"); a listing word may end a name ("the Dean's List"); a
// text …ID in a composite key is a code; "how many awards" counts the
// rows of a table named after them.
func TestWordsThatLookLikeOthers(t *testing.T) {
	s := samplePlanner(t)
	ix := testIndex(t, s)
	if got := ix.correct(tokenize("late orders")); got[0].low != "late" {
		t.Errorf("corrected late to %q", got[0].low)
	}
	campus := evalDBPlanner(t, "campus")
	askWant(t, campus, "How many Dean's List awards were given in 2022?", "FROM AwardsStudents", "awardID = 'Dean''s List'", "COUNT(*)")
	askWant(t, campus, "How many awards were given per year?", "COUNT(*)", "FROM AwardsStudents", "GROUP BY year")
}

// Negated existence: the rows with no row of a child table pointing at
// them (meeting the negated conditions), through the key a word names
// when there are two.
func TestAntiJoins(t *testing.T) {
	s := samplePlanner(t)
	askWant(t, s, "How many customers have never placed an order?", "customers.customer_id NOT IN (SELECT orders.customer_id FROM orders WHERE orders.customer_id IS NOT NULL)")
	air := evalDBPlanner(t, "airlines")
	askWant(t, air, "Which airports have no arriving flights?", "NOT IN (SELECT flights.arrival_airport FROM flights")
	health := evalDBPlanner(t, "health")
	askWant(t, health, "How many patients have no immunizations?", "patients.Id NOT IN (SELECT immunizations.PATIENT FROM immunizations")
	// A negation and a condition on another linked row cannot be tied
	// to the same row: refused.
	if b, _ := air.p.Answer(context.Background(), "How many tickets on cancelled flights never got a boarding pass?"); b.SQL != "" {
		t.Errorf("answered a negation tied to a linked row: %s", b.SQL)
	}
}

// "fare class" names the short list of values in a column that starts
// with "fare"; a category noun after a value belongs to it; "what X are
// there" lists X; "X distribution" and "break down … by X" count per X.
func TestCategoriesAndDistributions(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	askWant(t, air, "How many ticket flights per fare class?", "GROUP BY fare_conditions")
	askWant(t, air, "How many seats are comfort class?", "FROM seats", "fare_conditions = 'Comfort'")
	health := evalDBPlanner(t, "health")
	askWant(t, health, "What encounter types are there?", "SELECT DISTINCT ENCOUNTERCLASS FROM encounters")
	askWant(t, health, "Gender distribution of providers", "GENDER, COUNT(*)", "FROM providers", "GROUP BY GENDER")
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "Break down leave requests by leave type", "leave_type, COUNT(*)", "GROUP BY leave_type")
}

// "the most common X", "the most <participle> X", "X given most often":
// how often, counted per what each row is for a table of events, or as
// the event rows the verb names; a number opening the question is how
// many rows to show.
func TestFrequencyRankings(t *testing.T) {
	health := evalDBPlanner(t, "health")
	askWant(t, health, "Top 4 most frequent immunizations", "FROM immunizations GROUP BY DESCRIPTION", "LIMIT 4")
	askWant(t, health, "3 organizations with the most providers", "COUNT(providers.Id)", "LIMIT 3")
	campus := evalDBPlanner(t, "campus")
	askWant(t, campus, "The 2 least rented textbooks", "COUNT(TextbookRentals.rentalID)", "ASC LIMIT 2")
	// A flag after "most" is the flag, not a frequency.
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "Who had the most approved leave days in 2021?", "approved = 1", "SUM(leave_requests.days)")
}

// A unit at the end of a column name is not its head noun (lateFeeUSD is
// a late fee, credHrs credits); an abbreviated unit is still that unit;
// a date of rows that only share a parent with the base does not place
// the base's rows in time.
func TestUnitSuffixesAndSidewaysDates(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	askWant(t, campus, "Which courses are worth 3 credits?", "credHrs = 3")
	askWant(t, campus, "What is the total of rental fees?", "SUM(feeUSD)")
	askWant(t, campus, "Average credit hours of MATH courses", "AVG(credHrs)", "'MATH'")
	askBut(t, campus, []string{"hireYear"}, "How many students started per year?", "entryYear")
}

// "Which month had the most …", "in what year did …": a count per
// period, the top one (and every one tied with it).
func TestWhichPeriod(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	askWant(t, air, "Which month had the fewest bookings?", "strftime('%Y-%m', book_date) AS month", "MIN(number_of_bookings)")
	health := evalDBPlanner(t, "health")
	askWant(t, health, "In what year were the most patients born?", "strftime('%Y', BIRTHDATE) AS year", "MAX(number_of_patients)")
}

// A route is the pair of columns naming an origin and a destination;
// rows are counted per route, or the rows of a table linking to it.
// Between two link tables, the declared one named after the two tables
// it links wins.
func TestRoutesAndLinkTables(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	askWant(t, air, "Which 4 routes have the most delayed flights?", "GROUP BY departure_airport, arrival_airport", "status = 'Delayed'", "LIMIT 4")
	askWant(t, air, "Top 2 routes by number of tickets", "FROM ticket_flights JOIN flights", "GROUP BY flights.departure_airport, flights.arrival_airport")
	ix := testIndex(t, air)
	if j := ix.s.junctionBetween(ix.s.byName["tickets"], ix.s.byName["flights"]); j == nil || j.name != "ticket_flights" {
		t.Errorf("link between tickets and flights: %v", j)
	}
	hr := testIndex(t, evalDBPlanner(t, "hr"))
	if j := hr.s.junctionBetween(hr.s.byName["employees"], hr.s.byName["departments"]); j == nil || j.name != "dept_emp" {
		t.Errorf("link between employees and departments: %v", j)
	}
}

// "more than one department", "at least 2 different providers": rows of
// the table linking the two, counted per row of the base (the different
// ones when asked); "one" after a comparison is a number.
func TestCountsThroughLinks(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "How many employees were in at least 2 departments?", "SELECT dept_emp.emp_no FROM dept_emp", "HAVING COUNT(*) >= 2")
	health := evalDBPlanner(t, "health")
	askWant(t, health, "How many patients saw fewer than 2 different providers?", "NOT IN (SELECT encounters.PATIENT FROM encounters", "HAVING COUNT(DISTINCT encounters.PROVIDER) >= 2")
	// A verb after the things counted is a condition, not a restatement.
	campus := evalDBPlanner(t, "campus")
	if b, _ := campus.p.Answer(context.Background(), "How many students passed more than one course?"); b.SQL != "" {
		t.Errorf("dropped \"passed\": %s", b.SQL)
	}
}

// A number measured per group across two histories of the same people
// (salaries per job title, per department) joins their current rows,
// one per person; asked over the whole history it would multiply rows
// and is refused.
func TestMeasuresAcrossCurrentHistories(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	q := "Total salary per department"
	wantAll(t, q, askSQL(t, hr, q), "SUM(salaries.salary)", "JOIN dept_emp", "salaries.to_date = '9999-01-01'",
		"dept_emp.to_date = '9999-01-01'", "GROUP BY departments.dept_no")
	askWant(t, hr, "Which 2 titles have the lowest average salary right now?", "AVG(salaries.salary)", "titles.to_date = '9999-01-01'", "ASC LIMIT 2")
	if b, _ := hr.p.Answer(context.Background(), "Total salary ever paid per department"); b.SQL != "" {
		t.Errorf("joined every period of two histories: %s", b.SQL)
	}
}

// A word that would ask for an explanation ("reason") names a column
// when the schema has one; a code is read as the description kept next
// to it; two measures named alike are asked about.
func TestReasonsCodesAndCloseMeasures(t *testing.T) {
	health := evalDBPlanner(t, "health")
	askWant(t, health, "What are the 3 most common reasons for inpatient encounters?", "REASONDESCRIPTION", "ENCOUNTERCLASS = 'inpatient'", "LIMIT 3")
	b, err := health.p.Answer(context.Background(), "What is the average cost of an urgentcare encounter?")
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != answer.StatusClarify || len(b.Clarification.Options) != 2 {
		t.Fatalf("two costs of a visit: status %s %q", b.Status, b.Answer)
	}
	for _, o := range b.Clarification.Options {
		if ob, _ := health.p.Answer(context.Background(), o); ob.Status != answer.StatusAnswered {
			t.Errorf("option %q: %s %s", o, ob.Status, ob.Answer)
		}
	}
	// "Why" still asks for causes.
	if b, _ := health.p.Answer(context.Background(), "Why do patients come back?"); b.Status != answer.StatusRefused {
		t.Errorf("answered a why: %s", b.SQL)
	}
}

// Integer columns named like moments whose values are plausible Unix
// seconds are dates: ranges compare seconds, buckets read them as dates;
// a large integer amount stays a number.
func TestUnixSecondsAreDates(t *testing.T) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created INTEGER NOT NULL, closed_at INTEGER);
CREATE TABLE payment (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES account(id), amount_cents INTEGER NOT NULL, paid_at INTEGER NOT NULL);
`)
	// 2023-01-01 is 1672531200; one account a week, one payment a day.
	for i := 0; i < 80; i++ {
		closed := "NULL"
		if i%4 == 0 {
			closed = fmt.Sprint(1672531200 + i*7*86400 + 30*86400)
		}
		fmt.Fprintf(&b, "INSERT INTO account VALUES (%d, 'acct %d', %d, %s);\n", i+1, i, 1672531200+i*7*86400, closed)
	}
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "INSERT INTO payment VALUES (%d, %d, %d, %d);\n", i+1, i%80+1, 150000000+i*1000, 1672531200+i*86400)
	}
	path := testdb.Build(t, "unix.db", b.String())
	d := testdb.Open(t, path)
	tp := &testPlanner{d: d, p: New(d)}
	ix := testIndex(t, tp)
	acct, pay := ix.s.byName["account"], ix.s.byName["payment"]
	if c := acct.col("created"); c.kind != kindDate || !c.unixTime || c.maxDate[:4] != "2024" {
		t.Errorf("account.created: kind %v unix %v max %q", c.kind, c.unixTime, c.maxDate)
	}
	if c := pay.col("amount_cents"); c.kind != kindNumber {
		t.Errorf("payment.amount_cents: kind %v, want a number", c.kind)
	}
	askWant(t, tp, "How many accounts were created in 2024?", "created >= 1704067200", "created < 1735689600")
	askWant(t, tp, "Number of payments per month", "strftime('%Y-%m', datetime(paid_at, 'unixepoch'))")
	askWant(t, tp, "How many accounts have been closed?", "closed_at IS NOT NULL")
}

// A price or amount named in words no column has is the one money column
// of the tables the question names, and the answer says so.
func TestDefaultMoneyColumn(t *testing.T) {
	air := evalDBPlanner(t, "airlines")
	q := "What is the total comfort fare?"
	b, err := air.p.Answer(context.Background(), q)
	if err != nil || b.SQL == "" {
		t.Fatalf("%q: %v %s", q, err, b.Answer)
	}
	wantAll(t, q, b.SQL, "SUM(amount)", "FROM ticket_flights", "fare_conditions = 'Comfort'")
	if !strings.Contains(b.Answer, "ticket_flights.amount") {
		t.Errorf("the answer does not say which column: %s", b.Answer)
	}
	// With two money columns in the tables named, no guess.
	health := evalDBPlanner(t, "health")
	if b, _ := health.p.Answer(context.Background(), "What is the average price of immunizations and medications?"); b.SQL != "" {
		t.Errorf("guessed among several money columns: %s", b.SQL)
	}
}

// A ranking without a number returns every row tied at the top, and the
// answer says they are tied; a single winner "has the most".
func TestTieSentences(t *testing.T) {
	hr := evalDBPlanner(t, "hr")
	tied, err := query.Collect(context.Background(), hr.d, "SELECT COUNT(*) FROM (SELECT dept_no FROM dept_manager GROUP BY dept_no "+
		"HAVING COUNT(*) = (SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM dept_manager GROUP BY dept_no)))", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := tied.Rows[0][0].(int64)
	b, err := hr.p.Answer(context.Background(), "Which department has had the most managers?")
	if err != nil || b.Status != answer.StatusAnswered {
		t.Fatalf("%v %s", err, b.Answer)
	}
	if int64(b.RowCount) != n {
		t.Fatalf("%d rows, want the %d tied departments: %s", b.RowCount, n, b.SQL)
	}
	if n > 1 && !strings.Contains(b.Answer, fmt.Sprintf("%d are tied for the most", n)) || n == 1 && !strings.Contains(b.Answer, "has the most") {
		t.Errorf("answer for %d at the top: %s", n, b.Answer)
	}
	// A single winner.
	b, err = hr.p.Answer(context.Background(), "Which department has the most employees?")
	if err != nil || b.RowCount != 1 || !strings.Contains(b.Answer, " has the most ") {
		t.Errorf("single winner: %v %d rows: %s", err, b.RowCount, b.Answer)
	}
}

// A single row at the bottom "has the fewest" of a plural noun, as the top
// one "has the most" and a tie at the bottom are: Chinook's tables are named
// in the singular (Track).
func TestFewestSentencePlural(t *testing.T) {
	tp := chinookPlanner(t)
	for q, want := range map[string]string{
		"Which genre has the most tracks?":        "Rock has the most tracks (1,297).",
		"Which genre has the fewest tracks?":      "Opera has the fewest tracks (1).",
		"Which media type has the fewest tracks?": "Purchased AAC audio file has the fewest tracks (7).",
	} {
		b, err := tp.p.Answer(context.Background(), q)
		if err != nil || b.Answer != want {
			t.Errorf("%q: %v %q, want %q", q, err, b.Answer, want)
		}
	}
}

// Typing errors are corrected against the words of the schema, the data
// and the planner's vocabulary — but not names, known words, irregular
// forms, nor a word two candidates are equally close to.
func TestTypoCorrection(t *testing.T) {
	ix := testIndex(t, samplePlanner(t))
	for in, want := range map[string]string{"custmers": "customers", "ordres": "orders", "befor": "before"} {
		if got := ix.correct(tokenize("x " + in))[1].low; got != want {
			t.Errorf("%q corrected to %q, want %q", in, got, want)
		}
	}
	// A misspelt name is corrected to the word of a value it is one
	// letter from; a name another one extends is not.
	campus := testIndex(t, evalDBPlanner(t, "campus"))
	if got := campus.correct(tokenize("students from Canda"))[2].low; got != "canada" {
		t.Errorf("Canda corrected to %q", got)
	}
	if got := ix.correct(tokenize("reviews in German"))[2].low; got != "german" {
		t.Errorf("German corrected to %q", got)
	}
	for _, in := range []string{"late", "died", "Smithe", "xyzzyq"} {
		if got := ix.correct(tokenize("x " + in))[1].low; got != strings.ToLower(in) {
			t.Errorf("%q corrected to %q", in, got)
		}
	}
}

// The data decides what a column is: a nearly unique text column names
// a table's rows, integers in a plausible range of years are years, and
// 0/1 integers are flags; a column of few repeated texts is neither.
func TestKindsFromData(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE gadget (gadget_id INTEGER PRIMARY KEY, model TEXT, colour TEXT, launched INTEGER, recalled INTEGER);\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO gadget VALUES (%d, 'Model %c%d', '%s', %d, %d);\n", i+1, 'A'+rune(i%26), i, []string{"red", "blue"}[i%2], 1990+i%30, i%3/2)
	}
	path := testdb.Build(t, "gadgets.db", b.String())
	d := testdb.Open(t, path)
	ix := testIndex(t, &testPlanner{d: d, p: New(d)})
	g := ix.s.byName["gadget"]
	if len(g.label) != 1 || g.label[0].name != "model" {
		t.Errorf("label %v, want model", g.label)
	}
	if c := g.col("launched"); c.kind != kindDate || !c.intYear {
		t.Errorf("launched: kind %v intYear %v, want a year", c.kind, c.intYear)
	}
	if c := g.col("recalled"); c.kind != kindBool {
		t.Errorf("recalled: kind %v, want a flag", c.kind)
	}
	if c := g.col("colour"); c.kind != kindText || c.distinct != 2 {
		t.Errorf("colour: kind %v distinct %d", c.kind, c.distinct)
	}
}

// A short reply to the planner's own question picks one of the readings
// it offered.
func TestReplyToClarification(t *testing.T) {
	campus := evalDBPlanner(t, "campus")
	r, err := query.Collect(context.Background(), campus.d, "SELECT s.nameFirst, s.nameLast FROM Students s JOIN Instructors i "+
		"ON i.nameFirst = s.nameFirst AND i.nameLast = s.nameLast ORDER BY 1, 2 LIMIT 1", query.Options{})
	if err != nil || r.RowCount != 1 {
		t.Fatalf("no shared name: %v", err)
	}
	q := "How many courses did " + r.Rows[0][0].(string) + " " + r.Rows[0][1].(string) + " take?"
	ctx := context.Background()
	first, err := campus.p.Answer(ctx, q)
	if err != nil || first.Status != answer.StatusClarify {
		t.Fatalf("%v %s %s", err, first.Status, first.Answer)
	}
	for reply, want := range map[string]int{"the first one": 0, "2": 1, "instructor": -1, "student": -1} {
		b, err := campus.p.AnswerAfter(ctx, nil, first, reply)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != answer.StatusAnswered {
			t.Errorf("reply %q: %s %s", reply, b.Status, b.Answer)
			continue
		}
		if want >= 0 && b.Question != first.Clarification.Options[want] {
			t.Errorf("reply %q answered %q, want %q", reply, b.Question, first.Clarification.Options[want])
		}
		if want < 0 && !strings.Contains(strings.ToLower(b.Question), reply) {
			t.Errorf("reply %q answered %q", reply, b.Question)
		}
	}
	// Anything else is a new question.
	if b, _ := campus.p.AnswerAfter(ctx, nil, first, "How many courses are there?"); b.Question != "How many courses are there?" || b.Status != answer.StatusAnswered {
		t.Errorf("new question after a clarification: %q %s", b.Question, b.Status)
	}
}

// Composite keys, declared or implied by a table holding every column of
// another's composite primary key, join on all their columns, from the
// child to the parent; two histories sharing a person and a start date
// do not reference each other.
func TestCompositeKeys(t *testing.T) {
	find := func(ix *index, from, to string) *fkEdge {
		for _, e := range ix.s.byName[from].out {
			if e.to.name == to && e.composite() {
				return e
			}
		}
		return nil
	}
	air := testIndex(t, evalDBPlanner(t, "airlines"))
	if e := find(air, "boarding_passes", "ticket_flights"); e == nil || len(e.more) != 1 {
		t.Errorf("declared boarding_passes → ticket_flights: %+v", e)
	}
	campus := evalDBPlanner(t, "campus")
	if e := find(testIndex(t, campus), "enrollments", "Offerings"); e == nil || len(e.more) != 2 {
		t.Errorf("implied Enrollments → Offerings: %+v", e)
	}
	if e := find(testIndex(t, evalDBPlanner(t, "hr")), "titles", "salaries"); e != nil {
		t.Errorf("titles → salaries inferred from emp_no and from_date")
	}
	askWant(t, campus, "How many enrollments did offerings with a cap over 40 have?", "JOIN Offerings ON Offerings.courseID = Enrollments.courseID AND Offerings.yearID = Enrollments.yearID AND Offerings.termCode = Enrollments.termCode")
}

// "the type of leave" is the leave type; a kind named before "most
// often" is what is ranked.
func TestCategoryOfAndKindRankings(t *testing.T) {
	if got := categoryOf(tokenize("which kinds of rooms")); len(got) != 3 || got[1].low != "rooms" || got[2].low != "kinds" {
		t.Errorf("categoryOf: %v", got)
	}
	hr := evalDBPlanner(t, "hr")
	askWant(t, hr, "What type of leave was requested least often?", "GROUP BY leave_type", "MIN(number_of_leave_requests)")
}

// "sorted by X": X is a column of the listed table or of one it links to
// (an order's customer), never of a table that links to it (a
// customer's orders, many per row).
func TestSortedBy(t *testing.T) {
	sample := samplePlanner(t)
	askWant(t, sample, "List the products sorted by unit price", "FROM products", "ORDER BY unit_price ASC")
	askWant(t, sample, "List the orders sorted by customer name descending", "JOIN customers ON customers.customer_id = orders.customer_id", "ORDER BY customers.name DESC")
	for _, q := range []string{"List the customers sorted by order date", "List the countries sorted by customer name"} {
		b, err := sample.p.Answer(context.Background(), q)
		if err != nil || b.SQL != "" || !strings.Contains(b.Answer, "to sort by it") {
			t.Errorf("%q: want a refusal that cannot connect the sort column; got SQL %q, answer %q, err %v", q, b.SQL, b.Answer, err)
		}
	}
}
