package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tablewise/tablewise/core/advise"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/dotcmd"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/health"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/tui/components/input"
	"github.com/tablewise/tablewise/tui/components/statusbar"
)

// dotCommand is a sqlite3-style command typed in the input: ".tables",
// ".schema orders", ".mode csv" (and the psql/litecli spellings \dt, \d,
// \di, \q, \?).
type dotCommand struct {
	typed string   // the whole command as typed
	name  string   // the command as typed, without the dot: "tab", "schema"
	args  []string // the words after it, quotes removed
}

// parseDot reads text as a dot-command (core/dotcmd.Parse): one line
// that starts with a dot (or a backslash) and a letter.
func parseDot(text string) (dotCommand, bool) {
	c, ok := dotcmd.Parse(text)
	if !ok {
		return dotCommand{}, false
	}
	return dotCommand{typed: strings.TrimSpace(text), name: c.Name, args: c.Args}, true
}

// dotSpec is one dot-command the explorer knows: run does it, or the
// advice says what to use instead.
type dotSpec struct {
	name   string
	usage  string
	help   string
	run    func(a *App, args []string) tea.Cmd
	advice string
}

// dotCommands lists the commands in the order a prefix is matched (sqlite3
// accepts ".tab" for ".tables").
var dotCommands = []dotSpec{
	{name: "tables", usage: ".tables [pattern]", help: "list tables and views", run: (*App).dotTables},
	{name: "schema", usage: ".schema [pattern]", help: "CREATE statements in the pager", run: (*App).dotSchema},
	{name: "indexes", usage: ".indexes [table]", help: "list indexes", run: (*App).dotIndexes},
	{name: "indices", run: (*App).dotIndexes},
	{name: "read", usage: ".read FILE", help: "load a SQL file into the editor", run: (*App).dotRead},
	{name: "health", usage: ".health [TABLE…]", help: "schema and data problems, each with its fix (never run)", run: (*App).dotHealth},
	{name: "explain", usage: ".explain [SQL]", help: "the plan of SQL (default: the result's SQL)", run: (*App).dotExplain},
	{name: "advise", usage: ".advise [SQL]", help: "indexes that would speed SQL up, proven by the planner", run: (*App).dotAdvise},
	{name: "editor", run: func(a *App, _ []string) tea.Cmd {
		a.input.SetEditor(true)
		a.setFocus(paneInput)
		return nil
	}},
	{name: "help", usage: ".help", help: "these commands and every key", run: func(a *App, _ []string) tea.Cmd {
		a.setFocus(paneInput)
		a.openHelp()
		return nil
	}},
	{name: "quit", usage: ".quit", help: "quit", run: func(a *App, _ []string) tea.Cmd { return a.quit() }},
	{name: "exit", run: func(a *App, _ []string) tea.Cmd { return a.quit() }},
	{name: "databases", usage: ".databases", help: "the database file", run: (*App).dotDatabases},
	{name: "show", run: (*App).dotDatabases},
	{name: "mode", usage: ".mode, .output, .once", help: "see ctrl+s export",
		advice: "results are always a grid: v in the results shows one row a field a line (like .mode line), and ctrl+s exports the whole result as CSV, JSON, JSON Lines or Markdown (the file name's extension picks). In a shell, tablewise sql --format csv \"SELECT …\" prints CSV"},
	{name: "output", advice: "ctrl+s exports the whole result to a file: .csv, .json, .jsonl or .md picks the format"},
	{name: "once", advice: "ctrl+s exports the whole result to a file: .csv, .json, .jsonl or .md picks the format"},
	{name: "excel", advice: "ctrl+s exports the whole result as CSV (name the file .csv) for a spreadsheet"},
	{name: "separator", advice: "ctrl+s exports CSV; in a shell, tablewise sql --format csv \"SELECT …\" prints it"},
	{name: "headers", advice: "column names are always shown in the results"},
	{name: "header", advice: "column names are always shown in the results"},
	{name: "nullvalue", advice: "NULL shows as a dim NULL in the results, and y copies a NULL cell as empty text"},
	{name: "width", advice: "> and < in the results widen and narrow the focused column, and = sets it back"},
	{name: "timer", advice: "every result shows how long it took, on the status line"},
	{name: "open", advice: "one database is open at a time: quit (ctrl+c) and run tablewise FILE"},
	{name: "dump", advice: "nothing is dumped (tablewise is read-only): .schema shows the CREATE statements and ctrl+s exports a result"},
}

// refusedDots are sqlite3 commands that write or run programs.
var refusedDots = map[string]bool{
	"import": true, "load": true, "backup": true, "restore": true, "save": true, "clone": true, "recover": true,
	"shell": true, "system": true, "archive": true, "ar": true,
}

// dotHelp lists the dot-commands for the help overlay.
func dotHelp() [][]key.Binding {
	var out []key.Binding
	for _, d := range dotCommands {
		if d.usage != "" {
			out = append(out, key.NewBinding(key.WithKeys("."+d.name), key.WithHelp(d.usage, d.help)))
		}
	}
	out = append(out, key.NewBinding(key.WithKeys(`\dt`), key.WithHelp(`\dt \d \di \q`, "psql spellings")))
	return [][]key.Binding{out}
}

// findDot is the command name stands for: an exact name, else the first
// whose name starts with it (two letters at least).
func findDot(name string) (dotSpec, bool) {
	for _, d := range dotCommands {
		if d.name == name {
			return d, true
		}
	}
	if len(name) >= 2 {
		for _, d := range dotCommands {
			if strings.HasPrefix(d.name, name) {
				return d, true
			}
		}
	}
	return dotSpec{}, false
}

// runDot does what a dot-command asks.
func (a *App) runDot(c dotCommand) tea.Cmd {
	a.log.Info("dot-command", "name", c.name, "args", len(c.args))
	a.lastDot = c.typed
	d, ok := findDot(c.name)
	switch {
	case ok && d.run != nil:
		return d.run(a, c.args)
	case ok:
		a.openNote(c.typed, "In the explorer, "+d.advice+".")
	case refusedDots[c.name]:
		a.openNote(c.typed, "."+c.name+" is not available: tablewise never writes the database and never runs programs. ctrl+s exports a result to a file.")
	default:
		a.openNote(c.typed, "Unknown command "+dotName(c.name)+". The explorer knows .tables, .schema, .indexes, .health, .explain, .advise, .read, .help and .quit (and \\dt, \\d, \\di, \\q); f1 lists them with every key. Anything else you type runs as SQL or is asked as a question.")
	}
	return nil
}

// checkMsg carries the text of a check run in the background (.health,
// .explain, .advise) to the pager.
type checkMsg struct {
	title, text string
	err         error
}

// runCheck runs fn off the event loop, bounded by the explorer's
// deadline, and shows its text in the pager.
func (a *App) runCheck(title string, fn func(ctx context.Context) (string, error)) tea.Cmd {
	a.status.SetMessage(statusbar.Info, title+" …")
	timeout := a.opts.Timeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		text, err := fn(ctx)
		return checkMsg{title: title, text: text, err: err}
	}
}

func (a *App) showCheck(m checkMsg) tea.Cmd {
	if m.err != nil {
		return a.fail(m.err)
	}
	a.status.SetMessage(statusbar.OK, m.title)
	a.openPager(m.title, format.Printable(m.text), false)
	return nil
}

func (a *App) dotHealth(args []string) tea.Cmd {
	title := ".health"
	if len(args) > 0 {
		title += " " + strings.Join(args, " ")
	}
	return a.runCheck(title, func(ctx context.Context) (string, error) {
		rep, err := health.Check(ctx, a.d, health.Options{Tables: args})
		if err != nil {
			return "", err
		}
		return rep.Text(), nil
	})
}

// checkSQL is the statement .explain and .advise work on: what follows
// the command as typed (quotes kept), else the SQL of the result shown.
func (a *App) checkSQL(cmd string) (string, bool) {
	c, _ := parseDot(a.lastDot)
	_, rest, _ := strings.Cut(strings.TrimSpace(c.typed), " ")
	if sql := strings.TrimSpace(rest); sql != "" {
		return sql, true
	}
	if sql := a.grid.SQL(); sql != "" {
		return sql, true
	}
	a.status.SetMessage(statusbar.Error, "."+cmd+" needs a statement: ."+cmd+" SELECT … (or run one first)")
	return "", false
}

func (a *App) dotExplain([]string) tea.Cmd {
	sql, ok := a.checkSQL("explain")
	if !ok {
		return nil
	}
	return a.runCheck(".explain", func(ctx context.Context) (string, error) {
		p, err := a.d.Explain(ctx, sql)
		if err != nil {
			return "", err
		}
		return p.SQL + "\n\n" + p.Text(), nil
	})
}

func (a *App) dotAdvise([]string) tea.Cmd {
	sql, ok := a.checkSQL("advise")
	if !ok {
		return nil
	}
	return a.runCheck(".advise", func(ctx context.Context) (string, error) {
		adv, err := advise.Advise(ctx, a.d, sql)
		if err != nil {
			return "", err
		}
		return adv.SQL + "\n\n" + adv.Text(), nil
	})
}

func dotName(n string) string {
	if strings.HasPrefix(n, "\\") {
		return format.PrintableLine(n)
	}
	return "." + format.PrintableLine(n)
}

// showListing puts rows made from the catalog in the results pane.
func (a *App) showListing(label string, cols []query.Column, rows []query.Row) {
	if a.job != nil && a.job.kind != jobExport {
		a.cancelJob()
	}
	a.answer.Clear()
	a.clearAnswer()
	a.grid.SetResult("", cols, rows, false)
	a.gridLabel = label
	a.setFocus(paneResults)
}

// matchingTables returns the tables and views whose names match the
// pattern in args (likeMatcher), in catalog order; ok is false, and the
// status says so, while the catalog is still being read.
func (a *App) matchingTables(args []string) (tables []*catalog.Table, ok bool) {
	if a.cat == nil {
		a.status.SetMessage(statusbar.Info, "the schema is still being read — try again in a moment")
		return nil, false
	}
	match := likeMatcher(args)
	for _, t := range a.cat.Tables {
		if match(t.Name) {
			tables = append(tables, t)
		}
	}
	return tables, true
}

// likeMatcher matches names the way sqlite3's .tables PATTERN does: LIKE,
// with % and _, ignoring case. No pattern matches everything.
func likeMatcher(args []string) func(string) bool {
	if len(args) == 0 || args[0] == "" {
		return func(string) bool { return true }
	}
	var b strings.Builder
	b.WriteString("(?is)^")
	for _, r := range args[0] {
		switch r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re := regexp.MustCompile(b.String())
	return re.MatchString
}

func (a *App) dotTables(args []string) tea.Cmd {
	tables, ok := a.matchingTables(args)
	if !ok {
		return nil
	}
	cols := []query.Column{{Name: "name", Type: "TEXT"}, {Name: "type", Type: "TEXT"}, {Name: "rows", Type: "INTEGER"}, {Name: "columns", Type: "INTEGER"}}
	var rows []query.Row
	for _, t := range tables {
		var n any
		if t.RowCount >= 0 && !t.RowCountEstimated {
			n = t.RowCount
		}
		rows = append(rows, query.Row{t.Name, t.Kind, n, int64(len(t.Columns))})
	}
	if len(rows) == 0 && len(args) > 0 {
		a.status.SetMessage(statusbar.Error, "no table or view matches "+quoted(args[0])+" — .tables with no pattern lists them all")
		return nil
	}
	a.showListing(".tables "+strings.Join(args, " "), cols, rows)
	return nil
}

func (a *App) dotSchema(args []string) tea.Cmd {
	tables, ok := a.matchingTables(args)
	if !ok {
		return nil
	}
	var b strings.Builder
	for _, t := range tables {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		sql := strings.TrimSpace(t.SQL)
		if sql == "" {
			sql = "-- " + t.Kind + " " + a.d.Dialect().QuoteIdentIfNeeded(t.Name) + ": no CREATE statement recorded"
		} else if !strings.HasSuffix(sql, ";") {
			sql += ";"
		}
		b.WriteString(sql + "\n")
		for _, ix := range t.Indexes {
			if ix.Origin != "c" {
				continue
			}
			u := ""
			if ix.Unique {
				u = "unique "
			}
			fmt.Fprintf(&b, "-- %sindex %s on (%s)\n", u, ix.Name, strings.Join(ix.Columns, ", "))
		}
	}
	if len(tables) == 0 {
		a.status.SetMessage(statusbar.Error, "no table or view matches "+quoted(strings.Join(args, " "))+" — .tables lists them")
		return nil
	}
	title := ".schema"
	if len(args) > 0 {
		title += " " + strings.Join(args, " ")
	}
	a.openPager(title+" · "+format.Plural(int64(len(tables)), "statement"), b.String(), true)
	return nil
}

func (a *App) dotIndexes(args []string) tea.Cmd {
	tables, ok := a.matchingTables(args)
	if !ok {
		return nil
	}
	cols := []query.Column{{Name: "index", Type: "TEXT"}, {Name: "table", Type: "TEXT"}, {Name: "columns", Type: "TEXT"}, {Name: "unique", Type: "TEXT"}, {Name: "made by", Type: "TEXT"}}
	origin := map[string]string{"c": "CREATE INDEX", "u": "UNIQUE constraint", "pk": "PRIMARY KEY"}
	var rows []query.Row
	for _, t := range tables {
		for _, ix := range t.Indexes {
			u := "no"
			if ix.Unique {
				u = "yes"
			}
			o := origin[ix.Origin]
			if o == "" {
				o = ix.Origin
			}
			rows = append(rows, query.Row{ix.Name, t.Name, strings.Join(ix.Columns, ", "), u, o})
		}
	}
	if len(rows) == 0 {
		a.status.SetMessage(statusbar.Info, "no indexes on "+quoted(strings.Join(args, " ")))
		return nil
	}
	a.showListing(".indexes "+strings.Join(args, " "), cols, rows)
	return nil
}

func (a *App) dotDatabases([]string) tea.Cmd {
	a.status.SetMessage(statusbar.Info, "main: "+format.PrintableLine(a.d.Source())+" (read-only) · keeps "+format.Count(int64(a.opts.MaxRows))+" rows · "+a.opts.Timeout.String()+" deadline")
	return nil
}

// dotRead loads a SQL file into the editor without running it.
func (a *App) dotRead(args []string) tea.Cmd {
	if len(args) == 0 || args[0] == "" {
		a.status.SetMessage(statusbar.Error, ".read needs a file: .read query.sql")
		return nil
	}
	text, err := readSQLFile(args[0])
	if err != nil {
		return a.fail(err)
	}
	a.input.SetEditor(true)
	a.input.SetValue(text)
	a.input.SetMode(input.ModeAuto)
	a.setFocus(paneInput)
	a.status.SetMessage(statusbar.OK, "loaded "+format.PrintableLine(args[0])+" into the editor — alt+enter or f5 runs it")
	return nil
}

// readSQLFile reads at most the guard's SQL limit from path (~/ is the
// home directory).
func readSQLFile(path string) (string, error) {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, guard.MaxSQLBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > guard.MaxSQLBytes {
		return "", fmt.Errorf("read %s: %w", path, errTooLong)
	}
	return string(b), nil
}

var errTooLong = errors.New("the file is over the " + format.Bytes(guard.MaxSQLBytes) + " a statement may be")

func quoted(s string) string { return "“" + format.PrintableLine(s) + "”" }
