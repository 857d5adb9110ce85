package sqlite

import (
	"fmt"
	"strings"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
)

// SQLite's compiler is the parser of record: the text is prepared on a
// connection whose authorizer allows only reads (see Install), the prepared
// statement must be read-only and return columns, and the text after it may
// hold nothing but whitespace, semicolons and comments. The keyword lexer
// (core/guard) is used only to refuse early with a friendlier message or to
// find names for hints, never to accept.

// Prepare vets sql on c and returns the prepared statement, ready to step,
// or an error: guard.ErrEmpty, a *guard.Rejection or a *guard.SQLError. c must carry the
// authorizer installed by Install. The caller finalizes the statement.
func Prepare(c *lite.Conn, sql string) (*lite.Stmt, error) {
	if err := guard.CheckText(sql); err != nil {
		return nil, err
	}
	st := stateOf(c)
	st.reset()
	st.preparing = true
	defer func() { st.preparing = false }()
	stmt, tail, err := c.Prepare(sql)
	if err != nil {
		return nil, st.explain(sql, err)
	}
	if stmt == nil {
		return nil, guard.ErrEmpty
	}
	if len(st.pragmaReads) > 0 {
		if err := checkPragmaReads(c, st); err != nil {
			stmt.Finalize()
			return nil, err
		}
	}
	if err := checkTail(c, st, tail); err != nil {
		stmt.Finalize()
		return nil, err
	}
	if !stmt.Readonly() || stmt.ColumnCount() == 0 {
		stmt.Finalize()
		return nil, guard.RefuseStatement(sql)
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

func multiple(tail string) *guard.Rejection {
	return &guard.Rejection{
		What:   "several statements",
		Reason: fmt.Sprintf("more than one statement: found %q after the first", format.ClipRunes(strings.TrimSpace(tail), 60)),
		Hint:   "send one statement at a time",
	}
}

// sqlError is the *guard.SQLError for an error SQLite raised: the table or
// column it could not find, or the advice its message calls for.
func sqlError(msg string, code int) *guard.SQLError {
	e := &guard.SQLError{Msg: msg, Code: code}
	switch {
	case strings.HasPrefix(msg, "no such table: "):
		e.Missing, e.MissingKind = strings.TrimPrefix(msg, "no such table: "), "table"
	case strings.HasPrefix(msg, "no such column: "):
		e.Missing, e.MissingKind = strings.TrimPrefix(msg, "no such column: "), "column"
	case strings.Contains(msg, "syntax error"):
		e.Hint = "this is SQLite: use double quotes for names with spaces, single quotes for strings, and || to join text"
	case strings.HasPrefix(msg, "ambiguous column name: "):
		e.Hint = "qualify the column with its table name or alias"
	case strings.HasPrefix(msg, "no such function: "):
		e.Hint = "SQLite has no such function; see sqlite.org/lang_corefunc.html for the built-in ones"
	}
	return e
}
