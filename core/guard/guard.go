// Package guard is the engine-neutral vocabulary of refusal: the input
// limits every SQL text passes first (CheckText), the typed errors engines
// raise (Rejection, SQLError, ErrEmpty), a keyword lexer that names a
// refused statement, and the "did you mean" hints over catalog names.
//
// Deciding what a text is belongs to each engine, with the database's own
// parser as the parser of record (for SQLite: its compiler, an authorizer
// allow-list and sqlite3_stmt_readonly, in core/engine/sqlite). The lexer
// here is used only to refuse early with a friendlier message or to find
// names for hints, never to accept.
package guard

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/format"
)

// MaxSQLBytes is the largest SQL text the guard looks at.
const MaxSQLBytes = 100 << 10

// ErrEmpty means the text holds no statement: it is empty or only comments.
// Callers treat it as a usage error.
var ErrEmpty = errors.New("no SQL statement: the text is empty or holds only comments")

// ErrRefused is matched (errors.Is) by every *Rejection.
var ErrRefused = errors.New("refused: the database is read-only")

// Rejection is the guard's refusal: what was refused and what to do instead.
type Rejection struct {
	// What names the refused thing: "DELETE", "DROP", "ATTACH",
	// "PRAGMA journal_mode", "function load_extension", "several statements"…
	What   string
	Reason string
	Hint   string
}

func (r *Rejection) Error() string { return format.WithHint(r.Reason, r.Hint) }

// Is makes errors.Is(err, ErrRefused) true for every rejection.
func (r *Rejection) Is(target error) bool { return target == ErrRefused }

// SQLError is SQL the database could not compile or run: a bad name, a
// syntax error. Its message is the database's, with a hint where one
// helps.
type SQLError struct {
	Msg string
	// Code is the engine's own error code (SQLite's result code).
	Code int
	Hint string
	// Missing is the table or column the database says does not exist,
	// as it named it ("Trak", "T.Titel"); MissingKind is "table" or
	// "column". Engines fill them from their errors, and AddHint suggests
	// the nearest real names.
	Missing     string
	MissingKind string
}

func (e *SQLError) Error() string { return format.WithHint(e.Msg, e.Hint) }

const readOnlyHint = "only a single SELECT, WITH or VALUES statement (or an introspection PRAGMA such as table_info) can run"

// ReadOnlyHint is the hint of a refusal whose only advice is the read-only
// rule itself; a front door that states the rule already may say something
// else instead.
const ReadOnlyHint = readOnlyHint

// CheckText applies the input limits: size, valid UTF-8, no NUL byte.
func CheckText(sql string) error {
	if len(sql) > MaxSQLBytes {
		return &Rejection{What: "oversized SQL", Reason: fmt.Sprintf("SQL text is %s, over the %s limit", format.Plural(int64(len(sql)), "byte"), format.Bytes(MaxSQLBytes)), Hint: "send a shorter statement"}
	}
	if !utf8.ValidString(sql) {
		return &Rejection{What: "invalid UTF-8", Reason: "SQL text is not valid UTF-8", Hint: "send UTF-8 text"}
	}
	if strings.IndexByte(sql, 0) >= 0 {
		return &Rejection{What: "NUL byte", Reason: "SQL text contains a NUL byte", Hint: "remove it"}
	}
	return nil
}

// RefuseStatement is the refusal of a statement that compiled but is not a
// read-only query (or that plainly writes), named from its leading
// keywords: "DROP TABLE is not allowed: the database is read-only".
func RefuseStatement(sql string) *Rejection {
	what := StatementKind(sql)
	return &Rejection{What: what, Reason: what + " is not allowed: the database is read-only", Hint: readOnlyHint}
}

// StatementKind names a statement by its leading keywords: "DROP TABLE",
// "CREATE TEMP VIEW", "WITH … DELETE", "EXPLAIN of DELETE".
func StatementKind(sql string) string {
	kw := Keywords(sql, 8)
	if len(kw) == 0 {
		return "this statement"
	}
	prefix := ""
	if kw[0] == "EXPLAIN" {
		prefix, kw = "EXPLAIN of ", kw[1:]
		if len(kw) >= 2 && kw[0] == "QUERY" && kw[1] == "PLAN" {
			kw = kw[2:]
		}
		if len(kw) == 0 {
			return "EXPLAIN"
		}
	}
	switch kw[0] {
	case "WITH":
		return prefix + "WITH … " + firstWrite(sql)
	case "PRAGMA":
		return prefix + "PRAGMA " + PragmaName(sql)
	case "ALTER":
		return prefix + "ALTER TABLE"
	case "ROLLBACK":
		if len(kw) > 1 && (kw[1] == "TO" || len(kw) > 2 && kw[2] == "TO") {
			return prefix + "ROLLBACK TO"
		}
	case "CREATE", "DROP":
		parts := []string{kw[0]}
		for _, k := range kw[1:] {
			switch k {
			case "TEMP", "TEMPORARY":
				parts = append(parts, "TEMP")
				continue
			case "UNIQUE":
				continue
			case "VIRTUAL":
				parts = append(parts, k)
				continue
			case "TABLE", "VIEW", "INDEX", "TRIGGER":
				parts = append(parts, k)
			}
			break
		}
		return prefix + strings.Join(parts, " ")
	}
	return prefix + kw[0]
}

func firstWrite(sql string) string {
	for _, k := range Keywords(sql, 200) {
		switch k {
		case "INSERT", "UPDATE", "DELETE", "REPLACE":
			return k
		}
	}
	return "a write"
}

// PragmaName returns the (lowercased) name of the pragma a PRAGMA statement
// names, without its schema prefix.
func PragmaName(sql string) string {
	toks := tokens(sql, 6)
	for i, t := range toks {
		if strings.EqualFold(t, "PRAGMA") && i+1 < len(toks) {
			name := toks[i+1]
			if i+3 < len(toks) && toks[i+2] == "." {
				name = toks[i+3]
			}
			return strings.ToLower(name)
		}
	}
	return "?"
}
