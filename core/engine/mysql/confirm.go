package mysql

import (
	"context"
	"database/sql"
	"sort"
	"strings"
	"sync"

	"github.com/tablewise/tablewise/core/guard"
)

// What the guard knows of the database (learn) is kept for a while
// (functionsTTL); a view replaced or made, a table re-made as a view or a
// function made since would pass the guard with that knowledge and run in
// the statement. So before a statement runs, on the connection and in the
// transaction that run it, the server confirms that what the statement's
// vetting relied on is still what the database holds. The names it
// relied on are those of the text that could name a table, a view or a
// function (not reserved words, not calls of built-in functions), and,
// through the definitions learn read, of every view they reach; of those,
// one query (confirm) reads which are views and which remote tables (by
// engine), the definitions of those that were views (their digest, SHA2
// computed by the server at learn and now), and the stored and loadable
// functions among the names called; and, for a statement vetOpening
// refuses on a server with remote tables, every remote table. MariaDB
// answers it by looking those names up as files (TABLE_SCHEMA and
// TABLE_NAME), opening only their definitions, not every view's.
//
// The window that remains: MariaDB takes its metadata locks on the views
// and tables a statement opens, for the rest of the transaction, only
// when the statement opens them. None of the reads tried that open a view
// without evaluating it keeps them (measured on MariaDB 10.11: CREATE OR
// REPLACE VIEW on another connection goes through at once after PREPARE,
// SHOW CREATE VIEW or a read of information_schema's VIEWS or COLUMNS in
// the transaction, and waits after a SELECT of the view). So the check is
// the last round trip before the statement, and a change committed on
// another connection after the server answered the check and before it
// opens the statement's views (a round trip and the statement's parsing)
// is not seen.

// viewDigest is the server's digest of a view's definition, the same
// expression at learn and at confirm.
const viewDigest = "SHA2(VIEW_DEFINITION, 256)"

// maxLearn is how many times a statement's vetting learns the database
// again when the server holds something else than the guard read.
const maxLearn = 3

// nameOf is the name toks[i] writes (a bare word as written, a quoted
// name unquoted), or "" when it is none.
func nameOf(t token) string {
	switch t.kind {
	case tWord:
		if strings.HasPrefix(t.text, "@") {
			return ""
		}
		return t.text
	case tName:
		q := t.text[:1]
		return strings.ReplaceAll(t.text[1:len(t.text)-1], q+q, q)
	}
	return ""
}

// dependencies are the names a statement's vetting relied on, as the
// server may look them up: bare names of the connection's database and
// [schema, name] pairs of another, each as written and in lower case
// (lower_case_table_names = 1 stores and looks names up so); keys are the
// same names as objectName spells them. calls are the upper-cased names
// called that may be stored or loadable functions; schemaCalls those
// called unqualified in the definitions of another database's views,
// which name that database's functions, by database.
type dependencies struct {
	bare        []string
	pairs       map[string][2]string // by key
	keys        map[string]bool
	calls       []string
	schemaCalls map[string][]string
}

// builtins are functions whose unquoted call the server resolves to its
// own whatever the database defines (a stored function of the same name
// is called only qualified, and a loadable one cannot take it): a call of
// none of these may be a stored function's. keywords are words reserved
// on every MariaDB and MySQL version: unquoted, they name neither a table
// nor a function.
var builtins, keywords = map[string]bool{}, map[string]bool{}

func init() {
	for _, w := range strings.Fields(`COUNT SUM AVG MIN MAX GROUP_CONCAT COALESCE IFNULL NULLIF IF CAST CONVERT
		CONCAT CONCAT_WS LOWER UPPER LCASE UCASE LENGTH CHAR_LENGTH SUBSTRING SUBSTR TRIM LTRIM RTRIM REPLACE
		ROUND FLOOR CEIL CEILING ABS MOD DATE_FORMAT DATE YEAR MONTH DAY DAYOFMONTH DAYOFWEEK HOUR MINUTE
		SECOND NOW CURDATE DATEDIFF DATE_ADD DATE_SUB STR_TO_DATE UNIX_TIMESTAMP FROM_UNIXTIME TIMESTAMPDIFF
		EXTRACT LEFT RIGHT LOCATE INSTR POSITION ROW_NUMBER RANK DENSE_RANK LAG LEAD GREATEST LEAST SQRT
		POWER POW EXP LN SIGN TRUNCATE LPAD RPAD REVERSE`) {
		builtins[w] = true
	}
	for _, w := range strings.Fields(`SELECT FROM WHERE AND OR NOT IN EXISTS AS JOIN ON USING VALUES UNION ALL
		DISTINCT HAVING GROUP ORDER BY LIMIT WHEN THEN ELSE CASE BETWEEN LIKE IS NULL XOR WITH INTERVAL
		INNER LEFT RIGHT CROSS OUTER NATURAL DESC ASC`) {
		keywords[w] = true
	}
}

// natives are MariaDB 10.11's native functions that a server need not
// list (information_schema.SQL_FUNCTIONS is MariaDB 10.6's and later's):
// those it lists, and its geometry functions, which it does not. A
// loadable function cannot take a native's name (CREATE FUNCTION …
// SONAME refuses it), and the server resolves a bare call of one to its
// own. A function of MySQL's alone is not one: MariaDB looks its name up
// among the loadable functions.

// namedCalls are words the server lists among its keywords that it
// reads, before a parenthesis, as the name of a function to look up among
// the loadable and stored ones, as measured on MariaDB 10.11 (SELECT
// w(1) as an administrator: "FUNCTION w does not exist"): a loadable
// function may be named so. JSON_TABLE and COLUMNS among them are the
// server's syntax where it reads them so (ownCall).

// constructors are the geometry constructors, which MariaDB resolves to
// its own only with as many arguments as these say (at least, at most; -1
// for no limit): POINT(1, 2) is a point, POINT(1) is looked up among the
// loadable and stored functions (measured on MariaDB 10.11).
var constructors = map[string][2]int{"POINT": {2, 2}, "LINESTRING": {1, -1}, "POLYGON": {1, -1}, "MULTIPOINT": {1, -1},
	"MULTILINESTRING": {1, -1}, "MULTIPOLYGON": {1, -1}, "GEOMETRYCOLLECTION": {1, -1}}

// nativeNames builds natives and namedCalls (above) on first use, not
// at start-up: only a MySQL or MariaDB database needs them.
var nativeNames = sync.OnceValues(func() (natives, namedCalls map[string]bool) {
	natives, namedCalls = map[string]bool{}, map[string]bool{}
	for _, w := range strings.Fields(`ABS ACOS ADDDATE ADDTIME ADD_MONTHS AES_DECRYPT AES_ENCRYPT AREA ASBINARY ASIN ASTEXT
		ASWKB ASWKT ATAN ATAN2 BENCHMARK BIN BINLOG_GTID_POS BIT_AND BIT_COUNT BIT_LENGTH BIT_OR
		BIT_XOR BOUNDARY BUFFER CAST CEIL CEILING CENTROID CHARACTER_LENGTH CHAR_LENGTH CHR COALESCE
		COERCIBILITY COLLATION COLUMN_CHECK COLUMN_EXISTS COLUMN_JSON COLUMN_LIST COMPRESS CONCAT
		CONCAT_OPERATOR_ORACLE CONCAT_WS CONNECTION_ID CONV CONVERT_TZ CONVEXHULL COS COT COUNT
		CRC32 CRC32C CROSSES CUME_DIST CURDATE CURTIME DATABASE DATEDIFF DATE_ADD DATE_FORMAT
		DATE_SUB DAYNAME DAYOFMONTH DAYOFWEEK DAYOFYEAR DECODE DECODE_HISTOGRAM DECODE_ORACLE DEGREES
		DENSE_RANK DES_DECRYPT DES_ENCRYPT DIMENSION DISJOINT ELT ENCODE ENCRYPT ENDPOINT ENVELOPE
		EQUALS EXP EXPORT_SET EXTERIORRING EXTRACT EXTRACTVALUE FIELD FIND_IN_SET FIRST_VALUE FLOOR
		FORMAT FOUND_ROWS FROM_BASE64 FROM_DAYS FROM_UNIXTIME GEOMCOLLFROMTEXT GEOMCOLLFROMWKB
		GEOMETRYCOLLECTIONFROMTEXT GEOMETRYCOLLECTIONFROMWKB GEOMETRYFROMTEXT GEOMETRYFROMWKB
		GEOMETRYN GEOMETRYTYPE GEOMFROMTEXT GEOMFROMWKB GET_LOCK GLENGTH GREATEST GROUP_CONCAT HEX
		IFNULL INET6_ATON INET6_NTOA INET_ATON INET_NTOA INSTR INTERIORRINGN INTERSECTS ISCLOSED
		ISEMPTY ISNULL ISRING ISSIMPLE IS_FREE_LOCK IS_IPV4 IS_IPV4_COMPAT IS_IPV4_MAPPED IS_IPV6
		IS_USED_LOCK JSON_ARRAY JSON_ARRAYAGG JSON_ARRAY_APPEND JSON_ARRAY_INSERT JSON_COMPACT
		JSON_CONTAINS JSON_CONTAINS_PATH JSON_DEPTH JSON_DETAILED JSON_EQUALS JSON_EXISTS
		JSON_EXTRACT JSON_INSERT JSON_KEYS JSON_LENGTH JSON_LOOSE JSON_MERGE JSON_MERGE_PATCH
		JSON_MERGE_PRESERVE JSON_NORMALIZE JSON_OBJECT JSON_OBJECTAGG JSON_OVERLAPS JSON_PRETTY
		JSON_QUERY JSON_QUOTE JSON_REMOVE JSON_REPLACE JSON_SEARCH JSON_SET JSON_TYPE JSON_UNQUOTE
		JSON_VALID JSON_VALUE LAG LAST_DAY LAST_INSERT_ID LCASE LEAD LEAST LENGTH LENGTHB LINEFROMTEXT
		LINEFROMWKB LINESTRINGFROMTEXT LINESTRINGFROMWKB LN LOAD_FILE LOCATE LOG LOG10 LOG2 LOWER LPAD
		LPAD_ORACLE LTRIM LTRIM_ORACLE MAKEDATE MAKETIME MAKE_SET MASTER_GTID_WAIT MASTER_POS_WAIT
		MAX MBRCONTAINS MBRDISJOINT MBREQUAL MBRINTERSECTS MBROVERLAPS MBRTOUCHES MBRWITHIN
		MD5 MEDIAN MICROSECOND MID MIN MLINEFROMTEXT MLINEFROMWKB MOD MONTHNAME MPOINTFROMTEXT
		MPOINTFROMWKB MPOLYFROMTEXT MPOLYFROMWKB MULTILINESTRINGFROMTEXT MULTILINESTRINGFROMWKB
		MULTIPOINTFROMTEXT MULTIPOINTFROMWKB MULTIPOLYGONFROMTEXT MULTIPOLYGONFROMWKB NAME_CONST
		NATURAL_SORT_KEY NOW NTH_VALUE NTILE NULLIF NUMGEOMETRIES NUMINTERIORRINGS NUMPOINTS
		NVL NVL2 OCT OCTET_LENGTH OLD_PASSWORD ORD PASSWORD PERCENTILE_CONT PERCENTILE_DISC
		PERCENT_RANK PERIOD_ADD PERIOD_DIFF PI POINTFROMTEXT POINTFROMWKB POINTN POINTONSURFACE
		POLYFROMTEXT POLYFROMWKB POLYGONFROMTEXT POLYGONFROMWKB POSITION POW POWER QUARTER QUOTE
		RADIANS RAND RANDOM_BYTES RANK REGEXP_INSTR REGEXP_REPLACE REGEXP_SUBSTR RELEASE_ALL_LOCKS
		RELEASE_LOCK REPLACE_ORACLE REVERSE ROUND ROW_COUNT RPAD RPAD_ORACLE RTRIM RTRIM_ORACLE
		SCHEMA SCHEMAS SEC_TO_TIME SESSION_USER SFORMAT SHA SHA1 SHA2 SIGN SIN SLEEP SOUNDEX
		SPACE SQRT SRID STARTPOINT STD STDDEV STDDEV_POP STDDEV_SAMP STRCMP STR_TO_DATE ST_AREA
		ST_ASBINARY ST_ASGEOJSON ST_ASTEXT ST_ASWKB ST_ASWKT ST_BOUNDARY ST_BUFFER ST_CENTROID
		ST_CONTAINS ST_CONVEXHULL ST_CROSSES ST_DIFFERENCE ST_DIMENSION ST_DISJOINT ST_DISTANCE
		ST_DISTANCE_SPHERE ST_ENDPOINT ST_ENVELOPE ST_EQUALS ST_EXTERIORRING ST_GEOMCOLLFROMTEXT
		ST_GEOMCOLLFROMWKB ST_GEOMETRYCOLLECTIONFROMTEXT ST_GEOMETRYCOLLECTIONFROMWKB
		ST_GEOMETRYFROMTEXT ST_GEOMETRYFROMWKB ST_GEOMETRYN ST_GEOMETRYTYPE ST_GEOMFROMGEOJSON
		ST_GEOMFROMTEXT ST_GEOMFROMWKB ST_INTERIORRINGN ST_INTERSECTION ST_INTERSECTS ST_ISCLOSED
		ST_ISEMPTY ST_ISRING ST_ISSIMPLE ST_LENGTH ST_LINEFROMTEXT ST_LINEFROMWKB ST_LINESTRINGFROMTEXT
		ST_LINESTRINGFROMWKB ST_MLINEFROMTEXT ST_MLINEFROMWKB ST_MPOINTFROMTEXT ST_MPOINTFROMWKB
		ST_MPOLYFROMTEXT ST_MPOLYFROMWKB ST_MULTILINESTRINGFROMTEXT ST_MULTILINESTRINGFROMWKB
		ST_MULTIPOINTFROMTEXT ST_MULTIPOINTFROMWKB ST_MULTIPOLYGONFROMTEXT ST_MULTIPOLYGONFROMWKB
		ST_NUMGEOMETRIES ST_NUMINTERIORRINGS ST_NUMPOINTS ST_OVERLAPS ST_POINTFROMTEXT ST_POINTFROMWKB
		ST_POINTN ST_POINTONSURFACE ST_POLYFROMTEXT ST_POLYFROMWKB ST_POLYGONFROMTEXT ST_POLYGONFROMWKB
		ST_RELATE ST_SRID ST_STARTPOINT ST_SYMDIFFERENCE ST_TOUCHES ST_UNION ST_WITHIN ST_X ST_Y
		SUBDATE SUBSTR SUBSTRING SUBSTRING_INDEX SUBSTR_ORACLE SUBTIME SUM SYSTEM_USER SYS_GUID
		TAN TIMEDIFF TIME_FORMAT TIME_TO_SEC TOUCHES TO_BASE64 TO_CHAR TO_DAYS TO_SECONDS TRIM
		TRIM_ORACLE UCASE UNCOMPRESS UNCOMPRESSED_LENGTH UNHEX UNIX_TIMESTAMP UPDATEXML UPPER UUID
		UUID_SHORT VARIANCE VAR_POP VAR_SAMP VERSION WEEK WEEKDAY WEEKOFYEAR WSREP_LAST_SEEN_GTID
		WSREP_LAST_WRITTEN_GTID WSREP_SYNC_WAIT_UPTO_GTID X Y YEARWEEK`) {
		natives[w] = true
	}
	for _, w := range strings.Fields(`ACCOUNT ACTION ADMIN AFTER AGAINST AGGREGATE ALGORITHM ALWAYS AT ATOMIC AUTHORS AUTO
		AUTOEXTEND_SIZE AUTO_INCREMENT AVG_ROW_LENGTH BLOCK BODY BTREE CASCADED CATALOG_NAME
		CHAIN CHANGED CHANNEL CIPHER CLASS_ORIGIN CLIENT COLUMN_NAME COMMITTED COMPACT COMPLETION
		CONCURRENT CONNECTION CONSISTENT CONSTRAINT_CATALOG CONSTRAINT_NAME CONSTRAINT_SCHEMA
		COLUMNS CONTEXT CONTRIBUTORS CPU CUBE CURRENT CURRENT_POS CURSOR_NAME CYCLE DATA DATAFILE DEFINER
		DELAY_KEY_WRITE DES_KEY_FILE DIAGNOSTICS DIRECTORY DISABLE DISCARD DISK DUMPFILE DUPLICATE
		DYNAMIC ELSIF EMPTY ENABLE ENDS ENGINE ENGINES ERROR ERRORS ESCAPE EVENT EVENTS EVERY EXCEPTION
		EXCHANGE EXPANSION EXPIRE EXPORT EXTENDED EXTENT_SIZE FAST FAULTS FEDERATED FIELDS FILE FIRST
		FOUND FULL GENERAL GENERATED GOTO GRANTS HARD HASH HISTORY HOSTS IDENTIFIED IGNORE_SERVER_IDS
		IMMEDIATE IMPORT INCREMENT INDEXES INITIAL_SIZE INSERT_METHOD INVISIBLE INVOKER IO IO_THREAD
		IPC ISOLATION ISOPEN ISSUER JSON_TABLE KEY_BLOCK_SIZE LAST LEAVES LESS LEVEL LIST LOCKED LOCKS LOGFILE
		LOGS MASTER MASTER_CONNECT_RETRY MASTER_DELAY MASTER_GTID_POS MASTER_HEARTBEAT_PERIOD
		MASTER_HOST MASTER_LOG_FILE MASTER_LOG_POS MASTER_PASSWORD MASTER_PORT MASTER_SERVER_ID
		MASTER_SSL MASTER_SSL_CA MASTER_SSL_CAPATH MASTER_SSL_CERT MASTER_SSL_CIPHER MASTER_SSL_CRL
		MASTER_SSL_CRLPATH MASTER_SSL_KEY MASTER_USER MASTER_USE_GTID MAX_CONNECTIONS_PER_HOUR
		MAX_QUERIES_PER_HOUR MAX_ROWS MAX_SIZE MAX_STATEMENT_TIME MAX_UPDATES_PER_HOUR
		MAX_USER_CONNECTIONS MEMORY MERGE MESSAGE_TEXT MIGRATE MINUS MINVALUE MIN_ROWS MODE MODIFY
		MONITOR MUTEX MYSQL MYSQL_ERRNO NAME NESTED NEVER NEXT NOCACHE NOCYCLE NODEGROUP NOMAXVALUE
		NOMINVALUE NONE NOTFOUND NOWAIT NO_WAIT OF ONE ONLINE ONLY ORDINALITY PACKAGE PACK_KEYS PAGE
		PARTIAL PARTITIONING PARTITIONS PATH PERSISTENT PHASE PLUGIN PLUGINS PRESERVE PREV PREVIOUS
		PRIVILEGES PROCESS PROCESSLIST PROFILE PROFILES PROXY QUERY QUICK RAISE READ_ONLY REBUILD
		RECOVER REDOFILE REDO_BUFFER_SIZE REDUNDANT RELAY RELAYLOG RELAY_LOG_FILE RELAY_LOG_POS
		RELAY_THREAD RELOAD REORGANIZE REPEATABLE REPLAY REPLICATION REPLICA_POS RESTART RESUME
		RETURNED_SQLSTATE RETURNS REUSE ROLLUP ROUTINE ROWCOUNT ROWTYPE ROW_FORMAT RTREE SCHEDULE
		SCHEMA_NAME SEQUENCE SERIALIZABLE SHARE SIMPLE SKIP SLAVE_POS SLOW SNAPSHOT SOFT SOURCE
		SQL_THREAD SQL_TSI_QUARTER SQL_TSI_WEEK STAGE STARTS STATEMENT STATUS STORAGE STRING
		SUBCLASS_ORIGIN SUBJECT SUBPARTITION SUBPARTITIONS SUPER SUSPEND SWAPS SWITCHES SYSTEM
		SYSTEM_TIME TABLES TABLESPACE TABLE_CHECKSUM TABLE_NAME TEMPORARY TEMPTABLE THAN THREADS
		TRANSACTION TRANSACTIONAL TRIGGERS TYPE UNCOMMITTED UNDEFINED UNDOFILE UNDO_BUFFER_SIZE
		UNKNOWN UNTIL USER_RESOURCES USE_FRM VARIABLES VERSIONING VIA VIEW VIRTUAL VISIBLE WAIT
		WARNINGS WITHOUT WORK X509 XML`) {
		namedCalls[w] = true
	}
	return natives, namedCalls
})

// ownNames are the names whose bare call the server resolves to its own
// function or reads as syntax: builtins, keywords and natives, and the
// functions and keywords the server lists (MariaDB 10.6 and later;
// MySQL 8 lists its keywords), read with read, but for namedCalls.
func ownNames(read func(q string, row func(v []string)) error) map[string]bool {
	natives, namedCalls := nativeNames()
	own := map[string]bool{}
	for _, m := range []map[string]bool{builtins, keywords, natives} {
		for w := range m {
			own[w] = true
		}
	}
	for _, q := range []string{"SELECT FUNCTION FROM information_schema.SQL_FUNCTIONS", "SELECT WORD FROM information_schema.KEYWORDS"} {
		read(q, func(v []string) {
			own[strings.ToUpper(v[0])] = true
		})
	}
	for w := range namedCalls {
		delete(own, w)
	}
	return own
}

// ownCall reports whether the server reads the bare word toks[i], before
// a parenthesis, as its own function or as syntax: a name of own, a
// constructor with as many arguments as it takes, or JSON_TABLE's syntax,
// JSON_TABLE(doc, 'path' COLUMNS (…)) and its NESTED PATH 'path' COLUMNS
// (…), where a string before COLUMNS cannot be a function's argument
// (the server would read COLUMNS as its alias, and then the parenthesis
// as an error).
func ownCall(toks []token, i int, own map[string]bool) bool {
	up := toks[i].up
	if own[up] {
		return true
	}
	if n, ok := constructors[up]; ok {
		args := arguments(toks, i+1)
		return args >= n[0] && (n[1] < 0 || args <= n[1])
	}
	columns := func(j int) bool { return j > 0 && toks[j-1].kind == tString && toks[j].up == "COLUMNS" }
	switch up {
	case "COLUMNS":
		return columns(i)
	case "JSON_TABLE":
		depth := 0
		for j, end := i+1, skipParens(toks, i+1); j < end; j++ {
			switch {
			case toks[j].kind == tPunct && toks[j].text == "(":
				depth++
			case toks[j].kind == tPunct && toks[j].text == ")":
				depth--
			case depth == 1 && columns(j):
				return true
			}
		}
	}
	return false
}

// arguments counts the arguments of the call whose parenthesis opens at
// toks[open]: 0 for ().
func arguments(toks []token, open int) int {
	if open+1 < len(toks) && toks[open+1].kind == tPunct && toks[open+1].text == ")" {
		return 0
	}
	n, depth := 1, 0
	for _, t := range toks[open:skipParens(toks, open)] {
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
		case ",":
			if depth == 1 {
				n++
			}
		}
	}
	return n
}

// dependsOn returns the names toks and, through k's definitions, every
// view they reach, could name.
func (k *known) dependsOn(toks []token) *dependencies {
	d := &dependencies{pairs: map[string][2]string{}, keys: map[string]bool{}, schemaCalls: map[string][]string{}}
	// A text to read, and the database whose functions its unqualified
	// calls name ("": the connection's).
	type text struct {
		toks   []token
		schema string
	}
	queue := []text{{toks, ""}}
	// add adds the object key names, of the database schema, and the
	// definition of the view it was at learn.
	add := func(key, schema string) {
		if d.keys[key] {
			return
		}
		d.keys[key] = true
		if def, ok := k.defs[key]; ok {
			queue = append(queue, text{def, schema})
		}
	}
	bare, calls := map[string]bool{}, map[string]bool{}
	for len(queue) > 0 {
		toks, schema := queue[0].toks, queue[0].schema
		queue = queue[1:]
		for i, t := range toks {
			name := nameOf(t)
			call := i+1 < len(toks) && toks[i+1].kind == tPunct && toks[i+1].text == "("
			if name == "" || t.kind == tWord && (keywords[t.up] || call && builtins[t.up]) {
				continue
			}
			for _, n := range []string{name, strings.ToLower(name)} {
				if !bare[n] {
					bare[n] = true
					d.bare = append(d.bare, n)
					add(n, "")
				}
			}
			if up := strings.ToUpper(name); call && !calls[schema+"\x00"+up] {
				calls[schema+"\x00"+up] = true
				if schema == "" {
					d.calls = append(d.calls, up)
				} else {
					d.schemaCalls[schema] = append(d.schemaCalls[schema], up)
				}
			}
			if i+2 >= len(toks) || toks[i+1].kind != tPunct || toks[i+1].text != "." {
				continue
			}
			other := nameOf(toks[i+2])
			if other == "" || name == k.database {
				continue // a name of this database: the next token, added bare
			}
			for _, p := range [][2]string{{name, other}, {strings.ToLower(name), strings.ToLower(other)}} {
				if key := p[0] + "." + p[1]; !d.keys[key] {
					d.pairs[key] = p
					add(key, p[0])
				}
			}
		}
	}
	return d
}

// sqlString is s as a string literal of the session's sql_mode.
func sqlString(s string) string { return "'" + literal.Replace(s) + "'" }

var literal = strings.NewReplacer(`\`, `\\`, "'", "''")

func sqlList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = sqlString(n)
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}

// objects are conditions on information_schema's TABLE_SCHEMA and
// TABLE_NAME that keep the objects of keys (objectName's names), of which
// pairs are those of another database: each a query of its own, as
// MariaDB looks names up as files only under a condition without OR (one
// with OR reads every database's).
func objects(keys []string, pairs map[string][2]string) []string {
	var here, conds []string
	for _, key := range keys {
		if p, ok := pairs[key]; ok {
			conds = append(conds, "TABLE_SCHEMA = "+sqlString(p[0])+" AND TABLE_NAME = "+sqlString(p[1]))
		} else {
			here = append(here, key)
		}
	}
	if len(here) > 0 {
		conds = append(conds, "TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN "+sqlList(here))
	}
	return conds
}

// confirm reports whether the server, asked on c, still holds what the
// vetting of toks relied on in k: which of the names are views and which
// remote tables (by engine), the definitions of those that were views,
// the functions among the names called, and, for a statement vetOpening
// refuses on a server with remote tables, all of those. A stored or
// loadable function the server finds among the names called, by its name
// compared as the server compares it, refuses the statement.
func (e *Engine) confirm(ctx context.Context, c *conn, toks []token, k *known) (bool, error) {
	d := k.dependsOn(toks)
	every := vetOpening(toks, &known{remote: map[string]string{"": ""}}) != nil
	if len(d.keys) == 0 && len(d.calls) == 0 && !every { // schemaCalls come with keys
		return true, nil // SELECT 1: it names nothing the database holds
	}
	keys := make([]string, 0, len(d.keys))
	var views []string
	for key := range d.keys {
		keys = append(keys, key)
		if _, ok := k.digests[key]; ok {
			views = append(views, key)
		}
	}
	sort.Strings(keys)
	sort.Strings(views)
	// Every column converted to one character set, so that the branches
	// unite whatever their collations.
	col := func(expr string) string { return "CONVERT(" + expr + " USING utf8mb4)" }
	want := map[string]bool{}
	var branches []string
	for _, cond := range objects(keys, d.pairs) {
		branches = append(branches, "SELECT 't', "+col(objectName)+", "+col("IF(TABLE_TYPE = 'VIEW', 'VIEW', ENGINE)")+
			" FROM information_schema.TABLES WHERE "+cond+" AND (TABLE_TYPE = 'VIEW' OR ENGINE IN "+remoteEngines+")")
	}
	for key := range d.keys {
		if _, ok := k.digests[key]; ok {
			want["t\x00"+key+"\x00VIEW"] = true
		} else if eng, ok := k.engines[key]; ok {
			want["t\x00"+key+"\x00"+eng] = true
		}
	}
	if len(views) > 0 {
		// The definitions are read only of what were views: opening a
		// view's definition costs more than reading its kind.
		for _, cond := range objects(views, d.pairs) {
			branches = append(branches, "SELECT 'v', "+col(objectName)+", "+col(viewDigest)+" FROM information_schema.VIEWS WHERE "+cond)
		}
		for _, key := range views {
			want["v\x00"+key+"\x00"+k.digests[key]] = true
		}
	}
	if len(d.calls) > 0 {
		// Any found refuses the statement (below): vet refused those it
		// knew by the names as written.
		branches = append(branches, "SELECT 'f', "+col("ROUTINE_NAME")+", '' FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_TYPE = 'FUNCTION' AND UPPER(ROUTINE_NAME) IN "+sqlList(d.calls))
		if k.udfsRead {
			// The server finds a loadable function by its name compared
			// as utf8mb3_general_ci, regardless of case and accents;
			// mysql.func holds the names as utf8mb3_bin.
			branches = append(branches, "SELECT 'u', "+col("name")+", '' FROM mysql.func WHERE "+col("name")+" COLLATE utf8mb4_general_ci IN "+sqlList(d.calls))
		}
	}
	schemas := make([]string, 0, len(d.schemaCalls))
	for schema := range d.schemaCalls {
		schemas = append(schemas, schema)
	}
	sort.Strings(schemas)
	for _, schema := range schemas {
		branches = append(branches, "SELECT 'f', "+col("CONCAT(ROUTINE_SCHEMA, '.', ROUTINE_NAME)")+", '' FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = "+sqlString(schema)+" AND ROUTINE_TYPE = 'FUNCTION' AND UPPER(ROUTINE_NAME) IN "+sqlList(d.schemaCalls[schema]))
	}
	// A statement refused on a server with any remote table depends on
	// there being none, or the same.
	if every {
		branches = append(branches, "SELECT 'R', "+col(objectName)+", "+col("ENGINE")+" FROM information_schema.TABLES WHERE ENGINE IN "+remoteEngines)
		for key, eng := range k.engines {
			want["R\x00"+key+"\x00"+eng] = true
		}
	}

	rows, err := c.QueryContext(ctx, strings.Join(branches, " UNION ALL "))
	if err != nil {
		return false, err
	}
	defer rows.Close()
	got := map[string]bool{}
	var called []string // stored and loadable functions the server finds among the calls
	for rows.Next() {
		var kind, name, value sql.NullString
		if err := rows.Scan(&kind, &name, &value); err != nil {
			return false, err
		}
		if kind.String == "f" || kind.String == "u" {
			called = append(called, name.String)
			continue
		}
		// The server may match names regardless of case: only the
		// names asked for as written count, as in want.
		if (kind.String == "t" || kind.String == "v") && !d.keys[name.String] {
			continue
		}
		got[kind.String+"\x00"+name.String+"\x00"+value.String] = true
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	if len(called) > 0 {
		// vet refuses a call of a function it knows by the name as
		// written; the server finds a stored or loadable function by
		// its name compared regardless of case and accents (grÁb(1)
		// calls grab), which learning again cannot change.
		sort.Strings(called)
		name := strings.Join(called, ", ")
		return false, &guard.Rejection{What: "function " + name, Reason: "calling the stored or loadable function " + name + " is not allowed: it runs code the guard cannot see (the server finds a function by its name regardless of case and accents)", Hint: "use the built-in functions"}
	}
	return sameSet(got, want), nil
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for key := range a {
		if !b[key] {
			return false
		}
	}
	return true
}
