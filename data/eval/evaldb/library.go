package evaldb

import (
	"fmt"
	"time"
)

// library follows the habits of Koha, the open-source library system:
// run-together lower-case column names (borrowernumber, dateenrolled,
// issuedate, homebranch), text codes as keys (branchcode, categorycode,
// itemtype), a reference named differently from the column it points at
// (items.homebranch → branches.branchcode), NULL returndate while a loan
// is out, a NULL debarred date unless a borrower is blocked, 0/1 flags
// (itemlost, withdrawn), an integer copyrightdate year, and a many-to-many
// between titles and subjects. The snapshot is 2025-03-31.
var librarySchema = []string{
	`CREATE TABLE branches (
  branchcode TEXT NOT NULL PRIMARY KEY,
  branchname TEXT NOT NULL UNIQUE,
  branchcity TEXT NOT NULL,
  branchphone TEXT
)`,
	`CREATE TABLE categories (
  categorycode TEXT    NOT NULL PRIMARY KEY,
  description  TEXT    NOT NULL,
  issuelimit   INTEGER NOT NULL,
  enrolmentfee REAL    NOT NULL
)`,
	`CREATE TABLE borrowers (
  borrowernumber INTEGER NOT NULL PRIMARY KEY,
  cardnumber     TEXT    NOT NULL UNIQUE,
  surname        TEXT    NOT NULL,
  firstname      TEXT    NOT NULL,
  dateofbirth    DATE,
  email          TEXT,
  city           TEXT    NOT NULL,
  categorycode   TEXT    NOT NULL REFERENCES categories (categorycode),
  branchcode     TEXT    NOT NULL REFERENCES branches (branchcode),
  dateenrolled   DATE    NOT NULL,
  dateexpiry     DATE    NOT NULL,
  debarred       DATE -- blocked until this day; NULL when not blocked
)`,
	`CREATE TABLE biblio (
  biblionumber  INTEGER NOT NULL PRIMARY KEY,
  title         TEXT    NOT NULL,
  author        TEXT    NOT NULL,
  publishercode TEXT    NOT NULL,
  copyrightdate INTEGER NOT NULL, -- year
  itemtype      TEXT    NOT NULL  -- BK, DVD, AUD, MAG
)`,
	`CREATE TABLE subjects (
  subjectid INTEGER NOT NULL PRIMARY KEY,
  subject   TEXT    NOT NULL UNIQUE
)`,
	`CREATE TABLE biblio_subjects (
  biblionumber INTEGER NOT NULL REFERENCES biblio (biblionumber),
  subjectid    INTEGER NOT NULL REFERENCES subjects (subjectid),
  PRIMARY KEY (biblionumber, subjectid)
)`,
	`CREATE TABLE items (
  itemnumber      INTEGER NOT NULL PRIMARY KEY,
  biblionumber    INTEGER NOT NULL REFERENCES biblio (biblionumber),
  barcode         TEXT    NOT NULL UNIQUE,
  homebranch      TEXT    NOT NULL REFERENCES branches (branchcode),
  dateaccessioned DATE    NOT NULL,
  price           REAL    NOT NULL,
  itemlost        INTEGER NOT NULL, -- 1 when reported lost
  withdrawn       INTEGER NOT NULL  -- 1 when taken out of circulation
)`,
	`CREATE TABLE issues (
  issue_id       INTEGER NOT NULL PRIMARY KEY,
  borrowernumber INTEGER NOT NULL REFERENCES borrowers (borrowernumber),
  itemnumber     INTEGER NOT NULL REFERENCES items (itemnumber),
  branchcode     TEXT    NOT NULL REFERENCES branches (branchcode),
  issuedate      TEXT    NOT NULL, -- YYYY-MM-DD HH:MM:SS
  date_due       DATE    NOT NULL,
  returndate     TEXT,             -- NULL while the item is out
  renewals       INTEGER NOT NULL
)`,
	`CREATE TABLE reserves (
  reserve_id       INTEGER NOT NULL PRIMARY KEY,
  borrowernumber   INTEGER NOT NULL REFERENCES borrowers (borrowernumber),
  biblionumber     INTEGER NOT NULL REFERENCES biblio (biblionumber),
  branchcode       TEXT    NOT NULL REFERENCES branches (branchcode),
  reservedate      DATE    NOT NULL,
  found            TEXT,  -- W waiting on the shelf, F fulfilled, NULL still queued
  cancellationdate DATE
)`,
	`CREATE TABLE accountlines (
  accountlines_id   INTEGER NOT NULL PRIMARY KEY,
  borrowernumber    INTEGER NOT NULL REFERENCES borrowers (borrowernumber),
  itemnumber        INTEGER REFERENCES items (itemnumber),
  date              DATE    NOT NULL,
  amount            REAL    NOT NULL,
  debit_type_code   TEXT    NOT NULL, -- OVERDUE, LOST, ACCOUNT, PROCESSING
  amountoutstanding REAL    NOT NULL
)`,
	`CREATE INDEX issues_borrower ON issues (borrowernumber)`,
	`CREATE INDEX issues_item ON issues (itemnumber)`,
}

var (
	libBranches = []struct{ code, name, city string }{
		{"CPL", "Centerville Public Library", "Centerville"},
		{"FFL", "Fairfield Library", "Fairfield"},
		{"MPL", "Midway Public Library", "Midway"},
		{"RPL", "Riverside Library", "Riverside"},
		{"SPL", "Springfield Library", "Springfield"},
		{"UPL", "Union Public Library", "Union"},
	}
	libCategories = []struct {
		code, desc string
		limit      int
		fee        float64
		weight     int
		ageLo      int
		ageHi      int
	}{
		{"AD", "Adult", 20, 0, 50, 18, 64},
		{"JU", "Juvenile", 10, 0, 18, 6, 17},
		{"ST", "Student", 15, 0, 14, 17, 26},
		{"SE", "Senior", 20, 0, 13, 65, 90},
		{"NR", "Non-resident", 10, 25, 5, 18, 80},
	}
	libSubjects = []string{"Fiction", "Mystery", "Science Fiction", "Fantasy", "Romance", "History", "Biography",
		"Science", "Cooking", "Travel", "Children", "Poetry", "Art", "Business", "Health"}
	libPublishers = []string{"Penguin", "HarperCollins", "Macmillan", "Hachette", "Simon & Schuster", "Scholastic",
		"Random House", "Bloomsbury"}
	libTitleA = []string{"The Silent", "A Distant", "The Last", "The Hidden", "Beyond the", "The Winter", "Songs of the",
		"The Lost", "Under the", "The Glass", "Return to the", "The Golden", "Letters from the", "The Midnight", "The Paper"}
	libTitleB = []string{"Garden", "River", "Harbor", "Mountain", "Library", "Orchard", "Kingdom", "Island", "Lighthouse",
		"Forest", "Station", "Bridge", "Archive", "Valley", "Compass", "Atlas", "Kitchen", "Voyage"}
	libSnapshot = date(2025, 3, 31)
)

func buildLibrary(b *builder) {
	r := newRNG(2025)
	b.exec(librarySchema...)
	branchW := []int{30, 15, 20, 12, 15, 8}
	for i, br := range libBranches {
		b.insert("branches", br.code, br.name, br.city, fmt.Sprintf("555-01%02d", 10+i))
	}
	catW := make([]int, len(libCategories))
	for i, c := range libCategories {
		b.insert("categories", c.code, c.desc, c.limit, c.fee)
		catW[i] = c.weight
	}
	for i, s := range libSubjects {
		b.insert("subjects", i+1, s)
	}

	// Borrowers enrolled 2015–2025; a card lasts three years and is renewed
	// by active borrowers.
	type borrower struct {
		no       int
		branch   int
		enrolled time.Time
		activity float64
	}
	var borrowers []borrower
	for i := range 900 {
		c := r.weighted(catW)
		cat := libCategories[c]
		_, first, last := r.person(0.5)
		enrolled := r.randomDay(date(2015, 1, 1), date(2025, 3, 1))
		age := r.between(cat.ageLo, cat.ageHi)
		birth := r.randomDay(date(enrolled.Year()-age-1, 1, 1), date(enrolled.Year()-age, 1, 1))
		var email any
		if r.chance(0.8) {
			email = fmt.Sprintf("%s.%s%d@example.org", lower(first), lower(last), i+1)
		}
		var dob any = isoDate(birth)
		if r.chance(0.04) {
			dob = nil
		}
		expiry := enrolled.AddDate(3, 0, 0)
		for expiry.Before(libSnapshot) && r.chance(0.7) {
			expiry = expiry.AddDate(3, 0, 0)
		}
		var debarred any
		if r.chance(0.05) {
			debarred = isoDate(r.randomDay(date(2025, 4, 1), date(2025, 12, 31)))
		}
		br := r.weighted(branchW)
		city := libBranches[br].city
		if r.chance(0.15) {
			city = pick(r, []string{"Lakeview", "Oakdale", "Greenville"})
		}
		bo := borrower{no: i + 1, branch: br, enrolled: enrolled, activity: 0.2 + 1.8*r.Float64()}
		if r.chance(0.12) {
			bo.activity = 0 // enrolled and never borrowed
		}
		borrowers = append(borrowers, bo)
		b.insert("borrowers", bo.no, fmt.Sprintf("2%07d", 3100+i*7), last, first, dob, email, city, cat.code,
			libBranches[br].code, isoDate(enrolled), isoDate(expiry), debarred)
	}

	// Titles and their subjects.
	types := []string{"BK", "DVD", "AUD", "MAG"}
	typeW := []int{70, 12, 10, 8}
	seen := map[string]bool{}
	type title struct {
		no, typ    int
		popularity float64
	}
	var titles []title
	for i := 0; len(titles) < 400; i++ {
		t := pick(r, libTitleA) + " " + pick(r, libTitleB)
		if seen[t] {
			t = fmt.Sprintf("%s, Vol. %d", t, 2+i%3)
			if seen[t] {
				continue
			}
		}
		seen[t] = true
		_, first, last := r.person(0.5)
		ti := title{no: len(titles) + 1, typ: r.weighted(typeW), popularity: 0.2 + r.Float64()*r.Float64()*4}
		titles = append(titles, ti)
		b.insert("biblio", ti.no, t, last+", "+first, pick(r, libPublishers), r.between(1965, 2024), types[ti.typ])
		first1 := r.IntN(len(libSubjects))
		b.insert("biblio_subjects", ti.no, first1+1)
		if r.chance(0.55) {
			s2 := r.IntN(len(libSubjects))
			if s2 != first1 {
				b.insert("biblio_subjects", ti.no, s2+1)
			}
		}
	}

	// Copies.
	type item struct {
		no, title, branch int
		added             time.Time
		price             float64
		lost, withdrawn   bool
	}
	var items []item
	for _, ti := range titles {
		n := 1 + r.weighted([]int{35, 35, 20, 10})
		for range n {
			it := item{no: len(items) + 1, title: ti.no, branch: r.weighted(branchW),
				added: r.randomDay(date(2012, 1, 1), date(2024, 12, 31))}
			switch types[ti.typ] {
			case "DVD":
				it.price = money(12 + r.Float64()*18)
			case "MAG":
				it.price = money(4 + r.Float64()*6)
			default:
				it.price = money(9 + r.Float64()*26)
			}
			it.lost = r.chance(0.025)
			it.withdrawn = !it.lost && r.chance(0.04)
			items = append(items, it)
			b.insert("items", it.no, it.title, fmt.Sprintf("3900%06d", 1000+it.no*3), libBranches[it.branch].code,
				isoDate(it.added), it.price, boolInt(it.lost), boolInt(it.withdrawn))
		}
	}

	// Loans 2022-01-01 … snapshot; items out at the snapshot have no
	// returndate. Overdue returns and lost items make fines.
	issueID, fineID := 1, 1
	itemsOf := map[int][]int{}
	for i, it := range items {
		itemsOf[it.title] = append(itemsOf[it.title], i)
	}
	popW := make([]int, len(titles))
	for i, ti := range titles {
		popW[i] = int(ti.popularity * 100)
	}
	start := date(2022, 1, 1)
	for d := start; !d.After(libSnapshot); d = days(d, 1) {
		n := r.between(8, 20)
		if d.Weekday() == time.Sunday {
			n = r.between(0, 3)
		}
		for range n {
			bo := borrowers[r.IntN(len(borrowers))]
			if bo.activity == 0 || bo.enrolled.After(d) || !r.chance(bo.activity/2) {
				continue
			}
			ti := titles[r.weighted(popW)]
			cands := itemsOf[ti.no]
			it := items[cands[r.IntN(len(cands))]]
			if it.added.After(d) || it.withdrawn {
				continue
			}
			loanDays := 21
			if types[ti.typ] == "DVD" || types[ti.typ] == "MAG" {
				loanDays = 7
			}
			issued := d.Add(time.Duration(9*3600+r.IntN(11*3600)) * time.Second)
			renewals := r.weighted([]int{70, 20, 10})
			due := days(d, loanDays*(1+renewals))
			kept := r.between(2, loanDays*(1+renewals)+3)
			if r.chance(0.12) {
				kept += r.between(4, 30)
			}
			var ret any
			back := days(d, kept)
			if !back.After(libSnapshot) && !(it.lost && r.chance(0.3)) {
				ret = isoDateTime(back.Add(time.Duration(10*3600+r.IntN(8*3600)) * time.Second))
			}
			loanBranch := it.branch
			if r.chance(0.2) {
				loanBranch = bo.branch
			}
			b.insert("issues", issueID, bo.no, it.no, libBranches[loanBranch].code, isoDateTime(issued), isoDate(due), ret, renewals)
			issueID++
			if late := int(back.Sub(due).Hours() / 24); ret != nil && late > 0 {
				amount := money(0.25 * float64(late))
				out := 0.0
				if r.chance(0.3) {
					out = amount
				}
				b.insert("accountlines", fineID, bo.no, it.no, isoDate(back), amount, "OVERDUE", out)
				fineID++
			}
		}
	}
	for _, it := range items {
		if it.lost {
			bo := borrowers[r.IntN(len(borrowers))]
			when := r.randomDay(date(2022, 2, 1), date(2025, 3, 15))
			out := 0.0
			if r.chance(0.5) {
				out = it.price
			}
			b.insert("accountlines", fineID, bo.no, it.no, isoDate(when), it.price, "LOST", out)
			fineID++
		}
	}
	for _, bo := range borrowers {
		if bo.enrolled.After(date(2022, 1, 1)) && r.chance(0.1) {
			b.insert("accountlines", fineID, bo.no, nil, isoDate(bo.enrolled), 2.5, "PROCESSING", 0.0)
			fineID++
		}
	}

	// Holds 2023 … snapshot.
	for i := range 1200 {
		bo := borrowers[r.IntN(len(borrowers))]
		ti := titles[r.weighted(popW)]
		when := r.randomDay(date(2023, 1, 1), libSnapshot)
		if bo.enrolled.After(when) {
			when = bo.enrolled
		}
		var found, cancelled any
		switch r.weighted([]int{70, 8, 12, 10}) {
		case 0:
			found = "F"
		case 1:
			found = "W"
		case 2:
			cancelled = isoDate(days(when, r.between(1, 40)))
		}
		b.insert("reserves", i+1, bo.no, ti.no, libBranches[bo.branch].code, isoDate(when), found, cancelled)
	}
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}
