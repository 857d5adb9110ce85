package tui

import (
	"context"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/text"
	"github.com/tablewise/tablewise/tui/syntax"
)

// exampleTimeout bounds the search for a welcome question. It is a safety
// behind the planner's budgets of work, so a race build stretches it as it
// stretches theirs (engine.RaceSlowdown): under the race detector on a busy
// machine the first index of the sample took longer than 5 s, and the
// welcome showed no question.
const exampleTimeout = 5 * time.Second * engine.RaceSlowdown

// exampleMsg carries the welcome's example question: one the built-in
// planner answered on this database ("" when none was).
type exampleMsg struct{ question string }

// welcome is what the results pane shows before the first query. Every
// example on it works: the SQL reads the first table, and the question is
// one the built-in planner answered on this database (shown once found).
func (a *App) welcome(cat *catalog.Catalog) []string {
	st := a.com.Styles
	lines := []string{
		st.Bold.Render("Type SQL or a question above and press enter."),
		"",
		st.Dim.Render("  SQL       ") + syntax.Highlight(st, exampleSQL(cat, a.d.Dialect())),
	}
	switch {
	case a.example != "":
		lines = append(lines, st.Dim.Render("  question  ")+a.example)
	case cat != nil && !a.exampleDone:
		lines = append(lines, st.Dim.Render("  question  finding one this database answers…"))
	}
	return append(lines,
		"",
		st.Dim.Render("Enter on a table in the sidebar shows its rows."),
		st.Dim.Render("Read-only: nothing you run can change the data."),
		st.Dim.Render(".tables, .schema, .help work as in sqlite3."),
		st.Dim.Render("ctrl+o opens a multi-line SQL editor."),
		st.Dim.Render("f1 or ? lists every key · ctrl+c quits"),
	)
}

// exampleSQL reads the first table of the catalog.
func exampleSQL(cat *catalog.Catalog, dl engine.Dialect) string {
	table := "some_table"
	if cat != nil && len(cat.Tables) > 0 {
		table = dl.QuoteIdentIfNeeded(cat.Tables[0].Name)
	}
	return "SELECT * FROM " + table + " " + dl.Limit(10)
}

// findExample asks the built-in planner (through the answer service, on
// its own and with nothing kept) the candidate questions for cat in turn
// and reports the first it answers with rows.
func (a *App) findExample(cat *catalog.Catalog) tea.Cmd {
	cands := exampleQuestions(cat)
	if len(cands) == 0 {
		return func() tea.Msg { return exampleMsg{} }
	}
	ctx, d, log := a.ctx, a.d, a.log
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, exampleTimeout)
		defer cancel()
		svc, err := ask.New(ask.Config{Provider: "offline"})
		if err != nil {
			log.Warn("welcome example", "err", err)
			return exampleMsg{}
		}
		defer svc.Close()
		for _, q := range cands {
			b, err := svc.Ask(ctx, q, ask.Conversation{DB: d}, nil)
			if err != nil {
				log.Info("welcome example", "question", q, "err", err)
				break
			}
			if b.Status == answer.StatusAnswered && b.RowCount > 0 {
				return exampleMsg{question: q}
			}
		}
		return exampleMsg{}
	}
}

// exampleQuestions are questions worth showing first, built from the
// catalog's shape: which parents have the most rows of the largest table
// ("which 5 products have the most order items?"), counts per parent and
// per year, and a plain count. Only one the planner answers is shown.
func exampleQuestions(cat *catalog.Catalog) []string {
	if cat == nil {
		return nil
	}
	byName := map[string]*catalog.Table{}
	var tables []*catalog.Table
	for _, t := range cat.Tables {
		byName[strings.ToLower(t.Name)] = t
		if t.Kind == "table" && !junction(t) {
			tables = append(tables, t)
		}
	}
	sort.SliceStable(tables, func(i, j int) bool { return tables[i].RowCount > tables[j].RowCount })
	var ranked, perParent, perYear, counts []string
	for i, t := range tables {
		if i == 4 {
			break
		}
		many := text.Plural(nameWords(t.Name))
		for _, fk := range t.ForeignKeys {
			p := byName[strings.ToLower(fk.RefTable)]
			if p == nil || p == t || !hasLabel(p) {
				continue
			}
			parent := nameWords(p.Name)
			ranked = append(ranked, "which 5 "+text.Plural(parent)+" have the most "+many+"?")
			perParent = append(perParent, "How many "+many+" are there per "+text.Singular(parent)+"?")
		}
		if hasDate(t) {
			perYear = append(perYear, "How many "+many+" were there per year?")
		}
		counts = append(counts, "How many "+many+" are there?")
	}
	return append(append(append(ranked, perParent...), perYear...), counts...)
}

// junction reports whether t only links two tables: every column of its
// primary key is a foreign key ("PlaylistTrack").
func junction(t *catalog.Table) bool {
	if len(t.PrimaryKey) < 2 {
		return false
	}
	fk := map[string]bool{}
	for _, f := range t.ForeignKeys {
		for _, c := range f.Columns {
			fk[strings.ToLower(c)] = true
		}
	}
	for _, c := range t.PrimaryKey {
		if !fk[strings.ToLower(c)] {
			return false
		}
	}
	return true
}

// hasLabel reports whether t has a text column that names a row.
func hasLabel(t *catalog.Table) bool {
	for _, c := range t.Columns {
		n := strings.ToLower(c.Name)
		if n == "name" || n == "title" || strings.HasSuffix(n, "_name") || n == "label" {
			return true
		}
	}
	return false
}

// hasDate reports whether t has a column declared as a date or time.
func hasDate(t *catalog.Table) bool {
	for _, c := range t.Columns {
		if ty := strings.ToUpper(c.Type); strings.Contains(ty, "DATE") || strings.Contains(ty, "TIME") {
			return true
		}
	}
	return false
}

// nameWords is a table's name as words: "order_items" → "order items".
func nameWords(name string) string { return strings.Join(text.Words(name), " ") }
