package offline

import (
	"regexp"
	"sort"
	"strings"

	"github.com/tablewise/tablewise/core/db"
)

// colKind is what a column holds, as far as questions care.
type colKind int

const (
	kindText colKind = iota
	kindNumber
	kindDate
	kindBool
	kindID // primary key, foreign key or *_id: identifies, never measured
	kindBlob
)

func (k colKind) String() string {
	return [...]string{"text", "number", "date", "bool", "id", "blob"}[k]
}

// schema is the planner's view of a catalog.
type schema struct {
	tables []*tableInfo
	byName map[string]*tableInfo
}

type tableInfo struct {
	t     *db.Table
	name  string
	view  bool
	raw   []string // the name's words, lower case
	words []string // their stems
	cols  []*colInfo
	// pk is the single-column primary key (or rowid-like integer id), nil
	// when there is none.
	pk *colInfo
	// label: the columns that name a row for people (name; first and last
	// name; title), else the pk.
	label []*colInfo
	// mainDate: the date that places a row in time (order date, invoice
	// date, opened on), nil when there is none.
	mainDate *colInfo
	out      []*fkEdge // foreign keys of this table
	in       []*fkEdge // foreign keys of other tables pointing here
	rows     int64
	// junction: a link table whose columns are nearly all foreign keys.
	junction bool
}

type colInfo struct {
	tab      *tableInfo
	name     string
	raw      []string // the name's words, lower case
	words    []string // their stems
	comment  []string // stems of the comment's words (first clause)
	kind     colKind
	declType string
	fk       *fkEdge // single-column foreign key from this column
	isPK     bool
	notNull  bool
	// distinct is the number of distinct values when the value index
	// counted them (≤ maxDistinct), else -1.
	distinct int
	// hasZero: the value index saw the number 0 in this column (booleans).
	hasZero bool
	// selfRef: a foreign key to its own table (manager_id, parent_id).
	selfRef bool
	// unique: no two rows share a value (primary key or unique index).
	unique bool
}

// fkEdge is a single-column foreign key from.col → to.col.
type fkEdge struct {
	from    *tableInfo
	fromCol *colInfo
	to      *tableInfo
	toCol   *colInfo
}

// oneToOne: each parent row has at most one child row through e (the
// foreign key column is unique), so joining it never multiplies rows.
func (e *fkEdge) oneToOne() bool { return e.fromCol.unique }

func (c *colInfo) String() string { return c.tab.name + "." + c.name }

var dateValue = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$`)

func newSchema(cat *db.Catalog) *schema {
	s := &schema{byName: map[string]*tableInfo{}}
	for _, t := range cat.Tables {
		raw := splitName(t.Name)
		ti := &tableInfo{t: t, name: t.Name, view: t.Kind != "table", raw: raw, words: nameStems(raw), rows: t.RowCount}
		for i, c := range t.Columns {
			craw := splitName(c.Name)
			ci := &colInfo{tab: ti, name: c.Name, raw: craw, words: nameStems(craw), declType: strings.ToUpper(c.Type),
				isPK: c.PK > 0, notNull: c.NotNull || c.PK > 0, distinct: -1}
			ci.comment = commentWords(c.Comment)
			ci.kind = classify(c, t, i)
			ti.cols = append(ti.cols, ci)
		}
		if len(t.PrimaryKey) == 1 {
			ti.pk = ti.col(t.PrimaryKey[0])
			if ti.pk != nil {
				ti.pk.unique = true
			}
		}
		for _, ix := range t.Indexes {
			if ix.Unique && len(ix.Columns) == 1 {
				if c := ti.col(ix.Columns[0]); c != nil {
					c.unique = true
				}
			}
		}
		s.tables = append(s.tables, ti)
		s.byName[strings.ToLower(t.Name)] = ti
	}
	for _, ti := range s.tables {
		for _, fk := range ti.t.ForeignKeys {
			if len(fk.Columns) != 1 {
				continue
			}
			to := s.byName[strings.ToLower(fk.RefTable)]
			if to == ti {
				// Self references (manager, parent) need aliases: not
				// planned, and a question about them is refused.
				if c := ti.col(fk.Columns[0]); c != nil {
					c.kind = kindID
					c.selfRef = true
				}
				continue
			}
			if to == nil {
				continue
			}
			from := ti.col(fk.Columns[0])
			var toCol *colInfo
			if len(fk.RefColumns) == 1 {
				toCol = to.col(fk.RefColumns[0])
			} else {
				toCol = to.pk
			}
			if from == nil || toCol == nil {
				continue
			}
			e := &fkEdge{from: ti, fromCol: from, to: to, toCol: toCol}
			from.fk = e
			from.kind = kindID
			ti.out = append(ti.out, e)
			to.in = append(to.in, e)
		}
	}
	// SQLite lists foreign keys last-declared first; follow the order of
	// the columns, so that between two equally short join paths the
	// relationship declared first (usually the main one: an order's
	// customer before its sales rep) wins.
	pos := map[*colInfo]int{}
	for _, ti := range s.tables {
		for i, c := range ti.cols {
			pos[c] = i
		}
	}
	for _, ti := range s.tables {
		sort.SliceStable(ti.out, func(i, j int) bool { return pos[ti.out[i].fromCol] < pos[ti.out[j].fromCol] })
		sort.SliceStable(ti.in, func(i, j int) bool {
			if ti.in[i].from != ti.in[j].from {
				return ti.in[i].from.name < ti.in[j].from.name
			}
			return pos[ti.in[i].fromCol] < pos[ti.in[j].fromCol]
		})
	}
	for _, ti := range s.tables {
		ti.finish()
	}
	return s
}

// nameStems: the stems of a name's words without function words
// (copies_on_hand → copy, hand), unless that leaves nothing.
func nameStems(raw []string) []string {
	var out []string
	for _, w := range raw {
		if !functionWords[w] {
			out = append(out, stem(w))
		}
	}
	if len(out) == 0 {
		return stems(raw)
	}
	return out
}

// dateWords: for a date column, its name without the generic date word
// (join_date → join, opened_on → opened), so "joined" names it.
func (c *colInfo) dateWords() []string {
	if c.kind != kindDate || len(c.words) < 2 {
		return nil
	}
	switch c.raw[len(c.raw)-1] {
	case "date", "at", "on", "time", "timestamp", "dt", "day", "ts":
		dw := c.words[:len(c.words)-1]
		// loan_date of loans: "loans" names the table, not the date.
		if sameWords(dw, c.tab.words) {
			return nil
		}
		return dw
	}
	return nil
}

func (t *tableInfo) col(name string) *colInfo {
	for _, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return c
		}
	}
	return nil
}

// commentWords keeps the first clause of a column comment: "late fee in
// euros; 0 when returned on time" → late fee in euros.
func commentWords(c string) []string {
	if c == "" {
		return nil
	}
	if i := strings.IndexAny(c, ";=(.:,"); i >= 0 {
		c = c[:i]
	}
	var out []string
	for _, t := range tokenize(c) {
		if t.sym || t.isNum || fillers[t.low] || len(t.low) < 3 {
			continue
		}
		out = append(out, t.stem)
	}
	if len(out) > 6 {
		out = out[:6]
	}
	return out
}

// classify decides a column's kind from its declared type, its name and
// the catalog's sample rows.
func classify(c db.Column, t *db.Table, idx int) colKind {
	typ := strings.ToUpper(c.Type)
	words := splitName(c.Name)
	last := ""
	if len(words) > 0 {
		last = words[len(words)-1]
	}
	var sample []any
	for _, r := range t.Sample {
		if idx < len(r) && r[idx] != nil {
			sample = append(sample, r[idx])
		}
	}
	switch {
	case c.PK > 0 && (strings.Contains(typ, "INT") || len(t.PrimaryKey) > 1):
		return kindID
	case strings.Contains(typ, "BOOL"):
		return kindBool
	case strings.Contains(typ, "DATE") || strings.Contains(typ, "TIME"):
		return kindDate
	case strings.Contains(typ, "BLOB"):
		return kindBlob
	}
	if last == "id" {
		return kindID
	}
	allDates := len(sample) > 0
	for _, v := range sample {
		s, ok := v.(string)
		if !ok || !dateValue.MatchString(s) {
			allDates = false
		}
	}
	if allDates {
		return kindDate
	}
	if len(sample) == 0 && (last == "date" || last == "at" || last == "time" || last == "timestamp") && !strings.Contains(typ, "INT") {
		return kindDate
	}
	switch {
	case strings.Contains(typ, "INT"), strings.Contains(typ, "REAL"), strings.Contains(typ, "FLOA"), strings.Contains(typ, "DOUB"),
		strings.Contains(typ, "NUM"), strings.Contains(typ, "DEC"), strings.Contains(typ, "MONEY"):
		return kindNumber
	case strings.Contains(typ, "CHAR"), strings.Contains(typ, "TEXT"), strings.Contains(typ, "CLOB"):
		return kindText
	}
	// No declared type (views): go by the sample.
	for _, v := range sample {
		switch v.(type) {
		case int64, float64:
			return kindNumber
		}
	}
	return kindText
}

func (t *tableInfo) finish() {
	fkCols := 0
	for _, c := range t.cols {
		if c.fk != nil {
			fkCols++
		}
	}
	t.junction = len(t.out) >= 2 && fkCols*2 >= len(t.cols) && len(t.cols)-fkCols <= 1
	if t.pk == nil {
		// Views and tables without a declared key: an *id column named
		// after the table is the key people mean.
		for _, c := range t.cols {
			if c.kind == kindID && c.fk == nil && len(c.words) >= 2 && c.words[len(c.words)-1] == "id" && sameWords(c.words[:len(c.words)-1], t.words) {
				t.pk = c
				break
			}
		}
	}
	t.label = t.findLabel()
	t.mainDate = t.findMainDate()
}

func sameWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && singular(a[i]) != singular(b[i]) {
			return false
		}
	}
	return true
}

func singular(s string) string { return strings.TrimSuffix(s, "s") }

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// findLabel picks the columns that name a row: "name"; "<table> name";
// first and last name; "title"; another *name column; else the key.
func (t *tableInfo) findLabel() []*colInfo {
	text := func(c *colInfo) bool { return c.kind == kindText }
	var first, last, title, anyName, tableName *colInfo
	for _, c := range t.cols {
		if !text(c) {
			continue
		}
		w := c.raw
		switch {
		case len(w) == 1 && w[0] == "name":
			return []*colInfo{c}
		case len(w) == 2 && w[1] == "name" && (w[0] == "first" || w[0] == "given" || w[0] == "fore"):
			first = c
		case len(w) == 2 && w[1] == "name" && (w[0] == "last" || w[0] == "family" || w[0] == "sur"):
			last = c
		case len(w) == 1 && w[0] == "surname":
			last = c
		case len(w) == 1 && w[0] == "title":
			if title == nil {
				title = c
			}
		case len(w) >= 2 && w[len(w)-1] == "name" && sameWords(stems(w[:len(w)-1]), t.words):
			tableName = c
		case len(w) >= 2 && w[len(w)-1] == "name" && (w[0] == "full" || w[0] == "display"):
			tableName = c
		case w[len(w)-1] == "name" && anyName == nil:
			anyName = c
		}
	}
	switch {
	case tableName != nil:
		return []*colInfo{tableName}
	case first != nil && last != nil:
		return []*colInfo{first, last}
	case title != nil:
		return []*colInfo{title}
	case anyName != nil:
		return []*colInfo{anyName}
	}
	// A unique text column names a row too (a code, an ISBN).
	for _, c := range t.cols {
		if c.kind == kindText && c.unique && !c.isPK && !hasPrefixAny(c.raw[len(c.raw)-1], "email", "mail", "phone", "url", "website", "password", "hash", "token") {
			return []*colInfo{c}
		}
	}
	if t.pk != nil {
		return []*colInfo{t.pk}
	}
	return nil
}

// findMainDate: a date named after the table ("order date"), else a
// created/placed/signup-like date, else the only date that is not a birth
// date or an end date.
func (t *tableInfo) findMainDate() *colInfo {
	var dates []*colInfo
	for _, c := range t.cols {
		if c.kind == kindDate {
			dates = append(dates, c)
		}
	}
	if len(dates) == 0 {
		return nil
	}
	score := func(c *colInfo) int {
		s := 0
		for i, w := range c.words {
			for _, tw := range t.words {
				if w == tw {
					s += 4
				}
			}
			if hasPrefixAny(c.raw[i], "creat", "plac", "signup", "regist", "join", "start", "issu", "introduc", "post", "publish", "releas", "open", "transact", "purchas", "sale") {
				s += 3
			}
			if hasPrefixAny(c.raw[i], "birth", "end", "termin", "expir", "delet", "clos", "requir", "due", "settl", "updat", "modif", "chang", "valid", "last") {
				s -= 3
			}
		}
		if c.notNull {
			s++
		}
		return s
	}
	sort.SliceStable(dates, func(i, j int) bool { return score(dates[i]) > score(dates[j]) })
	return dates[0]
}

// measures lists the numeric columns people aggregate.
func (t *tableInfo) measures() []*colInfo {
	var out []*colInfo
	for _, c := range t.cols {
		if c.kind == kindNumber {
			out = append(out, c)
		}
	}
	return out
}

// joinStep is one hop of a join path: along e, forward (from → to, many to
// one) or backward (to → from, one to many).
type joinStep struct {
	e       *fkEdge
	forward bool
}

func (s joinStep) src() *tableInfo {
	if s.forward {
		return s.e.from
	}
	return s.e.to
}

func (s joinStep) dst() *tableInfo {
	if s.forward {
		return s.e.to
	}
	return s.e.from
}

// Path costs: following a foreign key to its parent (many-to-one) is
// cheaper than the reverse, which multiplies rows; passing through a link
// table is what link tables are for.
const (
	costForward  = 1.0
	costBackward = 1.6
)

// path finds the cheapest join path from a to b (nil, true when a == b;
// nil, false when unreachable). Paths longer than maxHops are not tried.
func (s *schema) path(a, b *tableInfo) ([]joinStep, bool) {
	return s.pathVia(a, b, nil)
}

const maxHops = 4

// pathVia is path with a preference for routes through the tables in via.
func (s *schema) pathVia(a, b *tableInfo, via map[*tableInfo]bool) ([]joinStep, bool) {
	if a == b {
		return nil, true
	}
	if a.view || b.view {
		return nil, false
	}
	type state struct {
		t     *tableInfo
		cost  float64
		steps []joinStep
	}
	best := map[*tableInfo]float64{a: 0}
	frontier := []state{{t: a}}
	var found *state
	for hop := 0; hop < maxHops && len(frontier) > 0; hop++ {
		var next []state
		for _, st := range frontier {
			try := func(step joinStep, c float64) {
				d := step.dst()
				if via[d] {
					c -= 0.5
				}
				if d.junction && d != b {
					c -= 0.3
				}
				nc := st.cost + c
				if old, ok := best[d]; ok && old <= nc {
					return
				}
				best[d] = nc
				steps := append(append([]joinStep(nil), st.steps...), step)
				ns := state{t: d, cost: nc, steps: steps}
				if d == b {
					if found == nil || nc < found.cost {
						found = &ns
					}
					return
				}
				next = append(next, ns)
			}
			for _, e := range st.t.out {
				try(joinStep{e: e, forward: true}, costForward)
			}
			for _, e := range st.t.in {
				try(joinStep{e: e, forward: false}, costBackward)
			}
		}
		frontier = next
	}
	if found == nil {
		return nil, false
	}
	return found.steps, true
}

// pathCost sums the costs of steps.
func pathCost(steps []joinStep) float64 {
	c := 0.0
	for _, s := range steps {
		if s.forward {
			c += costForward
		} else {
			c += costBackward
		}
	}
	return c
}

// allForward reports whether joining a path never multiplies rows: it
// only follows keys to their parents, or one-to-one links.
func allForward(steps []joinStep) bool {
	for _, s := range steps {
		if !s.forward && !s.e.oneToOne() {
			return false
		}
	}
	return true
}

// strictlyForward: only keys to their parents.
func strictlyForward(steps []joinStep) bool {
	for _, s := range steps {
		if !s.forward {
			return false
		}
	}
	return true
}

// junctionBetween finds a link table with foreign keys to both a and b
// (students and courses through enrolments).
func (s *schema) junctionBetween(a, b *tableInfo) *tableInfo {
	for _, e := range a.in {
		j := e.from
		if !j.junction && len(j.out) != 2 {
			continue
		}
		for _, e2 := range j.out {
			if e2.to == b && e2 != e {
				return j
			}
		}
	}
	return nil
}
