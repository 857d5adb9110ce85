package input

import (
	"strings"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/tui/syntax"
)

// LooksLikeSQL reports whether text should run as SQL: what
// guard.LooksLikeSQL accepts (queries), and also statements that write or
// change the database, so that typing "DROP TABLE t" is refused by the
// guard with its reason instead of being sent to a model as a question.
// Only unmistakable statement openings count ("DELETE FROM", "UPDATE t
// SET", "CREATE TABLE"…): "create a chart of sales" or "analyze revenue by
// region" stay questions.
func LooksLikeSQL(text string) bool {
	if guard.LooksLikeSQL(text) {
		return true
	}
	var toks []string
	var kinds []syntax.Kind
	for _, t := range syntax.Lex(text) {
		if t.Kind == syntax.Space || t.Kind == syntax.Comment {
			continue
		}
		w := text[t.Start:t.End]
		if w == ";" {
			continue
		}
		toks = append(toks, strings.ToUpper(w))
		kinds = append(kinds, t.Kind)
		if len(toks) == 8 {
			break
		}
	}
	n := len(toks)
	if n == 0 {
		return false
	}
	at := func(i int) string {
		if i < n {
			return toks[i]
		}
		return ""
	}
	t1 := at(1)
	switch toks[0] {
	case "DELETE":
		return t1 == "FROM"
	case "INSERT":
		return t1 == "INTO" || t1 == "OR"
	case "REPLACE":
		return t1 == "INTO"
	case "UPDATE":
		return t1 == "OR" || at(2) == "SET"
	case "DROP":
		return oneOf(t1, "TABLE", "VIEW", "INDEX", "TRIGGER")
	case "CREATE":
		return oneOf(t1, "TABLE", "VIEW", "INDEX", "UNIQUE", "TEMP", "TEMPORARY", "TRIGGER", "VIRTUAL")
	case "ALTER":
		return t1 == "TABLE"
	case "ATTACH":
		return t1 == "DATABASE" || (n > 1 && kinds[1] == syntax.String)
	case "DETACH":
		return t1 == "DATABASE" || n == 2
	case "BEGIN", "COMMIT", "END", "ROLLBACK":
		return n == 1 || oneOf(t1, "TRANSACTION", "IMMEDIATE", "EXCLUSIVE", "DEFERRED", "TO")
	case "SAVEPOINT", "RELEASE":
		return n <= 3
	case "VACUUM":
		return n == 1 || (t1 == "INTO" && n == 3)
	case "ANALYZE", "REINDEX":
		return n == 1
	}
	return false
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
