package offline

import (
	"regexp"
	"strings"
	"time"
)

// Day-level dates, quarters, decades, weeks of a month and months named
// without a year. markDays runs before the other cues are read: the
// tokens it reads become one date filter (the first of them cueDate, the
// rest fillers), so no later rule takes "15" for a count or "quarter"
// for a bucket.
//
// A month or day named without a year ("in July", "between June 1 and
// June 15") means its most recent occurrence in the data: the year is
// resolved against the chosen date column's latest value (resolveYear).

// day is a calendar day read from the question; year 0 when not said.
type day struct{ year, month, dom int }

func (d day) time(year int) time.Time {
	return time.Date(year, time.Month(d.month), d.dom, 0, 0, 0, 0, time.UTC)
}

var ordinalDay = regexp.MustCompile(`^([0-9]{1,2})(st|nd|rd|th)$`)

// dayNumber reads "4", "4th", "21st" as a day of the month.
func dayNumber(t token) (int, bool) {
	if t.isNum && !t.numWord && t.num >= 1 && t.num <= 31 && t.num == float64(int(t.num)) && !strings.ContainsAny(t.raw, ".,") {
		return int(t.num), true
	}
	if m := ordinalDay.FindStringSubmatch(t.low); m != nil {
		n := int(m[1][0] - '0')
		if len(m[1]) == 2 {
			n = n*10 + int(m[1][1]-'0')
		}
		return n, n >= 1 && n <= 31
	}
	return 0, false
}

// joinedBy reports whether tokens i and i+1 are written with sep between
// them and nothing else ("2024-03-01").
func (a *analysis) joinedBy(i int, sep byte) bool {
	if i+1 >= len(a.toks) {
		return false
	}
	x, y := a.toks[i], a.toks[i+1]
	return y.pos == x.end+1 && x.end < len(a.text) && a.text[x.end] == sep
}

// readDay reads a day starting at token i: "2024-03-01", "March 1",
// "March 1st, 2024", "1 March 2024", "the 4th of July". It returns the
// day and the index after it.
func (a *analysis) readDay(i int) (day, int, bool) {
	t := a.toks
	n := len(t)
	if i >= n {
		return day{}, i, false
	}
	// ISO: 2024-03-01 (the tokenizer splits it at the dashes).
	if isYear(t[i]) && i+2 < n && a.joinedBy(i, '-') && a.joinedBy(i+1, '-') && len(t[i+1].raw) == 2 && len(t[i+2].raw) == 2 {
		m, d := int(t[i+1].num), int(t[i+2].num)
		if t[i+1].isNum && t[i+2].isNum && m >= 1 && m <= 12 && d >= 1 && d <= 31 {
			return day{int(t[i].num), m, d}, i + 3, true
		}
	}
	j := i
	if t[j].low == "the" && j+1 < n {
		j++
	}
	// Month name, day, optional year.
	if m := months[t[j].low]; m != 0 && t[j].quote == 0 && j+1 < n {
		if d, ok := dayNumber(t[j+1]); ok && !isYear(t[j+1]) {
			y, k := yearAt(t, j+2)
			return day{y, m, d}, k, true
		}
	}
	// Day, (of) month name, optional year.
	if d, ok := dayNumber(t[j]); ok && j+1 < n {
		k := j + 1
		if t[k].low == "of" && k+1 < n {
			k++
		}
		if m := months[t[k].low]; m != 0 && t[k].quote == 0 {
			y, k := yearAt(t, k+1)
			return day{y, m, d}, k, true
		}
	}
	return day{}, i, false
}

// yearAt reads an optional year at token k: the year and the index after
// it, or 0 and k when t[k] is not a year.
func yearAt(t []token, k int) (int, int) {
	if k < len(t) && isYear(t[k]) {
		return int(t[k].num), k + 1
	}
	return 0, k
}

var ordinalWords = map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1, "final": -1}

var quarterToken = regexp.MustCompile(`^q([1-4])$`)

var decadeToken = regexp.MustCompile(`^(1[89][0-9]0|20[0-9]0)s$`)

// markDays reads the day-level forms and appends their date filters.
func (a *analysis) markDays() {
	t := a.toks
	n := len(t)
	mark := func(from, to int) {
		for k := from; k < to; k++ {
			a.cues[k] = cueFiller
			a.dayTok[k] = true
		}
		a.cues[from] = cueDate
	}
	prep := func(i int) (string, int) {
		p := a.low(i - 1)
		if p == "the" || p == "of" {
			if q := a.low(i - 2); q == "in" || q == "during" || q == "since" || q == "after" || q == "before" || q == "until" {
				return q, i - 2
			}
		}
		return p, i - 1
	}
	for i := 0; i < n; i++ {
		if t[i].quote > 0 || a.dayTok[i] {
			continue
		}
		// Decades: "the 1980s".
		if m := decadeToken.FindStringSubmatch(t[i].low); m != nil {
			y := int(parseInt(m[1]))
			a.addDays(i, day{y, 1, 1}, day{y + 10, 1, 1}, m[1]+"s", false)
			mark(i, i+1)
			continue
		}
		// Quarters: "Q3 2024", "the first quarter of 2010".
		if q, end, y, ok := a.readQuarter(i); ok {
			a.addDays(i, day{y, 3*q - 2, 1}, day{y, 3 * q, 1}.nextMonth(), "Q"+itoa(q)+" "+pad4(y), false)
			mark(i, end)
			continue
		}
		// Weeks of a month: "the first week of July 2025".
		if w, ok := ordinalWords[t[i].low]; ok && a.low(i+1) == "week" && a.low(i+2) == "of" {
			if m := months[a.low(i+3)]; m != 0 {
				end, y := i+4, 0
				if end < n && isYear(t[end]) {
					y, end = int(t[end].num), end+1
				}
				from := day{y, m, 1}
				to := day{y, m, 8}
				if w > 1 {
					from, to = day{y, m, 1 + 7*(w-1)}, day{y, m, 1 + 7*w}
				}
				if w < 0 {
					last := day{y, m, 1}.nextMonth()
					from, to = day{y, m, daysIn(m) - 6}, last
				}
				a.addDays(i, from, to, "the "+t[i].low+" week of "+monthNames[m-1]+yearWord(y), y == 0)
				mark(i, end)
				continue
			}
		}
		// Ranges of days: "between June 1 and June 15(, 2025)", "from
		// 2024-03-01 to 2024-03-15".
		if (t[i].low == "between" || t[i].low == "from") && i+1 < n {
			if d1, k, ok := a.readDay(i + 1); ok && k < n && (t[k].low == "and" || t[k].low == "to" || t[k].low == "until" || t[k].low == "through" || t[k].low == "till") {
				if d2, end, ok := a.readDay(k + 1); ok {
					if d2.month == 0 {
						continue
					}
					if d1.year == 0 {
						d1.year = d2.year
						if d1.month > d2.month && d2.year != 0 {
							d1.year--
						}
					}
					a.addDays(i, d1, d2.next(), "between "+d1.words()+" and "+d2.words(), d2.year == 0)
					mark(i, end)
					i = end - 1
					continue
				}
			}
		}
		// One day: "on 2013-08-27", "July 4th 2025", "since March 3".
		if d, end, ok := a.readDay(i); ok {
			p, at := prep(i)
			from, to := d, d.next()
			desc := "on " + d.words()
			switch p {
			case "since", "from":
				to, desc = day{}, "since "+d.words()
			case "after":
				from, to, desc = d.next(), day{}, "after "+d.words()
			case "before", "until", "till":
				from, to, desc = day{}, d, "before "+d.words()
			}
			if desc[:2] != "on" && at >= 0 {
				a.cues[at] = cueFiller
			}
			a.addDays(i, from, to, desc, d.year == 0)
			mark(i, end)
			i = end - 1
			continue
		}
		// A month without a year: "in July", "during August".
		if m := months[t[i].low]; m != 0 && t[i].low != "may" && t[i].low != "mar" && t[i].low != "jan" && !isYear(tokenAt(t, i+1)) && !(i+1 < n && t[i+1].isNum) {
			if p := a.low(i - 1); p == "in" || p == "during" || p == "for" || p == "of" && a.low(i-2) != "4th" {
				a.addDays(i, day{0, m, 1}, day{0, m, 1}.nextMonth(), "in "+monthNames[m-1], true)
				mark(i, i+1)
			}
		}
	}
}

func tokenAt(t []token, i int) token {
	if i < 0 || i >= len(t) {
		return token{}
	}
	return t[i]
}

// readQuarter reads "Q3 2024", "Q3 of 2024", "the first quarter of 2010"
// at token i.
func (a *analysis) readQuarter(i int) (q, end, year int, ok bool) {
	t := a.toks
	k := i
	if m := quarterToken.FindStringSubmatch(t[i].low); m != nil {
		q, k = int(m[1][0]-'0'), i+1
	} else if w, isOrd := ordinalWords[t[i].low]; isOrd && w > 0 && w <= 4 && a.low(i+1) == "quarter" {
		q, k = w, i+2
	} else if isOrd && w < 0 && a.low(i+1) == "quarter" {
		q, k = 4, i+2
	} else {
		return 0, 0, 0, false
	}
	if a.low(k) == "of" || a.low(k) == "in" {
		k++
	}
	if k >= len(t) || !isYear(t[k]) {
		return 0, 0, 0, false
	}
	return q, k + 1, int(t[k].num), true
}

func parseInt(s string) int64 {
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
	}
	return n
}

func daysIn(month int) int {
	return time.Date(2001, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func yearWord(y int) string {
	if y == 0 {
		return ""
	}
	return " " + pad4(y)
}

// next is the day after d (same year, which may still be unknown: year
// 0 stays 0 unless the month wraps).
func (d day) next() day {
	y := d.year
	if y == 0 {
		y = 2001 // not a leap year; February 29 reads as March 1
	}
	n := d.time(y).AddDate(0, 0, 1)
	out := day{n.Year(), int(n.Month()), n.Day()}
	if d.year == 0 {
		out.year = n.Year() - 2001
	}
	return out
}

func (d day) nextMonth() day {
	if d.month == 12 {
		return day{d.year + 1, 1, 1}
	}
	return day{d.year, d.month + 1, 1}
}

func (d day) words() string {
	s := monthNames[d.month-1] + " " + itoa(d.dom)
	if d.year > 0 {
		s += ", " + pad4(d.year)
	}
	return s
}

// iso writes d as YYYY-MM-DD; with an unknown year (relative: 0, or 1
// for a range that wraps into the next year) the year is written as that
// offset and resolveYear fills it in.
func (d day) iso() string { return pad4(d.year) + "-" + pad2(d.month) + "-" + pad2(d.dom) }

func (a *analysis) addDays(pos int, from, to day, desc string, noYear bool) {
	df := dateFilter{pos: pos, desc: desc, noYear: noYear}
	if from.month != 0 {
		df.from = from.iso()
	}
	if to.month != 0 {
		df.to = to.iso()
	}
	if noYear && from.month == 0 {
		// "before June 1": with no year and no start it cannot be placed.
		df.noYear = true
	}
	a.dates = append(a.dates, df)
}

// resolveYear places a date filter named without a year in the most
// recent year whose range starts on or before the column's latest value.
// It reports false when the column's latest value is not known.
func resolveYear(df dateFilter, c *colInfo) (dateFilter, bool) {
	if !df.noYear {
		return df, true
	}
	if len(c.maxDate) < 10 || df.from == "" {
		return df, false
	}
	latest := c.maxDate[:10]
	y := int(parseInt(latest[:4]))
	shift := func(s string, y int) string {
		if s == "" {
			return ""
		}
		return pad4(y+int(parseInt(s[:4]))) + s[4:]
	}
	if shift(df.from, y) > latest {
		y--
	}
	df.from, df.to = shift(df.from, y), shift(df.to, y)
	df.desc += " " + pad4(y)
	df.noYear = false
	return df, true
}
