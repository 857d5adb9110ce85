// Command tablewise explores a SQLite database from the terminal, read-only,
// and answers questions about it with the SQL that produced each answer.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tablewise/tablewise/core/ask"
	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/fault"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
	"github.com/tablewise/tablewise/data"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit codes: a contract that scripts and the other front doors rely on.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
	exitRefused  = 3
	exitDatabase = 4
	exitLimit    = 5
	// exitInterrupted is the shell's convention for Ctrl-C.
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// streams are the standard streams a command uses; tests pass buffers.
type streams struct {
	in       io.Reader
	out, err io.Writer
	// outTTY and errTTY say whether out and err are terminals.
	outTTY, errTTY bool
	getenv         func(string) string
}

func newStreams(in io.Reader, out, errw io.Writer) *streams {
	return &streams{in: in, out: out, err: errw, outTTY: isTerminal(out), errTTY: isTerminal(errw), getenv: os.Getenv}
}

// usagef is bad input from the user: exit 2.
func usagef(format string, args ...any) error {
	return fault.New(fault.Usage, fmt.Sprintf(format, args...), "")
}

const usage = `tablewise — explore a SQL database (SQLite, PostgreSQL, MySQL/MariaDB) read-only and ask it questions

Usage:
  tablewise [--db PATH]                 open the explorer (built-in sample database without --db)
  tablewise data.csv [more.json …]      explore data files: a table per file, loaded into memory
  tablewise sql [--db PATH] SQL         run one read-only statement (SQL "-" reads stdin)
  tablewise schema [--db PATH] [TABLE…]
                                        show tables, columns, keys and row counts
  tablewise ask [--db PATH] QUESTION    answer a question in plain language, with the SQL that produced it
  tablewise chart --sql SQL --out F.png
                                        draw a chart of a result (kind, x and y suggested unless given)
  tablewise export --sql SQL --out FILE
                                        export a whole result as CSV, JSON, JSON Lines or Markdown
  tablewise mcp [--db PATH ...] [--http ADDR]
                                        serve databases to MCP clients (stdio, or streamable HTTP)
  tablewise discord [--db PATH ...]     answer questions in Discord (token in DISCORD_BOT_TOKEN)
  tablewise doctor [--db PATH]          check that the database opens read-only and the guard works
  tablewise health [--db PATH] [TABLE…] find schema and data problems, each with its fix as SQL (never run)
  tablewise explain [--db PATH] [--analyze] SQL
                                        show how the database would run a statement, with notes on slow
                                        steps; --analyze runs it once, read-only, for actual rows and time
  tablewise advise [--db PATH] --sql SQL | --workload FILE
                                        suggest indexes, proven with the planner (never created), or a
                                        labelled estimate where the planner cannot try them
  tablewise migrate-check --up FILE [--down FILE]
                                        rehearse a migration on an in-memory copy of the schema: what it
                                        destroys, what it changes, whether down undoes it
  tablewise eval --suite FILE|bird:DIR|spider:DIR|behaviours
                                        measure answers: execution accuracy, abstentions, cost, latency
  tablewise version                     print the version (also --version)

Every command takes --db PATH: a SQLite file or file: URI, a postgres:// or mysql:// URL, or a
data file (.csv, .tsv, .json, .jsonl, .parquet; repeat --db for several). Without it,
$TABLEWISE_DB, else the built-in sample. The database and the files are never written.
Run "tablewise COMMAND --help" for a command's flags.

Exit codes: 0 ok · 1 internal error · 2 usage · 3 refused (read-only) · 4 database error · 5 deadline or resource limit · 130 interrupted
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := newStreams(stdin, stdout, stderr)
	err := dispatch(ctx, args, s)
	if h := (*helpRequest)(nil); errors.As(err, &h) {
		fmt.Fprint(s.out, h.text)
		return exitOK
	}
	return s.exit(err)
}

// commands are the subcommands, by name.
var commands = map[string]func(context.Context, []string, *streams) error{
	"sql":     runSQL,
	"schema":  runSchema,
	"export":  runExport,
	"doctor":  runDoctor,
	"health":  runHealth,
	"explain": runExplain,
	"advise":  runAdvise,

	"migrate-check": runMigrateCheck,
	"ask":           runAsk,
	"chart":         runChart,
	"mcp":           runMCP,
	"discord":       runDiscord,
	"eval":          runEval,
}

func dispatch(ctx context.Context, args []string, s *streams) error {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	if cmd == "" && len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		cmd = "version"
	}
	if run, ok := commands[cmd]; ok {
		return run(ctx, args, s)
	}
	switch cmd {
	case "version":
		fmt.Fprintf(s.out, "tablewise %s\n", version)
		return nil
	case "help":
		fmt.Fprint(s.out, usage)
		return nil
	case "":
		return runDefault(ctx, args, s)
	}
	if db.LooksLikeDatabase(cmd) {
		flags := []string{"--db", cmd}
		// tablewise a.csv b.json: several data files, a table each.
		for db.DataFiles(cmd) && len(args) > 0 && db.DataFiles(args[0]) {
			flags, args = append(flags, "--db", args[0]), args[1:]
		}
		return runDefault(ctx, append(flags, args...), s)
	}
	names := []string{"version", "help"}
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	if near := guard.Nearest(cmd, names, 1); len(near) > 0 {
		return usagef("unknown command %q — did you mean %q? (tablewise help lists the commands)", cmd, near[0])
	}
	return usagef("unknown command %q\n\n%s", cmd, usage)
}

// runDefault is what plain "tablewise" does: on a terminal, the explorer;
// otherwise (piped) a summary of the database and the commands to try.
func runDefault(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("tablewise")
	var dbPath string
	dbFlag(fs, &dbPath)
	help := fs.Bool("help", false, "show help")
	var mf modelFlags
	mf.register(fs)
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *help {
		fmt.Fprint(s.out, usage)
		return nil
	}
	d, err := s.openDB(ctx, dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	if s.outTTY {
		// The explorer's conversation lasts as long as it runs.
		svc, err := newAskService(mf, s.getenv, ask.NewMemory(1, 0), d)
		if err != nil {
			return err
		}
		defer svc.Close()
		return runTUI(ctx, d, s, svc)
	}
	fmt.Fprint(s.out, usage)
	fmt.Fprintf(s.out, "\nDatabase: %s\n\n", format.PrintableLine(d.Label()))
	return printSchemaSummary(ctx, d, dbPath, s)
}

// openDB opens path, or the built-in sample database when path is empty.
func openDB(ctx context.Context, path string) (*db.DB, error) {
	return openDBWith(ctx, path, db.Options{})
}

func openDBWith(ctx context.Context, path string, opt db.Options) (*db.DB, error) {
	if path == "" {
		p, err := data.SamplePath()
		if err != nil {
			return nil, fmt.Errorf("prepare the sample database: %w", err)
		}
		path, opt.Label = p, data.SampleName
	}
	return db.Open(ctx, path, opt)
}

// envDB names the database commands open when --db is not given.
const envDB = "TABLEWISE_DB"

// dbs is the databases given with --db, else the one TABLEWISE_DB names,
// else none (the built-in sample).
func (s *streams) dbs(given []string) []string {
	if len(given) == 0 {
		if v := strings.TrimSpace(s.getenv(envDB)); v != "" {
			return []string{v}
		}
	}
	return given
}

// openDB opens path (when empty: TABLEWISE_DB, else the built-in sample)
// like openDB and prints the database's warnings (such as rows that
// immutable=1 hides) on stderr. Data files loaded into memory show a
// progress line on a terminal while they load, and a line saying what was
// loaded when that took a while.
func (s *streams) openDB(ctx context.Context, path string) (*db.DB, error) {
	if path == "" {
		if dbs := s.dbs(nil); len(dbs) == 1 {
			path = dbs[0]
		}
	}
	var opt db.Options
	stop := func() {}
	if s.errTTY && db.DataFiles(path) {
		opt.Progress = &engine.LoadProgress{}
		stop = showLoadProgress(s.err, opt.Progress)
	}
	d, err := openDBWith(ctx, path, opt)
	stop()
	if err != nil {
		return nil, err
	}
	for _, w := range d.Warnings() {
		fmt.Fprintln(s.err, "warning: "+w)
	}
	return d, nil
}

// openWithin opens path as openDB does, under a deadline of timeout from
// now (none when timeout is 0 or less), and returns the query options
// whose Timeout is what is left of it. The deadline is absolute: opening
// a database reads its whole schema, which takes seconds for tens of
// thousands of tables, and that counts against the user's --timeout as
// the statement does.
func (s *streams) openWithin(ctx context.Context, path string, timeout time.Duration) (*db.DB, query.Options, error) {
	if timeout <= 0 {
		d, err := s.openDB(ctx, path)
		return d, query.Options{}, err
	}
	deadline := time.Now().Add(timeout)
	octx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	d, err := s.openDB(octx, path)
	if err != nil {
		return nil, query.Options{}, overdue(ctx, err, timeout)
	}
	left := time.Until(deadline)
	if left <= 0 {
		d.Close()
		return nil, query.Options{}, query.DeadlineError(timeout)
	}
	return d, query.Options{Timeout: left}, nil
}

// overdue words an error that the deadline of timeout ended — while the
// database opened, or the statement ran under what was left of it — as
// the statement's deadline error, naming the deadline the user gave (and
// the lock the statement waited for, when it waited for one); a
// statement the server still runs past that deadline (engine.StillRunning)
// names it too. A cancellation of ctx, and any other error, is returned
// as it is.
func overdue(ctx context.Context, err error, timeout time.Duration) error {
	if ctx.Err() == nil && (errors.Is(err, query.ErrDeadline) || errors.Is(err, context.DeadlineExceeded)) {
		if le := (*query.LimitError)(nil); errors.As(err, &le) && le.Lock != "" {
			return query.LockDeadlineError(timeout, le.Lock)
		}
		return query.DeadlineError(timeout)
	}
	if still := (*engine.StillRunning)(nil); timeout > 0 && errors.As(err, &still) && !still.Cancelled {
		told := *still
		told.Timeout = timeout
		return &told
	}
	return err
}

// openCatalog opens the database at path and reads its catalog. The
// caller closes the database.
func (s *streams) openCatalog(ctx context.Context, path string) (*db.DB, *catalog.Catalog, error) {
	d, err := s.openDB(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	cat, err := d.Catalog(ctx)
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return d, cat, nil
}

// exit prints err with its hint (core/fault) and returns its exit code.
func (s *streams) exit(err error) int {
	if err == nil {
		return exitOK
	}
	kind, msg, hint := fault.Explain(err)
	prefix := "error: "
	if kind == fault.Refused {
		prefix = "refused: "
	}
	fmt.Fprintln(s.err, format.Printable(prefix+format.WithHint(msg, hint)))
	return exitCodes[kind]
}

// exitCode is the exit code for err.
func exitCode(err error) int {
	kind, _, _ := fault.Explain(err)
	return exitCodes[kind]
}

// exitCodes maps each kind of failure to its exit code.
var exitCodes = map[fault.Kind]int{
	fault.Internal: exitInternal,
	fault.Usage:    exitUsage,
	fault.Refused:  exitRefused,
	fault.Database: exitDatabase,
	fault.Limit:    exitLimit,
	fault.Canceled: exitInterrupted,
}
