package evaldb

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// campus is a college registry written in the habits of the Lahman
// baseball database: PascalCase tables, camelCase and abbreviated columns,
// Lahman-style person ids ("garcima01"), an integer yearID with a termCode
// ('SP', 'SU', 'FA'), 'Y'/'N' flags and one- and two-letter stat columns.
// No foreign key is declared: tables join on same-named columns. The
// snapshot is taken on 2024-11-15, during the fall 2024 term, whose grades
// are not in yet (NULL) and whose rentals are still out.
var campusSchema = []string{
	`CREATE TABLE Depts (
  deptCode TEXT NOT NULL PRIMARY KEY,
  deptName TEXT NOT NULL,
  college  TEXT NOT NULL
)`,
	`CREATE TABLE Instructors (
  instructorID TEXT NOT NULL PRIMARY KEY,
  nameFirst    TEXT,
  nameLast     TEXT,
  deptCode     TEXT,
  rankCode     TEXT, -- LECT, ASST, ASSOC, PROF
  hireYear     INTEGER,
  tenuredFlag  TEXT -- Y or N
)`,
	`CREATE TABLE Students (
  studentID       TEXT NOT NULL PRIMARY KEY,
  nameFirst       TEXT,
  nameLast        TEXT,
  birthDate       TEXT,
  birthCountry    TEXT,
  birthState      TEXT,
  deptCode        TEXT, -- major
  entryYear       INTEGER,
  gradYear        INTEGER,
  enrollStatus    TEXT, -- active, on leave, graduated, withdrawn
  scholarshipFlag TEXT -- Y or N
)`,
	`CREATE TABLE Courses (
  courseID TEXT NOT NULL PRIMARY KEY,
  deptCode TEXT,
  title    TEXT,
  credHrs  INTEGER,
  lvl      INTEGER
)`,
	`CREATE TABLE Offerings (
  courseID     TEXT    NOT NULL,
  yearID       INTEGER NOT NULL,
  termCode     TEXT    NOT NULL, -- SP, SU, FA
  instructorID TEXT,
  cap          INTEGER,
  PRIMARY KEY (courseID, yearID, termCode)
)`,
	`CREATE TABLE Enrollments (
  studentID TEXT    NOT NULL,
  courseID  TEXT    NOT NULL,
  yearID    INTEGER NOT NULL,
  termCode  TEXT    NOT NULL,
  grade     TEXT, -- A..F, W = withdrew; NULL while the term is in progress
  gradePts  REAL,
  PRIMARY KEY (studentID, courseID, yearID, termCode)
)`,
	`CREATE TABLE Textbooks (
  isbn     TEXT NOT NULL PRIMARY KEY,
  title    TEXT,
  courseID TEXT,
  priceUSD REAL
)`,
	`CREATE TABLE TextbookRentals (
  rentalID   INTEGER NOT NULL PRIMARY KEY,
  studentID  TEXT,
  isbn       TEXT,
  rentedOn   TEXT,
  dueOn      TEXT,
  returnedOn TEXT,
  feeUSD     REAL,
  lateFeeUSD REAL
)`,
	`CREATE TABLE Sports (
  sportCode TEXT NOT NULL PRIMARY KEY,
  sportName TEXT,
  season    TEXT
)`,
	`CREATE TABLE Athletes (
  studentID TEXT    NOT NULL,
  yearID    INTEGER NOT NULL,
  sportCode TEXT    NOT NULL,
  G         INTEGER, -- games played
  GS        INTEGER, -- games started
  PTS       INTEGER, -- points scored
  PRIMARY KEY (studentID, yearID, sportCode)
)`,
	`CREATE TABLE AwardsStudents (
  studentID TEXT    NOT NULL,
  awardID   TEXT    NOT NULL,
  yearID    INTEGER NOT NULL,
  termCode  TEXT    NOT NULL,
  PRIMARY KEY (studentID, awardID, yearID, termCode)
)`,
}

var campusDepts = []struct {
	code, name, college string
	weight              int
	courses             []string // "101 Title/credits"
}{
	{"CS", "Computer Science", "Engineering", 16, []string{"101 Introduction to Programming/4", "102 Data Structures/4", "201 Discrete Structures/3", "210 Computer Organization/3", "301 Algorithms/3", "310 Operating Systems/3", "320 Databases/3", "330 Computer Networks/3", "410 Machine Learning/3", "490 Senior Capstone/3"}},
	{"MATH", "Mathematics", "Sciences", 6, []string{"101 College Algebra/3", "121 Calculus I/4", "122 Calculus II/4", "221 Calculus III/4", "231 Linear Algebra/3", "241 Statistics/3", "301 Real Analysis/3", "311 Abstract Algebra/3", "341 Probability/3", "451 Numerical Methods/3"}},
	{"PHYS", "Physics", "Sciences", 3, []string{"101 Conceptual Physics/3", "121 Physics I: Mechanics/4", "122 Physics II: Electricity and Magnetism/4", "201 Modern Physics/3", "231 Optics/3", "301 Classical Mechanics/3", "311 Electrodynamics/3", "321 Quantum Mechanics/3", "341 Thermal Physics/3", "401 Senior Lab/1"}},
	{"CHEM", "Chemistry", "Sciences", 5, []string{"101 General Chemistry I/4", "102 General Chemistry II/4", "201 Organic Chemistry I/4", "202 Organic Chemistry II/4", "231 Analytical Chemistry/3", "301 Physical Chemistry/3", "311 Biochemistry/3", "321 Inorganic Chemistry/3", "341 Instrumental Analysis/3", "401 Research Seminar/1"}},
	{"BIO", "Biology", "Sciences", 12, []string{"101 Principles of Biology/4", "102 Organismal Biology/4", "201 Genetics/3", "211 Cell Biology/3", "221 Ecology/3", "301 Microbiology/4", "311 Physiology/3", "321 Evolution/3", "331 Neuroscience/3", "401 Bioinformatics/3"}},
	{"ECON", "Economics", "Social Sciences", 10, []string{"101 Principles of Microeconomics/3", "102 Principles of Macroeconomics/3", "201 Intermediate Microeconomics/3", "202 Intermediate Macroeconomics/3", "231 Econometrics/3", "301 Game Theory/3", "311 Labor Economics/3", "321 International Trade/3", "331 Public Finance/3", "401 Senior Thesis/3"}},
	{"PSYC", "Psychology", "Social Sciences", 13, []string{"101 Introduction to Psychology/3", "201 Research Methods/3", "211 Developmental Psychology/3", "221 Social Psychology/3", "231 Cognitive Psychology/3", "301 Abnormal Psychology/3", "311 Biopsychology/3", "321 Personality/3", "331 Health Psychology/3", "401 Senior Seminar/1"}},
	{"HIST", "History", "Humanities", 5, []string{"101 World History to 1500/3", "102 World History since 1500/3", "201 American History I/3", "202 American History II/3", "221 Medieval Europe/3", "231 History of China/3", "301 The Cold War/3", "311 History of Science/3", "321 Latin America since 1800/3", "401 Historiography/3"}},
	{"ENGL", "English", "Humanities", 6, []string{"101 College Writing/3", "102 Writing and Research/3", "201 Introduction to Literature/3", "211 Shakespeare/3", "221 American Literature/3", "231 British Literature/3", "301 Creative Writing/3", "311 The Novel/3", "321 Poetry Workshop/3", "401 Senior Seminar/1"}},
	{"PHIL", "Philosophy", "Humanities", 2, []string{"101 Introduction to Philosophy/3", "102 Logic/3", "201 Ethics/3", "211 Ancient Philosophy/3", "221 Modern Philosophy/3", "301 Philosophy of Mind/3", "311 Political Philosophy/3", "321 Philosophy of Science/3", "331 Epistemology/3", "401 Senior Seminar/1"}},
	{"ART", "Art and Design", "Arts", 4, []string{"101 Drawing I/3", "102 Design Foundations/3", "201 Painting/3", "211 Photography/3", "221 Sculpture/3", "231 Art History Survey/3", "301 Printmaking/3", "311 Digital Media/3", "321 Ceramics/3", "401 Studio Capstone/3"}},
	{"MUS", "Music", "Arts", 3, []string{"101 Music Theory I/3", "102 Music Theory II/3", "111 Music Appreciation/3", "201 Ear Training/1", "211 Music History I/3", "221 Choir/1", "231 Orchestra/1", "301 Composition/3", "311 Jazz Improvisation/1", "401 Senior Recital/1"}},
}

var (
	gradeScale = []struct {
		grade string
		pts   float64
		above float64
	}{{"A", 4, 1.25}, {"A-", 3.7, 0.9}, {"B+", 3.3, 0.55}, {"B", 3, 0.2}, {"B-", 2.7, -0.1}, {"C+", 2.3, -0.4}, {"C", 2, -0.75}, {"C-", 1.7, -1.05}, {"D", 1, -1.45}, {"F", 0, -99}}
)

func termDates(y int, term string) (time.Time, time.Time) {
	switch term {
	case "SP":
		return date(y, 1, 15), date(y, 5, 9)
	case "SU":
		return date(y, 6, 2), date(y, 8, 8)
	}
	return date(y, 8, 26), date(y, 12, 13)
}

// lahmanID builds an id the way the Lahman database does: five letters of
// the last name, two of the first, and a two-digit counter.
func lahmanID(first, last string, seen map[string]int) string {
	clean := func(s string, n int) string {
		s = strings.ToLower(strings.NewReplacer("'", "", " ", "", "-", "").Replace(s))
		return s[:min(n, len(s))]
	}
	base := clean(last, 5) + clean(first, 2)
	seen[base]++
	return fmt.Sprintf("%s%02d", base, seen[base])
}

type offering struct {
	instructor string
	cap, taken int
}

func buildCampus(b *builder) {
	r := newRNG(1871)
	b.exec(campusSchema...)
	seen := map[string]int{}
	type course struct {
		id, dept string
		lvl      int
		credits  int
		book     string
		price    float64
	}
	var courses []course
	instructors := map[string][]string{}
	deptWeights := make([]int, len(campusDepts))
	for di, d := range campusDepts {
		deptWeights[di] = d.weight
		b.insert("Depts", d.code, d.name, d.college)
		for range 5 + r.IntN(4) {
			_, first, last := r.person(0.55)
			id := lahmanID(first, last, seen)
			rank := []string{"LECT", "ASST", "ASSOC", "PROF"}[r.weighted([]int{2, 3, 3, 3})]
			hire := map[string]int{"LECT": r.between(2010, 2023), "ASST": r.between(2016, 2023), "ASSOC": r.between(2004, 2017), "PROF": r.between(1985, 2010)}[rank]
			tenured := "N"
			if rank == "PROF" || (rank == "ASSOC" && r.chance(0.9)) {
				tenured = "Y"
			}
			b.insert("Instructors", id, first, last, d.code, rank, hire, tenured)
			instructors[d.code] = append(instructors[d.code], id)
		}
		for _, c := range d.courses {
			num, rest, _ := strings.Cut(c, " ")
			title, cr, _ := strings.Cut(rest, "/")
			var lvl, credits int
			fmt.Sscan(num[:1], &lvl)
			fmt.Sscan(cr, &credits)
			id := d.code + num
			b.insert("Courses", id, d.code, title, credits, lvl*100)
			cs := course{id: id, dept: d.code, lvl: lvl, credits: credits}
			if credits > 1 && r.chance(0.65) {
				cs.book = fmt.Sprintf("978%d%09d", r.between(0, 1), r.IntN(1_000_000_000))
				cs.price = float64(r.between(45, 260)) - 0.01
				b.insert("Textbooks", cs.book, title+": "+pick(r, []string{"A Modern Approach", "Principles and Practice", "Concepts and Applications", "An Introduction", "Foundations"}), id, cs.price)
			}
			courses = append(courses, cs)
		}
	}

	// Offerings: 100-level courses every spring and fall, the rest once a
	// year; a few introductions in summer.
	type slot struct {
		course string
		year   int
		term   string
	}
	offered := map[slot]*offering{}
	key := func(course string, y int, term string) slot { return slot{course, y, term} }
	summer := map[string]bool{"CS101": true, "MATH121": true, "ENGL101": true, "PSYC101": true, "ECON101": true, "HIST101": true}
	for y := 2016; y <= 2024; y++ {
		for _, term := range []string{"SP", "SU", "FA"} {
			if y == 2016 && term != "FA" {
				continue
			}
			for ci, c := range courses {
				run := false
				switch {
				case term == "SU":
					run = summer[c.id]
				case c.lvl == 1:
					run = true
				default:
					run = (ci%2 == 0) == (term == "FA")
				}
				if !run {
					continue
				}
				who := pick(r, instructors[c.dept])
				if r.chance(0.04) {
					who = pick(r, instructors[pick(r, campusDepts).code])
				}
				o := &offering{instructor: who, cap: []int{0, 140, 60, 40, 30}[c.lvl]}
				if term == "SU" {
					o.cap = 35
				}
				offered[key(c.id, y, term)] = o
				b.insert("Offerings", c.id, y, term, who, o.cap)
			}
		}
	}

	countries := []string{"India", "China", "Canada", "South Korea", "Mexico", "Nigeria", "Vietnam", "Brazil", "Germany"}
	states := []string{"OH", "OH", "OH", "OH", "PA", "PA", "MI", "IN", "IL", "NY", "KY", "WV", "CA", "TX", "FL"}
	sports := []struct{ code, name, season string }{
		{"BSK", "Basketball", "winter"}, {"SOC", "Soccer", "fall"}, {"VB", "Volleyball", "fall"},
		{"BSB", "Baseball", "spring"}, {"SWM", "Swimming", "winter"}, {"TRK", "Track and Field", "spring"},
	}
	for _, s := range sports {
		b.insert("Sports", s.code, s.name, s.season)
	}
	rental := 1
	for range 1400 {
		entry := 2016 + r.weighted([]int{128, 131, 142, 150, 118, 149, 162, 171, 180})
		_, first, last := r.person(0.47)
		id := lahmanID(first, last, seen)
		country, state := "USA", any(pick(r, states))
		if r.chance(0.14) {
			country, state = countries[r.weighted([]int{30, 25, 12, 10, 8, 6, 5, 2, 2})], nil
		}
		major := campusDepts[r.weighted(deptWeights)].code
		ability := r.NormFloat64()
		// Path through the terms: graduate after 4 (or 5) years, or leave.
		termsLeft := 1 << 30
		switch {
		case ability < -0.8 && r.chance(0.45):
			termsLeft = r.between(1, 5)
		case r.chance(0.05):
			termsLeft = r.between(2, 6)
		}
		years := 4
		if r.chance(0.12) {
			years = 5
		}
		var gradYear any
		status := "active"
		var athlete string
		if r.chance(0.08) {
			athlete = pick(r, sports).code
		}
		y, term := entry, "FA"
		taken := map[string]bool{}
		n := 0
		for {
			if y > 2024 {
				break
			}
			if n >= termsLeft {
				status = "withdrawn"
				break
			}
			if y == entry+years && term == "FA" {
				status, gradYear = "graduated", entry+years
				break
			}
			start, end := termDates(y, term)
			current := y == 2024 && term == "FA"
			load := 0
			switch {
			case term == "SU" && r.chance(0.12):
				load = 1
			case term != "SU":
				load = []int{3, 4, 4, 4, 5}[r.IntN(5)]
			}
			year := n / 2 // 0 for first-year students
			var graded, pts float64
			var cands []course
			for _, c := range courses {
				o := offered[key(c.id, y, term)]
				if o == nil || taken[c.id] || o.taken >= o.cap {
					continue
				}
				w := 1
				switch {
				case c.dept == major && c.lvl <= year+1:
					w = 12
				case c.dept != major && c.lvl <= 2:
					w = 2
				case c.dept != major:
					continue
				case c.lvl > year+2:
					continue
				}
				for range w {
					cands = append(cands, c)
				}
			}
			for k := 0; k < load && len(cands) > 0; k++ {
				c := pick(r, cands)
				cands = slices.DeleteFunc(cands, func(x course) bool { return x.id == c.id })
				taken[c.id] = true
				offered[key(c.id, y, term)].taken++
				var grade, gp any
				if !current {
					if r.chance(0.04) {
						grade = "W"
					} else {
						score := 0.6*ability + 0.8*r.NormFloat64() + 0.3
						for _, g := range gradeScale {
							if score > g.above {
								grade, gp = g.grade, g.pts
								graded += float64(c.credits)
								pts += g.pts * float64(c.credits)
								break
							}
						}
					}
				}
				b.insert("Enrollments", id, c.id, y, term, grade, gp)
				if c.book != "" && r.chance(0.35) {
					rented := days(start, r.IntN(11))
					var returned any
					late := 0.0
					switch {
					case current:
					case r.chance(0.04):
						late = c.price
					case r.chance(0.12):
						d := r.between(1, 40)
						returned, late = isoDate(days(end, d)), 0.5*float64(d)
					default:
						returned = isoDate(days(end, -r.IntN(15)))
					}
					b.insert("TextbookRentals", rental, id, c.book, isoDate(rented), isoDate(end), returned, money(c.price*0.35), late)
					rental++
				}
			}
			if graded >= 9 && !current {
				gpa := pts / graded
				if gpa >= 3.5 {
					b.insert("AwardsStudents", id, "Dean's List", y, term)
				}
				if gpa == 4 {
					b.insert("AwardsStudents", id, "President's List", y, term)
				}
			}
			if athlete != "" && term == "FA" {
				g := r.between(6, 30)
				gs := r.IntN(g + 1)
				pts := map[string]int{"BSK": 14, "SOC": 1, "VB": 9, "BSB": 2, "SWM": 4, "TRK": 3}[athlete]
				b.insert("Athletes", id, y, athlete, g, gs, int(float64(g*pts)*(0.3+r.Float64()*1.4+0.3*ability)))
			}
			if term != "SU" {
				n++
			}
			switch term {
			case "FA":
				y, term = y+1, "SP"
			case "SP":
				term = "SU"
			default:
				term = "FA"
			}
		}
		if status == "active" && r.chance(0.03) {
			status = "on leave"
		}
		scholarship := "N"
		if ability > 0.8 || r.chance(0.15) {
			scholarship = "Y"
		}
		bd := r.randomDay(date(entry-19, 9, 1), date(entry-18, 8, 31))
		b.insert("Students", id, first, last, isoDate(bd), country, state, major, entry, gradYear, status, scholarship)
	}
}
