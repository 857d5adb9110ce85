package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tablewise/tablewise/core/guard"
)

// The guard, before anything runs:
//  1. input limits (guard.CheckText);
//  2. the statement's first word: SELECT, WITH, VALUES, TABLE, SHOW, or
//     EXPLAIN (never ANALYZE) of one of the first four;
//  3. no call, anywhere in the text, of a function on the deny-list
//     (denied), names read with PostgreSQL's lexical rules (strings,
//     dollar quotes, quoted names and nested comments);
//  4. the server's plan, EXPLAIN (VERBOSE, FORMAT JSON), holds no
//     ModifyTable (a data-modifying WITH) or LockRows (FOR UPDATE) node,
//     no foreign table read through a program (file_fdw) and no denied
//     function (a view calling one, for instance);
//  5. the server's Describe: one statement (the extended protocol refuses
//     more) that returns columns (SELECT … INTO returns none).
// The plan can show that a denied function is called, never that none is
// (calls on constants are folded away, a string given to query_to_xml is
// not planned): step 3 is why denying query_to_xml and its kind by name
// is enough.

// readOnlyHint says what may run, for PostgreSQL.
const readOnlyHint = "only a single SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN (without ANALYZE) statement can run"

// token is one lexical token of PostgreSQL SQL.
type token struct {
	kind byte   // 'w' word, 'q' quoted name, 's' string, 'p' punctuation, 'n' number, '$' parameter
	text string // words lower-cased; quoted names unquoted
	end  int    // the offset in the text just past the token
}

// lex reads sql with PostgreSQL's lexical rules, skipping comments
// (nested /* */, and -- up to a newline or a carriage return) and
// whitespace. Unterminated strings, names and comments end at the end of
// the text.
func lex(sql string) []token {
	var out []token
	i := 0
	n := len(sql)
	// A token appended in one turn ends where the next turn starts.
	mark := func() {
		if k := len(out) - 1; k >= 0 && out[k].end == 0 {
			out[k].end = i
		}
	}
	for i < n {
		mark()
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			// The server ends it at a carriage return too.
			for i < n && sql[i] != '\n' && sql[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			depth := 0
			for i < n {
				if sql[i] == '/' && i+1 < n && sql[i+1] == '*' {
					depth++
					i += 2
				} else if sql[i] == '*' && i+1 < n && sql[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '\'':
			i = skipString(sql, i+1, false)
			out = append(out, token{kind: 's'})
		case (c == 'e' || c == 'E') && i+1 < n && sql[i+1] == '\'':
			i = skipString(sql, i+2, true)
			out = append(out, token{kind: 's'})
		case (c == 'u' || c == 'U') && i+2 < n && sql[i+1] == '&' && (sql[i+2] == '\'' || sql[i+2] == '"'):
			if sql[i+2] == '\'' {
				i = skipString(sql, i+3, false)
				out = append(out, token{kind: 's'})
			} else {
				name, next := quotedName(sql, i+3)
				i = next
				out = append(out, token{kind: 'q', text: unicodeName(name)})
			}
		case c == '"':
			name, next := quotedName(sql, i+1)
			i = next
			out = append(out, token{kind: 'q', text: name})
		case c == '$':
			j := i + 1
			for j < n && isIdentByte(sql[j]) && !(j == i+1 && sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			if j < n && sql[j] == '$' { // $tag$ … $tag$
				tag := sql[i : j+1]
				end := strings.Index(sql[j+1:], tag)
				if end < 0 {
					i = n
				} else {
					i = j + 1 + end + len(tag)
				}
				out = append(out, token{kind: 's'})
				continue
			}
			j = i + 1
			for j < n && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			out = append(out, token{kind: '$', text: sql[i:j]})
			i = max(j, i+1)
		case isIdentByte(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < n && (isIdentByte(sql[j]) || sql[j] == '$') {
				j++
			}
			out = append(out, token{kind: 'w', text: strings.ToLower(sql[i:j])})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < n && (isIdentByte(sql[j]) || sql[j] == '.') {
				j++
			}
			out = append(out, token{kind: 'n', text: sql[i:j]})
			i = j
		default:
			out = append(out, token{kind: 'p', text: string(c)})
			i++
		}
	}
	mark()
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipString returns the index after the string literal whose body starts
// at i; backslash escapes count in E” strings.
func skipString(sql string, i int, escapes bool) int {
	for i < len(sql) {
		switch sql[i] {
		case '\\':
			if escapes {
				i += 2
				continue
			}
		case '\'':
			if i+1 < len(sql) && sql[i+1] == '\'' {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(sql)
}

// unicodeName decodes the body of a U&"name" written with the default
// escape character: \\ is a backslash, \XXXX and \+XXXXXX code points (vetText
// refuses UESCAPE, which names another escape character). What cannot be
// decoded is kept as written: the server refuses it.
func unicodeName(body string) string {
	if !strings.Contains(body, `\`) {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 == len(body) {
			b.WriteByte(body[i])
			continue
		}
		if body[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		start, n := i+1, 4
		if body[i+1] == '+' {
			start, n = i+2, 6
		}
		if start+n <= len(body) {
			if r, err := strconv.ParseUint(body[start:start+n], 16, 32); err == nil {
				b.WriteRune(rune(r))
				i = start + n - 1
				continue
			}
		}
		b.WriteByte(body[i])
	}
	return b.String()
}

// quotedName reads a "quoted name" whose body starts at i.
func quotedName(sql string, i int) (string, int) {
	var b strings.Builder
	for i < len(sql) {
		if sql[i] == '"' {
			if i+1 < len(sql) && sql[i+1] == '"' {
				b.WriteByte('"')
				i += 2
				continue
			}
			return b.String(), i + 1
		}
		b.WriteByte(sql[i])
		i++
	}
	return b.String(), i
}

// statement is what the guard learned of a text.
type statement struct {
	kind string // "select" (also WITH, VALUES, TABLE), "show"
	// planned is the statement EXPLAIN (VERBOSE, FORMAT JSON) can plan:
	// the text itself, or what follows EXPLAIN and its options.
	planned string
	// toks is the whole text's tokens, for the checks on the server.
	toks []token
	// shaped is the text's shape (shapeOf) once shape has read it.
	shaped    *shaped
	shapeRead bool
}

// shape is the shape of sql, the statement's text (nil when it has
// none), read once per statement: its verdict's key and its run both
// need it.
func (st *statement) shape(sql string) *shaped {
	if !st.shapeRead {
		st.shaped, st.shapeRead = shapeOf(sql, st.toks), true
	}
	return st.shaped
}

// vetText applies the checks that need no server.
func vetText(sql string) (*statement, error) {
	if err := guard.CheckText(sql); err != nil {
		return nil, err
	}
	toks := lex(sql)
	if len(toks) == 0 || allSemicolons(toks) {
		return nil, guard.ErrEmpty
	}
	for _, t := range toks {
		if t.kind == 'w' && t.text == "uescape" {
			return nil, &guard.Rejection{What: "UESCAPE", Reason: `UESCAPE is not allowed: the guard reads U&"…" names and strings with the default escape character \ only`, Hint: `write the name plainly, or with \ as its escape character (U&"d\0061ta")`}
		}
	}
	if err := deniedCall(toks, "the statement", nil); err != nil {
		return nil, err
	}
	first := firstWord(toks)
	if first == "with" {
		// A data-modifying WITH, refused before the server plans it
		// (the plan check would catch it too, for a role allowed to).
		for i := 0; i+1 < len(toks); i++ {
			if toks[i].kind == 'p' && toks[i].text == "(" && toks[i+1].kind == 'w' {
				switch w := toks[i+1].text; w {
				case "insert", "update", "delete", "merge":
					what := "WITH … " + strings.ToUpper(w)
					return nil, &guard.Rejection{What: what, Reason: what + " is not allowed: the database is read-only", Hint: readOnlyHint}
				}
			}
		}
	}
	switch first {
	case "select", "with", "values", "table":
		return &statement{kind: "select", planned: sql, toks: toks}, nil
	case "show":
		return &statement{kind: "show", toks: toks}, nil
	case "explain":
		inner, err := explained(sql)
		if err != nil {
			return nil, err
		}
		switch firstWord(lex(inner)) {
		case "select", "with", "values", "table":
			return &statement{kind: "select", planned: inner, toks: toks}, nil
		}
	}
	return nil, refuse(sql)
}

func allSemicolons(toks []token) bool {
	for _, t := range toks {
		if t.kind != 'p' || t.text != ";" {
			return false
		}
	}
	return true
}

// firstWord is the first word, skipping opening parentheses.
func firstWord(toks []token) string {
	for _, t := range toks {
		if t.kind == 'p' && t.text == "(" {
			continue
		}
		if t.kind == 'w' {
			return t.text
		}
		return ""
	}
	return ""
}

func refuse(sql string) *guard.Rejection {
	r := guard.RefuseStatement(sql)
	r.Hint = readOnlyHint
	return r
}

// stripExplain drops leading EXPLAINs (with their options) from sql; it
// refuses EXPLAIN ANALYZE as explained does.
func stripExplain(sql string) (string, error) {
	for firstWord(lex(sql)) == "explain" {
		inner, err := explained(sql)
		if err != nil {
			return "", err
		}
		sql = inner
	}
	return sql, nil
}

// explained returns the statement an EXPLAIN explains, refusing ANALYZE
// (which runs it) in either option form. The option list is read as
// tokens: a ) in a comment or string does not end it, and a quoted
// "analyze" is the option too.
func explained(sql string) (string, error) {
	rest := afterWord(sql, "explain")
	toks := lex(rest)
	analyze := &guard.Rejection{What: "EXPLAIN ANALYZE", Reason: "EXPLAIN ANALYZE is not allowed: it runs the statement", Hint: "use EXPLAIN without ANALYZE, or run the query itself"}
	if len(toks) > 0 && toks[0].kind == 'p' && toks[0].text == "(" {
		depth := 0
		for _, t := range toks {
			switch {
			case t.kind == 'w' || t.kind == 'q':
				if w := strings.ToLower(t.text); w == "analyze" || w == "analyse" {
					return "", analyze
				}
			case t.kind == 'p' && t.text == "(":
				depth++
			case t.kind == 'p' && t.text == ")":
				if depth--; depth == 0 {
					return rest[t.end:], nil
				}
			}
		}
		return "", refuse(sql)
	}
	for {
		w := firstWord(lex(rest))
		switch w {
		case "analyze", "analyse":
			return "", analyze
		case "verbose":
			rest = afterWord(rest, w)
			continue
		}
		return rest, nil
	}
}

// afterWord returns the text after the first word token of sql that is
// word (lower case): comments and strings before it are skipped, and
// what they hold is not a word.
func afterWord(sql, word string) string {
	for _, t := range lex(sql) {
		if t.kind == 'w' && t.text == word {
			return sql[t.end:]
		}
	}
	return ""
}

// deniedCall refuses a call of a denied function among toks: a name
// (plain or quoted, schema-qualified or not) followed by "(".
// loc, when not nil, adds the database's own functions (also called in
// field notation, x.f) that run code the guard cannot see into.
func deniedCall(toks []token, where string, loc *local) error {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != 'w' && t.kind != 'q' {
			continue
		}
		name := t.text
		if t.kind == 'q' {
			name = strings.ToLower(name)
		}
		if loc != nil && loc.fields[name] && i > 0 && toks[i-1].kind == 'p' && toks[i-1].text == "." {
			return &guard.Rejection{
				What:   name,
				Reason: fmt.Sprintf("%s is not allowed in %s: x.%s calls the function %s(), which runs code (SQL, procedural, or a C library's under a name of this database's) that the guard cannot see into", name, where, name, name),
				Hint:   "tablewise only reads the database's tables; " + readOnlyHint + " without it",
			}
		}
		if t.kind == 'w' {
			for _, fn := range impliedCalls[name] {
				if why, ok := loc.replaced(fn); ok {
					return &guard.Rejection{
						What:   fn + "()",
						Reason: fmt.Sprintf("%s() is not allowed in %s (%s calls it): it %s", fn, where, strings.ToUpper(name), why),
						Hint:   "tablewise only reads the database's tables; " + readOnlyHint + " without it",
					}
				}
			}
		}
		if i+1 == len(toks) || toks[i+1].kind != 'p' || toks[i+1].text != "(" {
			continue
		}
		if why, ok := loc.refusedCall(name); ok {
			return &guard.Rejection{
				What:   name + "()",
				Reason: fmt.Sprintf("%s() is not allowed in %s: it %s", name, where, why),
				Hint:   "tablewise only reads the database's tables; " + readOnlyHint + " without it",
			}
		}
	}
	return nil
}

// impliedCalls are the functions of pg_catalog that a word of the
// statement calls, the text never writing their names: TRIM is btrim,
// ltrim or rtrim, AT TIME ZONE is timezone. A function the database's
// owner made in pg_catalog by one of these names, over types the server
// has none for, is called by the word.
var impliedCalls = map[string][]string{
	"trim":       {"btrim", "ltrim", "rtrim"},
	"zone":       {"timezone"},
	"overlaps":   {"overlaps"},
	"normalized": {"is_normalized"},
	"collation":  {"pg_collation_for"},
	"escape":     {"like_escape", "similar_to_escape"},
	"similar":    {"similar_to_escape", "similar_escape"},
}

// deniedNames are functions that act outside the transaction, change the
// session for later statements, reach other sessions or the server's
// files, or run a query given as a string; deniedPrefixes name families.
// Some are contrib extensions' (tablefunc, xml2, pg_surgery,
// pg_stat_statements, pg_prewarm, adminpack, pg_walinspect, pg_visibility,
// postgres_fdw), refused whether installed or not.
var deniedNames = map[string]string{
	"set_config":                     "changes settings for the rest of the session",
	"pg_terminate_backend":           "ends another session",
	"pg_cancel_backend":              "cancels another session's statement",
	"pg_reload_conf":                 "reloads the server's configuration",
	"pg_rotate_logfile":              "rotates the server's log",
	"pg_switch_wal":                  "acts on the server's write-ahead log",
	"pg_create_restore_point":        "acts on the server's write-ahead log",
	"pg_logical_emit_message":        "writes to the server's write-ahead log",
	"pg_promote":                     "promotes a standby server",
	"pg_start_backup":                "acts on backups",
	"pg_stop_backup":                 "acts on backups",
	"pg_backup_start":                "acts on backups",
	"pg_backup_stop":                 "acts on backups",
	"pg_stat_file":                   "reads the server's files",
	"pg_current_logfile":             "reads the server's files",
	"pg_import_system_collations":    "writes the catalog",
	"pg_notify":                      "signals other sessions",
	"pg_export_snapshot":             "shares the transaction with other sessions",
	"pg_log_backend_memory_contexts": "writes the server's log",
	"nextval":                        "advances a sequence, outside the transaction",
	"setval":                         "sets a sequence, outside the transaction",
	"txid_current":                   "assigns a transaction id",
	"xpath":                          xpathWhy,
	"xpath_exists":                   xpathWhy,
	"xmlexists":                      xpathWhy,
	"xmltable":                       xpathWhy,
	"xslt_process":                   "runs an XSLT stylesheet, which the server cannot interrupt: it may run on past the deadline",
	"pg_current_xact_id":             "assigns a transaction id",
	"loread":                         "reads large objects",
	"lowrite":                        "writes large objects",
	"dblink":                         "runs a query on another connection",
	"dblink_exec":                    "runs a statement on another connection",
	"dblink_connect":                 "opens another connection",
	"dblink_connect_u":               "opens another connection",
	"dblink_send_query":              "runs a query on another connection",
	"query_to_xml":                   "runs a query given as text",
	"query_to_xmlschema":             "runs a query given as text",
	"query_to_xml_and_xmlschema":     "runs a query given as text",
	"cursor_to_xml":                  "reads a cursor",
	"cursor_to_xmlschema":            "reads a cursor",
	"table_to_xml":                   "runs a query built from text",
	"table_to_xml_and_xmlschema":     "runs a query built from text",
	"schema_to_xml":                  "runs queries built from text",
	"schema_to_xml_and_xmlschema":    "runs queries built from text",
	"database_to_xml":                "runs queries built from text",
	"database_to_xml_and_xmlschema":  "runs queries built from text",
	"ts_stat":                        "runs a query given as text",
	"ts_rewrite":                     "may run a query given as text",
	"connectby":                      "runs a query built from text",
	"xpath_table":                    "runs a query built from text",
	"heap_force_kill":                "writes table pages directly, outside the transaction",
	"heap_force_freeze":              "writes table pages directly, outside the transaction",
	"pg_stat_statements_reset":       "resets the server's statistics",
	"autoprewarm_dump_now":           "writes a file on the server",
	"autoprewarm_start_worker":       "starts a server process",
	"pg_logdir_ls":                   "lists the server's files",
	"gin_clean_pending_list":         "moves a GIN index's pending entries into the index: writes the index, outside the transaction",
	"pg_hba_file_rules":              "reads the server's files",
	"pg_ident_file_mappings":         "reads the server's files",
	"pg_show_all_file_settings":      "reads the server's files",
	"setseed":                        "sets the session's random numbers for later statements",
	"pg_nextoid":                     "advances the server's object id counter",
	"pg_stop_making_pinned_objects":  "changes the server's catalog",
	"pg_log_standby_snapshot":        "writes to the server's write-ahead log",
	"pg_sync_replication_slots":      "acts on replication",
	"pg_prewarm":                     "loads a relation's pages into the server's shared buffers or the operating system's cache, which outlive the transaction",
	"pg_truncate_visibility_map":     "truncates a table's visibility map, outside the transaction",
}

var deniedPrefixes = []struct{ prefix, why string }{
	{"pg_read_", "reads the server's files"},
	{"pg_ls_", "lists the server's files"},
	{"pg_file_", "writes the server's files"},
	{"lo_", "acts on large objects, which a read-only transaction does not protect"},
	{"pg_advisory_", "takes a lock that outlives the transaction"},
	{"pg_try_advisory_", "takes a lock that outlives the transaction"},
	{"pg_stat_reset", "resets the server's statistics"},
	{"pg_create_", "creates replication slots or restore points"},
	{"pg_drop_replication", "drops replication slots"},
	{"pg_replication_", "acts on replication"},
	{"pg_logical_slot_", "consumes replication slots"},
	{"pg_copy_", "copies replication slots"},
	{"pg_wal_replay_", "pauses or resumes replication"},
	{"pg_wal_", "acts on the server's write-ahead log"},
	{"pg_get_wal_", "reads the server's write-ahead log files, every database's"},
	{"binary_upgrade_", "writes the catalog"},
	{"dblink_", "reaches another connection"},
	{"pg_truncate_", "truncates server state"},
	{"crosstab", "runs a query given as text"},
	{"xpath_", xpathWhy},
	{"brin_summarize_", "writes a BRIN index's summaries, outside the transaction"},
	{"brin_desummarize_", "writes a BRIN index's summaries, outside the transaction"},
	{"pg_rotate_logfile", "rotates the server's log"},
	{"pg_restore_", "writes the planner's statistics into the catalog"},
	{"pg_clear_", "clears the planner's statistics in the catalog"},
	{"pg_set_", "writes the planner's statistics into the catalog"},
	{"pg_buffercache_evict", "evicts pages from the server's shared buffers"},
	{"hypopg_", "adds or hides indexes for the planner of the rest of the session"},
	{"postgres_fdw_disconnect", "closes the session's connections to other servers"},
}

// xpathWhy is why XPath is refused: libxml2 evaluates an expression
// without letting the server check for a cancel or its
// statement_timeout, and one can take time cubic in the document's size.
const xpathWhy = "evaluates an XPath expression, which the server cannot interrupt: it may run on past the deadline"

// denied reports whether the function name (lower case, without schema)
// is denied, and why.
func denied(name string) (string, bool) {
	if why, ok := deniedNames[name]; ok {
		return why, true
	}
	for _, p := range deniedPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.why, true
		}
	}
	return "", false
}

// vetPlan checks the plan EXPLAIN (VERBOSE, FORMAT JSON) printed for the
// statement: no node that writes or locks rows, no foreign table read
// through a program, another server or a file that is not a regular one,
// no denied function in any expression or function scan.
func vetPlan(planJSON []byte, sql string, loc *local) error {
	// The plan is read in place, once (jsonWalk), not decoded into maps:
	// the values checked are those decoding it gives, and an object's
	// Node Type and Function Name come before what its members hold.
	decodeErr := func() error {
		var plans any
		return fmt.Errorf("read the plan: %w", json.Unmarshal(planJSON, &plans))
	}
	if !json.Valid(planJSON) {
		return decodeErr()
	}
	w := jsonWalk{b: planJSON, skip: "Function Name", stack: make([]member, 0, 16)}
	w.object = func(x []member) error {
		switch nodeType := get(x, "Node Type"); {
		case nodeType == nil:
		case nodeType.is("ModifyTable"):
			r := refuse(sql)
			if op, ok := get(x, "Operation").str(); ok {
				r.What = "WITH … " + strings.ToUpper(op)
				r.Reason = r.What + " is not allowed: the database is read-only"
			}
			return r
		case nodeType.is("LockRows"):
			return &guard.Rejection{What: "SELECT … FOR UPDATE", Reason: "locking rows (FOR UPDATE, FOR SHARE) is not allowed: the database is read-only", Hint: "drop the FOR UPDATE/FOR SHARE clause"}
		}
		// file_fdw runs a foreign table's program on the server each
		// time the table is read; its plan names the program.
		if _, ok := get(x, "Foreign Program").str(); ok {
			name, _ := get(x, "Relation Name").str()
			return &guard.Rejection{What: "the foreign table " + name, Reason: fmt.Sprintf("reading the foreign table %s runs a program on the server: tablewise runs nothing outside the transaction", name), Hint: "read the program's output some other way, or ask the database's owner for a table that holds it"}
		}
		// file_fdw opens a foreign table's file with no deadline: a FIFO
		// blocks the session in open() past any cancel, and a device may
		// never end. The plan gives the file's size, 0 for either (and
		// for an empty file, which holds no rows), none when it cannot
		// read it.
		if file, ok := get(x, "Foreign File").str(); ok {
			if size := get(x, "Foreign File Size"); size == nil || string(size) == "0" {
				name, _ := get(x, "Relation Name").str()
				return &guard.Rejection{What: "the foreign table " + name, Reason: fmt.Sprintf("reading the foreign table %s is not allowed: its file %q is empty or not a regular file (a FIFO or a device, whose reading may block the server's session past the deadline)", name, file), Hint: "ask the database's owner for a table over a regular file"}
			}
		}
		// postgres_fdw reads a foreign table with a query of its own, on
		// a connection of its own: its plan shows the query.
		if _, ok := get(x, "Remote SQL").str(); ok {
			name, ok := get(x, "Relation Name").str()
			if !ok {
				name, _ = get(x, "Relations").str()
			}
			return remoteRejection(name, "")
		}
		if f, ok := get(x, "Function Name").str(); ok {
			if err := deniedCall([]token{{kind: 'w', text: strings.ToLower(f)}, {kind: 'p', text: "("}}, "the statement's plan", loc); err != nil {
				return err
			}
		}
		for _, m := range x {
			if m.err != nil {
				return m.err
			}
		}
		return nil
	}
	w.text = func(v rawJSON) error {
		// Most strings hold no call and the database has nothing of its
		// own to look for (loc.vet would pass them): they need not
		// become Go strings.
		if raw, plain := v.plain(); plain && bytes.IndexByte(raw, '(') < 0 && loc.none() {
			return nil
		}
		x, _ := v.str()
		return vetPlanText(x, loc)
	}
	_, err := w.walk(skipSpace(planJSON, 0))
	if w.bigNumber {
		return decodeErr()
	}
	return err
}

// vetPlanText checks one string of a plan: no denied call, no local
// operator or type.
func vetPlanText(x string, loc *local) error {
	var toks []token
	if strings.Contains(x, "(") {
		toks = lex(x)
		if err := deniedCall(toks, "the statement's plan", loc); err != nil {
			return err
		}
	}
	if loc.none() {
		return nil
	}
	if toks == nil {
		toks = lex(x)
	}
	return loc.vet(x, toks, "the statement's plan")
}

// local is what the guard learns of a database when it connects: its own
// functions whose code no plan shows, and the operators, casts and domains
// that call a denied or such a function without a call in the text.
type local struct {
	// opaque are the names of functions written in SQL or a procedural
	// language (plpgsql, plperl…) outside pg_catalog: a plan shows the
	// body of a SQL function only when the planner inlines it (never a
	// SECURITY DEFINER one), and never a procedural one's. Also those
	// declared in LANGUAGE c outside an extension: a library's code
	// under a name of the owner's choosing (tablefunc's connectby_text,
	// which runs a query built from its arguments, as tree()), which
	// neither its name nor its symbol need give away.
	opaque map[string]bool
	// aliases maps the name of a function declared in LANGUAGE internal
	// or c outside pg_catalog to the denied function whose code it runs
	// (CREATE FUNCTION f(text) … LANGUAGE internal AS 'pg_read_file_all');
	// a function whose code has its own name is that function, not an
	// alias (HypoPG's hypopg_create_index, which TryIndexes calls).
	aliases map[string]string
	// fields are the opaque functions that field notation may call:
	// ('(1,x)'::t).f is f('(1,x)'::t), folded away while it is planned
	// when f is IMMUTABLE or STABLE (localFunctionsSQL says which).
	fields map[string]bool
	// ops maps an operator symbol to the function behind it.
	ops map[string]string
	// types maps a type name to the function a cast to it, or its
	// domain's CHECK, calls.
	types map[string]string
	// views maps a view's (or a table's) name to a denied or opaque
	// function its definition (or a row security policy, an index, a
	// constraint, statistics, a partition key or a column's range type on
	// it) calls, however deep through other
	// views and partitions: the planner runs an IMMUTABLE or STABLE
	// function on constants while it plans (EXPLAIN too), and the plan
	// then shows only the result.
	views map[string]string
	// implicit, when not empty, names an implicit cast of the database's
	// own whose function is not VOLATILE, or a default operator class of
	// its own, that calls a denied function or code the guard cannot see:
	// any statement may run it without naming it, the planner on
	// constants (length(1) converts 1 to text) before any plan can be
	// checked, sorting, grouping and comparing a value of its type.
	implicit string
	// printer, when not empty, is a denied function or code the guard
	// cannot see that is the output or send function of a type of the
	// database's own: printing a value of it runs it, and the server
	// prints values the statement never names, the constants of the
	// stored expressions it deparses (deparses) and the values its
	// statistics hold (statistics).
	printer string
	// remote maps a foreign table's name, and the name of a view or table
	// that reads one (a view's definition, a row security policy, a
	// partition or inheritance child), to the foreign server it is read
	// from: any wrapper but file_fdw (whose plan the guard checks)
	// queries another connection, and postgres_fdw's remote planner runs
	// (use_remote_estimate) while the statement is planned.
	remote map[string]string

	// print is printSQL's answer read before the rest (fresh.go), ""
	// when the server cannot answer it; state is the server's state
	// (stateSQL) read before it, then the newest a check saw while the
	// print was the same.
	print string
	state atomic.Pointer[string]
}

// remoteRejection refuses reading name, a foreign table (or what reads
// one) of the foreign server srv ("" when the plan does not say).
func remoteRejection(name, srv string) *guard.Rejection {
	from := "through its foreign-data wrapper"
	if srv != "" {
		from = "from the foreign server " + srv
	}
	return &guard.Rejection{
		What:   name,
		Reason: fmt.Sprintf("%s is read %s, which runs a query on another connection, in a transaction that is not read-only and a session that outlives the statement: tablewise touches no other session", name, from),
		Hint:   "query that server's database directly, or ask the database's owner for a table that holds the rows",
	}
}

// The database's own objects are those made after initdb: their oids are
// FirstNormalObjectId (16384) and above, whatever their schema (a
// superuser may create functions in pg_catalog, and anything in
// information_schema).

// localFunctionsSQL lists the opaque functions' names, each with whether
// one of that name can be called with a single argument (the others have
// defaults, or it is variadic) of a composite type, a domain (over one),
// or a pseudo-type such as record or anyelement (then x.name calls it,
// with no parenthesis after the name). A C function is opaque when no
// extension holds it (pg_depend's 'e'). So is a function of the server's
// (an oid below 16384) in a language other than internal and c that a
// transaction changed since initdb (CREATE OR REPLACE keeps the oid): its
// row is newer than template0's frozen transactions (changedSinceInitdb).
// The server runs its own internal functions by oid whatever their row
// says, but runs a SQL or procedural one's body, and inlines a SQL one's
// while it plans.
const localFunctionsSQL = `SELECT lower(p.proname), bool_or(p.pronargs >= 1 AND p.pronargs - p.pronargdefaults <= 1
		AND (t.typtype IN ('c', 'd', 'p') OR p.provariadic <> 0)) FROM pg_catalog.pg_proc p
	JOIN pg_catalog.pg_language l ON l.oid = p.prolang
	LEFT JOIN pg_catalog.pg_type t ON p.pronargs >= 1 AND t.oid = p.proargtypes[0]
	WHERE p.oid >= 16384 AND (l.lanname NOT IN ('internal', 'c') OR l.lanname = 'c' AND NOT EXISTS (
		SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid AND d.deptype = 'e'))
		OR p.oid < 16384 AND l.lanname NOT IN ('internal', 'c') AND ` + changedSinceInitdb + `
	GROUP BY 1`

// changedSinceInitdb says that the row p of a catalog was written by a
// transaction after initdb: initdb froze template0, whose frozen horizon
// moves only when template0 is frozen again (an anti-wraparound vacuum,
// some 200 million transactions later).
const changedSinceInitdb = `pg_catalog.age(p.xmin) < (SELECT pg_catalog.age(z.datfrozenxid) FROM pg_catalog.pg_database z WHERE z.datname = 'template0')`

// localAliasesSQL lists, for every function of the database's own in
// LANGUAGE internal or c, its name with its code's symbol, then with the name
// of every other function whose code is the same symbol (of the same
// library).
const localAliasesSQL = `WITH f AS (SELECT p.oid, p.proname, p.prolang, p.probin, p.prosrc FROM pg_catalog.pg_proc p
	JOIN pg_catalog.pg_language l ON l.oid = p.prolang
	WHERE l.lanname IN ('internal', 'c') AND p.oid >= 16384)
SELECT lower(f.proname::text), lower(f.prosrc) FROM f
UNION ALL SELECT lower(f.proname::text), lower(b.proname::text) FROM f JOIN pg_catalog.pg_proc b
	ON b.prolang = f.prolang AND b.prosrc = f.prosrc AND b.probin IS NOT DISTINCT FROM f.probin AND b.oid <> f.oid`

// localUsesSQL lists (kind, name, function) for user-defined operators,
// and the server's that call a function of the database's (ALTER
// OPERATOR … SET (RESTRICT = …), or a commutator or negator of its)
// ('o', the functions operatorFunctions gives), the server's types with
// an input, output, send, receive, modifier, analyze or subscript
// function of the database's (ALTER TYPE … SET (SEND = …)) ('v'), text
// search templates and parsers ('x', their functions: a configuration
// runs them named by a string, or unnamed as the database's
// default_text_search_config), casts ('c', or 'i' for an implicit one whose function is not
// VOLATILE), range types ('r', with their subtype_diff function), default
// operator classes ('p', one row per function of their family: the
// database's classes, and the server's whose family holds a function of
// the database's, ALTER OPERATOR FAMILY … ADD FUNCTION),
// aggregates ('a', one row per support function: a moving aggregate's
// inverse transition runs when a window frame drops a row), functions
// with a planner support function of the database's own ('a' for the
// database's functions, 's' for the server's: the planner calls it to
// simplify or estimate a call whose arguments are not all constants),
// the output and send functions of the database's own types ('u'), and,
// for every type that converting a value to, or printing one, runs a
// type's input, output or modifier function of the database's own, that
// function ('t': a modifier's runs while mt(5) is parsed; so does a
// range's bound comparison, rangeBounds), or runs a
// domain's CHECK constraints, the functions they call: those their
// stored tree names (never printed: printing a constant runs its type's
// output function), and those of the database's own they depend on,
// directly or through an operator ('k'). Those types are the type or
// domain itself, and, however deep, the types that hold one (heldStep).
// The operators are first narrowed to those that can have such a row
// (reachingOwnCode).
const localUsesSQL = `SELECT 'o', o.oprname::text, lower(p.proname::text) FROM pg_catalog.pg_operator o
	` + operatorFunctions + `
	JOIN pg_catalog.pg_proc p ON p.oid = of.fn
	WHERE o.oid IN ` + reachingOwnCode + ` AND (o.oid >= 16384 OR of.fn >= 16384)
UNION ALL SELECT CASE WHEN c.castcontext = 'i' AND p.provolatile <> 'v' THEN 'i' ELSE 'c' END,
	lower(t.typname::text), lower(p.proname::text) FROM pg_catalog.pg_cast c
	JOIN pg_catalog.pg_proc p ON p.oid = c.castfunc JOIN pg_catalog.pg_type t ON t.oid = c.casttarget
	WHERE c.oid >= 16384
UNION ALL SELECT CASE WHEN p.oid >= 16384 THEN 'a' ELSE 's' END, lower(p.proname::text), lower(s.proname::text) FROM pg_catalog.pg_proc p
	JOIN pg_catalog.pg_proc s ON s.oid = p.prosupport WHERE s.oid >= 16384
UNION ALL SELECT 'x', lower(x.tmplname::text), lower(p.proname::text) FROM pg_catalog.pg_ts_template x
	JOIN pg_catalog.pg_proc p ON p.oid IN (x.tmplinit, x.tmpllexize) WHERE x.oid >= 16384
UNION ALL SELECT 'x', lower(x.prsname::text), lower(p.proname::text) FROM pg_catalog.pg_ts_parser x
	JOIN pg_catalog.pg_proc p ON p.oid IN (x.prsstart, x.prstoken, x.prsend, x.prsheadline, x.prslextype) WHERE x.oid >= 16384
UNION ALL SELECT 'v', lower(t.typname::text), lower(p.proname::text) FROM pg_catalog.pg_type t
	JOIN pg_catalog.pg_proc p ON p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout, t.typanalyze, t.typsubscript)
	WHERE t.oid < 16384 AND p.oid >= 16384
UNION ALL SELECT 'u', lower(t.typname::text), lower(p.proname::text) FROM pg_catalog.pg_type t
	JOIN pg_catalog.pg_proc p ON p.oid IN (t.typoutput, t.typsend) WHERE t.oid >= 16384 AND p.oid >= 16384
UNION ALL SELECT 'a', lower(p.proname::text), lower(f.proname::text) FROM pg_catalog.pg_aggregate g
	JOIN pg_catalog.pg_proc p ON p.oid = g.aggfnoid
	JOIN pg_catalog.pg_proc f ON f.oid IN (g.aggtransfn, g.aggfinalfn, g.aggcombinefn, g.aggserialfn, g.aggdeserialfn,
		g.aggmtransfn, g.aggminvtransfn, g.aggmfinalfn)
	WHERE p.oid >= 16384
UNION ALL SELECT 'r', lower(t.typname::text), lower(p.proname::text) FROM pg_catalog.pg_range rg
	JOIN pg_catalog.pg_type t ON t.oid IN (rg.rngtypid, rg.rngmultitypid) JOIN pg_catalog.pg_proc p ON p.oid = rg.rngsubdiff::oid
	WHERE rg.rngtypid >= 16384
UNION ALL SELECT 'p', lower(oc.opcname::text), lower(p.proname::text) FROM pg_catalog.pg_opclass oc
	JOIN ` + familyFunctions + ` ON f.family = oc.opcfamily JOIN pg_catalog.pg_proc p ON p.oid = f.fn
	WHERE oc.opcdefault AND (oc.oid >= 16384 OR f.fn >= 16384)
UNION ALL (WITH RECURSIVE ` + holds + `, held(typ, kind, x) AS (
	SELECT k.contypid, 'd', k.oid FROM pg_catalog.pg_constraint k WHERE k.contypid <> 0 AND k.oid >= 16384
UNION ALL
	SELECT t.oid, 't', p.oid FROM pg_catalog.pg_type t
	JOIN pg_catalog.pg_proc p ON p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout)
	WHERE t.oid >= 16384 AND p.oid >= 16384
UNION ALL
	` + rangeBounds + `
UNION
	` + heldStep + `
)
SELECT 'k', lower(t.typname::text), lower(p.proname::text) FROM held h JOIN pg_catalog.pg_type t ON t.oid = h.typ
	JOIN pg_catalog.pg_constraint k ON k.oid = h.x
	CROSS JOIN LATERAL pg_catalog.regexp_matches(k.conbin::text, ':(funcid|opfuncid) ([0-9]+)', 'g') m(m)
	JOIN pg_catalog.pg_proc p ON p.oid = pg_catalog.oidin(pg_catalog.textout(m.m[2]))
	WHERE h.kind = 'd'
UNION ALL SELECT 'k', lower(t.typname::text), lower(p.proname::text) FROM held h JOIN pg_catalog.pg_type t ON t.oid = h.typ
	JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass AND d.objid = h.x
	LEFT JOIN pg_catalog.pg_operator o ON d.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = d.refobjid
	` + operatorFunctions + `
	JOIN pg_catalog.pg_proc p ON p.oid = coalesce(of.fn, CASE WHEN d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass THEN d.refobjid END)
	WHERE h.kind = 'd'
UNION ALL SELECT 't', lower(t.typname::text), lower(p.proname::text) FROM held h JOIN pg_catalog.pg_type t ON t.oid = h.typ
	JOIN pg_catalog.pg_proc p ON p.oid = h.x WHERE h.kind = 't')`

// holds lists (part, whole) for every type whole whose values hold
// values of the type part: a domain over it, an array of it, a
// composite type (a table's or a view's too) with a column of it, a
// range over it and the multirange over that range. Converting a value
// to whole, or printing one, converts or prints the values of part it
// holds.
const holds = `holds(part, whole) AS (
	SELECT typbasetype, oid FROM pg_catalog.pg_type WHERE typbasetype <> 0
	UNION ALL SELECT oid, typarray FROM pg_catalog.pg_type WHERE typarray <> 0
	UNION ALL SELECT a.atttypid, t.oid FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.typrelid = a.attrelid
		WHERE t.typrelid <> 0 AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL SELECT rngsubtype, rngtypid FROM pg_catalog.pg_range
	UNION ALL SELECT rngtypid, rngmultitypid FROM pg_catalog.pg_range
)`

// rangeBounds are rows of a CTE held(typ, kind, x): every range type
// ('t') with the support functions of its subtype_opclass's family, of
// the database's own or in a class of its own. The range compares its bounds
// with that class's comparison function, which need not be the
// subtype's default class's ('p' does not cover it): reading '[a,b]' as
// the range (at Parse), its constructor, and comparing, sorting or
// grouping its values run it.
const rangeBounds = `SELECT rg.rngtypid, 't', pr.amproc::oid FROM pg_catalog.pg_range rg
	JOIN pg_catalog.pg_opclass oc ON oc.oid = rg.rngsubopc JOIN pg_catalog.pg_amproc pr ON pr.amprocfamily = oc.opcfamily
	WHERE oc.oid >= 16384 OR pr.amproc::oid >= 16384`

// heldStep is the recursive step of a CTE held(typ, kind, x) over types
// (with holds before it): from a type, the types that hold it, with the
// same kind and x.
const heldStep = `SELECT e.whole, h.kind, h.x FROM held h JOIN holds e ON e.part = h.typ`

// familyFunctions are the functions of operator families: support
// functions and the operators' functions (not the support functions of
// the other families that hold those operators).
const familyFunctions = `(SELECT amprocfamily, amproc::oid FROM pg_catalog.pg_amproc WHERE amprocfamily IN ` + ownFamilies + `
	UNION ALL SELECT a.amopfamily, of.fn FROM pg_catalog.pg_amop a JOIN pg_catalog.pg_operator o ON o.oid = a.amopopr
	` + operatorPlaces + `
	LEFT JOIN LATERAL pg_catalog.unnest(ARRAY[o2.oprcode::oid, o2.oprrest::oid, o2.oprjoin::oid]) AS of(fn) ON true
	WHERE a.amopfamily IN ` + ownFamilies + `) f(family, fn)`

// ownFamilies are the operator families whose familyFunctions a query
// that keeps only a class of the database's own or a function of its
// own (oc.oid >= 16384 OR f.fn >= 16384, where oc is a class of the
// family) may keep: the families of the database's classes, those with
// a support function of its own, and those holding an operator that
// reachingOwnCode lists. The others' rows would all be dropped, after
// expanding every operator of every family of the server's.
const ownFamilies = `(SELECT opcfamily FROM pg_catalog.pg_opclass WHERE oid >= 16384
	UNION SELECT amprocfamily FROM pg_catalog.pg_amproc WHERE amproc::oid >= 16384
	UNION SELECT amopfamily FROM pg_catalog.pg_amop WHERE amopopr IN ` + reachingOwnCode + `)`

// reachingOwnCode are the operators that operatorFunctions may join a
// function of the database's own to, and the database's own operators:
// those among whose places (operatorPlaces) is an operator of its own,
// one whose function or estimator is of its own, or one in a family
// with a support function of its own (any family: this lists more than
// the first family per access method that operatorFunctions takes,
// never less). A query that keeps only an operator of the database's or
// a function of its own keeps nothing else; naming the few operators
// first spares expanding the server's hundreds.
const reachingOwnCode = `(SELECT r.oid FROM pg_catalog.pg_operator r
	JOIN pg_catalog.pg_operator r1 ON r1.oid = ANY (ARRAY[r.oid, r.oprcom, r.oprnegate])
	JOIN pg_catalog.pg_operator r2 ON r2.oid = ANY (ARRAY[r1.oid, r1.oprcom, r1.oprnegate])
	WHERE r2.oid >= 16384 OR r2.oprcode::oid >= 16384 OR r2.oprrest::oid >= 16384 OR r2.oprjoin::oid >= 16384
		OR r2.oid IN (SELECT fa.amopopr FROM pg_catalog.pg_amop fa JOIN pg_catalog.pg_amproc pr ON pr.amprocfamily = fa.amopfamily
			WHERE pr.amproc::oid >= 16384))`

// operatorFunctions joins, to an operator o (NULL in a LEFT JOIN), the
// functions the planner or the executor calls for it, as of(fn): its own
// and its RESTRICT and JOIN estimators, which the planner calls when it
// estimates a condition on it; and those of the operators the planner
// may put in its place, which the text never writes: its commutator (a
// condition whose column is on the right, 5 ### a, is estimated with
// it, on the column's histogram) and its negator (NOT (a ### 5) becomes
// a condition on it), and theirs in turn (one row of NULL when o is
// NULL); and the support functions of the operator family, per access
// method, that the server takes for each of these: sorting by an
// operator (ORDER BY x USING <<<, a merge join) compares with its btree
// family's comparison function, not with the operator's own, a hash
// join or a hashed IN hashes with its hash family's function, a window's
// RANGE frame runs its family's in_range function. The server takes the
// first family (the lowest oid) that holds the operator: the server's
// own operators sort and hash with the server's families, whatever
// family of the database's own also holds them. (The places are joined
// with = ANY, which the server looks up by index, where IN becomes a
// filter over every operator; a family's support functions likewise, in
// a subquery the planner keeps apart, where it would hash the whole
// pg_amproc once per operator.)
const operatorFunctions = operatorPlaces + `
	LEFT JOIN LATERAL (SELECT pg_catalog.unnest(ARRAY[o2.oprcode::oid, o2.oprrest::oid, o2.oprjoin::oid])
		UNION ALL SELECT pr.amproc::oid FROM pg_catalog.pg_amop fa
			CROSS JOIN LATERAL (SELECT amproc FROM pg_catalog.pg_amproc WHERE amprocfamily = fa.amopfamily OFFSET 0) pr
		WHERE fa.amopopr = o2.oid AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_amop fb
			WHERE fb.amopopr = o2.oid AND fb.amopmethod = fa.amopmethod AND fb.amopfamily < fa.amopfamily)) AS of(fn) ON true`

// operatorPlaces joins, to an operator o, the operators the planner may
// put in its place (operatorFunctions), as o2.
const operatorPlaces = `LEFT JOIN pg_catalog.pg_operator o1 ON o1.oid = ANY (ARRAY[o.oid, o.oprcom, o.oprnegate])
	LEFT JOIN pg_catalog.pg_operator o2 ON o2.oid = ANY (ARRAY[o1.oid, o1.oprcom, o1.oprnegate])`

// localViewsSQL lists (relation, function) for every function a view's
// definition, a table's row security policy, or what the planner loads
// of a table (its indexes' expressions, predicates and operator classes,
// its CHECK constraints, its extended statistics' expressions, the
// expressions and operator classes of its partition key or of the tables
// it is a partition of, the subtype_diff function of its columns' range
// types, which estimates selectivity) calls, directly, through an
// operator, or through the views and tables it reads and the partitions
// and inheritance children it holds, however deep; and every output or
// send function of the database's own that printing its columns' values
// runs (held: a column of a type whose output function is
// pg_read_file's code read the file each value names), and every
// function that comparing a range's bounds runs (rangeBounds), also for
// a constant of such a type in its expressions (EXPLAIN VERBOSE prints
// it). A materialized
// view's definition does not run when it is read. pg_depend records no
// dependency on what the server ships (pinned objects): the server's
// functions that a view's definition, a policy, an index or a CHECK
// constraint calls are read from its expression's stored tree (the
// planner runs a STABLE one, table_to_xml for instance, on constants when
// it estimates a condition's selectivity).
const localViewsSQL = `WITH RECURSIVE views AS (
	SELECT r.oid, r.ev_class FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class v ON v.oid = r.ev_class WHERE v.relkind = 'v'
), ` + holds + `, held(typ, kind, x) AS (
	SELECT t.oid, 'o', p.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_proc p ON p.oid IN (t.typoutput, t.typsend)
	WHERE t.oid >= 16384 AND p.oid >= 16384
UNION ALL
	` + rangeBounds + `
UNION
	` + heldStep + `
), edges(child, parent) AS (
	SELECT d.refobjid, r.ev_class FROM pg_catalog.pg_depend d
	JOIN views r ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND r.oid = d.objid
	WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> r.ev_class
UNION ALL
	SELECT inhrelid, inhparent FROM pg_catalog.pg_inherits
), calls(view, fn) AS (
	SELECT coalesce(r.ev_class, pol.polrelid, i.indrelid, k.conrelid, x.stxrelid), coalesce(of.fn, d.refobjid) FROM pg_catalog.pg_depend d
	LEFT JOIN views r ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND r.oid = d.objid
	LEFT JOIN pg_catalog.pg_policy pol ON d.classid = 'pg_catalog.pg_policy'::regclass AND pol.oid = d.objid
	LEFT JOIN pg_catalog.pg_index i ON d.classid = 'pg_catalog.pg_class'::regclass AND i.indexrelid = d.objid
	LEFT JOIN pg_catalog.pg_constraint k ON d.classid = 'pg_catalog.pg_constraint'::regclass AND k.oid = d.objid AND k.conrelid <> 0
	LEFT JOIN pg_catalog.pg_statistic_ext x ON d.classid = 'pg_catalog.pg_statistic_ext'::regclass AND x.oid = d.objid
	LEFT JOIN pg_catalog.pg_operator o ON d.refclassid = 'pg_catalog.pg_operator'::regclass AND o.oid = d.refobjid
	` + operatorFunctions + `
	WHERE (r.oid IS NOT NULL OR pol.oid IS NOT NULL OR i.indexrelid IS NOT NULL OR k.oid IS NOT NULL OR x.oid IS NOT NULL)
		AND (d.refclassid = 'pg_catalog.pg_proc'::regclass OR o.oid IS NOT NULL)
UNION ALL
	SELECT x.rel, CASE WHEN m.m[1] = 'consttype' THEN h.x ELSE pg_catalog.oidin(pg_catalog.textout(m.m[2])) END FROM (
		SELECT r.ev_class, r.ev_action::text FROM pg_catalog.pg_rewrite r JOIN views v ON v.oid = r.oid WHERE r.ev_class >= 16384
		UNION ALL SELECT polrelid, polqual::text FROM pg_catalog.pg_policy
		UNION ALL SELECT polrelid, polwithcheck::text FROM pg_catalog.pg_policy
		UNION ALL SELECT indrelid, indexprs::text FROM pg_catalog.pg_index
		UNION ALL SELECT indrelid, indpred::text FROM pg_catalog.pg_index
		UNION ALL SELECT conrelid, conbin::text FROM pg_catalog.pg_constraint WHERE conrelid <> 0
	) x(rel, tree) CROSS JOIN LATERAL pg_catalog.regexp_matches(x.tree, ':(funcid|opfuncid|consttype) ([0-9]+)', 'g') m(m)
	LEFT JOIN held h ON m.m[1] = 'consttype' AND h.typ = pg_catalog.oidin(pg_catalog.textout(m.m[2]))
UNION ALL
	SELECT t.typrelid, h.x FROM held h JOIN pg_catalog.pg_type t ON t.oid = h.typ WHERE t.typrelid <> 0
UNION ALL
	SELECT i.indrelid, f.fn FROM pg_catalog.pg_index i
	JOIN pg_catalog.pg_opclass oc ON oc.oid = ANY (i.indclass) JOIN ` + familyFunctions + ` ON f.family = oc.opcfamily
	WHERE oc.oid >= 16384 OR f.fn >= 16384
UNION ALL
	SELECT pt.relid, coalesce(of.fn, d.refobjid) FROM pg_catalog.pg_depend d
	JOIN pg_catalog.pg_class tb ON d.classid = 'pg_catalog.pg_class'::regclass AND tb.oid = d.objid AND tb.relkind = 'p'
	LEFT JOIN pg_catalog.pg_operator o ON d.refclassid = 'pg_catalog.pg_operator'::regclass AND o.oid = d.refobjid
	` + operatorFunctions + `
	CROSS JOIN LATERAL pg_catalog.pg_partition_tree(tb.oid) pt
	WHERE d.refclassid = 'pg_catalog.pg_proc'::regclass OR o.oid IS NOT NULL
UNION ALL
	SELECT pt.relid, f.fn FROM pg_catalog.pg_partitioned_table k
	JOIN pg_catalog.pg_opclass oc ON oc.oid = ANY (k.partclass) JOIN ` + familyFunctions + ` ON f.family = oc.opcfamily
	CROSS JOIN LATERAL pg_catalog.pg_partition_tree(k.partrelid) pt
	WHERE oc.oid >= 16384 OR f.fn >= 16384
UNION ALL
	SELECT a.attrelid, rg.rngsubdiff::oid FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
	JOIN pg_catalog.pg_range rg ON rg.rngtypid IN (t.oid, t.typbasetype) OR rg.rngmultitypid IN (t.oid, t.typbasetype)
	WHERE rg.rngtypid >= 16384 AND NOT a.attisdropped
UNION
	SELECT e.parent, c.fn FROM calls c JOIN edges e ON e.child = c.view)
SELECT DISTINCT lower(v.relname::text), lower(p.proname::text) FROM calls c
	JOIN pg_catalog.pg_class v ON v.oid = c.view JOIN pg_catalog.pg_proc p ON p.oid = c.fn
	WHERE v.oid >= 16384`

// localRemoteSQL lists (relation, foreign server) for every foreign table
// whose wrapper is not file_fdw, and every view (its definition), table
// (a row security policy) and partitioned or inheritance parent that
// reads one, however deep.
const localRemoteSQL = `WITH RECURSIVE edges(child, parent) AS (
	SELECT d.refobjid, r.ev_class FROM pg_catalog.pg_depend d
	JOIN pg_catalog.pg_rewrite r ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND r.oid = d.objid
	JOIN pg_catalog.pg_class v ON v.oid = r.ev_class AND v.relkind = 'v'
	WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> r.ev_class
UNION ALL
	SELECT d.refobjid, pol.polrelid FROM pg_catalog.pg_depend d
	JOIN pg_catalog.pg_policy pol ON d.classid = 'pg_catalog.pg_policy'::regclass AND pol.oid = d.objid
	WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> pol.polrelid
UNION ALL
	SELECT inhrelid, inhparent FROM pg_catalog.pg_inherits
), reach(rel, srv) AS (
	SELECT ft.ftrelid, s.srvname::text FROM pg_catalog.pg_foreign_table ft
	JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
	JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw
	LEFT JOIN pg_catalog.pg_proc h ON h.oid = w.fdwhandler
	WHERE h.proname IS DISTINCT FROM 'file_fdw_handler'
UNION
	SELECT e.parent, r.srv FROM reach r JOIN edges e ON e.child = r.rel
)
SELECT DISTINCT ON (1) lower(c.relname::text), r.srv FROM reach r
	JOIN pg_catalog.pg_class c ON c.oid = r.rel
	WHERE c.oid >= 16384 ORDER BY 1, 2`

// pinnedPath starts loadLocal's queries: a database's search_path
// may put a schema of its own before pg_catalog (ALTER DATABASE … SET
// search_path), whose functions, operators and types then replace the
// server's in unqualified names. SET LOCAL lasts as long as the query's
// own implicit transaction.
const pinnedPath = "SET LOCAL search_path = pg_catalog, pg_temp; "

// smallHashes follows pinnedPath: the planner estimates the recursive
// queries (localViewsSQL's calls) at millions of rows where the catalogs
// give a few dozen, and the server sizes a recursive UNION's hash table by
// that estimate, up to work_mem (times hash_mem_multiplier), zeroing it
// before the first row: with the default 4 MB, some 40 ms of a new
// session's page faults, more than the rest of the query. The tables grow
// as rows come; a hash join past it spills to disk instead.
const smallHashes = "SET LOCAL work_mem = '256kB'; "

// loadSettings are the statements before loadLocal's queries, one result
// each.
const loadSettings = 2

func (e *Engine) loadLocal(ctx context.Context, c *pgconn.PgConn) (*local, error) {
	loc := &local{opaque: map[string]bool{}, aliases: map[string]string{}, fields: map[string]bool{}, ops: map[string]string{}, types: map[string]string{}, views: map[string]string{}, remote: map[string]string{}}
	e.loads.Add(1)
	// One round trip: the queries after the SETs, in their implicit
	// transaction, each a result of its own; the server's state and the
	// print first, so that a change committed while the rest is read
	// shows in the next check.
	var first []string
	if e.printable {
		if e.stateSQL != "" {
			first = append(first, e.stateSQL)
		}
		first = append(first, printSQL)
	}
	// They cost enough for the server to compile them with JIT, which
	// would take it seconds where running them takes milliseconds: every
	// session starts with jit off (Open).
	// The state and the print come before the SETs: the state holds the
	// search_path, which a check reads as the database sets it.
	var sql strings.Builder
	for _, q := range first {
		sql.WriteString(q + ";\n")
	}
	sql.WriteString(pinnedPath + smallHashes + strings.Join([]string{localFunctionsSQL, localAliasesSQL, localUsesSQL, localViewsSQL, localRemoteSQL}, ";\n"))
	res, err := c.Exec(ctx, sql.String()).ReadAll()
	if err != nil {
		return nil, pgOpenError(err)
	}
	if want := len(first) + loadSettings + 5; len(res) != want {
		return nil, fmt.Errorf("read the database's own functions: %d results, want %d", len(res), want)
	}
	state := ""
	if len(first) > 0 {
		if len(first) == 2 {
			state = string(res[0].Rows[0][0])
		}
		loc.print = string(res[len(first)-1].Rows[0][0])
	}
	loc.state.Store(&state)
	res = res[len(first)+loadSettings:]
	functions, aliases, uses, views, remote := res[0].Rows, res[1].Rows, res[2].Rows, res[3].Rows, res[4].Rows
	for _, row := range functions {
		loc.opaque[string(row[0])] = true
		if string(row[1]) == "t" {
			loc.fields[string(row[0])] = true
		}
	}
	for _, row := range aliases {
		name, code := string(row[0]), string(row[1])
		if _, d := denied(code); d && code != name && loc.aliases[name] == "" {
			loc.aliases[name] = code
		}
	}
	bad := func(fn string) bool { _, ok := loc.refusedCall(fn); return ok }
	// The functions refused for a function they run ('a') first: the
	// other uses may call them.
	for _, row := range uses {
		if string(row[0]) == "a" && bad(string(row[2])) {
			loc.opaque[string(row[1])] = true
		}
	}
	for _, row := range uses {
		kind, name, what := string(row[0]), string(row[1]), string(row[2])
		switch kind {
		case "o":
			if bad(what) {
				loc.ops[name] = what
			}
		case "c", "i", "r", "k", "t":
			if bad(what) {
				loc.types[name] = what
				if kind == "i" && loc.implicit == "" {
					loc.implicit = fmt.Sprintf("the implicit cast to %s calls %s()", name, what)
				}
			}
		case "p", "s", "v", "x":
			if bad(what) && loc.implicit == "" {
				loc.implicit = fmt.Sprintf(everyStatement[kind], name, what)
			}
		case "u":
			if bad(what) && loc.printer == "" {
				loc.printer = what
			}
		}
	}
	for _, row := range views {
		if view, fn := string(row[0]), string(row[1]); bad(fn) {
			loc.views[view] = fn
		}
	}
	if loc.printer != "" {
		for _, name := range statistics {
			loc.views[name] = loc.printer
		}
	}
	for _, row := range remote {
		loc.remote[string(row[0])] = string(row[1])
	}
	return loc, nil
}

// everyStatement says, for the kinds of localUsesSQL's rows that any
// statement may run without naming them, what runs (the row's name and
// function).
var everyStatement = map[string]string{
	"p": "the default operator class %s calls %s()",
	"s": "the planner support function of the server's %s() is the database's %s()",
	"v": "the server's type %s reads, prints or sends its values with the database's %s()",
	"x": "the text search template or parser %s calls %s()",
}

// refusedCall says why a call of the function name is refused: it is
// denied, is a denied function under another name, runs the database's
// own code that the guard cannot see into, or prints stored expressions
// where a type's output function is such code (loc may be nil: denied
// functions only).
func (loc *local) refusedCall(name string) (string, bool) {
	if why, ok := denied(name); ok {
		return why, true
	}
	if loc != nil && loc.printer != "" && deparses[name] {
		why, _ := loc.refusedCall(loc.printer)
		return fmt.Sprintf("prints stored expressions, whose constants of a type of this database's print by %s(), which is not allowed: it %s", loc.printer, why), true
	}
	return loc.replaced(name)
}

// deparses are the server's functions that print a stored expression
// (a view's, a default's, a constraint's…) as text, printing its
// constants with their types' output functions.
var deparses = map[string]bool{
	"pg_get_expr": true, "pg_get_viewdef": true, "pg_get_ruledef": true, "pg_get_constraintdef": true,
	"pg_get_indexdef": true, "pg_get_triggerdef": true, "pg_get_functiondef": true, "pg_get_function_arguments": true,
	"pg_get_function_result": true, "pg_get_function_arg_default": true, "pg_get_function_sqlbody": true,
	"pg_get_partkeydef": true, "pg_get_partition_constraintdef": true, "pg_get_statisticsobjdef": true,
	"pg_get_statisticsobjdef_columns": true, "pg_get_statisticsobjdef_expressions": true,
}

// statistics are the catalogs holding values of every column's type
// (anyarray), which every view of the statistics reads: printing them
// prints those values.
var statistics = []string{"pg_statistic", "pg_statistic_ext_data"}

// replaced says why a call of the function name does not run the function
// of that name that the server or an extension ships: the database's own
// code, or a denied function under this name.
func (loc *local) replaced(name string) (string, bool) {
	if loc == nil {
		return "", false
	}
	if b, ok := loc.aliases[name]; ok {
		why, _ := denied(b)
		return fmt.Sprintf("is %s() under another name: it %s", b, why), true
	}
	if loc.opaque[name] {
		return "runs code (SQL, procedural, or a C library's under a name of this database's) that the guard cannot see into", true
	}
	return "", false
}

// none reports whether the database has nothing of its own that vet
// looks for (also when loc is nil): then vet passes every text.
func (loc *local) none() bool {
	return loc == nil || len(loc.ops) == 0 && len(loc.types) == 0 && len(loc.views) == 0 && len(loc.remote) == 0 && loc.implicit == ""
}

// impliedOperators are the operators that a word of the statement calls,
// by name and with the search_path, the text never writing them: LIKE is
// ~~, IN is =, BETWEEN is >= and <=. An operator of the database's own by
// one of these names, over types the server has none for, is called by
// the word.
var impliedOperators = map[string][]string{
	"like":     {"~~", "!~~"},
	"ilike":    {"~~*", "!~~*"},
	"similar":  {"~", "!~"},
	"in":       {"=", "<>"},
	"distinct": {"="},
	"nullif":   {"="},
	"case":     {"="},
	"using":    {"="},
	"natural":  {"="},
	"between":  {">=", "<=", "<", ">"},
}

// vet refuses text (toks, its tokens) that uses one of the database's
// operators, casts or domains that call a denied function or code the
// guard cannot see, or a view or table that reaches one.
func (loc *local) vet(text string, toks []token, where string) error {
	if loc.none() {
		return nil
	}
	if loc.implicit != "" {
		return &guard.Rejection{What: "an implicit conversion or comparison", Reason: fmt.Sprintf("no statement is allowed on this database: %s, which is not allowed, and any statement may run it without naming it (the planner on constants, before any plan can be checked)", loc.implicit),
			Hint: "ask the database's owner to make it explicit (a cast without AS IMPLICIT, an operator class without DEFAULT) or to restore the server's own functions, types and operators (ALTER FUNCTION … SUPPORT, ALTER TYPE … SET), or connect to another database"}
	}
	operator := func(op, written string) error {
		return &guard.Rejection{What: "operator " + op, Reason: fmt.Sprintf("operator %s%s is not allowed in %s: it calls %s()", op, written, where, loc.ops[op]),
			Hint: "tablewise only reads the database's tables; " + readOnlyHint + " without it"}
	}
	for op := range loc.ops {
		if strings.Contains(text, op) {
			return operator(op, "")
		}
		if op == "<>" && strings.Contains(text, "!=") {
			return operator(op, " (written !=)")
		}
	}
	for _, t := range toks {
		if t.kind != 'w' {
			continue
		}
		for _, op := range impliedOperators[t.text] {
			if _, ok := loc.ops[op]; ok {
				return operator(op, " (written "+strings.ToUpper(t.text)+")")
			}
		}
	}
	for _, t := range toks {
		if t.kind != 'w' && t.kind != 'q' {
			continue
		}
		if fn, ok := loc.types[strings.ToLower(t.text)]; ok {
			return &guard.Rejection{What: "type " + t.text, Reason: fmt.Sprintf("type %s is not allowed in %s: converting to it calls %s", t.text, where, fn),
				Hint: "tablewise only reads the database's tables; " + readOnlyHint + " without it"}
		}
		if srv, ok := loc.remote[strings.ToLower(t.text)]; ok {
			return remoteRejection(t.text, srv)
		}
		if fn, ok := loc.views[strings.ToLower(t.text)]; ok {
			why, _ := loc.refusedCall(fn)
			return &guard.Rejection{What: t.text, Reason: fmt.Sprintf("%s is not allowed in %s: its definition (a view's), or a row security policy, an index, a constraint, statistics, the partition key or a column's range type on it, calls %s(), which is not allowed: it %s (and the planner may run it before any plan can be checked)", t.text, where, fn, why),
				Hint: "query the tables the view reads instead, connect as a role the policy does not apply to, or ask the database's owner for an index or constraint that calls no such function; " + readOnlyHint}
		}
	}
	return nil
}
