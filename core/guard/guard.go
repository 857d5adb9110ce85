// Package guard decides whether a SQL text may run against a database that
// must never be written.
//
// SQLite's own compiler is the parser of record: the text is prepared on a
// connection whose authorizer allows only reads (see Authorize), the prepared
// statement must be read-only and return columns, and the text after it may
// hold nothing but whitespace, semicolons and comments. A parser is used only
// to refuse early with a friendlier message or to find names for hints,
// never to accept.
package guard

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tablewise/tablewise/core/internal/lite"
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

func (r *Rejection) Error() string {
	if r.Hint == "" {
		return r.Reason
	}
	return r.Reason + " — " + r.Hint
}

// Is makes errors.Is(err, ErrRefused) true for every rejection.
func (r *Rejection) Is(target error) bool { return target == ErrRefused }

// SQLError is SQL that SQLite could not compile or run: a bad name, a
// syntax error. Its message is SQLite's, with a hint where one helps.
type SQLError struct {
	Msg  string
	Code int
	Hint string
}

func (e *SQLError) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + " — " + e.Hint
}

const readOnlyHint = "only a single SELECT, WITH or VALUES statement (or an introspection PRAGMA such as table_info) can run"

// CheckText applies the input limits: size, valid UTF-8, no NUL byte.
func CheckText(sql string) error {
	if len(sql) > MaxSQLBytes {
		return &Rejection{What: "oversized SQL", Reason: fmt.Sprintf("SQL text is %s, over the %s limit", sizeString(len(sql)), sizeString(MaxSQLBytes)), Hint: "send a shorter statement"}
	}
	if !utf8.ValidString(sql) {
		return &Rejection{What: "invalid UTF-8", Reason: "SQL text is not valid UTF-8", Hint: "send UTF-8 text"}
	}
	if strings.IndexByte(sql, 0) >= 0 {
		return &Rejection{What: "NUL byte", Reason: "SQL text contains a NUL byte", Hint: "remove it"}
	}
	return nil
}

func sizeString(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)>>10)
}

// Prepare vets sql on c and returns the prepared statement, ready to step,
// or an error: ErrEmpty, a *Rejection or a *SQLError. c must carry the
// authorizer installed by Install. The caller finalizes the statement.
func Prepare(c *lite.Conn, sql string) (*lite.Stmt, error) {
	if err := CheckText(sql); err != nil {
		return nil, err
	}
	st := stateOf(c)
	st.reset()
	stmt, tail, err := c.Prepare(sql)
	if err != nil {
		return nil, st.explain(sql, err)
	}
	if stmt == nil {
		return nil, ErrEmpty
	}
	if err := checkTail(c, st, tail); err != nil {
		stmt.Finalize()
		return nil, err
	}
	if !stmt.Readonly() || stmt.ColumnCount() == 0 {
		stmt.Finalize()
		return nil, refuseKind(sql)
	}
	return stmt, nil
}

// Check vets sql on c without running it.
func Check(c *lite.Conn, sql string) error {
	stmt, err := Prepare(c, sql)
	if stmt != nil {
		stmt.Finalize()
	}
	return err
}

// checkTail proves, with SQLite's own tokenizer, that the text after the
// first statement holds no further statement.
func checkTail(c *lite.Conn, st *authState, tail string) error {
	for strings.TrimSpace(tail) != "" {
		st.reset()
		next, rest, err := c.Prepare(tail)
		if next != nil {
			next.Finalize()
		}
		if err != nil || next != nil {
			return multiple(tail)
		}
		if len(rest) >= len(tail) {
			break // no progress: only whitespace and comments remain
		}
		tail = rest
	}
	return nil
}

func multiple(tail string) *Rejection {
	return &Rejection{
		What:   "several statements",
		Reason: fmt.Sprintf("more than one statement: found %q after the first", clip(strings.TrimSpace(tail), 60)),
		Hint:   "send one statement at a time",
	}
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// refuseKind names a statement that compiled but is not a read-only query
// (or that plainly writes), from its leading keywords.
func refuseKind(sql string) *Rejection {
	what := statementKind(sql)
	return &Rejection{What: what, Reason: what + " is not allowed: the database is read-only", Hint: readOnlyHint}
}

// statementKind names a statement by its leading keywords: "DROP TABLE",
// "CREATE TEMP VIEW", "WITH … DELETE", "EXPLAIN of DELETE".
func statementKind(sql string) string {
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
		return prefix + "PRAGMA " + pragmaName(sql)
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
			case "UNIQUE", "VIRTUAL":
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

// pragmaName returns the (lowercased) name of the pragma a PRAGMA statement
// names, without its schema prefix.
func pragmaName(sql string) string {
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
