// Package migrate rehearses a migration without running it on the
// database: the engine (engine.Rehearser) runs the up script, then the down
// script, on a private copy of the schema without rows, and this package
// reads what happened — each statement's kind, what it destroys, what it
// changed in the schema, and whether down restores the schema exactly. The
// database itself is only read.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/format"
)

// Statement is one statement of a script as rehearsed.
type Statement struct {
	SQL  string `json:"sql"`
	Kind string `json:"kind"`
	// Destructive: it drops or changes data that exists (a table, a
	// column, rows).
	Destructive bool `json:"destructive,omitempty"`
	// Lock is the table-level lock the statement takes on PostgreSQL
	// ("ACCESS EXCLUSIVE on orders"), from the documentation's table; ""
	// on other engines and for statements that lock no existing table.
	Lock  string   `json:"lock,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// Error is the engine's error; the script stops there.
	Error string `json:"error,omitempty"`
}

// Report is what a rehearsal found.
type Report struct {
	Engine string `json:"engine"`
	// Valid: every statement of up (and down) ran.
	Valid       bool        `json:"valid"`
	Destructive bool        `json:"destructive"`
	Up          []Statement `json:"up"`
	// Changes is the schema diff after up: "+ table t", "- column t.c",
	// "~ index i".
	Changes []string    `json:"changes"`
	Down    []Statement `json:"down,omitempty"`
	// Reversible: after up then down the schema is the original one;
	// nil without a down script (or when a script failed).
	Reversible *bool `json:"reversible,omitempty"`
	// NotRestored lists what down left different from the original.
	NotRestored []string `json:"not_restored,omitempty"`
	Notes       []string `json:"notes"`
}

// ErrUnsupported: the engine cannot rehearse a migration.
var ErrUnsupported = errors.New("migration rehearsal is not available for this engine yet")

// ErrNeedsScratch: a server database is rehearsed only in a scratch
// database the user names. The error that matches it also matches
// engine.ErrBadPath: a usage error.
var ErrNeedsScratch = errors.New("a scratch database is needed")

// Options tune Check.
type Options struct {
	// Scratch is the URL of a separate database of the same engine where
	// a PostgreSQL or MySQL/MariaDB migration is rehearsed (in a schema
	// or database created and dropped there). Required for those engines,
	// refused for SQLite, which rehearses in memory.
	Scratch string
}

// Check rehearses up (and down, when not empty) against d's schema.
func Check(ctx context.Context, d *db.DB, up, down string, opt Options) (*Report, error) {
	name := d.Dialect().Name()
	cat, err := d.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	var reh *engine.Rehearsal
	var where string
	switch r := d.Engine().(type) {
	case engine.Rehearser:
		if opt.Scratch != "" {
			return nil, &engine.UsageError{Msg: fmt.Sprintf("a scratch database is for PostgreSQL and MySQL/MariaDB; %s migrations are rehearsed in memory: drop --scratch", name), Sentinel: engine.ErrBadPath}
		}
		reh, err = r.Rehearse(ctx, up, down)
		where = "rehearsed on an in-memory copy of the schema without rows"
	case engine.ScratchRehearser:
		if opt.Scratch == "" {
			server := strings.Fields(name)[0] // "PostgreSQL 15" → "PostgreSQL"
			made := "a schema (the scratch user needs CREATE on that database)"
			if d.Engine().Name() == "mysql" {
				made = "a database (the scratch user needs CREATE and DROP there)"
			}
			return nil, &engine.UsageError{Sentinel: ErrNeedsScratch, Msg: fmt.Sprintf("%s migrations are rehearsed in a scratch database, never in the one checked: pass --scratch URL naming another %s database where tablewise may create and drop %s; %s is only read", server, server, made, d.Engine().Source().Display)}
		}
		reh, err = r.RehearseIn(ctx, opt.Scratch, up, down)
		where = fmt.Sprintf("rehearsed on a copy of the schema without rows, made in the scratch database %s and dropped afterwards", engine.Redact(opt.Scratch))
	default:
		return nil, fmt.Errorf("%w (%s)", ErrUnsupported, name)
	}
	if err != nil {
		return nil, err
	}
	rep := &Report{Engine: name, Changes: []string{}, Up: []Statement{},
		Notes: []string{where + "; the database was only read, and row counts come from it"}}
	rep.Notes = append(rep.Notes, reh.Notes...)
	var indexes map[string]string // index → its table, for the locks
	if d.Engine().Name() == "postgres" {
		indexes = map[string]string{}
		for _, o := range append(append([]engine.SchemaObject(nil), reh.Before...), reh.AfterUp...) {
			if o.Type == "index" {
				indexes[strings.ToLower(catalog.Unquote(o.Name))] = catalog.Unquote(o.Table)
			}
		}
	}
	rep.Up = classify(reh.Up, cat, indexes)
	rep.Valid = reh.AfterUp != nil
	if rep.Valid {
		rep.Changes = diff(reh.Before, reh.AfterUp)
	}
	if down != "" && strings.TrimSpace(down) != "" && rep.Valid {
		rep.Down = classify(reh.Down, cat, indexes)
		if reh.AfterDown == nil {
			rep.Valid = false
		} else {
			rep.NotRestored = diff(reh.Before, reh.AfterDown)
			ok := len(rep.NotRestored) == 0
			rep.Reversible = &ok
		}
	}
	for _, s := range rep.Up {
		rep.Destructive = rep.Destructive || s.Destructive
	}
	if len(rep.Up) == 0 {
		rep.Notes = append(rep.Notes, "the up script holds no statement")
	}
	return rep, nil
}

// Text renders the report for people: each script's statements with
// what they destroy, the schema diff, and the verdicts.
func (r *Report) Text() string {
	w := &strings.Builder{}
	writeScript(w, "up", r.Up)
	if len(r.Changes) > 0 {
		fmt.Fprintf(w, "\nschema after up:\n  %s\n", strings.Join(r.Changes, "\n  "))
	}
	if r.Down != nil {
		writeScript(w, "down", r.Down)
	}
	fmt.Fprintln(w)
	switch {
	case !r.Valid:
		fmt.Fprintln(w, "INVALID: a statement fails (above); the migration would stop there.")
	case r.Destructive:
		fmt.Fprintln(w, "DESTRUCTIVE: up drops or changes data that exists (above).")
	default:
		fmt.Fprintln(w, "Safe: up adds to the schema without dropping or changing data.")
	}
	switch {
	case r.Reversible != nil && *r.Reversible:
		fmt.Fprintln(w, "Reversible: down restores the schema exactly.")
	case r.Reversible != nil:
		fmt.Fprintf(w, "IRREVERSIBLE: after down the schema differs from the original:\n  %s\n", strings.Join(r.NotRestored, "\n  "))
	case r.Down == nil && r.Valid:
		fmt.Fprintln(w, "No down script: reversibility not checked.")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return w.String()
}

func writeScript(w *strings.Builder, name string, stmts []Statement) {
	fmt.Fprintf(w, "%s: %s\n", name, format.Plural(int64(len(stmts)), "statement"))
	for i, st := range stmts {
		mark := "ok "
		switch {
		case st.Error != "":
			mark = "ERR"
		case st.Destructive:
			mark = "!! "
		}
		fmt.Fprintf(w, "  %s %d. %s  %s\n", mark, i+1, st.Kind, format.ClipRunes(format.PrintableLine(st.SQL), 90))
		if st.Lock != "" {
			fmt.Fprintf(w, "         lock: %s\n", st.Lock)
		}
		for _, n := range st.Notes {
			fmt.Fprintf(w, "         %s\n", n)
		}
		if st.Error != "" {
			fmt.Fprintf(w, "         error: %s\n", st.Error)
		}
	}
}

var (
	wordsRe     = regexp.MustCompile(`(?i)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*([A-Za-z]+)(?:\s+([A-Za-z]+))?(?:\s+([A-Za-z]+))?`)
	alterRe     = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*)*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?("(?:[^"]|"")+"|` + "`[^`]+`" + `|[\w.]+)\s+(ADD|DROP|RENAME|ALTER|MODIFY|CHANGE)\s+(?:COLUMN\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?("(?:[^"]|"")+"|` + "`[^`]+`" + `|\w+)?`)
	dropTableRe = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*)*DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?("(?:[^"]|"")+"|` + "`[^`]+`" + `|[\w.]+)`)
	dmlRe       = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*)*(?:DELETE\s+FROM|UPDATE)\s+("(?:[^"]|"")+"|` + "`[^`]+`" + `|[\w.]+)`)
	whereRe     = regexp.MustCompile(`(?i)\bWHERE\b`)
	notNullRe   = regexp.MustCompile(`(?i)\bNOT\s+NULL\b`)
	defaultRe   = regexp.MustCompile(`(?i)\bDEFAULT\b`)
)

// classify names each statement's kind and what it destroys.
// On PostgreSQL (indexes not nil: each index's table) each also gets the
// lock it takes, with a warning when it is ACCESS EXCLUSIVE on a big table.
func classify(stmts []engine.RehearsedStatement, cat *catalog.Catalog, indexes map[string]string) []Statement {
	out := make([]Statement, 0, len(stmts))
	for _, rs := range stmts {
		s := Statement{SQL: rs.SQL, Error: rs.Err, Kind: kind(rs.SQL)}
		rows := func(table string) string {
			if t := cat.Table(catalog.Unquote(table)); t != nil && t.RowCount >= 0 {
				return format.RowCount(t.RowCount, t.RowCountEstimated)
			}
			return "rows the database does not have yet"
		}
		if indexes != nil {
			if lock, table := postgresLock(rs.SQL); lock != "" {
				s.Lock = lock
				if table != "" {
					table = catalog.Unquote(table)
					if _, n, ok := strings.Cut(table, "."); ok && cat.Table(table) == nil {
						table = n // schema.name
					}
					if on, ok := indexes[strings.ToLower(table)]; ok {
						table = on // DROP INDEX, ALTER INDEX: the lock is on its table
					}
					t := cat.Table(table)
					s.Lock += " on " + table
					if lock == AccessExclusive && t != nil && t.RowCount >= bigTableRows {
						s.Notes = append(s.Notes, fmt.Sprintf("takes ACCESS EXCLUSIVE on %s, a big table (%s): every read and write of it waits until the statement ends, and so does every statement queued behind it", t.Name, rows(table)))
					}
				}
			}
		}
		switch {
		case dropTableRe.MatchString(rs.SQL):
			t := dropTableRe.FindStringSubmatch(rs.SQL)[1]
			s.Destructive = true
			s.Notes = append(s.Notes, fmt.Sprintf("drops table %s and its data (%s)", catalog.Unquote(t), rows(t)))
		case alterRe.MatchString(rs.SQL):
			m := alterRe.FindStringSubmatch(rs.SQL)
			t, op, col := catalog.Unquote(m[1]), strings.ToUpper(m[2]), catalog.Unquote(m[3])
			switch op {
			case "DROP":
				s.Destructive = true
				s.Notes = append(s.Notes, fmt.Sprintf("drops column %s.%s and its values (%s)", t, col, rows(m[1])))
			case "RENAME":
				s.Notes = append(s.Notes, fmt.Sprintf("renames %s: queries, views and applications that use the old name fail", strings.TrimSpace(t+"."+col)))
			case "ALTER", "MODIFY", "CHANGE":
				s.Notes = append(s.Notes, fmt.Sprintf("changes column %s.%s: a narrower type or a new NOT NULL fails on, or truncates, existing values (%s)", t, col, rows(m[1])))
				if strings.Contains(strings.ToUpper(rs.SQL), " TYPE ") || op != "ALTER" {
					s.Destructive = true
				}
			case "ADD":
				if notNullRe.MatchString(rs.SQL) && !defaultRe.MatchString(rs.SQL) {
					if tb := cat.Table(t); tb != nil && tb.RowCount > 0 {
						s.Destructive = true
						s.Notes = append(s.Notes, fmt.Sprintf("adds a NOT NULL column without a default to %s, which holds %s: the real database refuses it", t, rows(m[1])))
					}
				}
			}
		case dmlRe.MatchString(rs.SQL):
			t := dmlRe.FindStringSubmatch(rs.SQL)[1]
			s.Destructive = true
			scope := "the rows its WHERE matches"
			if !whereRe.MatchString(rs.SQL) {
				scope = "every row"
			}
			s.Notes = append(s.Notes, fmt.Sprintf("changes %s of %s (%s); the rehearsal has no rows, so how many was not measured", scope, catalog.Unquote(t), rows(t)))
		case strings.HasPrefix(s.Kind, "DROP INDEX"):
			s.Notes = append(s.Notes, "queries that used the index may become slower")
		}
		out = append(out, s)
	}
	return out
}

// kind is a statement's first keywords: "CREATE TABLE", "ALTER TABLE",
// "DROP INDEX", "INSERT".
func kind(sql string) string {
	m := wordsRe.FindStringSubmatch(sql)
	if m == nil {
		return "?"
	}
	w := []string{strings.ToUpper(m[1])}
	switch w[0] {
	case "CREATE", "DROP", "ALTER":
		for _, x := range m[2:] {
			x = strings.ToUpper(x)
			if x == "" {
				break
			}
			w = append(w, x)
			if x != "UNIQUE" && x != "TEMP" && x != "TEMPORARY" && x != "VIRTUAL" {
				break
			}
		}
	}
	return strings.Join(w, " ")
}

// diff lists how schema b differs from a: objects added, removed or
// changed, and for tables the columns added and removed.
func diff(a, b []engine.SchemaObject) []string {
	key := func(o engine.SchemaObject) string { return o.Type + " " + strings.ToLower(o.Name) }
	am := map[string]engine.SchemaObject{}
	for _, o := range a {
		am[key(o)] = o
	}
	bm := map[string]engine.SchemaObject{}
	for _, o := range b {
		bm[key(o)] = o
	}
	var out []string
	for _, o := range a {
		n, ok := bm[key(o)]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("- %s %s", o.Type, o.Name))
		case normalize(n.SQL) != normalize(o.SQL):
			if o.Type == "table" {
				ac, bc := columns(o.SQL), columns(n.SQL)
				changed := false
				for _, c := range ac {
					if !slices.Contains(bc, c) {
						out = append(out, fmt.Sprintf("- column %s.%s", o.Name, c))
						changed = true
					}
				}
				for _, c := range bc {
					if !slices.Contains(ac, c) {
						out = append(out, fmt.Sprintf("+ column %s.%s", o.Name, c))
						changed = true
					}
				}
				if changed {
					continue
				}
			}
			out = append(out, fmt.Sprintf("~ %s %s: %s", o.Type, o.Name, format.ClipRunes(normalize(n.SQL), 200)))
		}
	}
	for _, o := range b {
		if _, ok := am[key(o)]; !ok {
			out = append(out, fmt.Sprintf("+ %s %s", o.Type, o.Name))
		}
	}
	return out
}

var spaces = regexp.MustCompile(`\s+`)

// normalize makes two spellings of one definition compare equal: spaces
// collapsed, around punctuation dropped, keywords in one case.
func normalize(sql string) string {
	s := spaces.ReplaceAllString(strings.TrimSpace(sql), " ")
	s = strings.NewReplacer(" (", "(", "( ", "(", " )", ")", " ,", ",", ", ", ",").Replace(s)
	return strings.ToUpper(strings.TrimSuffix(s, ";"))
}

// columns reads the column names of a CREATE TABLE statement: the first
// word of each item of its parenthesised list that is not a constraint.
func columns(create string) []string {
	open := strings.Index(create, "(")
	close := strings.LastIndex(create, ")")
	if open < 0 || close <= open {
		return nil
	}
	body := create[open+1 : close]
	var items []string
	var cur strings.Builder
	depth := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := strings.IndexByte(body[i+1:], end)
			if j < 0 {
				j = len(body) - i - 1
			}
			cur.WriteString(body[i : i+j+2])
			i += j + 1
		case c == '-' && strings.HasPrefix(body[i:], "--"):
			j := strings.IndexByte(body[i:], '\n')
			if j < 0 {
				i = len(body)
			} else {
				i += j
			}
			cur.WriteByte(' ')
		case c == '/' && strings.HasPrefix(body[i:], "/*"):
			j := strings.Index(body[i:], "*/")
			if j < 0 {
				i = len(body)
			} else {
				i += j + 1
			}
			cur.WriteByte(' ')
		case c == '(':
			depth++
			cur.WriteByte(c)
		case c == ')':
			depth--
			cur.WriteByte(c)
		case c == ',' && depth == 0:
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	items = append(items, cur.String())
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		first := it
		if len(it) > 0 && (it[0] == '"' || it[0] == '`' || it[0] == '[') {
			end := map[byte]byte{'"': '"', '`': '`', '[': ']'}[it[0]]
			if j := strings.IndexByte(it[1:], end); j >= 0 {
				first = it[:j+2]
			}
		} else if f := strings.Fields(it); len(f) > 0 {
			first = f[0]
		}
		switch strings.ToUpper(first) {
		case "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "CONSTRAINT":
			continue
		}
		out = append(out, catalog.Unquote(first))
	}
	return out
}
