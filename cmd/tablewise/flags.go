package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/format"
)

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseServer parses the arguments of a server command (mcp, discord):
// its own flags, already declared on fs, and the ones every server takes,
// which it adds: --log-level, --help and the model flags. It returns the
// model flags and a logger writing to stderr at the chosen level; a nil
// logger with a nil error means --help printed usage and the command is
// done.
func parseServer(fs *flag.FlagSet, args []string, usage string, s *streams) (modelFlags, *slog.Logger, error) {
	name := fs.Name()
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	help := fs.Bool("help", false, "show help")
	var mf modelFlags
	mf.register(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return mf, nil, err
	}
	if *help {
		fmt.Fprint(s.out, usage)
		return mf, nil, nil
	}
	if len(rest) > 0 {
		return mf, nil, usagef("%s: unexpected argument %q (databases go in --db)\n\n%s", name, rest[0], usage)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return mf, nil, usagef("%s: unknown --log-level %q (choose debug, info, warn or error)", name, *logLevel)
	}
	return mf, slog.New(slog.NewTextHandler(s.err, &slog.HandlerOptions{Level: level})), nil
}

// dbFlag declares --db, which every command takes, into p.
func dbFlag(fs *flag.FlagSet, p *string) {
	fs.Var(&dbValue{p: p}, "db", "SQLite database file or file: URI, a postgres:// or mysql:// URL, or data files (.csv, .tsv, .json, .jsonl, .parquet; repeat --db for several) (default: $TABLEWISE_DB, else the built-in sample)")
}

// dbValue is --db: one database, or data files given one --db each
// (joined with commas, as db.Open reads them).
type dbValue struct {
	p   *string
	set bool
}

func (v *dbValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v *dbValue) Set(s string) error {
	if v.set {
		if !db.DataFiles(*v.p) || !db.DataFiles(s) {
			return fmt.Errorf("give one database (only data files such as .csv may be given with several --db)")
		}
		s = *v.p + "," + s
	}
	*v.p, v.set = s, true
	return nil
}

// textOrJSON refuses a --format other than text or json.
func textOrJSON(fs *flag.FlagSet, format string) error {
	if format != "text" && format != "json" {
		return usagef("%s: unknown format %q (choose text or json)", fs.Name(), format)
	}
	return nil
}

// reportFlags are the flags every command that reports on a database as
// text or JSON takes: --db and --format.
type reportFlags struct {
	dbPath string
	format string
}

// newReportFlags starts the flag set of such a command with --db and
// --format.
func newReportFlags(name string) (*flag.FlagSet, *reportFlags) {
	fs := newFlagSet(name)
	rf := &reportFlags{}
	dbFlag(fs, &rf.dbPath)
	fs.StringVar(&rf.format, "format", "text", "output format: text or json")
	return fs, rf
}

// parse parses args into fs, checks --format and returns the positional
// arguments.
func (rf *reportFlags) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	return pos, textOrJSON(fs, rf.format)
}

// writeJSON writes v to s.out as indented JSON: the --format json output
// of every command.
func writeJSON(s *streams, v any) error {
	enc := json.NewEncoder(s.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// write writes a report as --format asks: JSON, or its text made
// printable (names and values in it come from the database).
func (rf *reportFlags) write(s *streams, rep interface{ Text() string }) error {
	if rf.format == "json" {
		return writeJSON(s, rep)
	}
	_, err := fmt.Fprint(s.out, format.Printable(rep.Text()))
	return err
}

// sqlAndOut reads the statement of a command that writes a file (--sql,
// else the positionals; "-" reads stdin) and requires it and --out. Both
// --sql and positionals is a usage error naming the positional.
func sqlAndOut(fs *flag.FlagSet, sql *string, pos []string, out string, s *streams) error {
	if *sql != "" && len(pos) > 0 {
		// Dropping it would run against another database than the one
		// the user may have meant, and could replace that file with --out.
		return usagef("%s: %q is not used: the statement is --sql; to read a database or data file give it with --db %s", fs.Name(), pos[0], pos[0])
	}
	var err error
	if *sql, err = sqlText(*sql, pos, s); err != nil {
		return err
	}
	if *sql == "" || out == "" {
		return usagef("%s: give --sql and --out\n\n%s", fs.Name(), flagHelp(fs))
	}
	return nil
}

// parseArgs parses flags wherever they appear among the arguments
// ("sql 'SELECT 1' --format json" works) and returns the positionals. A
// lone "-" is a positional (stdin); "--" ends the flags; an argument that
// starts with "-" but reads as SQL ("-- top\nSELECT 1": a comment) is a
// positional too. -h and --help set the command's --help flag when it has
// one, and are a *helpRequest (usage on stdout, exit 0) otherwise.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		cut := sqlArg(fs, args)
		head := args
		if cut >= 0 {
			head = args[:cut]
		}
		p, ended, err := parseFlags(fs, head)
		if err != nil {
			return nil, err
		}
		pos = append(pos, p...)
		if cut < 0 || ended {
			return pos, nil
		}
		pos = append(pos, args[cut])
		args = args[cut+1:]
	}
}

// parseFlags parses args, none of which reads as SQL, and returns the
// positionals and whether "--" ended the flags.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, bool, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if fs.Lookup("help") != nil {
					return pos, true, fs.Set("help", "true")
				}
				return nil, false, &helpRequest{text: flagHelp(fs)}
			}
			return nil, false, usagef("%v\n\n%s", err, flagHelp(fs))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, false, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), true, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// sqlArg is the index of the first argument that starts with "-" but is
// SQL, not a flag (whitespace in what would be its name, as in "-- top\n
// SELECT 1"), skipping the values of flags that take one; -1 when there is
// none or "--" comes first.
func sqlArg(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return -1
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if strings.ContainsAny(name, " \t\n\r") || name == "" {
			return i
		}
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				i++ // its value, whatever it looks like
			}
		}
	}
	return -1
}

// helpRequest is -h or --help on a command without a --help flag of its
// own: run prints text on stdout and exits 0.
type helpRequest struct{ text string }

func (h *helpRequest) Error() string { return h.text }

// flagHelp is a command's usage line (from the program's usage) and its
// flags.
func flagHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	line := "tablewise " + fs.Name() + " [flags]"
	lines := strings.Split(usage, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  tablewise "+fs.Name()+" ") {
			// "  tablewise sql [--db PATH] SQL    run one…", or what it
			// does on the next line: the command, then what it does.
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "      ") {
				l += "  " + lines[i+1]
			}
			cmd, what, _ := strings.Cut(strings.TrimSpace(l), "  ")
			line = cmd
			if what = strings.TrimSpace(what); what != "" {
				line += "\n  " + what
			}
			break
		}
	}
	b.WriteString("Usage: " + line + "\n\nFlags:\n")
	fs.VisitAll(func(f *flag.Flag) {
		typ, text := flag.UnquoteUsage(f)
		b.WriteString("  --" + f.Name)
		if typ != "" {
			b.WriteString(" " + strings.ToUpper(typ))
		}
		b.WriteString("\n      " + text)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && !strings.Contains(text, "default") {
			b.WriteString(" (default " + f.DefValue + ")")
		}
		b.WriteString("\n")
	})
	return b.String()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if wd, _, err := term.GetSize(int(f.Fd())); err == nil && wd > 0 {
			return wd
		}
	}
	return 120
}
