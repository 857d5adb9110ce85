package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/engine"
)

// refusedProbes are statements doctor expects the guard to refuse: a
// write, DDL (which would commit the transaction first), a file written
// and a file read on the server, a named lock, a deadline escape, an
// executable comment and two statements in one.
var refusedProbes = []string{
	"DELETE FROM tablewise_doctor_missing",
	"DROP TABLE IF EXISTS tablewise_doctor_missing",
	"SELECT 1 INTO OUTFILE '/tmp/tablewise-doctor'",
	"SELECT LOAD_FILE('/etc/passwd')",
	"SELECT GET_LOCK('tablewise-doctor', 0)",
	"SET STATEMENT max_statement_time=0 FOR SELECT 1",
	"SELECT 1 /*!, LOAD_FILE('/etc/passwd') */",
	"SELECT 1; SELECT 2",
}

// writePrivileges are the privileges that let a user change data, the
// schema or the server.
var writePrivileges = []string{"INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "INDEX", "CREATE VIEW",
	"CREATE ROUTINE", "ALTER ROUTINE", "EXECUTE", "TRIGGER", "EVENT", "CREATE TEMPORARY TABLES", "LOCK TABLES",
	"REFERENCES", "GRANT OPTION", "DELETE HISTORY"}

// privileges is what the connected user may do.
type privileges struct {
	user   string          // CURRENT_USER(), user@host
	global map[string]bool // on *.*
	db     map[string]bool // on this database
	// filePriv is @@secure_file_priv: "" lets FILE read and write
	// anywhere the server can; NULL (nil) disables it.
	filePriv *string
}

func (e *Engine) privileges(ctx context.Context) (*privileges, error) {
	p := &privileges{global: map[string]bool{}, db: map[string]bool{}}
	err := e.read(ctx, 10*time.Second, func(q func(string, ...any) (*sql.Rows, error)) error {
		rows, err := scanAll(q("SELECT CURRENT_USER(), @@secure_file_priv"))
		if err != nil {
			return err
		}
		p.user, p.filePriv = str0(rows[0][0]), rows[0][1]
		grantee := grantee(p.user)
		rows, err = scanAll(q("SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?", grantee))
		if err != nil {
			return err
		}
		for _, r := range rows {
			p.global[str0(r[0])] = true
		}
		rows, err = scanAll(q("SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ? AND TABLE_SCHEMA = DATABASE()", grantee))
		if err != nil {
			return err
		}
		for _, r := range rows {
			p.db[str0(r[0])] = true
		}
		return nil
	})
	return p, err
}

// grantee writes user@host as information_schema's GRANTEE: 'user'@'host'.
func grantee(user string) string {
	at := strings.LastIndexByte(user, '@')
	if at < 0 {
		return "'" + user + "'"
	}
	return "'" + user[:at] + "'@'" + user[at+1:] + "'"
}

// LeastPrivilegeSQL is the SQL that makes a user who can only read the
// database: tablewise's guard is then not the only thing keeping it
// unwritten.
func LeastPrivilegeSQL(database string) string {
	return fmt.Sprintf("CREATE USER 'tablewise_ro'@'%%' IDENTIFIED BY '<password>'; GRANT SELECT, SHOW VIEW ON %s.* TO 'tablewise_ro'@'%%';", quoteIdent(database))
}

// Info reports the server's version, the deadline the session runs
// under, and the user's privileges: a user who is an administrator, can
// write or can read and write server files fails its check, with the SQL
// for a user who can only read.
func (e *Engine) Info(ctx context.Context) (*engine.Info, error) {
	var limit string
	inTx := "1" // MySQL has no @@in_transaction
	const probe = 3 * time.Second
	variable := "@@max_statement_time"
	if !e.mariadb {
		variable = "@@max_execution_time / 1000"
	}
	err := e.read(ctx, probe, func(q func(string, ...any) (*sql.Rows, error)) error {
		probe := "SELECT " + variable + ", 1"
		if e.mariadb {
			probe = "SELECT " + variable + ", @@in_transaction"
		}
		rows, err := scanAll(q(probe))
		if err == nil && len(rows) == 1 {
			limit, inTx = str0(rows[0][0]), str0(rows[0][1])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	p, err := e.privileges(ctx)
	if err != nil {
		return nil, err
	}
	fix := "to read with a user who can only read, run as an administrator: " + LeastPrivilegeSQL(e.dbName) + " and give tablewise mysql://tablewise_ro:<password>@host/" + e.dbName
	var admin, writes []string
	for _, priv := range []string{"SUPER", "ALL PRIVILEGES", "SHUTDOWN", "PROCESS", "RELOAD", "CREATE USER", "BINLOG ADMIN", "CONNECTION ADMIN", "READ_ONLY ADMIN"} {
		if p.global[priv] {
			admin = append(admin, priv)
		}
	}
	for _, priv := range writePrivileges {
		if p.global[priv] || p.db[priv] {
			writes = append(writes, priv)
		}
	}
	files := p.global["FILE"]
	// MariaDB reads a NULL secure_file_priv as no restriction; MySQL as
	// FILE disabled.
	fileWhere := "anywhere the server may (secure_file_priv is empty)"
	switch {
	case p.filePriv == nil && e.mariadb:
		fileWhere = "anywhere the server may (secure_file_priv is not set)"
	case p.filePriv == nil:
		files, fileWhere = false, ""
	case *p.filePriv != "":
		fileWhere = "in " + *p.filePriv
	}
	// The SQL for a user who can only read goes with the first warning.
	fixOnce := func(failed bool) string {
		if !failed || fix == "" {
			return "see above for a user who can only read"
		}
		f := fix
		fix = ""
		return f
	}
	check := func(label string, ok bool, problem string) engine.Check {
		return engine.Check{Label: label, OK: ok, Problem: problem}
	}
	return &engine.Info{
		Version: serverName(e.mariadb) + " " + strings.SplitN(e.version, "-", 2)[0] + " (" + e.version + ", github.com/go-sql-driver/mysql)",
		Checks: []engine.Check{
			check("every statement runs in START TRANSACTION READ ONLY, rolled back", inTx == "1", "statements run outside a transaction"),
			check("deadline enforced by the server ("+strings.TrimPrefix(variable, "@@")+" = "+limit+" s for a 3 s call) and by KILL QUERY", limit != "" && limit != "0" && limit != "0.000000", "the session's deadline is not in effect"),
			check("user "+p.user+" is not an administrator", len(admin) == 0,
				fmt.Sprintf("WARNING: %s has %s: an administrator; tablewise's guard is all that keeps the database unwritten; %s", p.user, strings.Join(admin, ", "), fixOnce(len(admin) > 0))),
			check("user "+p.user+" cannot write", len(writes) == 0,
				fmt.Sprintf("WARNING: %s may %s; %s", p.user, strings.Join(writes, ", "), fixOnce(len(writes) > 0))),
			check("user "+p.user+" cannot read or write server files (FILE)", !files,
				fmt.Sprintf("WARNING: %s has FILE: it can read and write files %s; %s", p.user, fileWhere, fixOnce(files))),
		},
		Refused: refusedProbes,
		Read:    "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
	}, nil
}

// serverName names the server's flavour for people: MariaDB or MySQL.
func serverName(mariadb bool) string {
	if mariadb {
		return "MariaDB"
	}
	return "MySQL"
}
