package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

// refusedProbes are statements doctor expects the guard to refuse: each
// one ran inside BEGIN READ ONLY on PostgreSQL 15 as a superuser (see the
// package comment), or is a write the guard must name.
var refusedProbes = []string{
	"DELETE FROM pg_catalog.pg_class",
	"COPY (SELECT 1) TO '/tmp/tablewise-doctor'",
	"SELECT pg_read_file('/etc/hostname')",
	"SELECT set_config('statement_timeout', '0', false)",
	"SELECT pg_advisory_lock(1)",
	"SELECT query_to_xml('SELECT 1', true, true, '')",
	"WITH d AS (DELETE FROM pg_catalog.pg_class RETURNING 1) SELECT * FROM d",
	"SELECT 1; SELECT 2",
}

// privileges is what the connected role may do beyond reading.
type privileges struct {
	role                                       string
	superuser, createRole, createDB, bypassRLS bool
	readFiles, writeFiles, runPrograms         bool
	writable                                   int64 // tables it may INSERT, UPDATE, DELETE or TRUNCATE
	readOnly                                   bool  // transaction_read_only inside tablewise's transaction
	database                                   string
}

const privilegesSQL = `SELECT current_user::text, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls,
	pg_catalog.pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
	pg_catalog.pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
	pg_catalog.pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
	(SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
		AND pg_catalog.has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')),
	pg_catalog.current_setting('transaction_read_only'), current_database()::text
FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`

func (e *Engine) privileges(ctx context.Context) (*privileges, error) {
	res, err := query.Collect(ctx, e, privilegesSQL, query.Options{MaxRows: 1, Timeout: query.DefaultTimeout})
	if err != nil {
		return nil, err
	}
	if len(res.Rows) != 1 {
		return nil, fmt.Errorf("doctor: the role tablewise connects as is not in pg_roles")
	}
	r := res.Rows[0]
	b := func(i int) bool { return r[i] == int64(1) }
	return &privileges{role: engine.String(r[0]), superuser: b(1), createRole: b(2), createDB: b(3), bypassRLS: b(4),
		readFiles: b(5), writeFiles: b(6), runPrograms: b(7), writable: engine.Int64(r[8]), readOnly: engine.String(r[9]) == "on", database: engine.String(r[10])}, nil
}

// LeastPrivilegeSQL is the SQL that creates a role that can only read
// database db: log in, connect, read every table and view.
func LeastPrivilegeSQL(db string) string {
	return "CREATE ROLE tablewise_reader LOGIN PASSWORD '<choose one>'; " +
		"GRANT CONNECT ON DATABASE " + quoteIdent(db) + " TO tablewise_reader; " +
		"GRANT pg_read_all_data TO tablewise_reader; " +
		"-- then connect as tablewise_reader, or add ?" + RoleParam + "=tablewise_reader to the URL"
}

// Info reports the server's version, the connected role's privileges
// (failing loudly for a superuser, a role that can write tables or reach
// the server's files, with the SQL of a least-privilege role) and the
// guard's probes.
func (e *Engine) Info(ctx context.Context) (*engine.Info, error) {
	p, err := e.privileges(ctx)
	if err != nil {
		return nil, err
	}
	fix := "create a read-only role and connect as it: " + LeastPrivilegeSQL(p.database)
	powers := held(grant{p.createRole, "CREATEROLE"}, grant{p.createDB, "CREATEDB"}, grant{p.bypassRLS, "BYPASSRLS"})
	files := held(grant{p.readFiles, "pg_read_server_files"}, grant{p.writeFiles, "pg_write_server_files"}, grant{p.runPrograms, "pg_execute_server_program"})
	checks := []engine.Check{
		{Label: "transactions are READ ONLY and always rolled back", OK: p.readOnly, Problem: "transaction_read_only is off inside tablewise's transaction"},
		{Label: fmt.Sprintf("role %s is not a superuser", p.role), OK: !p.superuser,
			Problem: fmt.Sprintf("WARNING: role %s is a SUPERUSER: it can read and write the server's files, write every table and end other sessions, and only tablewise's guard stands in the way; %s", p.role, fix)},
	}
	if !p.superuser { // a superuser can do all of what follows
		checks = append(checks,
			engine.Check{Label: fmt.Sprintf("role %s cannot reach the server's files or programs", p.role), OK: len(files) == 0,
				Problem: fmt.Sprintf("WARNING: role %s is a member of %s; %s", p.role, strings.Join(files, ", "), fix)},
			engine.Check{Label: fmt.Sprintf("role %s cannot write tables", p.role), OK: p.writable == 0,
				Problem: fmt.Sprintf("WARNING: role %s may write %d table(s); %s", p.role, p.writable, fix)})
	}
	if len(powers) > 0 && !p.superuser {
		checks = append(checks, engine.Check{Label: fmt.Sprintf("role %s holds no administrative attribute", p.role),
			Problem: fmt.Sprintf("WARNING: role %s has %s; %s", p.role, strings.Join(powers, ", "), fix)})
	}
	if e.role != "" {
		checks = append(checks, engine.Check{Label: fmt.Sprintf("every transaction runs SET LOCAL ROLE %s (%s)", quoteIdent(e.role), RoleParam), OK: true})
	}
	return &engine.Info{
		Version: "PostgreSQL " + e.version + " (github.com/jackc/pgx/v5)",
		Checks:  checks,
		Refused: refusedProbes,
		Read: `SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname = ANY (pg_catalog.current_schemas(false))`,
	}, nil
}

// grant is a role attribute or a membership, and whether the role has it.
type grant struct {
	on   bool
	what string
}

// held names the grants the role has, in order.
func held(grants ...grant) []string {
	var out []string
	for _, g := range grants {
		if g.on {
			out = append(out, g.what)
		}
	}
	return out
}
