// Package dotcmd recognises the dot-commands of the sqlite3 shell (.tables,
// .schema, .mode csv…) that people type where tablewise expects SQL, so
// that every front door can answer them the same way: run the ones that
// mean something read-only (list tables, show a schema) and say what to
// use instead for the rest. It only classifies; front doors act and word
// their own hints.
package dotcmd

import "strings"

// Kind is what a dot-command asks for.
type Kind int

// The kinds of dot-command.
const (
	// Unknown is a dot-command the sqlite3 shell does not have either.
	Unknown Kind = iota
	// Tables lists tables and views (.tables [PATTERN]).
	Tables
	// Schema shows tables' columns (.schema [TABLE…], .fullschema).
	Schema
	// Indexes shows tables' indexes (.indexes [TABLE], .indices).
	Indexes
	// Help lists the dot-commands (.help).
	Help
	// Output changes how rows are printed (.mode, .headers, .separator,
	// .nullvalue, .width): a front door has its own way.
	Output
	// Quit leaves the shell (.quit, .exit).
	Quit
	// Open switches databases (.open FILE).
	Open
	// Read runs SQL from a file (.read FILE).
	Read
	// Write would write a file or the database (.import, .dump, .backup,
	// .save, .restore, .output, .once…), which tablewise never does for a
	// dot-command.
	Write
	// Other is a sqlite3 shell command tablewise has no counterpart for.
	Other
)

// Command is a parsed dot-command: its name without the dot, lower-cased
// ("tables"), its arguments split on spaces with quotes removed, and what
// it asks for.
type Command struct {
	Name string
	Args []string
	Kind Kind
}

var kinds = map[string]Kind{
	"tables": Tables, "table": Tables,
	"schema": Schema, "fullschema": Schema,
	"indexes": Indexes, "indices": Indexes,
	"help": Help,
	"mode": Output, "headers": Output, "header": Output, "separator": Output, "nullvalue": Output, "width": Output, "show": Output,
	"quit": Quit, "exit": Quit, "q": Quit,
	"open": Open, "connection": Open,
	"read":   Read,
	"import": Write, "dump": Write, "backup": Write, "save": Write, "restore": Write, "output": Write, "once": Write, "excel": Write, "clone": Write,
	"databases": Other, "dbinfo": Other, "timer": Other, "echo": Other, "changes": Other, "bail": Other, "print": Other, "shell": Other, "system": Other, "cd": Other, "log": Other, "trace": Other, "eqp": Other, "explain": Other, "stats": Other, "prompt": Other, "load": Other, "lint": Other, "expert": Other, "archive": Other, "ar": Other,
}

// psqlNames maps the psql and litecli spellings (\dt, \d, \di, \q, \?,
// \e) to the dot-commands they mean.
var psqlNames = map[string]string{"dt": "tables", "dv": "tables", "d": "schema", "di": "indexes", "q": "quit", "?": "help", "e": "editor"}

// Parse reports whether text is a dot-command: after leading spaces, a dot
// followed by a letter, all on one line (a trailing ";" is ignored), or
// one of psql's backslash commands (\dt, \d TABLE…), read as the
// dot-command it means; a backslash command without one is named with its
// backslash ("\\x") and is Unknown. SQL never starts either way.
func Parse(text string) (Command, bool) {
	t := strings.TrimSpace(text)
	if len(t) < 2 || strings.ContainsAny(t, "\n\r") {
		return Command{}, false
	}
	switch {
	case t[0] == '.' && isLetter(t[1]):
	case t[0] == '\\' && (isLetter(t[1]) || t[1] == '?'):
	default:
		return Command{}, false
	}
	fields := split(strings.TrimRight(t[1:], "; \t"))
	c := Command{Name: strings.ToLower(fields[0]), Args: fields[1:]}
	if t[0] == '\\' {
		name, ok := psqlNames[c.Name]
		if !ok {
			return Command{Name: "\\" + c.Name, Args: c.Args}, true
		}
		c.Name = name
	}
	c.Kind = kinds[c.Name]
	return c, true
}

// Supported names the dot-commands a front door can run, for messages.
const Supported = ".tables [PATTERN], .schema [TABLE…], .indexes [TABLE], .help"

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// split splits s on spaces and tabs; single or double quotes group words
// and are removed, as the sqlite3 shell does.
func split(s string) []string {
	var out []string
	var b strings.Builder
	quote, in := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote, in = c, true
		case quote == 0 && (c == ' ' || c == '\t'):
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}
