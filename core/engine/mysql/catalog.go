package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablewise/tablewise/core/catalog"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
)

// Only tables the server estimates at most exactCountRows rows are
// counted exactly (within engine.ServerBudget).
var exactCountRows = int64(200_000)

// catalogTimeout bounds reading the catalog when ctx has no deadline.
const catalogTimeout = 10 * time.Second

// read runs fn on a pooled connection inside a read-only transaction
// whose statements stop at ctx's deadline (or timeout when ctx has none,
// or when it is shorter): a deadline reached is ErrCatalogDeadline.
func (e *Engine) read(ctx context.Context, timeout time.Duration, fn func(q func(string, ...any) (*sql.Rows, error)) error) error {
	if dl, ok := ctx.Deadline(); ok && (timeout <= 0 || time.Until(dl) < timeout) {
		timeout = time.Until(dl)
	}
	if timeout <= 0 {
		return engine.ErrCatalogDeadline
	}
	err := e.withTx(ctx, timeout, func(c *conn, s *stopper) error {
		err := fn(func(q string, args ...any) (*sql.Rows, error) { return c.QueryContext(s.qctx, q, args...) })
		if err != nil && s.stopped() {
			return s.err()
		}
		return err
	})
	var le *query.LimitError
	if errors.As(err, &le) && le.Kind == "deadline" || errors.Is(err, context.DeadlineExceeded) {
		return engine.ErrCatalogDeadline
	}
	return err
}

// scanAll reads every row of rows as strings (nil for NULL).
func scanAll(rows *sql.Rows, err error) ([][]*string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]*string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func str0(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Catalog reads the database's tables and views, their columns, keys,
// indexes and comments from information_schema, row counts (the server's
// estimate, exact for small tables within a budget) and sample rows.
func (e *Engine) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	// What the guard refuses: views and tables neither counted nor
	// sampled, remote tables whose statistics are not read.
	k, err := e.knownNow(ctx)
	if err != nil {
		return nil, err
	}
	notRemote, remote := k.tableConditions()
	var tables []*catalog.Table
	err = e.read(ctx, catalogTimeout, func(q func(string, ...any) (*sql.Rows, error)) error {
		rows, err := scanAll(q(`SELECT TABLE_NAME, TABLE_TYPE, TABLE_ROWS, TABLE_COMMENT FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')` + notRemote + `
			UNION ALL SELECT TABLE_NAME, TABLE_TYPE, NULL, TABLE_COMMENT FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')` + remote + `
			ORDER BY TABLE_TYPE = 'VIEW', LOWER(TABLE_NAME)`))
		if err != nil {
			return err
		}
		byName := map[string]*catalog.Table{}
		for _, r := range rows {
			t := &catalog.Table{Name: str0(r[0]), Kind: "table", Comment: str0(r[3])}
			if str0(r[1]) == "VIEW" {
				t.Kind = "view"
				if t.Comment == "VIEW" {
					t.Comment = ""
				}
			} else if r[2] != nil {
				fmt.Sscan(*r[2], &t.RowCount)
				t.RowCountEstimated = true
			} else {
				t.RowCount = -1 // a remote table: counted below, if at all
			}
			tables = append(tables, t)
			byName[t.Name] = t
		}
		return e.describe(q, byName, notRemote)
	})
	if err != nil {
		return nil, err
	}
	cat := catalog.New(tables)
	// A view the guard refuses is neither counted nor sampled: its rows
	// would come from the very call it refuses (LOAD_FILE, GET_LOCK…).
	e.countAndSample(ctx, cat, k)
	return cat, nil
}

// describe fills in the columns, keys, indexes and view definitions;
// notRemote is tableConditions' condition that leaves out the remote tables
// where reading a table's keys opens it.
func (e *Engine) describe(q func(string, ...any) (*sql.Rows, error), byName map[string]*catalog.Table, notRemote string) error {
	// eachTableRow reads stmt, whose rows begin with a table's name, and
	// calls fn with each row of a table in byName.
	eachTableRow := func(stmt string, fn func(t *catalog.Table, r []*string)) error {
		rows, err := scanAll(q(stmt))
		if err != nil {
			return err
		}
		for _, r := range rows {
			if t := byName[str0(r[0])]; t != nil {
				fn(t, r)
			}
		}
		return nil
	}
	err := eachTableRow(`SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, COLUMN_COMMENT, EXTRA
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`, func(t *catalog.Table, r []*string) {
		c := catalog.Column{Name: str0(r[1]), Type: strings.ToUpper(str0(r[2])), NotNull: str0(r[3]) == "NO", Comment: str0(r[5])}
		if d := r[4]; d != nil && !(strings.EqualFold(*d, "NULL") && !c.NotNull) {
			c.Default = d
		}
		c.Hidden = strings.Contains(strings.ToUpper(str0(r[6])), "INVISIBLE")
		t.Columns = append(t.Columns, c)
	})
	if err != nil {
		return err
	}
	fkIndex := map[string]int{} // table + constraint → index in ForeignKeys
	err = eachTableRow(`SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
		FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE()`+notRemote+`
		AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL)
		ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`, func(t *catalog.Table, r []*string) {
		col := str0(r[2])
		if r[4] == nil { // the primary key
			t.PrimaryKey = append(t.PrimaryKey, col)
			for i := range t.Columns {
				if t.Columns[i].Name == col {
					t.Columns[i].PK = len(t.PrimaryKey)
				}
			}
			return
		}
		ref := str0(r[4])
		if s := str0(r[3]); s != "" && s != e.dbName {
			ref = s + "." + ref
		}
		key := t.Name + "\x00" + str0(r[1])
		i, ok := fkIndex[key]
		if !ok {
			i = len(t.ForeignKeys)
			fkIndex[key] = i
			t.ForeignKeys = append(t.ForeignKeys, catalog.ForeignKey{RefTable: ref})
		}
		fk := &t.ForeignKeys[i]
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, str0(r[5]))
	})
	if err != nil {
		return err
	}
	err = eachTableRow(`SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX`, func(t *catalog.Table, r []*string) {
		name := str0(r[1])
		if n := len(t.Indexes); n == 0 || t.Indexes[n-1].Name != name {
			origin := "c"
			if name == "PRIMARY" {
				origin = "pk"
			}
			t.Indexes = append(t.Indexes, catalog.Index{Name: name, Unique: str0(r[2]) == "0", Origin: origin})
		}
		x := &t.Indexes[len(t.Indexes)-1]
		col := str0(r[3])
		if col == "" {
			col = "(expression)"
		}
		x.Columns = append(x.Columns, col)
	})
	if err != nil {
		return err
	}
	return eachTableRow(`SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()`, func(t *catalog.Table, r []*string) {
		if r[1] != nil {
			t.SQL = "CREATE VIEW " + quoteIdent(t.Name) + " AS " + *r[1]
		}
	})
}

// countAndSample counts small tables exactly and reads sample rows, each
// under a budget; what does not fit keeps its estimate or has no sample.
func (e *Engine) countAndSample(ctx context.Context, cat *catalog.Catalog, k *known) {
	count, sample := engine.ServerBudget.Start(), engine.ServerBudget.Start()
	for _, t := range cat.Tables {
		if ctx.Err() != nil {
			return
		}
		if _, _, _, refused := k.object(strings.ToUpper(t.Name)); refused {
			continue
		}
		if (t.Kind == "view" || t.RowCount <= exactCountRows) && count.Left() {
			var n int64
			_, err := e.runOwn(ctx, "SELECT COUNT(*) FROM "+quoteIdent(t.Name), query.Options{Timeout: count.Next()}, func(c query.Cursor) {
				n = c.Int64(0)
			})
			if err == nil {
				t.RowCount, t.RowCountEstimated = n, false
			} else if t.Kind == "view" {
				t.RowCount, t.RowCountEstimated = -1, false
			}
		}
		if sample.Left() {
			var rows [][]any
			_, err := e.runOwn(ctx, "SELECT * FROM "+quoteIdent(t.Name)+" LIMIT "+fmt.Sprint(catalog.SampleRows), query.Options{MaxBytes: catalog.SampleMaxBytes, Timeout: sample.Next()}, func(c query.Cursor) {
				rows = append(rows, c.Row())
			})
			if err == nil {
				t.Sample = rows
			}
		}
	}
}

// knownNow is what the guard knows of the database, read on a pooled
// connection when it is stale.
func (e *Engine) knownNow(ctx context.Context) (*known, error) {
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	k, err := e.known(ctx, c, false)
	e.pool.Release(c, err != nil)
	if err != nil {
		return nil, e.sqlError(err)
	}
	return k, nil
}

// runOwn runs a statement tablewise wrote itself, naming one table or
// view, in a read-only transaction under opt's timeout, its rows held to
// opt's caps. It is vetted on its
// connection as a user's statement is (vetOn): what the guard knows of
// the database may be older than the view it reads, replaced since to
// call a stored function, which the count or the sample would run.
func (e *Engine) runOwn(ctx context.Context, sqlText string, opt query.Options, row func(query.Cursor)) (*query.Summary, error) {
	sum := &query.Summary{SQL: sqlText}
	if opt.Timeout <= 0 {
		return sum, query.DeadlineError(opt.Timeout)
	}
	err := e.withTx(ctx, opt.Timeout, func(c *conn, s *stopper) error {
		if err := e.vetOn(ctx, c, s, sqlText); err != nil {
			return err
		}
		return e.stream(c, s, sqlText, opt, rowFunc(row), sum)
	})
	return sum, err
}

type rowFunc func(query.Cursor)

func (f rowFunc) Begin([]query.Column) error { return nil }
func (f rowFunc) Row(c query.Cursor) error   { f(c); return nil }

// Names reads only the tables' and views' names and their columns' names.
func (e *Engine) Names(ctx context.Context) (*catalog.Catalog, error) {
	var list []*catalog.Table
	err := e.read(ctx, catalogTimeout, func(q func(string, ...any) (*sql.Rows, error)) error {
		rows, err := scanAll(q(`SELECT c.TABLE_NAME, c.COLUMN_NAME FROM information_schema.COLUMNS c
			JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
			WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')
			ORDER BY t.TABLE_TYPE = 'VIEW', LOWER(c.TABLE_NAME), c.ORDINAL_POSITION`))
		if err != nil {
			return err
		}
		byName := map[string]*catalog.Table{}
		for _, r := range rows {
			name := str0(r[0])
			t := byName[name]
			if t == nil {
				t = &catalog.Table{Name: name}
				byName[name] = t
				list = append(list, t)
			}
			t.Columns = append(t.Columns, catalog.Column{Name: str0(r[1])})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return catalog.New(list), nil
}

var _ engine.SchemaVersioner = (*Engine)(nil)

// SchemaVersion returns the number and a checksum of the database's
// tables and views (name, type, creation time) and of their columns
// (name, position, type), and of its indexes, read in the read-only
// transaction the catalog is read in, within ctx's deadline: it changes
// whenever the catalog's tables, views, columns or indexes do, and not
// when rows are written.
func (e *Engine) SchemaVersion(ctx context.Context) (string, error) {
	k, err := e.knownNow(ctx)
	if err != nil {
		return "", err
	}
	notRemote, remote := k.tableConditions()
	var version string
	err = e.read(ctx, catalogTimeout, func(q func(string, ...any) (*sql.Rows, error)) error {
		rows, err := scanAll(q(`SELECT CONCAT_WS(':',
			(SELECT CONCAT(COUNT(*), '.', COALESCE(SUM(CRC32(CONCAT_WS('.', TABLE_NAME, TABLE_TYPE, CREATE_TIME))), 0))
				FROM (SELECT TABLE_NAME, TABLE_TYPE, CREATE_TIME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()` + notRemote + `
					UNION ALL SELECT TABLE_NAME, TABLE_TYPE, NULL FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()` + remote + `) t),
			(SELECT CONCAT(COUNT(*), '.', COALESCE(SUM(CRC32(CONCAT_WS('.', TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE))), 0))
				FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()),
			(SELECT CONCAT(COUNT(*), '.', COALESCE(SUM(CRC32(CONCAT_WS('.', TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME))), 0))
				FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()))`))
		if err != nil {
			return err
		}
		if len(rows) != 1 || len(rows[0]) != 1 {
			return fmt.Errorf("read the schema version: %d rows", len(rows))
		}
		version = str0(rows[0][0])
		return nil
	})
	if err != nil {
		return "", err
	}
	return version, nil
}
