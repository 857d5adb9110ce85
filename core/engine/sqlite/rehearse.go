package sqlite

import (
	"context"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/guard"
)

// Rehearse implements engine.Rehearser: up (then down, when given) runs on
// a private in-memory database holding a copy of d's schema without rows,
// statement by statement; the database itself is only read. The scripts
// are the user's own DDL and run only there: nothing of them reaches d.
func (d *Engine) Rehearse(ctx context.Context, up, down string) (*engine.Rehearsal, error) {
	before, err := d.schemaObjects(ctx)
	if err != nil {
		return nil, err
	}
	c, err := d.scratch(ctx, false)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := c.InterruptAfter(explainTimeout, ctx)
	defer stop()
	// The scripts may change the copy's schema and rows as they like,
	// but never reach a file: no ATTACH (which creates one), no PRAGMA,
	// no extension loading; VACUUM (INTO a file) is refused by name below.
	if err := c.SetAuthorizer(func(action int, _, arg2, _, _ string) int {
		switch {
		case action == lite.ActionAttach, action == lite.ActionDetach, action == lite.ActionPragma:
			return lite.AuthDeny
		case action == lite.ActionFunction && strings.EqualFold(arg2, "load_extension"):
			return lite.AuthDeny
		}
		return lite.AuthOK
	}); err != nil {
		return nil, err
	}
	r := &engine.Rehearsal{Before: before}
	return r.Play(up, down, func(script string) ([]engine.RehearsedStatement, bool) { return runScript(c, script) }, func() ([]engine.SchemaObject, error) { return scratchSchema(c) })
}

// runScript runs each statement of script on the scratch database,
// stopping at the first that fails.
func runScript(c *lite.Conn, script string) ([]engine.RehearsedStatement, bool) {
	var out []engine.RehearsedStatement
	rest := script
	for {
		st, tail, err := c.Prepare(rest)
		text := strings.TrimSpace(strings.TrimSuffix(rest, tail))
		if err != nil {
			out = append(out, engine.RehearsedStatement{SQL: firstStatement(rest), Err: err.Error()})
			return out, false
		}
		if st == nil { // only comments or spaces left
			return out, true
		}
		if first := guard.Keywords(text, 1); len(first) == 1 && first[0] == "VACUUM" {
			st.Finalize()
			out = append(out, engine.RehearsedStatement{SQL: text, Err: "VACUUM is not rehearsed: it rewrites (or writes INTO) a database file"})
			return out, false
		}
		for {
			more, err := st.Step()
			if err != nil {
				st.Finalize()
				out = append(out, engine.RehearsedStatement{SQL: text, Err: err.Error()})
				return out, false
			}
			if !more {
				break
			}
		}
		st.Finalize()
		out = append(out, engine.RehearsedStatement{SQL: text})
		rest = tail
	}
}

// firstStatement is the text of script up to its first semicolon, for
// naming a statement that did not compile.
func firstStatement(script string) string {
	s := strings.TrimSpace(script)
	if i := strings.Index(s, ";"); i >= 0 {
		return s[:i+1]
	}
	return s
}

func scratchSchema(c *lite.Conn) ([]engine.SchemaObject, error) {
	rows, err := scratchRows(c, "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND type IN ('table', 'index', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid")
	if err != nil {
		return nil, err
	}
	return objectsOf(rows), nil
}

var _ engine.Rehearser = (*Engine)(nil)
