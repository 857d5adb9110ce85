package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/tablewise/tablewise/core/engine"
)

// A migration is rehearsed in a scratch server the user names, never in
// the database the engine reads: the database's tables and views are read
// (SHOW CREATE TABLE, in a read-only transaction), recreated without rows
// in a new database tablewise_rehearse_<random> on the scratch server, and
// the scripts run there under the server's own sql_mode. The new database
// is dropped at the end, whatever happened.

// rehearseStatementSeconds bounds each statement on the scratch server.
const rehearseStatementSeconds = int(engine.RehearsalStatementTimeout / time.Second)

// RehearseIn implements engine.ScratchRehearser.
func (e *Engine) RehearseIn(ctx context.Context, scratch, up, down string) (*engine.Rehearsal, error) {
	cfg, err := e.scratchConfig(scratch)
	if err != nil {
		return nil, err
	}
	ctx, cancel := engine.RehearsalContext(ctx)
	defer cancel()
	var orig *mySchema
	err = e.read(ctx, catalogTimeout, func(q func(string, ...any) (*sql.Rows, error)) error {
		var err error
		orig, err = readSchema(q, e.dbName)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the schema of %s: %w", e.display, err)
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, &engine.UsageError{Sentinel: engine.ErrScratchIsDatabase, Msg: fmt.Sprintf("--scratch %s: %v", engine.Redact(scratch), err)}
	}
	pool := sql.OpenDB(connector)
	defer pool.Close()
	c, err := pool.Conn(ctx)
	if err != nil {
		return nil, &unavailable{msg: fmt.Sprintf("connect to the scratch server %s: %v (check the --scratch URL: its server, user and password)", engine.Redact(scratch), err), err: engine.ErrUnavailable}
	}
	defer c.Close()
	name, err := engine.RehearsalName()
	if err != nil {
		return nil, err
	}
	quoted := "`" + name + "`"
	// The scripts run as a user of the rehearsal's own where the scratch
	// user can make one (account), on a connection of that user
	// (runConn); both go with the database, whatever happened. Which of
	// them runs the scripts, or whether the scratch user is refused, is
	// decided before the database is made.
	var account string
	var made bool
	var runConn *sql.Conn
	var runPool *sql.DB
	drop := func(ctx context.Context, c *sql.Conn) error {
		var errs []error
		if account != "" {
			_, err := c.ExecContext(ctx, "DROP USER IF EXISTS "+account)
			errs = append(errs, err)
		}
		if made {
			_, err := c.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoted)
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	defer engine.DropRehearsal(func(ctx context.Context) error {
		if runPool != nil {
			runConn.Close()
			runPool.Close()
		}
		return drop(ctx, c)
	}, func(ctx context.Context) error {
		c2, err := pool.Conn(ctx)
		if err != nil {
			return err
		}
		defer c2.Close()
		return drop(ctx, c2)
	})
	var runCfg *mysql.Config
	account, runCfg, err = rehearsalUser(ctx, c, cfg, name)
	if err != nil {
		return nil, err
	}
	if runCfg == nil {
		if err := e.scratchReach(ctx, c, cfg, scratch); err != nil {
			return nil, err
		}
	}
	// Made or not, when the statement fails on the way (the context's
	// end), it is dropped if there.
	made = true
	if _, err := c.ExecContext(ctx, "CREATE DATABASE "+quoted); err != nil {
		return nil, fmt.Errorf("create the rehearsal database %s on the scratch server %s: %w (the scratch user needs CREATE and DROP there)", name, engine.Redact(scratch), err)
	}
	runConn = c
	if runCfg != nil {
		rc, err := mysql.NewConnector(runCfg)
		if err != nil {
			return nil, err
		}
		runPool = sql.OpenDB(rc)
		if runConn, err = runPool.Conn(ctx); err != nil {
			runPool.Close()
			runPool = nil
			return nil, fmt.Errorf("connect to the scratch server %s as the rehearsal's own user: %w", engine.Redact(scratch), err)
		}
	}
	// The copy is made, and read back, under the engine's sql_mode, as the
	// database was read; the scripts run under the server's own.
	execOn := func(c *sql.Conn) func(string) error {
		return func(q string) error {
			_, err := c.ExecContext(ctx, q)
			return err
		}
	}
	exec, execRun := execOn(c), execOn(runConn)
	for _, q := range []string{"USE " + quoted, "SET SESSION sql_mode = '" + sqlMode + "', foreign_key_checks = 0, lock_wait_timeout = " + fmt.Sprint(rehearseStatementSeconds)} {
		if err := exec(q); err != nil {
			return nil, err
		}
	}
	if runConn != c {
		if err := execRun("SET SESSION lock_wait_timeout = " + fmt.Sprint(rehearseStatementSeconds)); err != nil {
			return nil, err
		}
	}
	if e.mariadb {
		_ = exec(fmt.Sprintf("SET SESSION max_statement_time = %d", rehearseStatementSeconds))
		_ = execRun(fmt.Sprintf("SET SESSION max_statement_time = %d", rehearseStatementSeconds))
	}
	r := &engine.Rehearsal{}
	// A view may read another made after it: what fails is tried again
	// while each round makes something.
	for pending := orig.copyStatements(); len(pending) > 0; {
		var failed []string
		var errs []error
		for _, st := range pending {
			if toks, lerr := lex(st); lerr == nil {
				if err := remoteTable(toks); err != nil {
					r.Notes = append(r.Notes, engine.NotCopied(st, err.Error()))
					continue
				}
			}
			if err := exec(st); err != nil {
				failed, errs = append(failed, st), append(errs, err)
			}
		}
		if len(failed) == len(pending) {
			for i, st := range failed {
				r.Notes = append(r.Notes, engine.NotCopied(st, message(errs[i], name)))
			}
			break
		}
		pending = failed
	}
	read := func() ([]engine.SchemaObject, error) {
		if err := exec("SET SESSION sql_mode = '" + sqlMode + "'"); err != nil {
			return nil, err
		}
		s, err := readSchema(func(q string, args ...any) (*sql.Rows, error) { return c.QueryContext(ctx, q, args...) }, name)
		if err != nil {
			return nil, fmt.Errorf("read the rehearsal database: %w", err)
		}
		return s.objects(), nil
	}
	if r.Before, err = read(); err != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, engine.CopyDiffers(orig.objects(), r.Before)...)
	run := func(script string) ([]engine.RehearsedStatement, bool) {
		if err := execRun("SET SESSION sql_mode = @@GLOBAL.sql_mode, foreign_key_checks = 1"); err != nil {
			return []engine.RehearsedStatement{{SQL: script, Err: message(err, name)}}, false
		}
		// The scripts are read as the server reads them under its
		// sql_mode: "…" may be a string there, with backslash escapes.
		var mode string
		if err := runConn.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil {
			return []engine.RehearsedStatement{{SQL: script, Err: message(err, name)}}, false
		}
		rd, err := readingOf(mode)
		if err != nil {
			return []engine.RehearsedStatement{{SQL: script, Err: err.Error()}}, false
		}
		stmts, err := splitScript(script, rd)
		if err != nil {
			return []engine.RehearsedStatement{{SQL: script, Err: err.Error()}}, false
		}
		beyond := func(st string) error { return e.beyond(st, rd) }
		return engine.RunStatements(ctx, stmts, beyond, execRun, func(err error) string { return message(err, name) })
	}
	return r.Play(up, down, run, read)
}

var _ engine.ScratchRehearser = (*Engine)(nil)

// scratchConfig reads the scratch URL and refuses one that names the
// database e reads.
func (e *Engine) scratchConfig(scratch string) (*mysql.Config, error) {
	shown := engine.Redact(scratch)
	cfg, err := Config(scratch)
	if err != nil {
		return nil, &engine.UsageError{Sentinel: engine.ErrScratchIsDatabase, Msg: fmt.Sprintf("--scratch: %v; give another MySQL/MariaDB database, as mysql://user@host:3306/scratch", err)}
	}
	if e.sameAddr(cfg) && cfg.DBName == e.dbName {
		return nil, engine.ScratchNamesChecked(shown, e.display, "a database")
	}
	return cfg, nil
}

// sameAddr reports whether cfg reaches the engine's server at the same
// host (localhost, 127.0.0.1 and ::1 counted as one) and port.
func (e *Engine) sameAddr(cfg *mysql.Config) bool {
	h1, p1, _ := net.SplitHostPort(cfg.Addr)
	h2, p2, _ := net.SplitHostPort(e.addr)
	return engine.SameHost(h1, h2) && p1 == p2
}

// message is a server error as the server words it, without the
// rehearsal database's name or its user's (both random).
func message(err error, db string) string {
	msg := err.Error()
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		msg = me.Message
	}
	for _, q := range []string{"`" + db + "`.", "'" + db + "'.", `"` + db + `".`, db + "."} {
		msg = strings.ReplaceAll(msg, q, "")
	}
	account := regexp.MustCompile(`user '` + regexp.QuoteMeta(throwawayName(db)) + `'@'[^']*'`)
	return account.ReplaceAllLiteralString(msg, "the rehearsal's user")
}

// throwawayName is the name of the user the scripts run as in the
// rehearsal database db (rehearsalUser).
func throwawayName(db string) string {
	return "tw_rehearse_" + strings.TrimPrefix(db, engine.RehearsalPrefix)
}

// readingOf is how the server reads quotes under the sql_mode mode (as
// @@sql_mode spells it). The ORACLE and MSSQL modes read more than quotes
// otherwise (MSSQL's [names]): a script is not rehearsed under them.
func readingOf(mode string) (reading, error) {
	var r reading
	r.dquoteStrings = true
	for _, m := range strings.Split(strings.ToUpper(mode), ",") {
		switch m {
		case "ANSI_QUOTES":
			r.dquoteStrings = false
		case "NO_BACKSLASH_ESCAPES":
			r.noBackslash = true
		case "ORACLE", "MSSQL":
			return r, fmt.Errorf("not rehearsed: the scratch server's sql_mode %s reads SQL in ways the rehearsal's checks do not; rehearse on a server whose sql_mode has neither ORACLE nor MSSQL", mode)
		}
	}
	return r, nil
}

// splitScript cuts a script into statements with the server's lexical
// rules (strings, quoted names, comments) as r reads quotes, dropping
// those that hold only comments.
func splitScript(script string, r reading) ([]string, error) {
	toks, lerr := lexAs(script, r)
	if lerr != nil {
		return nil, fmt.Errorf("the script cannot be cut into statements: %s", lerr.reason)
	}
	return engine.SplitStatements(script, toks, func(t token) (int, bool) { return t.end, t.kind == tPunct && t.text == ";" }), nil
}

// beyond refuses a statement that would act outside the rehearsal
// database on the scratch server — which may be the checked database's
// own server: USE, statements on a whole database (CREATE OR REPLACE
// DATABASE too) or on the server (its settings, users and privileges,
// plugins and loadable functions, logs, files, backup stages, named
// locks), names qualified with the checked database's name, tables the
// server reads elsewhere (FEDERATED and the like), and statements
// prepared from strings, anywhere in the statement (a procedure's body
// can hide such a name in one).
func (e *Engine) beyond(stmt string, r reading) error {
	toks, lerr := lexAs(stmt, r)
	if lerr != nil {
		return errors.New(lerr.reason)
	}
	if len(toks) == 0 {
		return nil
	}
	first := toks[0].up
	switch first {
	case "USE":
		return errors.New("USE is not rehearsed: the rehearsal runs in a database of its own; write names unqualified")
	case "SHUTDOWN", "KILL", "FLUSH", "RESET", "PURGE", "INSTALL", "UNINSTALL", "CHANGE", "BINLOG", "BACKUP":
		// BACKUP STAGE BLOCK_COMMIT blocks every session's commits.
		return fmt.Errorf("%s is not rehearsed: it acts on the whole scratch server", first)
	case "GRANT", "REVOKE":
		return fmt.Errorf("%s is not rehearsed: privileges are the server's, and outlive the rehearsal database", first)
	case "LOAD":
		return errors.New("LOAD is not rehearsed: it reads a file")
	case "XA":
		// A prepared XA transaction whose session ended is the
		// server's: any session can commit it, in any database.
		return errors.New("XA is not rehearsed: XA COMMIT and XA ROLLBACK end any session's prepared transaction on the scratch server, whatever database it writes")
	case "SET":
		if len(toks) > 1 && (toks[1].up == "NAMES" || toks[1].up == "CHARACTER" || toks[1].up == "CHARSET") {
			return errors.New("SET " + toks[1].up + " is not rehearsed: it changes how the server reads the statements that follow")
		}
		for _, t := range toks[1:] {
			if w := strings.TrimPrefix(t.up, "@@"); t.kind == tWord && (w == "GLOBAL" || w == "PERSIST" || w == "PERSIST_ONLY" || w == "PASSWORD") {
				return fmt.Errorf("SET %s is not rehearsed: it acts on the whole scratch server", w)
			}
			if t.kind == tWord && t.up == "ROLE" {
				// SET DEFAULT ROLE … FOR changes another user's.
				return errors.New("SET ROLE is not rehearsed: privileges are the server's, and outlive the rehearsal database")
			}
		}
	}
	// A statement held in a string, also in a routine's body, could
	// hide a name of the checked database.
	for i, t := range toks {
		// The server reads what follows, and a stored program's body
		// each time it runs, under these: the checks here would read
		// another text than the server does.
		if w := strings.TrimLeft(t.up, "@"); t.kind == tWord && (w == "SQL_MODE" || w == "CHARACTER_SET_CLIENT") {
			return errors.New(strings.ToLower(w) + " is not rehearsed: it changes how the server reads statements, which the rehearsal's checks would read otherwise")
		}
		// The session's deadline for each statement: a statement past
		// it would run on after the rehearsal's end.
		if w := strings.TrimLeft(t.up, "@"); t.kind == tWord && (w == "MAX_STATEMENT_TIME" || w == "MAX_EXECUTION_TIME" || w == "LOCK_WAIT_TIMEOUT") {
			return fmt.Errorf("%s is not rehearsed: each statement is held to %d s, and one past that would run on the scratch server after the rehearsal ends", strings.ToLower(w), rehearseStatementSeconds)
		}
		if t.kind == tWord && (t.up == "PREPARE" || t.up == "EXECUTE") {
			return fmt.Errorf("%s is not rehearsed: a statement held in a string cannot be checked to stay in the rehearsal database", t.up)
		}
		if t.kind == tWord && (t.up == "GET_LOCK" || t.up == "SONAME") {
			return fmt.Errorf("%s is not rehearsed: it acts on the whole scratch server (a named lock other sessions may wait for, a loadable function)", t.up)
		}
		if name := strings.ToUpper(nameOf(t)); reachesOut(name) && i+1 < len(toks) && toks[i+1].text == "(" {
			// Its result comes back in the server's messages
			// (EXTRACTVALUE's XPATH error quotes it).
			return fmt.Errorf("%s is not rehearsed: it %s", name, deniedFunctions[name])
		}
		if t.kind == tWord && t.up == "INTO" && i+1 < len(toks) && (toks[i+1].up == "OUTFILE" || toks[i+1].up == "DUMPFILE") {
			return fmt.Errorf("INTO %s is not rehearsed: it writes a file on the scratch server", toks[i+1].up)
		}
		if t.kind == tWord && t.up == "DIRECTORY" && i > 0 && (toks[i-1].up == "DATA" || toks[i-1].up == "INDEX") {
			return fmt.Errorf("%s DIRECTORY is not rehearsed: the server writes the table's files there, outside the rehearsal database, and may leave directories behind", toks[i-1].up)
		}
	}
	if err := remoteTable(toks); err != nil {
		return err
	}
	if first == "CREATE" || first == "DROP" || first == "ALTER" || first == "RENAME" {
		i := 1
		if first == "CREATE" && len(toks) > 3 && toks[1].up == "OR" && toks[2].up == "REPLACE" {
			i = 3 // CREATE OR REPLACE DATABASE drops the database first
		}
		if len(toks) > i {
			switch toks[i].up {
			case "DATABASE", "SCHEMA":
				return fmt.Errorf("%s %s is not rehearsed: it acts on a whole database of the scratch server", first, toks[i].up)
			case "USER", "ROLE", "SERVER":
				return fmt.Errorf("%s %s is not rehearsed: it acts on the whole scratch server", first, toks[i].up)
			}
		}
	}
	for i := 0; i+1 < len(toks); i++ {
		name := toks[i].text
		if toks[i].kind == tName {
			q := name[:1]
			name = strings.ReplaceAll(name[1:len(name)-1], q+q, q)
		} else if toks[i].kind != tWord {
			continue
		}
		if strings.EqualFold(name, e.dbName) && toks[i+1].kind == tPunct && toks[i+1].text == "." {
			return fmt.Errorf("names the checked database %s: the rehearsal never reaches it; write the names without the database", e.dbName)
		}
	}
	return nil
}

// reachesOut reports whether the function name (upper-cased) of
// deniedFunctions reaches past the rehearsal database: the server's files
// and environment, programs, other servers.
func reachesOut(name string) bool {
	why, ok := deniedFunctions[name]
	if !ok {
		return false
	}
	for _, w := range []string{"file", "program", "environment", "server", "code"} {
		if strings.Contains(why, w) {
			return true
		}
	}
	return false
}

// remoteTable refuses a statement that makes a table the server reads
// elsewhere (FEDERATED and the like): its CONNECTION string, or its
// COMMENT (SPIDER), can name the checked database, where no name is
// seen, and writing its rows writes there. Such an engine is refused
// wherever it is chosen (ENGINE =, a *_storage_engine setting), and so is
// a CONNECTION table option.
func remoteTable(toks []token) error {
	for i, t := range toks {
		if t.kind != tWord {
			continue
		}
		if t.up == "CONNECTION" && i+1 < len(toks) && (toks[i+1].text == "=" || toks[i+1].kind == tString) {
			return errors.New("a table's CONNECTION is not rehearsed: the server would read and write that table on another server or database, which may be the checked one")
		}
		if t.up != "ENGINE" && !strings.HasSuffix(t.up, "STORAGE_ENGINE") {
			continue
		}
		j := i + 1
		for j < len(toks) && (toks[j].text == "=" || toks[j].text == ":=" || toks[j].text == ":") {
			j++
		}
		if j < len(toks) {
			if name := strings.ToUpper(strings.Trim(toks[j].text, "'\"`")); slices.Contains(remoteEngineNames, name) {
				return fmt.Errorf("the %s engine is not rehearsed: its tables are read and written on another server or database, which may be the checked one", name)
			}
		}
		// A setting's value computed (CONCAT('FEDER', 'ATED')) hides
		// the engine's name.
		if t.up != "ENGINE" && (j >= len(toks) || toks[j].kind == tPunct || j+1 < len(toks) && toks[j+1].text != "," && toks[j+1].text != ";") {
			return fmt.Errorf("%s set from an expression is not rehearsed: name the engine", t.text)
		}
	}
	return nil
}

// mySchema is a database's tables (SHOW CREATE TABLE) and views.
type mySchema struct {
	tables []myTable
	views  []engine.SchemaObject
}

type myTable struct {
	name   string
	create string // SHOW CREATE TABLE without AUTO_INCREMENT=n
}

var (
	autoIncrementRe = regexp.MustCompile(` AUTO_INCREMENT=\d+`)
	indexLineRe     = regexp.MustCompile(`^\s*(?:UNIQUE |FULLTEXT |SPATIAL )?(?:KEY|INDEX) ("(?:[^"]|"")+"|` + "`[^`]+`" + `)`)
)

// readSchema reads the tables and views of database db with q, under the
// engine's sql_mode (names in double quotes).
func readSchema(q func(string, ...any) (*sql.Rows, error), db string) (*mySchema, error) {
	rows, err := scanAll(q(`SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`, db))
	if err != nil {
		return nil, err
	}
	s := &mySchema{}
	for _, r := range rows {
		if str0(r[1]) == "VIEW" {
			continue
		}
		name := str0(r[0])
		got, err := scanAll(q(`SHOW CREATE TABLE "` + strings.ReplaceAll(name, `"`, `""`) + `"`))
		if err != nil {
			return nil, err
		}
		if len(got) != 1 || len(got[0]) < 2 {
			return nil, fmt.Errorf("SHOW CREATE TABLE %s: no definition", name)
		}
		s.tables = append(s.tables, myTable{name: name, create: autoIncrementRe.ReplaceAllString(str0(got[0][1]), "")})
	}
	views, err := scanAll(q(`SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`, db))
	if err != nil {
		return nil, err
	}
	for _, r := range views {
		// The server names every table with its database: the copy's
		// view reads the copy's tables.
		def := str0(r[1])
		for _, qn := range []string{"`" + db + "`.", `"` + db + `".`} {
			def = strings.ReplaceAll(def, qn, "")
		}
		name := `"` + strings.ReplaceAll(str0(r[0]), `"`, `""`) + `"`
		s.views = append(s.views, engine.SchemaObject{Type: "view", Name: str0(r[0]), SQL: "CREATE VIEW " + name + " AS " + def})
	}
	return s, nil
}

// objects lists each table (its columns and constraints) and, apart, each
// of its indexes, named table.index, then the views.
func (s *mySchema) objects() []engine.SchemaObject {
	var out, indexes []engine.SchemaObject
	for _, t := range s.tables {
		var keep []string
		for _, line := range strings.Split(t.create, "\n") {
			if m := indexLineRe.FindStringSubmatch(line); m != nil {
				name := strings.Trim(m[1], "`\"")
				indexes = append(indexes, engine.SchemaObject{Type: "index", Name: t.name + "." + name, Table: t.name,
					SQL: strings.TrimSuffix(strings.TrimSpace(line), ",")})
				continue
			}
			keep = append(keep, line)
		}
		// The item before the closing line may have lost its comma's
		// follower: drop a comma that now ends the list.
		for i := len(keep) - 1; i > 0; i-- {
			if strings.HasPrefix(keep[i], ")") {
				keep[i-1] = strings.TrimSuffix(keep[i-1], ",")
				break
			}
		}
		out = append(out, engine.SchemaObject{Type: "table", Name: t.name, Table: t.name, SQL: strings.Join(keep, "\n")})
	}
	out = append(out, indexes...)
	return append(out, s.views...)
}

// copyStatements recreates the tables (foreign key checks are off while
// they are made) and the views.
func (s *mySchema) copyStatements() []string {
	var out []string
	for _, t := range s.tables {
		out = append(out, t.create)
	}
	return engine.AppendSQL(out, s.views)
}

// rehearsalUser makes, when the scratch user on c may (CREATE USER and
// GRANT OPTION), a user of the rehearsal's own with a random password
// and every right on the rehearsal database db and none elsewhere, for
// the host the scratch connection comes from (the server picks the most
// specific host's account, so an anonymous user of that host does not
// take its place). It returns the account, quoted, and the configuration
// to connect as it to db; or neither when the scratch user may not make
// users, and the scripts then run as the scratch user.
func rehearsalUser(ctx context.Context, c *sql.Conn, cfg *mysql.Config, db string) (string, *mysql.Config, error) {
	var host string
	if err := c.QueryRowContext(ctx, "SELECT SUBSTRING_INDEX(USER(), '@', -1)").Scan(&host); err != nil {
		return "", nil, err
	}
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	user := throwawayName(db)
	// Upper and lower case, a digit and a sign, for a server that checks
	// passwords' strength.
	password := "Tw#9" + hex.EncodeToString(b)
	account := "'" + user + "'@'" + strings.ReplaceAll(strings.ReplaceAll(host, `\`, `\\`), "'", "''") + "'"
	if _, err := c.ExecContext(ctx, "CREATE USER "+account+" IDENTIFIED BY '"+password+"'"); err != nil {
		if ctx.Err() != nil {
			// The server may have made it before the end: it is
			// dropped with the rest.
			return account, nil, ctx.Err()
		}
		return "", nil, nil
	}
	if _, err := c.ExecContext(ctx, "GRANT ALL PRIVILEGES ON `"+db+"`.* TO "+account); err != nil {
		if _, err := c.ExecContext(ctx, "DROP USER "+account); err != nil {
			return account, nil, fmt.Errorf("drop the rehearsal's user %s: %w", account, err)
		}
		return "", nil, nil
	}
	run := cfg.Clone()
	run.User, run.Passwd, run.DBName = user, password, db
	return account, run, nil
}

// scratchReach refuses a scratch connection c on the checked database's
// own server whose user, which may not make a user of the rehearsal's
// own, could write the checked database or any other: a right on the
// checked database or its tables beyond reading them, a global one
// beyond reading. The checked side is read through the engine's read
// path. Where a side does not show its server's name, the server is the
// same when the host and port are.
func (e *Engine) scratchReach(ctx context.Context, c *sql.Conn, cfg *mysql.Config, scratch string) error {
	const serverSQL = "SELECT @@hostname, @@port, @@server_id"
	var checked [][]*string
	err := e.read(ctx, catalogTimeout, func(q func(string, ...any) (*sql.Rows, error)) error {
		var err error
		checked, err = scanAll(q(serverSQL))
		return err
	})
	if err != nil {
		return fmt.Errorf("read the server of %s: %w", e.display, err)
	}
	var host, port, id, current string
	if err := c.QueryRowContext(ctx, serverSQL+", CURRENT_USER()").Scan(&host, &port, &id, &current); err != nil {
		return fmt.Errorf("read the scratch server %s: %w", engine.Redact(scratch), err)
	}
	if len(checked) != 1 || len(checked[0]) != 3 || str0(checked[0][0]) == "" || host == "" {
		if !e.sameAddr(cfg) {
			return nil
		}
	} else if str0(checked[0][0]) != host || str0(checked[0][1]) != port || str0(checked[0][2]) != id {
		return nil
	}
	at := strings.LastIndex(current, "@")
	if at < 0 {
		return fmt.Errorf("read the scratch user in %s: %q", engine.Redact(scratch), current)
	}
	grantee := "'" + current[:at] + "'@'" + current[at+1:] + "'"
	rows, err := scanAll(c.QueryContext(ctx, `SELECT 'on *.*', PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ? AND PRIVILEGE_TYPE NOT IN ('USAGE', 'SELECT', 'SHOW DATABASES', 'SHOW VIEW')
UNION ALL SELECT CONCAT('on ', ?), PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ? AND ? LIKE TABLE_SCHEMA AND PRIVILEGE_TYPE NOT IN ('SELECT', 'SHOW VIEW')
UNION ALL SELECT CONCAT('on ', TABLE_SCHEMA, '.', TABLE_NAME), PRIVILEGE_TYPE FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = ? AND TABLE_SCHEMA = ? AND PRIVILEGE_TYPE NOT IN ('SELECT', 'SHOW VIEW')
LIMIT 1`, grantee, e.dbName, grantee, e.dbName, grantee, e.dbName))
	if err != nil {
		return fmt.Errorf("read the scratch user's rights in %s: %w", engine.Redact(scratch), err)
	}
	if len(rows) == 0 {
		return nil
	}
	return &engine.UsageError{Sentinel: engine.ErrScratchReaches, Msg: fmt.Sprintf("the scratch user %s has %s %s on the server of the database being checked, and may not make a user confined to the rehearsal database (CREATE USER and GRANT OPTION): a migration could write the checked database or another; give a --scratch URL whose user may create users, or one with no rights on the checked database and no global rights beyond SELECT, or a scratch server other than the checked database's", current, str0(rows[0][1]), str0(rows[0][0]))}
}
