package offline

import (
	"slices"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/text"

	"regexp"
	"sort"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
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
	dl    engine.Dialect // the SQL the plan is rendered in
	t     *catalog.Table
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
	// yearMonth: a date column holding year-month text ("2024-03").
	yearMonth bool
	// intYear: a date column holding integer years (2023).
	intYear bool
	// unixTime: a date column holding integer seconds since 1970.
	unixTime bool
	// textual: the column holds text (declared so, or by its sample).
	textual bool
	// trueVal, falseVal: the values of a flag (1/0, 'Y'/'N').
	trueVal, falseVal any
	// inferred: fk was inferred from a same-named key, not declared.
	inferred bool
	// nulls: NULLs counted in a date column; sentinel: its far-future
	// "still open" marker ('9999-01-01'), if any.
	nulls    int64
	sentinel string
	// maxDate: the column's latest value as text when it is a date (not
	// a far-future marker); months named without a year resolve to it.
	maxDate string
}

// openEnd is the column that closes a row's period and how an open one
// reads, or nil: a date whose largest value is a far-future marker, or a
// nullable end-like date (an end or close date) with NULLs.
func (t *tableInfo) openEnd() *colInfo {
	var best *colInfo
	for _, c := range t.cols {
		if c.kind != kindDate {
			continue
		}
		if c.sentinel != "" {
			return c
		}
		if c.nulls == 0 || best != nil {
			continue
		}
		for _, w := range c.raw {
			if hasPrefixAny(w, endWords...) {
				best = c
			}
		}
	}
	return best
}

// openFilter is the condition "the period of t is still open" (or, with
// ended, "has ended").
func openFilter(end *colInfo, ended bool) filter {
	if end.sentinel != "" {
		if ended {
			return filter{col: end, op: "<>", vals: []any{end.sentinel}, desc: words(end) + " is past"}
		}
		return filter{col: end, op: "=", vals: []any{end.sentinel}, desc: words(end) + " is open (" + end.sentinel + ")"}
	}
	if ended {
		return filter{col: end, op: "IS NOT NULL", desc: "with a " + words(end), with: true}
	}
	return filter{col: end, op: "IS NULL", desc: "without a " + words(end), with: true}
}

// fkEdge is a foreign key from.col → to.col; a composite one has more
// column pairs (an enrollment's course, year and term → its offering).
type fkEdge struct {
	from    *tableInfo
	fromCol *colInfo
	to      *tableInfo
	toCol   *colInfo
	// more: the other column pairs of a composite key.
	more [][2]*colInfo
}

// composite: the key has several columns. Such keys are joined from the
// child to its parent only: the planner's IN-subqueries and NOT IN
// filters compare one column.
func (e *fkEdge) composite() bool { return len(e.more) > 0 }

// oneToOne: each parent row has at most one child row through e (the
// foreign key column is unique), so joining it never multiplies rows.
func (e *fkEdge) oneToOne() bool { return !e.composite() && e.fromCol.unique }

func (c *colInfo) String() string { return c.tab.name + "." + c.name }

var dateRegexp = regexp.MustCompile(`^\d{4}-\d{2}(-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?)?$`)

// dateValue matches dates and times as text (2024-03, 2024-03-01,
// 2024-03-01 10:00:00+02:00); a text that does not start with four
// digits and a dash is not tried against the pattern.
var dateValue = dateMatcher{}

type dateMatcher struct{}

func (dateMatcher) MatchString(s string) bool {
	if len(s) < 7 || s[4] != '-' {
		return false
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return dateRegexp.MatchString(s)
}

func newSchema(cat *catalog.Catalog, dl engine.Dialect) *schema {
	s := &schema{byName: map[string]*tableInfo{}}
	for _, t := range cat.Tables {
		raw := text.NameWords(t.Name)
		ti := &tableInfo{dl: dl, t: t, name: t.Name, view: t.Kind != "table", raw: raw, words: nameStems(raw), rows: t.RowCount}
		for i, c := range t.Columns {
			cn := columnName(c.Name)
			ci := &colInfo{tab: ti, name: c.Name, raw: cn.raw, words: cn.words, declType: strings.ToUpper(c.Type),
				isPK: c.PK > 0, notNull: c.NotNull || c.PK > 0, distinct: -1}
			ci.comment = commentWords(c.Comment)
			ci.kind = classify(c, t, i)
			ci.textual = strings.Contains(ci.declType, "CHAR") || strings.Contains(ci.declType, "TEXT") || strings.Contains(ci.declType, "CLOB") ||
				ci.declType == "" && sampleAll(t, i, func(v any) bool { _, ok := v.(string); return ok })
			if ci.kind == kindBool {
				ci.trueVal, ci.falseVal = int64(1), int64(0)
			}
			ci.yearMonth = ci.kind == kindDate && sampleAll(t, i, func(v any) bool { s, ok := v.(string); return ok && len(s) == 7 })
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
	// Composite keys, declared (boarding pass → its ticket's flight) or
	// implied by names: a table holding every column of another table's
	// composite primary key (an enrollment's course, year and term → the
	// offering).
	for _, ti := range s.tables {
		for _, fk := range ti.t.ForeignKeys {
			if len(fk.Columns) < 2 {
				continue
			}
			to := s.byName[strings.ToLower(fk.RefTable)]
			if to == nil || to == ti || len(fk.RefColumns) != len(fk.Columns) {
				continue
			}
			s.addComposite(ti, to, fk.Columns, fk.RefColumns)
		}
	}
	for _, to := range s.tables {
		if to.view || len(to.t.PrimaryKey) < 2 {
			continue
		}
		for _, ti := range s.tables {
			if ti == to || ti.view || sameColumns(ti.t.PrimaryKey, to.t.PrimaryKey) {
				continue
			}
			// At least two of the key's columns must identify something
			// (a course, a term): a person and a start date in common
			// are a coincidence of two histories, not a reference.
			has, ids := true, 0
			for _, k := range to.t.PrimaryKey {
				c := ti.col(k)
				if c == nil {
					has = false
					continue
				}
				if kc := to.col(k); kc != nil && kc.kind != kindDate {
					ids++
				}
			}
			has = has && ids >= 2
			if has && !s.hasComposite(ti, to) {
				s.addComposite(ti, to, to.t.PrimaryKey, to.t.PrimaryKey)
			}
		}
	}
	// Undeclared references: a column named like the single-column key
	// of another table (pupilNo → Pupils.pupilNo) joins it. The tables
	// by key name, in order: a schema of thousands of tables is not
	// searched once per column.
	byKey := map[string][]*tableInfo{}
	for _, to := range s.tables {
		if !to.view && to.pk != nil && len(to.t.PrimaryKey) == 1 {
			k := strings.ToLower(to.pk.name)
			byKey[k] = append(byKey[k], to)
		}
	}
	for _, ti := range s.tables {
		if ti.view {
			continue
		}
		for _, c := range ti.cols {
			if c.fk != nil || c.selfRef || c.kind == kindBlob {
				continue
			}
			for _, to := range byKey[strings.ToLower(c.name)] {
				if to == ti || !strings.EqualFold(to.pk.name, c.name) {
					continue
				}
				if ti.pk == c && len(ti.t.PrimaryKey) == 1 {
					// Two tables keyed alike (one-to-one): not a reference.
					break
				}
				e := &fkEdge{from: ti, fromCol: c, to: to, toCol: to.pk}
				c.fk, c.kind, c.inferred = e, kindID, true
				ti.out = append(ti.out, e)
				to.in = append(to.in, e)
				break
			}
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

// addComposite records a composite key from's cols → to's refs.
func (s *schema) addComposite(from, to *tableInfo, cols, refs []string) {
	e := &fkEdge{from: from, to: to}
	for i := range cols {
		fc, tc := from.col(cols[i]), to.col(refs[i])
		if fc == nil || tc == nil {
			return
		}
		if i == 0 {
			e.fromCol, e.toCol = fc, tc
		} else {
			e.more = append(e.more, [2]*colInfo{fc, tc})
		}
	}
	from.out = append(from.out, e)
	to.in = append(to.in, e)
}

func (s *schema) hasComposite(from, to *tableInfo) bool {
	for _, e := range from.out {
		if e.to == to && e.composite() {
			return true
		}
	}
	return false
}

func sameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// nameStems: the stems of a name's words without function words
// (copies_on_hand → copy, hand), unless that leaves nothing.
// nameParts is a name's words, lower case, and their stems (nameStems);
// last is the last of its words as splitName reads them.
type nameParts struct {
	raw, words []string
	last       string
	// joined: each two adjacent words run together (joinedWords).
	joined []string
}

// columnNames remembers the words of column names: a schema of thousands
// of tables names its columns alike (a key, a name, a date), and their
// words, never written to, are shared.
var columnNames memo[string, nameParts]

func columnName(name string) nameParts {
	return columnNames.get(name, func(name string) nameParts {
		raw := text.NameWords(name)
		words := nameStems(raw)
		p := nameParts{raw: raw[:len(raw):len(raw)], words: words[:len(words):len(words)], joined: joinedWords(words)}
		if split := splitName(name); len(split) > 0 {
			p.last = split[len(split)-1]
		}
		return p
	})
}

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
	case "date", "at", "on", "time", "timestamp", "dt", "day", "ts", "year", "yr":
		dw := c.words[:len(c.words)-1]
		// loan_date of loans: "loans" names the table, not the date.
		if sameWords(dw, c.tab.words) {
			return nil
		}
		return dw
	}
	return nil
}

// ident quotes a name in the plan's SQL only where it needs it.
func (t *tableInfo) ident(name string) string { return t.dl.QuoteIdentIfNeeded(name) }

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
		if t.sym || t.isNum || lexicon().fillers[t.low] || len(t.low) < 3 {
			continue
		}
		out = append(out, t.stem)
	}
	if len(out) > 6 {
		out = out[:6]
	}
	return out
}

// sampleAll reports whether the catalog holds sample values of column idx
// of t and every non-NULL one satisfies ok.
func sampleAll(t *catalog.Table, idx int, ok func(any) bool) bool {
	n := 0
	for _, r := range t.Sample {
		if idx < len(r) && r[idx] != nil {
			if !ok(r[idx]) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// classify decides a column's kind from its declared type, its name and
// the catalog's sample rows.
func classify(c catalog.Column, t *catalog.Table, idx int) colKind {
	typ := strings.ToUpper(c.Type)
	last := columnName(c.Name).last
	var sample []any
	for _, r := range t.Sample {
		if idx < len(r) && r[idx] != nil {
			sample = append(sample, r[idx])
		}
	}
	switch {
	case c.PK > 0 && strings.Contains(typ, "INT") && len(t.PrimaryKey) == 1:
		// A surrogate key. The parts of a composite key are what they
		// are (a title, a start date); those that reference another
		// table become keys with their foreign key.
		return kindID
	case strings.Contains(typ, "BOOL"):
		return kindBool
	case strings.Contains(typ, "DATE") || strings.Contains(typ, "TIME"):
		return kindDate
	case strings.Contains(typ, "BLOB"):
		return kindBlob
	}
	if last == "id" {
		// A text "…ID" that is not the table's own key is a code (an
		// award's name, a league's letters) unless it turns out to
		// reference another table's key.
		if len(t.PrimaryKey) > 1 && c.PK > 0 && (strings.Contains(typ, "CHAR") || strings.Contains(typ, "TEXT")) {
			return kindText
		}
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
	single := 0
	for _, e := range t.out {
		if !e.composite() {
			single++
		}
	}
	t.junction = single >= 2 && fkCols*2 >= len(t.cols) && len(t.cols)-fkCols <= 1
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
		case len(w) == 2 && w[1] == "name" && (w[0] == "first" || w[0] == "given" || w[0] == "fore"),
			len(w) == 2 && w[0] == "name" && (w[1] == "first" || w[1] == "given"),
			len(w) == 1 && (w[0] == "first" || w[0] == "forename"):
			first = c
		case len(w) == 2 && w[1] == "name" && (w[0] == "last" || w[0] == "family" || w[0] == "sur"),
			len(w) == 2 && w[0] == "name" && (w[1] == "last" || w[1] == "family"),
			len(w) == 1 && w[0] == "last":
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
	// A text number named after the table ("route_no", "invoice
	// number"): what people call a row by, even when it repeats over
	// time (a bus route runs every day).
	for _, c := range t.cols {
		w := c.raw
		if c.kind == kindText && !c.isPK && c.fk == nil && len(w) >= 2 && sameWords(stems(w[:len(w)-1]), t.words) &&
			(w[len(w)-1] == "no" || w[len(w)-1] == "number" || w[len(w)-1] == "num" || w[len(w)-1] == "nr") {
			return []*colInfo{c}
		}
	}
	// A text column whose values the data shows to be (nearly) unique,
	// other than a key, names a row (a product's label).
	for _, c := range t.cols {
		if c.kind == kindText && !c.isPK && c.fk == nil && c.distinct > 1 && t.rows >= 5 && float64(c.distinct) >= 0.9*float64(t.rows) &&
			!hasPrefixAny(c.raw[len(c.raw)-1], "email", "mail", "phone", "url", "website", "password", "hash", "token", "address", "ssn", "zip") {
			return []*colInfo{c}
		}
	}
	// A unique text column names a row too (a code, a serial number).
	for _, c := range t.cols {
		if c.kind == kindText && c.unique && !c.isPK && !hasPrefixAny(c.raw[len(c.raw)-1], "email", "mail", "phone", "url", "website", "password", "hash", "token") {
			return []*colInfo{c}
		}
	}
	if t.pk != nil {
		return []*colInfo{t.pk}
	}
	// A table of events without a key of its own (diagnoses, doses given)
	// is named by what each row is: its description.
	for _, c := range t.cols {
		if c.kind == kindText && c.fk == nil && hasPrefixAny(c.raw[len(c.raw)-1], "description", "desc") {
			return []*colInfo{c}
		}
	}
	return nil
}

// shownAs: the columns that name a row of t in a ranking: its label, or
// for a table of facts about people with no label of its own (a player's
// year in one sport), the name of the one person each row is about.
func (t *tableInfo) shownAs() []*colInfo {
	if len(t.label) > 0 {
		return t.label
	}
	if owner := t.personOwner(); owner != nil {
		return owner.label
	}
	return nil
}

// personOwner: the one table of people (with a label) t's foreign keys
// point at, or nil.
func (t *tableInfo) personOwner() *tableInfo {
	var owner *tableInfo
	for _, e := range t.out {
		if !isPersonTable(e.to) || len(e.to.label) == 0 {
			continue
		}
		if owner != nil && owner != e.to {
			return nil
		}
		owner = e.to
	}
	return owner
}

// valueColumn: a table without a key of its own whose label repeats
// across its rows (a history of job titles: one row per person and
// period) records values of that column, not things; the column is
// returned, else nil. Listing or counting the different ones means the
// column's distinct values.
func (t *tableInfo) valueColumn() *colInfo {
	if t.pk != nil || len(t.label) != 1 {
		return nil
	}
	c := t.label[0]
	if c.kind != kindText || c.distinct <= 0 || int64(c.distinct) >= t.rows {
		return nil
	}
	return c
}

// periodStart: the date that opens each row's period, when the table has
// both a start-like and an end-like date column (start/end, from/to,
// check-in/check-out), else nil.
func (t *tableInfo) periodStart() *colInfo {
	var start *colInfo
	hasEnd := false
	for _, c := range t.cols {
		if c.kind != kindDate {
			continue
		}
		for _, w := range c.raw {
			switch {
			case hasPrefixAny(w, "start", "begin", "from", "checkin", "admit", "onset"):
				if start == nil {
					start = c
				}
			case hasPrefixAny(w, endWords...):
				hasEnd = true
			}
		}
	}
	if !hasEnd {
		return nil
	}
	return start
}

// isDuration: a number that measures a length of time (days, hours,
// nights, a duration).
func isDuration(c *colInfo) bool {
	if c.kind != kindNumber {
		return false
	}
	if _, ok := durationOf(c); ok {
		return true
	}
	for _, w := range c.raw {
		if hasPrefixAny(w, "day", "night", "hour", "week", "minute", "duration") {
			return true
		}
	}
	return false
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
			// Two tables that only share a parent (staff and projects
			// of one department) are rarely what a question relates:
			// going down again after going up costs more.
			upThenDown := 0.0
			if n := len(st.steps); n > 0 && st.steps[n-1].forward && !st.steps[n-1].e.oneToOne() {
				upThenDown = 1.0
			}
			for _, e := range st.t.out {
				try(joinStep{e: e, forward: true}, costForward)
			}
			for _, e := range st.t.in {
				if e.composite() {
					continue // joined child to parent only
				}
				try(joinStep{e: e, forward: false}, costBackward+upThenDown)
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

// sideways: the path goes up to a parent and then down to another of its
// children (two tables that only share a parent).
func sideways(steps []joinStep) bool {
	up := false
	for _, s := range steps {
		if s.forward {
			up = true
		} else if up && !s.e.oneToOne() {
			return true
		}
	}
	return false
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
// (members and groups through memberships).
//
// When several tables link a and b, the one whose two keys the schema
// declares wins over those whose links were inferred from column names;
// if that does not single one out, there is no answer (nil).
func (s *schema) junctionBetween(a, b *tableInfo) *tableInfo {
	var found []*tableInfo
	declared := map[*tableInfo]bool{}
	for _, e := range a.in {
		j := e.from
		if e.composite() || !j.junction && len(j.out) != 2 {
			continue
		}
		for _, e2 := range j.out {
			if e2.to == b && e2 != e && !e2.composite() {
				if !slices.Contains(found, j) {
					found = append(found, j)
				}
				if !e.fromCol.inferred && !e2.fromCol.inferred {
					declared[j] = true
				}
			}
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	var decl []*tableInfo
	for _, j := range found {
		if declared[j] {
			decl = append(decl, j)
		}
	}
	if len(decl) == 1 {
		return decl[0]
	}
	if len(decl) == 0 {
		decl = found
	}
	// A table named after the two it links (team_player) rather than
	// after a part someone plays in it (team_captain).
	var pure []*tableInfo
	for _, j := range decl {
		if namedAfter(j, a, b) {
			pure = append(pure, j)
		}
	}
	if len(pure) == 1 {
		return pure[0]
	}
	return nil
}

// linkBetween: the one table (not a or b) with a single foreign key to
// each of a and b (visits between clients and lawyers), or nil.
func (s *schema) linkBetween(a, b *tableInfo) *tableInfo {
	var found *tableInfo
	for _, t := range s.tables {
		if t == a || t == b || t.view || fkTo(t, a) == nil || fkTo(t, b) == nil {
			continue
		}
		if found != nil {
			return nil
		}
		found = t
	}
	return found
}

// namedAfter: every word of j's name names a or b (as a word, a synonym
// or an abbreviation).
func namedAfter(j, a, b *tableInfo) bool {
	for _, w := range j.words {
		ok := false
		for _, t := range []*tableInfo{a, b} {
			for _, tw := range t.words {
				if wordMatch(w, tw) >= 0.6 {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return len(j.words) > 0
}
