package sqlite

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
	"github.com/tablewise/tablewise/core/guard"
	sqlite3 "modernc.org/sqlite/lib"
)

// IntrospectionPragmas are the only pragmas that may run, as statements or
// as pragma_* table-valued functions. None of them writes.
var IntrospectionPragmas = []string{"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}

// deniedFunctions are functions that never run, even in a read: extension
// loading and functions that expose memory or files.
var deniedFunctions = map[string]bool{
	"load_extension":         true,
	"fts3_tokenizer":         true, // returns a raw pointer
	"readfile":               true,
	"writefile":              true,
	"edit":                   true,
	"sqlite_rename_column":   true,
	"sqlite_rename_table":    true,
	"sqlite_rename_test":     true,
	"sqlite_drop_column":     true,
	"sqlite_rename_quotefix": true,
}

// denial records the first action the authorizer refused while compiling.
type denial struct {
	action     int
	arg1, arg2 string
}

type authState struct {
	denied *denial
	// pragmaReads are reads of tables named pragma_X (X not an
	// introspection pragma) that the authorizer let through: a real table
	// or view with that name is fine, the pragma table-valued function is
	// not. Prepare decides once the statement is compiled.
	pragmaReads []pragmaRead
	// preparing is set while Prepare compiles the user's text; any other
	// statement presented to the authorizer is one a module prepares
	// while a vetted statement runs (moduleStatement).
	preparing bool
}

type pragmaRead struct{ db, table string }

func (s *authState) reset() { s.denied, s.pragmaReads = nil, nil }

var states sync.Map // db handle -> *authState

// Install puts the guard's authorizer on c. Every connection that can run
// SQL carries it.
func Install(c *lite.Conn) error {
	st := &authState{}
	states.Store(c.Handle(), st)
	return c.SetAuthorizer(func(action int, a1, a2, dbName, _ string) int {
		if allowed(action, a1, a2) {
			return lite.AuthOK
		}
		if !st.preparing && moduleStatement(action, a1, a2) {
			return lite.AuthOK
		}
		if action == lite.ActionRead && strings.HasPrefix(strings.ToLower(a1), "pragma_") {
			// SQLite reports a read of the table pragma_X whether it is a
			// real table or view or the pragma X's table-valued function;
			// which one it is can only be told once the statement is
			// compiled (see checkPragmaReads). If it is the function, its
			// PRAGMA is also presented to this authorizer when it runs.
			for _, r := range st.pragmaReads {
				if r.table == a1 && r.db == dbName {
					return lite.AuthOK
				}
			}
			st.pragmaReads = append(st.pragmaReads, pragmaRead{db: dbName, table: a1})
			return lite.AuthOK
		}
		if st.denied == nil {
			st.denied = &denial{action: action, arg1: a1, arg2: a2}
		}
		return lite.AuthDeny
	})
}

// checkPragmaReads refuses a compiled statement that reads a pragma_X
// table-valued function for a pragma that is not an introspection one:
// every pragma_X name the authorizer let through must be a table or view
// in the schema, where SQLite looks first when it resolves a name.
func checkPragmaReads(c *lite.Conn, st *authState) error {
	reads := st.pragmaReads
	for _, r := range reads {
		schema := "main"
		if r.db != "" {
			schema = r.db
		}
		q := `SELECT 1 FROM "` + strings.ReplaceAll(schema, `"`, `""`) + `".sqlite_schema WHERE type IN ('table', 'view') AND name = '` +
			strings.ReplaceAll(r.table, "'", "''") + `' COLLATE NOCASE`
		found, err := exists(c, q)
		if err != nil {
			return err
		}
		if !found {
			return (&denial{action: lite.ActionRead, arg1: r.table}).rejection()
		}
	}
	return nil
}

func exists(c *lite.Conn, q string) (bool, error) {
	stmt, _, err := c.Prepare(q)
	if err != nil || stmt == nil {
		return false, err
	}
	defer stmt.Finalize()
	return stmt.Step()
}

// Uninstall forgets c's state; call it before closing c.
func Uninstall(c *lite.Conn) { states.Delete(c.Handle()) }

func stateOf(c *lite.Conn) *authState {
	if v, ok := states.Load(c.Handle()); ok {
		return v.(*authState)
	}
	// A connection without the authorizer cannot prepare anything: the C
	// side of lite denies when no Go authorizer is registered.
	return &authState{}
}

// allowed is the allow-list: reads, read-only functions, recursive CTEs and
// the introspection pragmas. Everything else is denied.
func allowed(action int, a1, a2 string) bool {
	switch action {
	case lite.ActionSelect, lite.ActionRecursive:
		return true
	case lite.ActionRead:
		// Pragma table-valued functions present themselves as reads of
		// pragma_<name>.
		if name, ok := strings.CutPrefix(strings.ToLower(a1), "pragma_"); ok {
			return isIntrospection(name)
		}
		return !strings.EqualFold(a1, rawPages)
	case lite.ActionFunction:
		return !deniedFunctions[strings.ToLower(a2)]
	case lite.ActionPragma:
		return isIntrospection(strings.ToLower(a1))
	}
	return false
}

// moduleStatement reports whether a statement a virtual table module
// prepares for itself, while a vetted statement runs, may run: FTS5 reads
// PRAGMA data_version (a counter; without a value nothing is set) before
// it reads its tables. The same pragma in the user's text is refused.
func moduleStatement(action int, a1, a2 string) bool {
	return action == lite.ActionPragma && strings.EqualFold(a1, "data_version") && a2 == ""
}

// rawPages is the virtual table that hands out the database file's raw
// pages, free ones included, where deleted rows still sit until a VACUUM:
// reading it would show data no table holds.
const rawPages = "sqlite_dbpage"

func isIntrospection(name string) bool {
	for _, p := range IntrospectionPragmas {
		if name == p {
			return true
		}
	}
	return false
}

var actionNames = map[int]string{
	sqlite3.SQLITE_CREATE_INDEX:        "CREATE INDEX",
	sqlite3.SQLITE_CREATE_TABLE:        "CREATE TABLE",
	sqlite3.SQLITE_CREATE_TEMP_INDEX:   "CREATE TEMP INDEX",
	sqlite3.SQLITE_CREATE_TEMP_TABLE:   "CREATE TEMP TABLE",
	sqlite3.SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER",
	sqlite3.SQLITE_CREATE_TEMP_VIEW:    "CREATE TEMP VIEW",
	sqlite3.SQLITE_CREATE_TRIGGER:      "CREATE TRIGGER",
	sqlite3.SQLITE_CREATE_VIEW:         "CREATE VIEW",
	sqlite3.SQLITE_DELETE:              "DELETE",
	sqlite3.SQLITE_DROP_INDEX:          "DROP INDEX",
	sqlite3.SQLITE_DROP_TABLE:          "DROP TABLE",
	sqlite3.SQLITE_DROP_TEMP_INDEX:     "DROP TEMP INDEX",
	sqlite3.SQLITE_DROP_TEMP_TABLE:     "DROP TEMP TABLE",
	sqlite3.SQLITE_DROP_TEMP_TRIGGER:   "DROP TEMP TRIGGER",
	sqlite3.SQLITE_DROP_TEMP_VIEW:      "DROP TEMP VIEW",
	sqlite3.SQLITE_DROP_TRIGGER:        "DROP TRIGGER",
	sqlite3.SQLITE_DROP_VIEW:           "DROP VIEW",
	sqlite3.SQLITE_INSERT:              "INSERT",
	sqlite3.SQLITE_UPDATE:              "UPDATE",
	sqlite3.SQLITE_ATTACH:              "ATTACH",
	sqlite3.SQLITE_DETACH:              "DETACH",
	sqlite3.SQLITE_ALTER_TABLE:         "ALTER TABLE",
	sqlite3.SQLITE_REINDEX:             "REINDEX",
	sqlite3.SQLITE_ANALYZE:             "ANALYZE",
	sqlite3.SQLITE_CREATE_VTABLE:       "CREATE VIRTUAL TABLE",
	sqlite3.SQLITE_DROP_VTABLE:         "DROP VIRTUAL TABLE",
}

// internalWrite reports a write to SQLite's own schema or statistics
// tables, the first step of every DDL statement.
func (d *denial) internalWrite() bool {
	switch d.action {
	case sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE:
		t := strings.ToLower(d.arg1)
		return t == "sqlite_master" || t == "sqlite_temp_master" || t == "sqlite_schema" || t == "sqlite_temp_schema" || strings.HasPrefix(t, "sqlite_stat")
	}
	return false
}

// rejection turns the authorizer's first denial into words.
func (d *denial) rejection() *guard.Rejection {
	r := &guard.Rejection{Hint: guard.ReadOnlyHint}
	switch d.action {
	case lite.ActionFunction:
		r.What = "function " + d.arg2
		r.Reason = fmt.Sprintf("function %s is not allowed: it can load code or expose memory or files", d.arg2)
		r.Hint = "use SQLite's built-in read-only functions"
		return r
	case lite.ActionPragma:
		r.What = "PRAGMA " + strings.ToLower(d.arg1)
		r.Reason = fmt.Sprintf("PRAGMA %s is not allowed: only the introspection pragmas (%s) can run", strings.ToLower(d.arg1), strings.Join(IntrospectionPragmas, ", "))
		r.Hint = "to read a table's shape use PRAGMA table_info(name) or SELECT * FROM pragma_table_info('name')"
		return r
	case lite.ActionRead:
		if strings.EqualFold(d.arg1, rawPages) {
			r.What = rawPages
			r.Reason = rawPages + " is not allowed: it reads the file's raw pages, where deleted rows remain"
			r.Hint = "read the tables instead (the schema lists them)"
			return r
		}
		r.What = "PRAGMA " + strings.TrimPrefix(strings.ToLower(d.arg1), "pragma_")
		r.Reason = fmt.Sprintf("%s is not allowed: only the introspection pragmas (%s) can be read", d.arg1, strings.Join(IntrospectionPragmas, ", "))
		return r
	case sqlite3.SQLITE_TRANSACTION:
		r.What = strings.ToUpper(d.arg1)
		r.Reason = r.What + " is not allowed: transactions have no use on a read-only database"
		r.Hint = "send the query alone"
		return r
	case sqlite3.SQLITE_SAVEPOINT:
		switch strings.ToUpper(d.arg1) {
		case "RELEASE":
			r.What = "RELEASE"
		case "ROLLBACK":
			r.What = "ROLLBACK TO"
		default:
			r.What = "SAVEPOINT"
		}
		r.Reason = r.What + " is not allowed: transactions have no use on a read-only database"
		r.Hint = "send the query alone"
		return r
	case sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH:
		r.What = actionNames[d.action]
		r.Reason = r.What + " is not allowed: only the opened database can be read"
		r.Hint = "open the other database with --db instead"
		return r
	}
	name, ok := actionNames[d.action]
	if !ok {
		name = fmt.Sprintf("action %d", d.action)
	}
	r.What = name
	target := ""
	if d.arg1 != "" && d.action != sqlite3.SQLITE_REINDEX && d.action != sqlite3.SQLITE_ANALYZE {
		target = " on " + d.arg1
	}
	r.Reason = fmt.Sprintf("%s%s is not allowed: the database is read-only", name, target)
	return r
}

// explain turns a prepare error into a *guard.Rejection (the authorizer denied
// something, or the text plainly starts like a write) or a *SQLError.
func (s *authState) explain(sql string, err error) error {
	if d := s.denied; d != nil {
		// DDL first writes SQLite's own schema tables: name the statement
		// the user wrote, not that internal write.
		if d.internalWrite() {
			return guard.RefuseStatement(sql)
		}
		return d.rejection()
	}
	// A parser may refuse early with a friendlier message; never accept.
	if kw := guard.Keywords(sql, 1); len(kw) > 0 && refusedKeywords[kw[0]] {
		return guard.RefuseStatement(sql)
	}
	if kw := guard.Keywords(sql, 1); len(kw) > 0 && kw[0] == "PRAGMA" && !isIntrospection(guard.PragmaName(sql)) {
		return (&denial{action: lite.ActionPragma, arg1: guard.PragmaName(sql)}).rejection()
	}
	var le *lite.Error
	if errors.As(err, &le) {
		// A denied function this build lacks fails as "no such function"
		// before the authorizer sees it: still name it as refused.
		if fn, ok := strings.CutPrefix(le.Msg, "no such function: "); ok && deniedFunctions[strings.ToLower(fn)] {
			return (&denial{action: lite.ActionFunction, arg2: fn}).rejection()
		}
		return sqlError(le.Msg, le.Code)
	}
	return sqlError(err.Error(), 0)
}

var refusedKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true, "UPSERT": true,
	"CREATE": true, "DROP": true, "ALTER": true, "ATTACH": true, "DETACH": true,
	"BEGIN": true, "COMMIT": true, "END": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true,
	"VACUUM": true, "REINDEX": true, "ANALYZE": true,
}
