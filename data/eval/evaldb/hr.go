package evaldb

import (
	"fmt"
	"math"
	"time"
)

// hrDeptSpan is the columns of dept_emp and dept_manager, which are alike
// as in MySQL's sample: an employee's time in a department, as one of its
// staff or as its manager.
const hrDeptSpan = ` (
  emp_no    INTEGER NOT NULL REFERENCES employees (emp_no),
  dept_no   CHAR(4) NOT NULL REFERENCES departments (dept_no),
  from_date DATE    NOT NULL,
  to_date   DATE    NOT NULL,
  PRIMARY KEY (emp_no, dept_no)
)`

// hr follows MySQL's "employees" sample: a current row has to_date
// '9999-01-01'; an employee who left has no current dept_emp row. The
// snapshot is taken on 2023-01-01. leave_requests is an addition with a
// 0/1 flag.
var hrSchema = []string{
	`CREATE TABLE departments (
  dept_no   CHAR(4)     NOT NULL PRIMARY KEY,
  dept_name VARCHAR(40) NOT NULL UNIQUE
)`,
	`CREATE TABLE employees (
  emp_no     INTEGER     NOT NULL PRIMARY KEY,
  birth_date DATE        NOT NULL,
  first_name VARCHAR(14) NOT NULL,
  last_name  VARCHAR(16) NOT NULL,
  gender     CHAR(1)     NOT NULL CHECK (gender IN ('M', 'F')),
  hire_date  DATE        NOT NULL
)`,
	`CREATE TABLE dept_emp` + hrDeptSpan,
	`CREATE TABLE dept_manager` + hrDeptSpan,
	`CREATE TABLE titles (
  emp_no    INTEGER     NOT NULL REFERENCES employees (emp_no),
  title     VARCHAR(50) NOT NULL,
  from_date DATE        NOT NULL,
  to_date   DATE,
  PRIMARY KEY (emp_no, title, from_date)
)`,
	`CREATE TABLE salaries (
  emp_no    INTEGER NOT NULL REFERENCES employees (emp_no),
  salary    INTEGER NOT NULL,
  from_date DATE    NOT NULL,
  to_date   DATE    NOT NULL,
  PRIMARY KEY (emp_no, from_date)
)`,
	`CREATE TABLE leave_requests (
  request_id   INTEGER NOT NULL PRIMARY KEY,
  emp_no       INTEGER NOT NULL REFERENCES employees (emp_no),
  leave_type   TEXT    NOT NULL, -- vacation, sick, parental, unpaid, bereavement
  requested_on DATE    NOT NULL,
  start_date   DATE    NOT NULL,
  end_date     DATE    NOT NULL,
  days         INTEGER NOT NULL,
  approved     INTEGER NOT NULL -- 1 approved, 0 refused
)`,
	`CREATE INDEX dept_emp_dept ON dept_emp (dept_no)`,
	`CREATE INDEX salaries_emp ON salaries (emp_no)`,
}

const hrCurrent = "9999-01-01"

var (
	hrDepts = []struct {
		no, name string
		weight   int
		eng      bool
	}{
		{"d001", "Marketing", 7, false},
		{"d002", "Finance", 6, false},
		{"d003", "Human Resources", 5, false},
		{"d004", "Production", 20, true},
		{"d005", "Development", 25, true},
		{"d006", "Quality Management", 7, true},
		{"d007", "Sales", 15, false},
		{"d008", "Research", 7, true},
		{"d009", "Customer Service", 8, false},
	}
	hrSnapshot = date(2023, 1, 1)
	hrEnd      = date(2022, 12, 31)
)

type hrEmp struct {
	no         int
	hire, left time.Time // left is zero while employed
	dept       []int     // department indexes in order
	moved      time.Time // when dept[1] starts
}

func (e hrEmp) end() time.Time {
	if e.left.IsZero() {
		return hrEnd
	}
	return e.left
}

// toDate is the to_date of a history row ending at t, or the current
// marker when t is the open end.
func (e hrEmp) toDate(t time.Time) string {
	if e.left.IsZero() && !t.Before(hrEnd) {
		return hrCurrent
	}
	return isoDate(t)
}

func buildHR(b *builder) {
	r := newRNG(1986)
	b.exec(hrSchema...)
	weights := make([]int, len(hrDepts))
	for i, d := range hrDepts {
		b.insert("departments", d.no, d.name)
		weights[i] = d.weight
	}
	var emps []hrEmp
	for i := range 1500 {
		// More hires in later years: year = 1986 + 36*sqrt(u).
		y := 1986 + int(36.99*math.Sqrt(r.Float64()))
		hire := r.randomDay(date(y, 1, 1), date(y, 12, 31))
		if hire.After(hrEnd) {
			hire = hrEnd
		}
		age := r.between(21, 45)
		birth := r.randomDay(date(hire.Year()-age-1, hire.Month(), 1), date(hire.Year()-age, hire.Month(), 1))
		gender, first, last := r.person(0.6)
		e := hrEmp{no: 10001 + i, hire: hire, dept: []int{r.weighted(weights)}}
		if span := int(hrEnd.Sub(hire).Hours() / 24); span > 400 && r.chance(0.28) {
			e.left = days(hire, r.between(180, span))
		}
		if span := int(e.end().Sub(hire).Hours() / 24); span > 800 && r.chance(0.12) {
			other := r.weighted(weights)
			for other == e.dept[0] {
				other = r.weighted(weights)
			}
			e.dept = append(e.dept, other)
			e.moved = days(hire, r.between(365, span-365))
		}
		emps = append(emps, e)
		b.insert("employees", e.no, isoDate(birth), first, last, gender, isoDate(hire))
		from := hire
		for k, d := range e.dept {
			to := e.end()
			if k+1 < len(e.dept) {
				to = e.moved
			}
			b.insert("dept_emp", e.no, hrDepts[d].no, isoDate(from), e.toDate(to))
			from = to
		}
		hrHistory(b, r, e)
	}
	hrManagers(b, r, emps)
	hrLeave(b, r, emps)
}

// hrHistory writes an employee's titles and yearly salaries.
func hrHistory(b *builder, r rng, e hrEmp) {
	eng := hrDepts[e.dept[0]].eng
	var ladder []string
	switch {
	case eng && r.chance(0.3):
		ladder = []string{"Assistant Engineer", "Engineer", "Senior Engineer", "Technique Leader"}
	case eng:
		ladder = []string{"Engineer", "Senior Engineer", "Technique Leader"}
	default:
		ladder = []string{"Staff", "Senior Staff"}
	}
	// Promotion dates: every 4–8 years; Technique Leader only for some.
	var promos []time.Time
	t := e.hire
	for k := 1; k < len(ladder); k++ {
		t = t.AddDate(r.between(4, 8), r.IntN(12), 0)
		if !t.Before(e.end()) || (ladder[k] == "Technique Leader" && !r.chance(0.3)) {
			break
		}
		promos = append(promos, t)
	}
	from := e.hire
	for k, p := range promos {
		b.insert("titles", e.no, ladder[k], isoDate(from), isoDate(p))
		from = p
	}
	b.insert("titles", e.no, ladder[len(promos)], isoDate(from), e.toDate(e.end()))

	base := map[string]int{"Assistant Engineer": 39000, "Engineer": 46000, "Staff": 41000}[ladder[0]]
	salary := float64(base+r.IntN(16000)) * (1 + 0.025*float64(e.hire.Year()-1986))
	for from := e.hire; from.Before(e.end()); {
		to := from.AddDate(1, 0, 0)
		if !to.Before(e.end()) {
			to = e.end()
		}
		b.insert("salaries", e.no, int(salary), isoDate(from), e.toDate(to))
		raise := 1 + float64(r.IntN(61))/1000
		for _, p := range promos {
			if !p.Before(to) && p.Before(to.AddDate(1, 0, 0)) {
				raise += 0.07
			}
		}
		salary *= raise
		from = to
	}
}

// hrManagers gives each department a chain of two to four managers drawn
// from its own staff; the last one is current.
func hrManagers(b *builder, r rng, emps []hrEmp) {
	for d := range hrDepts {
		var staff []hrEmp
		for _, e := range emps {
			if e.dept[0] == d && len(e.dept) == 1 && e.hire.Year() < 2000 {
				staff = append(staff, e)
			}
		}
		n := r.between(2, 4)
		from := date(1991, 1, 1).AddDate(0, r.IntN(24), r.IntN(28))
		used := map[int]bool{}
		for k := range n {
			var to time.Time
			if k+1 < n {
				to = from.AddDate(r.between(4, 9), r.IntN(12), 0)
			}
			var cand []hrEmp
			for _, e := range staff {
				if used[e.no] || e.hire.After(from) {
					continue
				}
				if (to.IsZero() && e.left.IsZero()) || (!to.IsZero() && e.end().After(to)) {
					cand = append(cand, e)
				}
			}
			if len(cand) == 0 {
				b.err = fmt.Errorf("hr: no manager candidate for %s in period %d", hrDepts[d].name, k)
				return
			}
			m := pick(r, cand)
			used[m.no] = true
			toS := hrCurrent
			if !to.IsZero() {
				toS = isoDate(to)
			}
			b.insert("dept_manager", m.no, hrDepts[d].no, isoDate(from), toS)
			from = to
		}
	}
}

// hrLeave writes leave requests for 2019–2022.
func hrLeave(b *builder, r rng, emps []hrEmp) {
	types := []struct {
		name       string
		weight     int
		lo, hi     int
		pApproved  float64
		noticeDays int
	}{
		{"vacation", 55, 1, 10, 0.88, 30},
		{"sick", 25, 1, 5, 0.97, 0},
		{"parental", 4, 20, 60, 0.95, 60},
		{"unpaid", 9, 1, 15, 0.6, 20},
		{"bereavement", 7, 1, 5, 1, 2},
	}
	w := make([]int, len(types))
	for i, t := range types {
		w[i] = t.weight
	}
	id := 1
	for y := 2019; y <= 2022; y++ {
		for _, e := range emps {
			from, to := date(y, 1, 1), date(y, 12, 31)
			if e.hire.After(from) {
				from = e.hire
			}
			if e.end().Before(to) {
				to = e.end()
			}
			if to.Sub(from).Hours() < 24*40 {
				continue
			}
			for range r.weighted([]int{20, 35, 30, 15}) {
				t := types[r.weighted(w)]
				n := r.between(t.lo, t.hi)
				if days(from, n).After(to) {
					continue
				}
				start := r.randomDay(from, days(to, -n))
				asked := days(start, -r.IntN(t.noticeDays+1))
				ok := 0
				if r.chance(t.pApproved) {
					ok = 1
				}
				b.insert("leave_requests", id, e.no, t.name, isoDate(asked), isoDate(start), isoDate(days(start, n-1)), n, ok)
				id++
			}
		}
	}
}
