package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tablewise/tablewise/core/format"
	"github.com/tablewise/tablewise/core/guard"
)

// The guard reads the text with a lexer that follows the server's own
// rules under the session's sql_mode (see sqlMode): strings in single
// quotes with backslash escapes and doubled quotes, names in double quotes
// or backticks, comments after #, after -- and a space, and between /* */.
// What it cannot read as the server would, it refuses. It admits:
//
//   - statement kinds that read: SELECT, a parenthesised SELECT, WITH …
//     SELECT, VALUES, TABLE, SHOW, DESCRIBE, and EXPLAIN of those
//     (never EXPLAIN ANALYZE, ANALYZE, EXPLAIN FOR CONNECTION, SHOW
//     EXPLAIN|ANALYZE FOR, or SHOW BINLOG|RELAYLOG EVENTS, which read
//     the server's log files, or SHOW ENGINE … STATUS, which restarts
//     InnoDB's per-second averages);
//
// and refuses, wherever they are in the text:
//
//   - executable comments (/*! … */, /*M! … */) and optimizer hints
//     (/*+ … */): the server runs what they hold, whatever the version
//     number, and MySQL's hints set variables (SET_VAR, MAX_EXECUTION_TIME);
//   - INTO (… INTO OUTFILE writes a file on the server, INTO @v sets a
//     variable), locking reads (FOR UPDATE, FOR SHARE, LOCK IN SHARE
//     MODE), PROCEDURE ANALYSE, := assignments, NEXT VALUE FOR;
//   - functions that act outside the transaction or read the server's
//     files, by name (deniedFunctions), stored functions of the database
//     and any schema-qualified call (they run code the guard cannot see),
//     and the views whose definitions call any of them, however deep;
//   - for a user who cannot read mysql.func (so cannot see the server's
//     loadable functions, which need no privilege to call and act
//     outside the transaction), a call of a name that is not the
//     server's own (ownNames), and any quoted call (unlistedCall);
//   - on a server with tables it reads on another server (FEDERATED and
//     the like), the reads that open every table: SHOW TABLE STATUS and
//     some information_schema columns (vetOpening);
//   - || (MariaDB reads it as OR, SQLite and PostgreSQL as joining text:
//     either reading answers some queries silently wrong);
//   - the information_schema tables whose reads reset the statistics
//     they show (resettingTables);
//   - more than one statement.
//
// The server's read-only transaction refuses the writes that get past
// this (INSERT … SELECT cannot: its kind is refused first).

// readOnlyHint is the hint of a refusal whose only advice is the
// read-only rule.
const readOnlyHint = "only a single SELECT, WITH, VALUES, SHOW, DESCRIBE or EXPLAIN statement can run"

// deniedFunctions are refused by name, with the reason.
var deniedFunctions = map[string]string{
	"LOAD_FILE":                         "reads a file on the database server",
	"GET_LOCK":                          "takes a named lock that outlives the transaction",
	"RELEASE_LOCK":                      "releases a named lock",
	"RELEASE_ALL_LOCKS":                 "releases named locks",
	"IS_FREE_LOCK":                      "probes named locks",
	"IS_USED_LOCK":                      "probes named locks (and names the session holding one)",
	"NEXTVAL":                           "advances a sequence (a write)",
	"SETVAL":                            "sets a sequence (a write)",
	"LASTVAL":                           "reads session state",
	"LAST_INSERT_ID":                    "sets session state",
	"MASTER_POS_WAIT":                   "waits on replication",
	"MASTER_GTID_WAIT":                  "waits on replication",
	"SOURCE_POS_WAIT":                   "waits on replication",
	"WAIT_FOR_EXECUTED_GTID_SET":        "waits on replication",
	"WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS": "waits on replication",
	"SYS_EXEC":                          "runs a program on the database server",
	"SYS_EVAL":                          "runs a program on the database server",
	"SYS_BINEVAL":                       "runs code on the database server",
	"SYS_SET":                           "sets the server's environment",
	"SYS_GET":                           "reads the server's environment",
	"BINLOG_GTID_POS":                   "reads the server's binary log files",
	"WSREP_SYNC_WAIT_UPTO_GTID":         "waits on replication",
	// The Spider engine's functions (install_spider.sql): they run
	// statements on the servers its tables point to.
	"SPIDER_DIRECT_SQL":            "runs SQL on another server",
	"SPIDER_BG_DIRECT_SQL":         "runs SQL on another server",
	"SPIDER_PING_TABLE":            "connects to another server",
	"SPIDER_COPY_TABLES":           "copies rows between servers (a write)",
	"SPIDER_FLUSH_TABLE_MON_CACHE": "changes the Spider engine's state",
	// The CONNECT engine's functions (ha_connect.so) that reach the
	// server's files and environment.
	"JSON_FILE":     "reads a file on the database server",
	"JBIN_FILE":     "reads a file on the database server",
	"BSON_FILE":     "reads a file on the database server",
	"BBIN_FILE":     "reads a file on the database server",
	"JFILE_MAKE":    "writes a file on the database server",
	"JFILE_CONVERT": "writes a file on the database server",
	"JFILE_BJSON":   "writes a file on the database server",
	"BFILE_MAKE":    "writes a file on the database server",
	"BFILE_CONVERT": "writes a file on the database server",
	"BFILE_BJSON":   "writes a file on the database server",
	"ENVAR":         "reads the server's environment",
}

// resettingTables are the information_schema tables whose every read
// resets the server's statistics they show (MariaDB's InnoDB compression
// counters, read without reset in INNODB_CMP, INNODB_CMPMEM and
// INNODB_CMP_PER_INDEX), inside a read-only transaction too. They are
// refused by name wherever it appears: the connection's database may be
// information_schema itself.
var resettingTables = map[string]string{
	"INNODB_CMP_RESET":           "INNODB_CMP",
	"INNODB_CMPMEM_RESET":        "INNODB_CMPMEM",
	"INNODB_CMP_PER_INDEX_RESET": "INNODB_CMP_PER_INDEX",
}

// readKinds are the statement kinds that read.
var readKinds = map[string]bool{"SELECT": true, "VALUES": true, "TABLE": true, "SHOW": true}

// token is one lexical token: a bare word (upper-cased in up), a quoted
// name, a string, or punctuation.
type token struct {
	text string // as written
	up   string // bare words upper-cased; "" for other tokens
	kind tokKind
	end  int // the offset in the text just past the token
}

type tokKind int

const (
	tWord tokKind = iota
	tName         // `quoted`
	tString
	tNumber
	tPunct
)

// lexError is text the lexer cannot read as the server would.
type lexError struct {
	what, reason, hint string
}

// reading is how the server reads quotes under a session's sql_mode;
// the zero value is the engine's own (sqlMode: ANSI_QUOTES, backslash
// escapes).
type reading struct {
	dquoteStrings bool // no ANSI_QUOTES: "…" is a string, with the escapes of '…'
	noBackslash   bool // NO_BACKSLASH_ESCAPES: a backslash escapes nothing
}

// lex splits sql into tokens as the server reads it under the engine's
// sql_mode (lexAs).
func lex(sql string) ([]token, *lexError) { return lexAs(sql, reading{}) }

// lexAs splits sql into tokens, skipping whitespace and plain comments,
// reading quotes as r says. Numbers are read as the server reads them:
// 1.5INTO is the number 1.5 and the word INTO, 1INTO is one name; a
// number directly followed by a word is refused rather than guessed at.
func lexAs(sql string, r reading) ([]token, *lexError) {
	var out []token
	prevEnd := -1 // where the previous token ended
	add := func(t token, end int) {
		t.end = end
		out = append(out, t)
		prevEnd = end
	}
	// afterName: the previous token is a name or word ending at i, so a
	// '.' at i qualifies it (t.5x is a column of t).
	afterName := func(i int) bool {
		if prevEnd != i || len(out) == 0 {
			return false
		}
		k := out[len(out)-1].kind
		return k == tWord || k == tName
	}
	// qualified: the previous token is a '.' that qualifies a name.
	qualified := func(i int) bool {
		n := len(out)
		return prevEnd == i && n >= 2 && out[n-1].text == "." && out[n-1].kind == tPunct && (out[n-2].kind == tWord || out[n-2].kind == tName)
	}
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#', c == '-' && i+1 < len(sql) && sql[i+1] == '-' && (i+2 == len(sql) || sql[i+2] <= ' '):
			// # and "-- " (with a space or control character after
			// it, or at the end) comment to the end of the line.
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return out, nil
			}
			i += j + 1
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			rest := sql[i+2:]
			switch {
			case strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "M!"), strings.HasPrefix(rest, "m!"):
				return nil, &lexError{what: "executable comment", reason: "an executable comment (/*! … */ or /*M! … */) is not allowed: the server runs what it holds"}
			case strings.HasPrefix(rest, "+"):
				return nil, &lexError{what: "optimizer hint", reason: "an optimizer hint (/*+ … */) is not allowed: it can change the server's settings for the statement"}
			}
			j := strings.Index(rest, "*/")
			if j < 0 {
				return nil, &lexError{what: "unterminated comment", reason: "a /* comment is not closed"}
			}
			i += j + 4
		case c == '\'' || c == '"' && r.dquoteStrings:
			j, ok := endOfString(sql, i, !r.noBackslash)
			if !ok {
				return nil, &lexError{what: "unterminated string", reason: "a string literal is not closed"}
			}
			add(token{text: sql[i:j], kind: tString}, j)
			i = j
		case c == '`' || c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(sql[j:], c)
				if k < 0 {
					return nil, &lexError{what: "unterminated name", reason: "a quoted name (\"…\" or `…`) is not closed"}
				}
				j += k + 1
				if j < len(sql) && sql[j] == c {
					j++
					continue
				}
				break
			}
			add(token{text: sql[i:j], kind: tName}, j)
			i = j
		case c == '@':
			j := i + 1
			if j < len(sql) && sql[j] == '@' {
				j++
			}
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			add(token{text: sql[i:j], up: strings.ToUpper(sql[i:j]), kind: tWord}, j)
			i = j
		case isDigit(c) && !qualified(i) || c == '.' && i+1 < len(sql) && isDigit(sql[i+1]) && !afterName(i):
			j := i
			for j < len(sql) && isDigit(sql[j]) {
				j++
			}
			switch {
			case j < len(sql) && sql[j] == '.':
				j++
				for j < len(sql) && isDigit(sql[j]) {
					j++
				}
				j = exponent(sql, j)
			case exponent(sql, j) > j:
				j = exponent(sql, j)
			case j < len(sql) && isWordByte(sql[j]):
				// Digits then letters: a name (1INTO, 0x1F), as the
				// server reads it.
				for j < len(sql) && isWordByte(sql[j]) {
					j++
				}
				add(token{text: sql[i:j], up: strings.ToUpper(sql[i:j]), kind: tWord}, j)
				i = j
				continue
			}
			if j < len(sql) && isWordByte(sql[j]) {
				return nil, &lexError{what: "number joined to a word", reason: fmt.Sprintf("the number %s is directly followed by a word", sql[i:j]), hint: "write a space between a number and the word after it"}
			}
			add(token{text: sql[i:j], kind: tNumber}, j)
			i = j
		case isWordByte(c):
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			add(token{text: sql[i:j], up: strings.ToUpper(sql[i:j]), kind: tWord}, j)
			i = j
		case c == ':' && i+1 < len(sql) && sql[i+1] == '=':
			add(token{text: ":=", kind: tPunct}, i+2)
			i += 2
		default:
			add(token{text: sql[i : i+1], kind: tPunct}, i+1)
			i++
		}
	}
	return out, nil
}

// statementTokens lexes a statement as vet and confirm read it: SHOW's
// table of another database written apart from it (SHOW INDEX FROM t
// FROM db) as the qualified name db.t it opens, so that what is refused
// or confirmed of db.t is of it too.
func statementTokens(sql string) ([]token, *lexError) {
	toks, lerr := lex(sql)
	if lerr != nil || len(toks) == 0 || toks[0].up != "SHOW" {
		return toks, lerr
	}
	from := func(t token) bool { return t.up == "FROM" || t.up == "IN" }
	named := func(t token) bool { return t.kind == tName || t.kind == tWord && t.up != "" }
	for i := 1; i+3 < len(toks); i++ {
		if from(toks[i]) && named(toks[i+1]) && from(toks[i+2]) && named(toks[i+3]) {
			table, db := toks[i+1], toks[i+3]
			toks[i+1], toks[i+2], toks[i+3] = db, token{text: ".", kind: tPunct, end: toks[i+2].end}, table
		}
	}
	return toks, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// exponent returns the index after an exponent (e5, E-3) at j, or j when
// there is none.
func exponent(sql string, j int) int {
	if j >= len(sql) || sql[j] != 'e' && sql[j] != 'E' {
		return j
	}
	k := j + 1
	if k < len(sql) && (sql[k] == '+' || sql[k] == '-') {
		k++
	}
	if k >= len(sql) || !isDigit(sql[k]) {
		return j
	}
	for k < len(sql) && isDigit(sql[k]) {
		k++
	}
	return k
}

// endOfString returns the index after the string literal starting at i,
// reading doubled quotes and (with escapes) backslash escapes as the
// server does.
func endOfString(sql string, i int, escapes bool) (int, bool) {
	q := sql[i]
	j := i + 1
	for j < len(sql) {
		switch sql[j] {
		case '\\':
			if !escapes {
				break
			}
			j += 2
			continue
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j += 2
				continue
			}
			return j + 1, true
		}
		j++
	}
	return 0, false
}

// isWordByte: an ASCII name character or any byte of a multi-byte UTF-8
// character, which MySQL allows in unquoted names.
func isWordByte(c byte) bool { return c >= 0x80 || isNameASCII(rune(c)) }

// isNameASCII: the ASCII characters MySQL allows in unquoted names,
// letters, digits, _ and $.
func isNameASCII(c rune) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// known is what the guard learns from the database: its stored and
// loadable functions (upper-cased), the views that call a refused
// function and the tables another connection reads (upper-cased name →
// why; those of another database named SCHEMA.NAME). A nil *known knows
// none.
type known struct {
	functions map[string]bool
	// schemaFunctions are the stored functions of the other databases
	// (upper-cased), by database as the server spells it: a view of
	// another database calls those of its own unqualified (`f`()).
	schemaFunctions map[string]map[string]bool
	views           map[string]string
	remote          map[string]string
	// remoteHere are the names of the database's own tables of remote,
	// as the database spells them.
	remoteHere []string

	// What the server confirms before a statement runs (confirm.go),
	// as learn read it: the connection's database; every view's
	// definition (lexed) and its digest, and the remote tables' engines,
	// by name as objectName spells it; whether mysql.func could be read
	// (the server then confirms the loadable functions too).
	database string
	defs     map[string][]token
	digests  map[string]string
	engines  map[string]string
	udfsRead bool
	// own are the names whose unquoted call the server resolves to its
	// own function or reads as syntax (ownNames), when the user cannot
	// read mysql.func or mysql.proc and so may not see every loadable
	// or stored function; nil when the user sees them all. A call of
	// another name is then refused (unlistedCall).
	own map[string]bool
}

func (k *known) function(name string) bool { return k != nil && k.functions[name] }

// in is k as a view of the database schema (another than the
// connection's) reads it: its unqualified calls name that database's
// stored functions, refused as the connection's database's and the
// loadable ones are.
func (k *known) in(schema string) *known {
	own := k.schemaFunctions[schema]
	if len(own) == 0 {
		return k
	}
	there := *k
	there.functions = make(map[string]bool, len(k.functions)+len(own))
	for _, m := range []map[string]bool{k.functions, own} {
		for name := range m {
			there.functions[name] = true
		}
	}
	return &there
}

// object says why the view or table name (upper-cased, SCHEMA.NAME in
// another database) is refused, as what kind ("view" or "table") and
// with a hint; ok is false when it is not (also when k is nil).
func (k *known) object(name string) (kind, why, hint string, ok bool) {
	if k == nil {
		return "", "", "", false
	}
	if why, ok := k.views[name]; ok {
		return "view", why, "query the tables it reads instead", true
	}
	if why, ok := k.remote[name]; ok {
		return "table", why, "query the database it reads directly, or ask the database's owner for a table that holds the rows", true
	}
	return "", "", "", false
}

// tableConditions are the conditions on TABLE_NAME that leave out
// (notRemote) or keep only (remote) the database's own tables the server
// reads outside the transaction (FEDERATED and the like), for the
// catalog's reads of information_schema. Reading such a table's row
// count, keys or creation time opens it, and FEDERATED then connects to
// its remote server, where a server that does not answer holds the
// statement past the deadline and KILL QUERY. MariaDB tests a condition
// on TABLE_NAME before it opens a table, and looks the names of IN (…)
// up as files, case-sensitively: they are written as the database
// spells them.
func (k *known) tableConditions() (notRemote, remote string) {
	var names []string
	if k != nil {
		for _, name := range k.remoteHere {
			names = append(names, sqlString(name))
		}
	}
	if len(names) == 0 {
		return "", " AND FALSE"
	}
	sort.Strings(names)
	list := strings.Join(names, ", ")
	return " AND TABLE_NAME NOT IN (" + list + ")", " AND TABLE_NAME IN (" + list + ")"
}

// qualifiedName is the upper-cased SCHEMA.NAME that toks[i] (a schema)
// starts, or "" when toks[i] is not followed by . and a name.
func qualifiedName(toks []token, i int) string {
	if i+2 >= len(toks) || toks[i+1].kind != tPunct || toks[i+1].text != "." {
		return ""
	}
	up := func(t token) string {
		switch t.kind {
		case tWord:
			return t.up
		case tName:
			q := t.text[:1]
			return strings.ToUpper(strings.ReplaceAll(t.text[1:len(t.text)-1], q+q, q))
		}
		return ""
	}
	schema, name := up(toks[i]), up(toks[i+2])
	if schema == "" || name == "" {
		return ""
	}
	return schema + "." + name
}

// vet decides whether sql may run, with what the guard knows of the
// database.
func vet(sql string, k *known) error {
	if err := guard.CheckText(sql); err != nil {
		return err
	}
	toks, lerr := statementTokens(sql)
	if lerr != nil {
		hint := lerr.hint
		if hint == "" {
			hint = "remove it; " + readOnlyHint
		}
		return &guard.Rejection{What: lerr.what, Reason: lerr.reason, Hint: hint}
	}
	// Trailing semicolons are fine; anything after one is a second
	// statement.
	for len(toks) > 0 && toks[len(toks)-1].text == ";" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return guard.ErrEmpty
	}
	for i, t := range toks {
		if t.kind == tPunct && t.text == ";" {
			return &guard.Rejection{
				What:   "several statements",
				Reason: fmt.Sprintf("more than one statement: found %q after the first", format.ClipRunes(strings.TrimSpace(textFrom(toks[i+1:])), 60)),
				Hint:   "send one statement at a time",
			}
		}
	}
	if err := vetKind(sql, toks); err != nil {
		return err
	}
	if err := vetTokens(toks, k); err != nil {
		return err
	}
	if k != nil && !k.udfsRead && k.own != nil {
		// A stored function the user may call is one ROUTINES shows
		// (vetTokens refused it); a loadable one needs no privilege.
		return unlistedCall(toks, k.own)
	}
	return nil
}

func textFrom(toks []token) string {
	var parts []string
	for _, t := range toks {
		parts = append(parts, t.text)
	}
	return strings.Join(parts, " ")
}

// vetKind admits only statement kinds that read.
func vetKind(sql string, toks []token) error {
	i := 0
	for i < len(toks) && toks[i].text == "(" {
		i++
	}
	if i >= len(toks) {
		return guard.RefuseStatement(sql)
	}
	first := toks[i].up
	switch {
	case first == "SHOW" && i == 0 && len(toks) > 1 && (toks[1].up == "EXPLAIN" || toks[1].up == "ANALYZE"):
		// MariaDB's SHOW EXPLAIN|ANALYZE FOR id has the session id
		// interrupt its statement to report its plan.
		what := "SHOW " + toks[1].up + " FOR"
		return &guard.Rejection{What: what, Reason: what + " is not allowed: it has another session report its statement", Hint: "use EXPLAIN on the statement itself; " + readOnlyHint}
	case first == "SHOW" && i == 0 && len(toks) > 2 && (toks[1].up == "BINLOG" && toks[2].up == "EVENTS" || toks[1].up == "RELAYLOG"):
		// The binary and relay logs are files on the server holding
		// every database's writes.
		what := "SHOW " + toks[1].up + " EVENTS"
		return &guard.Rejection{What: what, Reason: what + " is not allowed: it reads the server's log files, which hold the writes of every database", Hint: readOnlyHint}
	case first == "SHOW" && i == 0 && len(toks) > 3 && toks[1].up == "ENGINE" && toks[3].up == "STATUS":
		// InnoDB's report restarts the interval its per-second
		// averages are computed over, for every session's next one
		// (under any of its names: ALL, 'innodb', innobase).
		return &guard.Rejection{What: "SHOW ENGINE … STATUS", Reason: "SHOW ENGINE … STATUS is not allowed: InnoDB's report restarts the interval of the per-second averages every session's next report shows", Hint: "read information_schema.INNODB_METRICS or GLOBAL_STATUS instead"}
	case readKinds[first] && (i == 0 || first != "SHOW"):
		return nil
	case first == "WITH":
		if main := mainOfWith(toks[i+1:]); main != "SELECT" && main != "VALUES" && main != "TABLE" {
			return &guard.Rejection{What: "WITH … " + main, Reason: "WITH … " + main + " is not allowed: the database is read-only", Hint: readOnlyHint}
		}
		return nil
	case i == 0 && (first == "EXPLAIN" || first == "DESCRIBE" || first == "DESC"):
		return vetExplain(sql, toks[1:])
	}
	if !statementWords[first] {
		// Not a statement at all (a typo such as SELEC): the server would
		// call it a syntax error; say so without sending it.
		e := &guard.SQLError{Msg: fmt.Sprintf("syntax error: %q does not begin a statement", toks[i].text), Code: 1064}
		if near := guard.Nearest(first, []string{"SELECT", "WITH", "VALUES", "SHOW", "DESCRIBE", "EXPLAIN"}, 1); len(near) > 0 {
			e.Hint = "did you mean " + near[0] + "?"
		}
		return e
	}
	return refuse(sql)
}

// statementWords are the words a MariaDB or MySQL statement can begin
// with.
var statementWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ALTER ANALYZE BACKUP BEGIN BINLOG CALL CACHE CHANGE CHECK CHECKSUM
		CLONE COMMIT CREATE DEALLOCATE DELETE DESC DESCRIBE DO DROP EXECUTE EXPLAIN FLUSH GET GRANT
		HANDLER HELP IMPORT INSERT INSTALL KILL LOAD LOCK OPTIMIZE PREPARE PURGE RELEASE RENAME REPAIR
		REPLACE RESET RESIGNAL RESTART REVOKE ROLLBACK SAVEPOINT SELECT SET SHOW SHUTDOWN SIGNAL START
		STOP TABLE TRUNCATE UNINSTALL UNLOCK UPDATE USE VALUES WITH XA`) {
		statementWords[w] = true
	}
}

// refuse names a refused statement from its leading keywords.
func refuse(sql string) *guard.Rejection {
	r := guard.RefuseStatement(sql)
	r.Hint = readOnlyHint
	return r
}

// mainOfWith returns the keyword of the statement a WITH clause leads to,
// given the tokens after WITH.
func mainOfWith(toks []token) string {
	i := 0
	if i < len(toks) && toks[i].up == "RECURSIVE" {
		i++
	}
	for i < len(toks) {
		i++ // the name
		if i < len(toks) && toks[i].text == "(" {
			i = skipParens(toks, i)
		}
		if i >= len(toks) || toks[i].up != "AS" {
			return "?"
		}
		i++
		for i < len(toks) && (toks[i].up == "NOT" || toks[i].up == "MATERIALIZED") {
			i++
		}
		if i >= len(toks) || toks[i].text != "(" {
			return "?"
		}
		i = skipParens(toks, i)
		if i < len(toks) && toks[i].text == "," {
			i++
			continue
		}
		break
	}
	for i < len(toks) && toks[i].text == "(" {
		i++
	}
	if i >= len(toks) {
		return "?"
	}
	if toks[i].up != "" {
		return toks[i].up
	}
	return toks[i].text
}

// skipParens returns the index after the parenthesis that closes the one
// at i.
func skipParens(toks []token, i int) int {
	depth := 0
	for ; i < len(toks); i++ {
		switch toks[i].text {
		case "(":
			if toks[i].kind == tPunct {
				depth++
			}
		case ")":
			if toks[i].kind == tPunct {
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	return i
}

// vetExplain admits EXPLAIN or DESCRIBE of a table or of a query that
// reads, never EXPLAIN ANALYZE (it runs the statement) or EXPLAIN FOR
// CONNECTION (another session's statement).
func vetExplain(sql string, toks []token) error {
	i := 0
	for i < len(toks) {
		switch toks[i].up {
		case "EXTENDED", "PARTITIONS":
			i++
			continue
		case "FORMAT":
			i += 2 // FORMAT JSON
			if i < len(toks) && toks[i-1].text == "=" {
				i++ // FORMAT = JSON
			}
			continue
		}
		break
	}
	if i >= len(toks) {
		return refuse(sql)
	}
	switch next := toks[i].up; {
	case next == "ANALYZE":
		return &guard.Rejection{What: "EXPLAIN ANALYZE", Reason: "EXPLAIN ANALYZE is not allowed: it runs the statement", Hint: "use EXPLAIN without ANALYZE"}
	case next == "FOR":
		return &guard.Rejection{What: "EXPLAIN FOR CONNECTION", Reason: "EXPLAIN FOR CONNECTION is not allowed: it shows another session's statement", Hint: readOnlyHint}
	case next == "SELECT" || next == "WITH" || next == "VALUES" || next == "TABLE" || toks[i].text == "(":
		return vetKind(sql, toks[i:])
	case next == "INSERT" || next == "UPDATE" || next == "DELETE" || next == "REPLACE":
		return &guard.Rejection{What: "EXPLAIN of " + next, Reason: "EXPLAIN of " + next + " is not allowed: the database is read-only", Hint: readOnlyHint}
	case toks[i].kind == tName || toks[i].kind == tWord && next != "":
		return nil // DESCRIBE table [column]
	}
	return refuse(sql)
}

// vetTokens refuses what acts outside the transaction wherever it is.
func vetTokens(toks []token, k *known) error {
	refused := func(what, reason, hint string) error {
		return &guard.Rejection{What: what, Reason: reason, Hint: hint}
	}
	if err := vetOpening(toks, k); err != nil {
		return err
	}
	// object refuses a refused view or table, name as k holds it,
	// written as the statement does.
	object := func(name, written string) error {
		if kind, why, hint, ok := k.object(name); ok {
			return refused(kind+" "+written, "the "+kind+" "+written+" is not allowed: "+why, hint)
		}
		return nil
	}
	for i, t := range toks {
		next := func(k int) token {
			if i+k < len(toks) {
				return toks[i+k]
			}
			return token{}
		}
		if t.kind == tPunct && t.text == "|" && next(1).text == "|" && next(1).kind == tPunct {
			return refused("||", "|| is ambiguous: MariaDB and MySQL read it as OR, other databases as joining text", "write OR, or CONCAT(a, b) to join text")
		}
		if t.kind == tPunct && t.text == ":=" {
			return refused(":=", "assigning to a variable (:=) is not allowed: it changes the session", "compute the value in the query instead")
		}
		if t.kind == tName {
			// A quoted name before a parenthesis still calls the
			// built-in: `LOAD_FILE`('/etc/passwd') reads the file.
			q := t.text[:1]
			t.up = strings.ToUpper(strings.ReplaceAll(t.text[1:len(t.text)-1], q+q, q))
		} else if t.kind != tWord {
			continue
		}
		if plain, ok := resettingTables[t.up]; ok {
			return refused("table "+t.text, "reading "+t.text+" is not allowed: it resets the server's statistics it shows", "read information_schema."+plain+", which shows the same statistics without resetting them")
		}
		word := t.up
		if t.kind != tWord {
			word = ""
		}
		switch word {
		case "INTO":
			return refused("SELECT … INTO", "SELECT … INTO is not allowed: it writes a file on the server or sets variables", "drop INTO …; export the result with tablewise export instead")
		case "PROCEDURE":
			return refused("PROCEDURE", "PROCEDURE is not allowed in a query", readOnlyHint)
		case "LOCK":
			if next(1).up == "IN" {
				return refused("LOCK IN SHARE MODE", "a locking read (LOCK IN SHARE MODE) is not allowed: it takes locks", "drop LOCK IN SHARE MODE")
			}
		case "FOR":
			if u := next(1).up; u == "UPDATE" || u == "SHARE" {
				return refused("FOR "+u, "a locking read (FOR "+u+") is not allowed: it takes locks", "drop FOR "+u)
			}
		case "NEXT", "PREVIOUS":
			if next(1).up == "VALUE" && next(2).up == "FOR" {
				return refused(word+" VALUE FOR", word+" VALUE FOR is not allowed: it reads or advances a sequence", readOnlyHint)
			}
		}
		if err := object(t.up, t.text); err != nil {
			return err
		}
		if q := qualifiedName(toks, i); q != "" && !(i > 0 && toks[i-1].text == ".") {
			if err := object(q, t.text+"."+toks[i+2].text); err != nil {
				return err
			}
		}
		if next(1).text != "(" || next(1).kind != tPunct {
			if next(1).text == "." && next(2).kind != tPunct && next(3).text == "(" && next(3).kind == tPunct && !(i > 0 && toks[i-1].text == ".") {
				name := t.text + "." + next(2).text
				return refused("function "+name, "calling "+name+" is not allowed: a stored function runs code the guard cannot see", "use the built-in functions")
			}
			continue
		}
		if i > 0 && toks[i-1].text == "." {
			continue // checked at its schema's token
		}
		if why, ok := deniedFunctions[t.up]; ok {
			return refused("function "+t.up, "function "+t.up+" is not allowed: it "+why, "remove the call; "+readOnlyHint)
		}
		if k.function(t.up) {
			return refused("function "+t.text, "calling the stored function "+t.text+" is not allowed: it runs code the guard cannot see", "use the built-in functions")
		}
	}
	return nil
}

// unlistedCall refuses a call of a function the guard may not know of,
// in a statement or in a view's definition as the server writes it.
// The server writes a stored function's name in a view quoted (`f`(1))
// and a built-in's bare (get_lock('x',0)), and reads a quoted name
// before a parenthesis as a stored or loadable function's when it is not
// one of its native functions (`count`(x) calls a loadable function
// named count): a quoted call is refused even when information_schema.
// ROUTINES does not list it (it lists a function only to a user with a
// privilege on it, and a view runs it as its definer). When own is not
// nil (the user cannot read mysql.func or mysql.proc, so may not see
// every loadable or stored function), a bare call of a name that is not
// one of own is refused as well: a loadable function (CREATE FUNCTION …
// SONAME) is callable by every user without a privilege and runs native
// code outside the transaction, and a view made with
// sql_quote_show_create off writes a stored function's call bare. A
// name of a WITH clause before its columns (c(`n`) as (…)) is no call.
func unlistedCall(toks []token, own map[string]bool) error {
	for i, t := range toks {
		if i+1 >= len(toks) || toks[i+1].kind != tPunct || toks[i+1].text != "(" {
			continue
		}
		bare := t.kind == tWord && t.up != "" && t.up[0] != '@' && !ownCall(toks, i, own) && !(i > 0 && toks[i-1].text == ".")
		if t.kind != tName && !(bare && own != nil) {
			continue
		}
		if end := skipParens(toks, i+1); end+1 < len(toks) && toks[end].up == "AS" && toks[end+1].text == "(" {
			continue
		}
		reason := "calling the function " + t.text + " is not allowed: a quoted name before a parenthesis may name a stored or loadable function, which runs code the guard cannot see"
		hint := "use the built-in functions, their names unquoted"
		if t.kind != tName {
			reason = "calling " + t.text + " is not allowed: the server does not list it among its own functions, so it may be a loadable function (CREATE FUNCTION … SONAME: any user may call one, and it runs outside the transaction) or a stored function, which the server does not show to a user who cannot read mysql.func and mysql.proc"
		}
		if own != nil {
			hint = "ask without " + t.text + ", using the built-in functions (their names unquoted); or have an administrator GRANT SELECT ON mysql.func and mysql.proc to the user tablewise connects as, so that the guard sees the server's loadable and stored functions"
		}
		return &guard.Rejection{What: "function " + t.text, Reason: reason, Hint: hint}
	}
	return nil
}

// hiddenRead returns, written as the definition does, the first table or
// view a view's definition reads (as the server writes it: schema.name
// after FROM, JOIN or their parentheses) that seen, the names
// information_schema.TABLES shows the user (objectName's, upper-cased),
// does not hold; "" when it reads none. The server lists an object only
// to a user with a privilege on it, and the view reads it as its
// definer: a hidden view's definition and calls cannot be vetted.
func hiddenRead(toks []token, database string, seen map[string]bool) string {
	for i := range toks {
		q := qualifiedName(toks, i)
		if q == "" || i > 0 && toks[i-1].text == "." || i+3 < len(toks) && toks[i+3].text == "." {
			continue // no name, or a column's
		}
		j := i - 1
		for j >= 0 && toks[j].kind == tPunct && toks[j].text == "(" {
			j--
		}
		if j < 0 || toks[j].up != "FROM" && toks[j].up != "JOIN" && toks[j].up != "STRAIGHT_JOIN" {
			continue
		}
		schema, name := nameOf(toks[i]), nameOf(toks[i+2])
		key := q
		if strings.EqualFold(schema, database) {
			key = strings.ToUpper(name)
		}
		if !seen[key] {
			return schema + "." + name
		}
	}
	return ""
}

// opensTables are the information_schema tables whose reads open every
// table they list, with the columns that do (nil: any read), as measured
// on MariaDB 10.11 with a FEDERATED table: reading its row count, sizes,
// times, keys or constraints connects to its remote server; its name,
// engine, comment and columns come from its definition alone.
var opensTables = map[string][]string{
	"TABLES": strings.Fields(`ROW_FORMAT TABLE_ROWS AVG_ROW_LENGTH DATA_LENGTH MAX_DATA_LENGTH INDEX_LENGTH
		DATA_FREE AUTO_INCREMENT CREATE_TIME UPDATE_TIME CHECK_TIME CHECKSUM CREATE_OPTIONS MAX_INDEX_LENGTH`),
	"STATISTICS":              {"CARDINALITY", "INDEX_TYPE", "COMMENT"},
	"KEY_COLUMN_USAGE":        nil,
	"TABLE_CONSTRAINTS":       nil,
	"REFERENTIAL_CONSTRAINTS": nil,
	"PARTITIONS":              nil,
}

// vetOpening refuses, on a server with tables it reads on another server
// (FEDERATED and the like, in k.remote), the reads that open every table
// of a database: SHOW TABLE STATUS and the information_schema columns of
// opensTables. Opening a FEDERATED table connects to its remote server,
// and a remote that does not answer holds the statement on the server
// past the deadline and KILL QUERY.
func vetOpening(toks []token, k *known) error {
	if k == nil || len(k.remote) == 0 {
		return nil
	}
	why := func(what string) error {
		var remote []string
		for name := range k.remote {
			remote = append(remote, name)
		}
		sort.Strings(remote)
		return &guard.Rejection{
			What:   what,
			Reason: what + " is not allowed here: it opens every table it lists, and the server's remote tables (" + format.ClipRunes(strings.Join(remote, ", "), 60) + ") then connect to their servers, where one that does not answer holds the statement past the deadline",
			Hint:   "the catalog (tablewise schema) lists the tables with their keys and row counts; information_schema.TABLES' names, engines and comments can be read",
		}
	}
	if len(toks) > 2 && toks[0].up == "SHOW" && toks[1].up == "TABLE" && toks[2].up == "STATUS" {
		return why("SHOW TABLE STATUS")
	}
	// Every name in the statement, and whether it selects all columns.
	words, star := map[string]bool{}, false
	for i, t := range toks {
		switch t.kind {
		case tWord:
			words[t.up] = true
		case tName:
			q := t.text[:1]
			words[strings.ToUpper(strings.ReplaceAll(t.text[1:len(t.text)-1], q+q, q))] = true
		case tPunct:
			if t.text == "*" && i > 0 {
				p := toks[i-1]
				star = star || p.up == "SELECT" || p.up == "DISTINCT" || p.up == "ALL" || p.kind == tPunct && (p.text == "," || p.text == ".")
			}
		}
	}
	for i := range toks {
		q := qualifiedName(toks, i)
		table, ok := strings.CutPrefix(q, "INFORMATION_SCHEMA.")
		if !ok {
			continue
		}
		cols, opens := opensTables[table]
		if !opens {
			continue
		}
		hit := cols == nil || star
		for _, c := range cols {
			hit = hit || words[c]
		}
		if hit {
			return why("reading information_schema." + table)
		}
	}
	return nil
}

// objectName names a table of information_schema.TABLES or VIEWS as the
// guard's maps do: by its name in the connection's database, SCHEMA.NAME
// in another.
const objectName = "IF(TABLE_SCHEMA = DATABASE(), TABLE_NAME, CONCAT(TABLE_SCHEMA, '.', TABLE_NAME))"

// remoteEngines are the storage engines whose tables the server reads on
// a connection of its own (FEDERATED, FederatedX), in a transaction that
// is not read-only, or outside the database (CONNECT, SPIDER; SPHINX
// connects to the searchd its table or its query names).
var remoteEngines = sqlList(remoteEngineNames)

// remoteEngineNames are remoteEngines, upper-cased.
var remoteEngineNames = []string{"FEDERATED", "CONNECT", "SPIDER", "SPHINX"}

// learn reads what the guard needs to know of the database: its stored
// functions, when the user may read mysql.func the server's loadable
// functions (UDFs such as sys_exec), and the views whose definitions call
// a refused function or such a view. It keeps what a statement's vetting
// relies on for confirm to compare with the server before the statement
// runs.
func (e *Engine) learn(ctx context.Context, c *conn) (*known, error) {
	k := &known{functions: map[string]bool{}, schemaFunctions: map[string]map[string]bool{}, views: map[string]string{}, remote: map[string]string{},
		defs: map[string][]token{}, digests: map[string]string{}, engines: map[string]string{}}
	read := func(q string, row func(v []string)) error {
		rows, err := c.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		vals, dest := make([]sql.NullString, len(cols)), make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		v := make([]string, len(cols))
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			for i := range vals {
				v[i] = vals[i].String
			}
			row(v)
		}
		return rows.Err()
	}
	if err := read("SELECT DATABASE()", func(v []string) { k.database = v[0] }); err != nil {
		return nil, err
	}
	// Every database's stored functions: those of another database are
	// what its views' unqualified calls name.
	if err := read("SELECT ROUTINE_NAME, ROUTINE_SCHEMA, ROUTINE_SCHEMA = DATABASE() FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'FUNCTION'", func(v []string) {
		name, schema := strings.ToUpper(v[0]), v[1]
		if v[2] == "1" {
			k.functions[name] = true
			return
		}
		if k.schemaFunctions[schema] == nil {
			k.schemaFunctions[schema] = map[string]bool{}
		}
		k.schemaFunctions[schema][name] = true
	}); err != nil {
		return nil, err
	}
	if ctx.Err() == nil {
		// Only an administrator may: best effort.
		k.udfsRead = read("SELECT name FROM mysql.func", func(v []string) {
			k.functions[strings.ToUpper(v[0])] = true
		}) == nil
	}
	// A user who cannot read mysql.func or mysql.proc may not see every
	// loadable or stored function: a bare call of a name that is not the
	// server's own is then taken for one (unlistedCall).
	if ctx.Err() == nil && (!k.udfsRead || read("SELECT 1 FROM mysql.proc LIMIT 0", func([]string) {}) != nil) {
		k.own = ownNames(read)
	}
	if err := read("SELECT "+objectName+", ENGINE FROM information_schema.TABLES WHERE ENGINE IN "+remoteEngines, func(v []string) {
		name, eng := v[0], v[1]
		k.remote[strings.ToUpper(name)] = "it is a " + eng + " table: the server reads it on another connection or outside the database, not within the read-only transaction"
		k.engines[name] = eng
		if !strings.Contains(name, ".") {
			k.remoteHere = append(k.remoteHere, name)
		}
	}); err != nil {
		return nil, err
	}
	// Every database's views: a query may name another database's, which
	// its definer runs as this database's would be.
	// Each definition is lexed once, as it is read: one that cannot be
	// read is refused at once.
	// The tables and views the server shows the user: a view reading
	// another is refused (hiddenRead).
	seen := map[string]bool{}
	if err := read("SELECT "+objectName+" FROM information_schema.TABLES", func(v []string) {
		seen[strings.ToUpper(v[0])] = true
	}); err != nil {
		return nil, err
	}
	// A view of another database is vetted as that database reads it
	// (in).
	defs, schemas := map[string][]token{}, map[string]string{}
	if err := read("SELECT "+objectName+", VIEW_DEFINITION, "+viewDigest+", IF(TABLE_SCHEMA = DATABASE(), '', TABLE_SCHEMA) FROM information_schema.VIEWS", func(v []string) {
		name, def := v[0], v[1]
		k.digests[name] = v[2]
		upper := strings.ToUpper(name)
		schemas[upper] = v[3]
		if strings.TrimSpace(def) == "" {
			// The server shows it only to its definer and to a user
			// with SHOW VIEW: what it calls is unknown.
			k.views[upper] = "its definition cannot be read: the server shows it only to a user with the SHOW VIEW privilege (GRANT SHOW VIEW ON the database to the user tablewise connects as)"
			return
		}
		toks, lerr := lex(def)
		if lerr != nil {
			k.views[upper] = "its definition cannot be read (" + lerr.reason + ")"
			return
		}
		defs[upper] = toks
		k.defs[name] = toks
	}); err != nil {
		return nil, err
	}
	// A view is refused when its definition would be; a view reading a
	// refused view is found on a later round.
	in := map[string]*known{"": k}
	for changed := true; changed; {
		changed = false
		for name, toks := range defs {
			if _, done := k.views[name]; done {
				continue
			}
			schema := schemas[name]
			if in[schema] == nil {
				in[schema] = k.in(schema)
			}
			err := vetTokens(toks, in[schema])
			if err == nil {
				err = unlistedCall(toks, k.own)
			}
			if err == nil {
				if hidden := hiddenRead(toks, k.database, seen); hidden != "" {
					err = &guard.Rejection{What: "view", Reason: "it reads " + hidden + ", which the server does not show to the user tablewise connects as: what that runs cannot be known"}
				}
			}
			var rej *guard.Rejection
			if errors.As(err, &rej) {
				k.views[name] = "its definition is refused: " + rej.Reason
				changed = true
			}
		}
	}
	return k, nil
}
