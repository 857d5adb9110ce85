package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tablewise/tablewise/core/engine"
)

// A migration is rehearsed in a scratch database the user names, never in
// the database the engine reads: the schema of the search path's first
// schema is read through Run (the guard vets every statement), recreated
// without rows in a new schema tablewise_rehearse_<random> of the scratch
// database, and the scripts run there with search_path set to it alone.
// The new schema is dropped at the end, whatever happened. A scratch
// database on the checked one's own server is refused first when its user
// could act on the checked database (scratchReach): no reading of a
// script's text can refuse what it builds at run time.

// RehearseIn implements engine.ScratchRehearser.
func (e *Engine) RehearseIn(ctx context.Context, scratch, up, down string) (*engine.Rehearsal, error) {
	cfg, err := e.scratchConfig(scratch)
	if err != nil {
		return nil, err
	}
	ctx, cancel := engine.RehearsalContext(ctx)
	defer cancel()
	// A scratch user that could reach the checked database is refused
	// before anything else is read.
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, &openError{kind: engine.ErrUnavailable, msg: fmt.Sprintf("connect to the scratch database %s: %s (check the --scratch URL: its server, user, password and database)", engine.Redact(scratch), redactErr(err, cfg.Password))}
	}
	defer c.Close(context.Background())
	if err := e.scratchReach(ctx, c, cfg, scratch); err != nil {
		return nil, err
	}
	orig, err := e.readSchema(ctx, func(ctx context.Context, sql string) ([][]string, error) {
		rows, err := e.rows(ctx, sql)
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(rows))
		for i, r := range rows {
			out[i] = make([]string, len(r))
			for j, v := range r {
				out[i][j] = engine.String(v)
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the schema of %s: %w", e.display, err)
	}
	name, err := engine.RehearsalName()
	if err != nil {
		return nil, err
	}
	exec := func(ctx context.Context, sql string) error {
		_, err := c.Exec(ctx, sql).ReadAll()
		return err
	}
	if err := exec(ctx, "CREATE SCHEMA "+quoteIdent(name)); err != nil {
		return nil, fmt.Errorf("create the rehearsal schema %s in the scratch database %s: %w (the scratch user needs CREATE on that database)", name, engine.Redact(scratch), err)
	}
	drop := "DROP SCHEMA IF EXISTS " + quoteIdent(name) + " CASCADE"
	defer engine.DropRehearsal(func(ctx context.Context) error {
		if c.IsClosed() || c.TxStatus() != 'I' {
			return errors.New("the rehearsal's connection is closed or in a transaction")
		}
		return exec(ctx, drop)
	}, func(ctx context.Context) error {
		c2, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			return err
		}
		defer c2.Close(ctx)
		_, err = c2.Exec(ctx, drop).ReadAll()
		return err
	})
	if err := exec(ctx, "SET search_path TO "+quoteIdent(name)); err != nil {
		return nil, err
	}
	query := func(ctx context.Context, sql string) ([][]string, error) {
		res, err := c.Exec(ctx, sql).ReadAll()
		if err != nil {
			return nil, err
		}
		var out [][]string
		for _, r := range res {
			for _, row := range r.Rows {
				vals := make([]string, len(row))
				for j, v := range row {
					vals[j] = string(v)
				}
				out = append(out, vals)
			}
		}
		return out, nil
	}
	r := &engine.Rehearsal{}
	for _, st := range orig.copyStatements() {
		if err := exec(ctx, st); err != nil {
			r.Notes = append(r.Notes, engine.NotCopied(st, pgMessage(err)))
		}
	}
	copied, err := e.readSchema(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("read the rehearsal schema: %w", err)
	}
	r.Before = copied.objects()
	r.Notes = append(r.Notes, engine.CopyDiffers(orig.objects(), r.Before)...)
	read := func() ([]engine.SchemaObject, error) {
		s, err := e.readSchema(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("read the rehearsal schema: %w", err)
		}
		return s.objects(), nil
	}
	// CREATE, DROP and ALTER DATABASE act on a whole database of the
	// scratch server; a BEGIN without its end would keep the next
	// statements uncommitted: the rehearsal runs each on its own.
	refuse := func(st string) error {
		if toks := lex(st); len(toks) > 1 && (toks[0].text == "create" || toks[0].text == "drop" || toks[0].text == "alter") && toks[1].text == "database" {
			return errors.New(toks[0].text + " database is not rehearsed: it acts on a whole database of the scratch server")
		}
		return nil
	}
	execAlone := func(st string) error {
		err := exec(ctx, st)
		if err == nil && c.TxStatus() != 'I' {
			_ = exec(ctx, "ROLLBACK")
			err = errors.New("transaction control is not rehearsed: each statement runs on its own")
		}
		return err
	}
	run := func(script string) ([]engine.RehearsedStatement, bool) {
		return engine.RunStatements(ctx, splitScript(script), refuse, execAlone, pgMessage)
	}
	return r.Play(up, down, run, read)
}

var _ engine.ScratchRehearser = (*Engine)(nil)

// scratchConfig reads the scratch URL and refuses one that names the
// database e reads.
func (e *Engine) scratchConfig(scratch string) (*pgconn.Config, error) {
	shown := engine.Redact(scratch)
	if s := strings.ToLower(scratch); !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return nil, &engine.UsageError{Sentinel: engine.ErrScratchIsDatabase, Msg: fmt.Sprintf("--scratch %s is not a postgres:// URL; give another PostgreSQL database, as postgres://user@host:5432/scratch", shown)}
	}
	if msg := engine.UnencodedInPassword(scratch, unencodedInPassword); msg != "" {
		return nil, &engine.UsageError{Sentinel: engine.ErrScratchIsDatabase, Msg: fmt.Sprintf("--scratch %s: %s", shown, msg)}
	}
	cfg, err := pgconn.ParseConfig(scratch)
	if err != nil {
		return nil, &engine.UsageError{Sentinel: engine.ErrScratchIsDatabase, Msg: fmt.Sprintf("--scratch %s cannot be read (%s); give postgres://user@host:5432/scratch", shown, redactErr(err, urlPassword(scratch)))}
	}
	dbName := func(c *pgconn.Config) string {
		if c.Database == "" {
			return c.User
		}
		return c.Database
	}
	if engine.SameHost(cfg.Host, e.cfg.Host) && cfg.Port == e.cfg.Port && dbName(cfg) == dbName(e.cfg) {
		return nil, engine.ScratchNamesChecked(shown, e.display, "a schema")
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	cfg.RuntimeParams["application_name"] = "tablewise rehearsal"
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(engine.RehearsalStatementTimeout.Milliseconds())
	cfg.RuntimeParams["lock_timeout"] = fmt.Sprint(engine.RehearsalStatementTimeout.Milliseconds())
	cfg.RuntimeParams["client_min_messages"] = "warning"
	return cfg, nil
}

// The checked database's server and owner, and the scratch connection's
// server and its session user's rights (SET ROLE and RESET ROLE reach
// every role it belongs to): a cluster is known by its system identifier
// (NULL where pg_control_system is not executable), a role by its oid,
// the same on every database of a cluster.
const (
	clusterIDSQL = `CASE WHEN pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')
	THEN (SELECT system_identifier FROM pg_catalog.pg_control_system())::text END`
	checkedServerSQL = `SELECT ` + clusterIDSQL + `, d.datdba::text
FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database()`
	scratchRightsSQL = `SELECT ` + clusterIDSQL + `,
	s.rolname::text, s.rolsuper::text,
	coalesce((SELECT o.rolname::text FROM pg_catalog.pg_roles o WHERE o.oid = $1::oid AND pg_catalog.pg_has_role(s.oid, o.oid, 'MEMBER')), ''),
	coalesce((SELECT g.rolname::text FROM pg_catalog.pg_roles g WHERE g.rolsuper AND pg_catalog.pg_has_role(s.oid, g.oid, 'MEMBER') ORDER BY 1 LIMIT 1), ''),
	coalesce((SELECT g.rolname::text FROM pg_catalog.pg_roles g WHERE g.rolname IN ('pg_write_server_files', 'pg_execute_server_program')
		AND pg_catalog.pg_has_role(s.oid, g.oid, 'MEMBER') ORDER BY 1 DESC LIMIT 1), ''),
	coalesce((SELECT g.rolname::text FROM pg_catalog.pg_roles g WHERE g.rolcreaterole AND pg_catalog.pg_has_role(s.oid, g.oid, 'MEMBER') ORDER BY g.oid <> s.oid, 1 LIMIT 1), '')
FROM pg_catalog.pg_roles s WHERE s.rolname = session_user`
)

// scratchReach refuses a scratch connection c on the checked database's
// own server whose user could act on that database from the scratch one:
// a superuser or a member of one, the owner or a member of the owner
// (COMMENT ON DATABASE, ALTER DATABASE … SET, also built at run time
// through EXECUTE, which no reading of the text can refuse), a member of
// pg_write_server_files or pg_execute_server_program, or of a role with
// CREATEROLE, which can grant itself those. The checked side is read
// through the guarded path like the rest of it. Where a side does not
// show its cluster's identifier, the server is the same when the host and
// port are.
func (e *Engine) scratchReach(ctx context.Context, c *pgconn.PgConn, cfg *pgconn.Config, scratch string) error {
	rows, err := e.rows(ctx, checkedServerSQL)
	if err != nil {
		return fmt.Errorf("read the server of %s: %w", e.display, err)
	}
	if len(rows) != 1 {
		return fmt.Errorf("read the server of %s: %d rows", e.display, len(rows))
	}
	checkedID, owner := engine.String(rows[0][0]), engine.String(rows[0][1])
	res := c.ExecParams(ctx, scratchRightsSQL, [][]byte{[]byte(owner)}, nil, nil, nil).Read()
	if res.Err != nil {
		return fmt.Errorf("read the scratch user's rights in %s: %w", engine.Redact(scratch), res.Err)
	}
	if len(res.Rows) != 1 {
		return fmt.Errorf("read the scratch user's rights in %s: %d rows", engine.Redact(scratch), len(res.Rows))
	}
	r := make([]string, len(res.Rows[0]))
	for i, v := range res.Rows[0] {
		r[i] = string(v)
	}
	if checkedID == "" || r[0] == "" {
		if !engine.SameHost(cfg.Host, e.cfg.Host) || cfg.Port != e.cfg.Port {
			return nil
		}
	} else if r[0] != checkedID {
		return nil
	}
	user, super, ofOwner, ofSuper, files, createRole := r[1], r[2] == "true", r[3], r[4], r[5], r[6]
	var why string
	switch {
	case super:
		why = "is a superuser on the server of the database being checked"
	case ofOwner == user:
		why = "owns the database being checked"
	case ofOwner != "":
		why = "is a member of " + ofOwner + ", the owner of the database being checked"
	case ofSuper != "":
		why = "is a member of " + ofSuper + ", a superuser on the server of the database being checked"
	case files != "":
		why = "is a member of " + files + " on the server of the database being checked"
	case createRole == user:
		why = "has CREATEROLE on the server of the database being checked (it could grant itself its owner's rights)"
	case createRole != "":
		why = "is a member of " + createRole + ", which has CREATEROLE on the server of the database being checked (it could grant itself its owner's rights)"
	default:
		return nil
	}
	return &engine.UsageError{Sentinel: engine.ErrScratchReaches, Msg: "the scratch user " + user + " " + why + ": a migration could reach that database (COMMENT ON DATABASE, ALTER DATABASE … SET, code run through EXECUTE); give a --scratch URL whose user is not a superuser and does not own the checked database, or a scratch database on another server"}
}

// pgMessage is a server error as PostgreSQL words it.
func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Detail != "" {
			return pe.Message + " (" + pe.Detail + ")"
		}
		return pe.Message
	}
	return err.Error()
}

// splitScript cuts a script into statements with PostgreSQL's lexical
// rules (strings, quoted names, dollar quoting, comments), dropping those
// that hold only comments.
func splitScript(script string) []string {
	return engine.SplitStatements(script, lex(script), func(t token) (int, bool) { return t.end, t.kind == 'p' && t.text == ";" })
}

// pgSchema is one schema's definition as the rehearsal copies and compares
// it.
type pgSchema struct {
	types     []engine.SchemaObject
	sequences []engine.SchemaObject
	owned     []string // ALTER SEQUENCE … OWNED BY …
	tables    []pgTable
	indexes   []engine.SchemaObject
	views     []engine.SchemaObject
}

type pgTable struct {
	name    string
	columns []string // "name type [GENERATED …] [DEFAULT …] [NOT NULL]"
	checks  []string // CONSTRAINT name def: primary keys, unique, checks
	fks     []string // CONSTRAINT name FOREIGN KEY …
}

// The statements that read a schema: the search path's first schema
// (current_schema()), every value as text.
const (
	rehearseTypesSQL = `SELECT quote_ident(t.typname), string_agg(quote_literal(e.enumlabel::text), ', ' ORDER BY e.enumsortorder)
FROM pg_catalog.pg_type t JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
WHERE t.typnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
GROUP BY t.typname ORDER BY t.typname`
	rehearseSequencesSQL = `SELECT quote_ident(s.relname),
	coalesce((SELECT quote_ident(t.relname) || '.' || quote_ident(a.attname) FROM pg_catalog.pg_depend d
		JOIN pg_catalog.pg_class t ON t.oid = d.refobjid
		JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
		WHERE d.objid = s.oid AND d.classid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'a' LIMIT 1), '')
FROM pg_catalog.pg_class s
WHERE s.relkind = 'S' AND s.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
	AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.objid = s.oid AND d.classid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'i')
ORDER BY s.relname`
	rehearseColumnsSQL = `SELECT quote_ident(c.relname), quote_ident(a.attname), pg_catalog.format_type(a.atttypid, a.atttypmod),
	a.attnotnull::text, coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''), a.attidentity::text, a.attgenerated::text
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
	AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
ORDER BY c.relname, a.attnum`
	rehearseConstraintsSQL = `SELECT quote_ident(c.relname), quote_ident(k.conname), k.contype::text, pg_catalog.pg_get_constraintdef(k.oid)
FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND k.contype IN ('p', 'u', 'c', 'f', 'x')
	AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
ORDER BY c.relname, k.contype, k.conname`
	rehearseIndexesSQL = `SELECT quote_ident(x.relname), quote_ident(c.relname), pg_catalog.pg_get_indexdef(i.indexrelid), quote_ident(current_schema())
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class x ON x.oid = i.indexrelid
JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
WHERE c.relkind IN ('r', 'p', 'm') AND NOT c.relispartition
	AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
	AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
ORDER BY x.relname`
	rehearseViewsSQL = `SELECT quote_ident(c.relname), c.relkind::text, pg_catalog.pg_get_viewdef(c.oid)
FROM pg_catalog.pg_class c
WHERE c.relkind IN ('v', 'm') AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema())
ORDER BY c.oid`
)

// readSchema reads the current schema's definition with q.
func (e *Engine) readSchema(ctx context.Context, q func(context.Context, string) ([][]string, error)) (*pgSchema, error) {
	s := &pgSchema{}
	rows, err := q(ctx, rehearseTypesSQL)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		s.types = append(s.types, engine.SchemaObject{Type: "type", Name: r[0], SQL: fmt.Sprintf("CREATE TYPE %s AS ENUM (%s)", r[0], r[1])})
	}
	if rows, err = q(ctx, rehearseSequencesSQL); err != nil {
		return nil, err
	}
	for _, r := range rows {
		s.sequences = append(s.sequences, engine.SchemaObject{Type: "sequence", Name: r[0], SQL: "CREATE SEQUENCE " + r[0]})
		if r[1] != "" {
			s.owned = append(s.owned, fmt.Sprintf("ALTER SEQUENCE %s OWNED BY %s", r[0], r[1]))
			s.sequences[len(s.sequences)-1].SQL += " OWNED BY " + r[1]
		}
	}
	if rows, err = q(ctx, rehearseColumnsSQL); err != nil {
		return nil, err
	}
	byName := map[string]int{}
	for _, r := range rows {
		i, ok := byName[r[0]]
		if !ok {
			i = len(s.tables)
			byName[r[0]] = i
			s.tables = append(s.tables, pgTable{name: r[0]})
		}
		t := &s.tables[i]
		col := r[1] + " " + r[2]
		switch {
		case r[5] == "a":
			col += " GENERATED ALWAYS AS IDENTITY"
		case r[5] == "d":
			col += " GENERATED BY DEFAULT AS IDENTITY"
		case r[6] == "s":
			col += " GENERATED ALWAYS AS (" + r[4] + ") STORED"
		case r[4] != "":
			col += " DEFAULT " + r[4]
		}
		if r[3] == "true" {
			col += " NOT NULL"
		}
		t.columns = append(t.columns, col)
	}
	if rows, err = q(ctx, rehearseConstraintsSQL); err != nil {
		return nil, err
	}
	for _, r := range rows {
		i, ok := byName[r[0]]
		if !ok {
			continue
		}
		t := &s.tables[i]
		def := "CONSTRAINT " + r[1] + " " + r[3]
		if r[2] == "f" {
			t.fks = append(t.fks, def)
		} else {
			t.checks = append(t.checks, def)
		}
	}
	if rows, err = q(ctx, rehearseIndexesSQL); err != nil {
		return nil, err
	}
	for _, r := range rows {
		// pg_get_indexdef names the table with its schema; the copy and
		// the comparison need it without.
		def := strings.Replace(r[2], " ON "+r[3]+".", " ON ", 1)
		def = strings.Replace(def, " ON ONLY "+r[3]+".", " ON ONLY ", 1)
		s.indexes = append(s.indexes, engine.SchemaObject{Type: "index", Name: r[0], Table: r[1], SQL: def})
	}
	if rows, err = q(ctx, rehearseViewsSQL); err != nil {
		return nil, err
	}
	for _, r := range rows {
		kind := "VIEW"
		if r[1] == "m" {
			kind = "MATERIALIZED VIEW"
		}
		s.views = append(s.views, engine.SchemaObject{Type: strings.ToLower(kind), Name: r[0], SQL: fmt.Sprintf("CREATE %s %s AS %s", kind, r[0], strings.TrimSpace(r[2]))})
	}
	return s, nil
}

func (t *pgTable) create(withFKs bool) string {
	items := append(append([]string(nil), t.columns...), t.checks...)
	if withFKs {
		items = append(items, t.fks...)
	}
	return fmt.Sprintf("CREATE TABLE %s (\n  %s\n)", t.name, strings.Join(items, ",\n  "))
}

// objects lists the schema's definitions for comparison: each table with
// its columns and constraints, then indexes, views, types and sequences.
func (s *pgSchema) objects() []engine.SchemaObject {
	var out []engine.SchemaObject
	out = append(out, s.types...)
	out = append(out, s.sequences...)
	for i := range s.tables {
		t := &s.tables[i]
		out = append(out, engine.SchemaObject{Type: "table", Name: t.name, Table: t.name, SQL: t.create(true)})
	}
	out = append(out, s.indexes...)
	return append(out, s.views...)
}

// copyStatements recreates the schema without rows: types, sequences,
// tables, their foreign keys once every table exists, indexes, views.
func (s *pgSchema) copyStatements() []string {
	out := engine.AppendSQL(nil, s.types)
	for _, o := range s.sequences {
		out = append(out, "CREATE SEQUENCE "+o.Name)
	}
	for i := range s.tables {
		out = append(out, s.tables[i].create(false))
	}
	out = append(out, s.owned...)
	for i := range s.tables {
		for _, fk := range s.tables[i].fks {
			out = append(out, fmt.Sprintf("ALTER TABLE %s ADD %s", s.tables[i].name, fk))
		}
	}
	out = engine.AppendSQL(out, s.indexes)
	return engine.AppendSQL(out, s.views)
}
