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
	"strings"
	"syscall"

	"github.com/tablewise/tablewise/core/db"
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

// usageError is bad input from the user: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

const usage = `tablewise — explore a SQLite database read-only and ask it questions

Usage:
  tablewise [--db PATH]                 open the explorer (built-in sample database without --db)
  tablewise sql [--db PATH] SQL         run one read-only statement (SQL "-" reads stdin)
  tablewise schema [--db PATH] [TABLE…] show tables, columns, keys and row counts
  tablewise ask [--db PATH] QUESTION    answer a question in plain language, with the SQL that produced it
  tablewise chart --sql SQL --out F.png draw a chart of a result (kind, x and y suggested unless given)
  tablewise export --sql SQL --out FILE export a whole result as CSV, JSON or JSON Lines
  tablewise mcp [--db PATH ...] [--http ADDR]
                                        serve databases to MCP clients (stdio, or streamable HTTP)
  tablewise doctor [--db PATH]          check that the database opens read-only and the guard works

Every command takes --db PATH (a SQLite file or file: URI). The database is never written.
Run "tablewise COMMAND --help" for a command's flags.

Exit codes: 0 ok · 1 internal error · 2 usage · 3 refused (read-only) · 4 database error · 5 deadline or resource limit · 130 interrupted
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := newStreams(stdin, stdout, stderr)
	return s.exit(dispatch(ctx, args, s))
}

func dispatch(ctx context.Context, args []string, s *streams) error {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "sql":
		return runSQL(ctx, args, s)
	case "schema":
		return runSchema(ctx, args, s)
	case "export":
		return runExport(ctx, args, s)
	case "doctor":
		return runDoctor(ctx, args, s)
	case "ask":
		return runAsk(ctx, args, s)
	case "chart":
		return runChart(ctx, args, s)
	case "mcp":
		return runMCP(ctx, args, s)
	case "version":
		fmt.Fprintf(s.out, "tablewise %s\n", version)
		return nil
	case "help":
		fmt.Fprint(s.out, usage)
		return nil
	case "":
		return runDefault(ctx, args, s)
	}
	if strings.HasSuffix(cmd, ".db") || strings.HasSuffix(cmd, ".sqlite") || strings.HasSuffix(cmd, ".sqlite3") || strings.HasPrefix(cmd, "file:") {
		return runDefault(ctx, append([]string{"--db", cmd}, args...), s)
	}
	return usagef("unknown command %q\n\n%s", cmd, usage)
}

// runDefault is what plain "tablewise" does: on a terminal, the explorer;
// otherwise (piped) a summary of the database and the commands to try.
func runDefault(ctx context.Context, args []string, s *streams) error {
	fs := newFlagSet("tablewise")
	dbPath := fs.String("db", "", "SQLite database file or file: URI (default: the built-in sample)")
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
	d, err := openDB(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	if s.outTTY {
		a, closeFn, err := newAsker(d, mf, s.getenv)
		if err != nil {
			return err
		}
		defer closeFn()
		return runTUI(ctx, d, s, a)
	}
	fmt.Fprint(s.out, usage)
	fmt.Fprintf(s.out, "\nDatabase: %s\n\n", d.Label())
	return printSchemaSummary(ctx, d, s)
}

// openDB opens path, or the built-in sample database when path is empty.
func openDB(ctx context.Context, path string) (*db.DB, error) {
	label := ""
	if path == "" {
		p, err := data.SamplePath()
		if err != nil {
			return nil, fmt.Errorf("prepare the sample database: %w", err)
		}
		path, label = p, data.SampleName
	}
	return db.Open(ctx, path, db.Options{Label: label})
}

// exit prints err with its hint and returns the exit code for it.
func (s *streams) exit(err error) int {
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	prefix := "error: "
	if code == exitRefused {
		prefix = "refused: "
	}
	fmt.Fprintln(s.err, prefix+err.Error())
	return code
}

func exitCode(err error) int {
	var (
		ue  *usageError
		rej *guard.Rejection
		se  *guard.SQLError
		le  *query.LimitError
		be  *budgetError
	)
	switch {
	case errors.As(err, &ue), errors.Is(err, guard.ErrEmpty), errors.Is(err, db.ErrNotFound):
		return exitUsage
	case errors.As(err, &rej):
		return exitRefused
	case errors.As(err, &le), errors.As(err, &be):
		return exitLimit
	case errors.As(err, &se):
		return exitDatabase
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitInternal
}
