package servers

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
)

// Where the test servers are, unless TABLEWISE_TEST_POSTGRES or
// TABLEWISE_TEST_MYSQL say otherwise (a URL like these, or "off" to skip).
const (
	DefaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	DefaultMySQL    = "mysql://root@127.0.0.1:3306/"
)

// reachTimeout bounds finding out whether a server answers.
const reachTimeout = 2 * time.Second

// formatVersion names what the loader writes: change it whenever the
// loader writes a database differently, so that no test uses a template an
// older loader left on the server.
const formatVersion = "2"

// Postgres returns the URL of a fresh PostgreSQL database holding Chinook
// (postgres://postgres@127.0.0.1:5432/tw_…?sslmode=disable), dropped when
// the test ends. It skips the test, saying how to start the server, when
// none answers within 2 s (fails instead when TABLEWISE_TEST_REQUIRE names
// postgres), and when ../shared/data is absent.
func Postgres(t testing.TB) string {
	t.Helper()
	return PostgresOf(t, testdb.SharedData(t, "chinook.sqlite"))
}

// PostgresSample is Postgres with the built-in sample database.
func PostgresSample(t testing.TB) string {
	t.Helper()
	return PostgresOf(t, samplePath(t))
}

// MySQL returns the URL of a fresh MariaDB/MySQL database holding Chinook
// (mysql://root@127.0.0.1:3306/tw_…; DriverDSN gives the form
// github.com/go-sql-driver/mysql reads), dropped when the test ends. It
// skips like Postgres.
func MySQL(t testing.TB) string {
	t.Helper()
	return MySQLOf(t, testdb.SharedData(t, "chinook.sqlite"))
}

// MySQLSample is MySQL with the built-in sample database.
func MySQLSample(t testing.TB) string {
	t.Helper()
	return MySQLOf(t, samplePath(t))
}

// PostgresOf returns the URL of a fresh PostgreSQL database holding a copy
// of the SQLite database at path. The copy is made once per server (a
// template database named after the loader's version and the file's
// contents) and each test gets CREATE DATABASE … TEMPLATE of it.
func PostgresOf(t testing.TB, path string) string {
	t.Helper()
	srv := reach(t, "postgres")
	tpl := ensureTemplate(t, srv, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := connectPG(ctx, srv.admin())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	name := freshName(t)
	if err := pgCreateDatabase(ctx, admin, name, tpl); err != nil {
		t.Fatalf("copy the template %s: %v", tpl, err)
	}
	srv.dropAtEnd(t, "the test database", name)
	return srv.database(name)
}

// PostgresScratch returns the URL of a fresh, empty PostgreSQL database
// owned by a fresh LOGIN role tw_scratch_<48 random bits> that is not a
// superuser, connecting as that role (the server's trust authentication
// lets any role in without a password): a scratch database for a
// migration's rehearsal on the server of the database being checked,
// where tablewise refuses a scratch user that could reach that database.
// The database and then the role are dropped when the test ends.
func PostgresScratch(t testing.TB) string {
	t.Helper()
	srv := reach(t, "postgres")
	admin := pgAdmin(t, srv)
	defer admin.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	role := "tw_scratch_" + random48()
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE"); err != nil {
		t.Fatalf("create the scratch role: %v", err)
	}
	atEnd(t, "the scratch role", func(ctx context.Context) error {
		return srv.pgAdminDo(ctx, func(admin *pgx.Conn) error {
			_, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+role)
			return err
		})
	})
	name := freshName(t)
	if err := pgCreateDatabase(ctx, admin, name, ""); err != nil {
		t.Fatal(err)
	}
	srv.dropAtEnd(t, "the scratch database", name)
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+quoteIdent(name, '"')+" OWNER TO "+role); err != nil {
		t.Fatalf("give the scratch database to its role: %v", err)
	}
	u, err := url.Parse(srv.database(name))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// pgAdmin connects to srv's administrative database, failing the test
// when it cannot; the caller closes the connection.
func pgAdmin(t testing.TB, srv server) *pgx.Conn {
	t.Helper()
	c, err := connectPG(context.Background(), srv.admin())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pgAdminDo runs fn on a connection of its own to srv's administrative
// database.
func (srv server) pgAdminDo(ctx context.Context, fn func(admin *pgx.Conn) error) error {
	admin, err := connectPG(ctx, srv.admin())
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	return fn(admin)
}

// dropDatabase drops the database name on srv, on an administrative
// connection of its own.
func (srv server) dropDatabase(ctx context.Context, name string) error {
	if srv.engine == "postgres" {
		return srv.pgAdminDo(ctx, func(admin *pgx.Conn) error { return pgDropDatabase(ctx, admin, name) })
	}
	admin, err := openMySQL(srv.admin(), map[string]string{"lock_wait_timeout": "20"})
	if err != nil {
		return err
	}
	defer admin.Close()
	return mysqlDropDatabase(ctx, admin, name)
}

// dropAtEnd drops the database name on srv when the test ends; what names
// it in the test's failure when it cannot.
func (srv server) dropAtEnd(t testing.TB, what, name string) {
	atEnd(t, what, func(ctx context.Context) error { return srv.dropDatabase(ctx, name) })
}

// atEnd runs drop when the test ends, with 30 s to finish, failing the
// test on an error; what names what drop removes.
func atEnd(t testing.TB, what string, drop func(context.Context) error) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := drop(ctx); err != nil {
			t.Errorf("drop %s: %v", what, err)
		}
	})
}

// MySQLOf returns the URL of a fresh MariaDB/MySQL database holding a copy
// of the SQLite database at path. The rows are loaded once per server into
// a template database named like PostgreSQL's; each test's database gets
// the same tables from the SQLite schema and its rows with INSERT … SELECT
// from the template, on the server.
func MySQLOf(t testing.TB, path string) string {
	t.Helper()
	srv := reach(t, "mysql")
	tpl := ensureTemplate(t, srv, path)
	s := sourceSchema(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := freshName(t)
	if _, err := srv.load(ctx, name, s, nil, tpl); err != nil {
		t.Fatalf("copy the template %s: %v", tpl, err)
	}
	srv.dropAtEnd(t, "the test database", name)
	return srv.database(name)
}

// MySQLReader makes, on the server of the MariaDB/MySQL database at
// dbURL, a user with only the privileges tablewise doctor recommends
// (SELECT, SHOW VIEW on the database: it cannot read mysql.func or
// mysql.proc), and returns the database's URL as that user, with the
// user and its password; the user is dropped when the test ends.
func MySQLReader(t testing.TB, dbURL string) (readerURL, user, password string) {
	t.Helper()
	srv := reach(t, "mysql")
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := openMySQL(srv.admin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	id := random48()
	user, password = "tw_ro_"+id, "pw-"+id
	atEnd(t, "the reader "+user, func(ctx context.Context) error {
		admin, err := openMySQL(srv.admin(), nil)
		if err != nil {
			return err
		}
		defer admin.Close()
		_, err = admin.ExecContext(ctx, "DROP USER IF EXISTS '"+user+"'@'%'")
		return err
	})
	for _, q := range []string{
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'",
		"GRANT SELECT, SHOW VIEW ON " + quoteIdent(strings.TrimPrefix(u.Path, "/"), '`') + ".* TO '" + user + "'@'%'",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u.User = url.UserPassword(user, password)
	return u.String(), user, password
}

func samplePath(t testing.TB) string {
	t.Helper()
	p, err := data.SamplePath()
	if err != nil {
		t.Fatalf("the sample database: %v", err)
	}
	return p
}

// freshName is a database name no other test, in this binary or another,
// has: tw_, the test's name, and 48 random bits.
func freshName(t testing.TB) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		if b.Len() >= 24 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if s := b.String(); s != "" && !strings.HasSuffix(s, "_") {
			b.WriteByte('_')
		}
	}
	return "tw_" + strings.Trim(b.String(), "_") + "_" + random48()
}

// random48 is 48 random bits in 12 hex digits: what makes a test's
// database or role name its own.
func random48() string {
	var r [6]byte
	rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

// reachability is what one test binary learned about a server, once.
type reachability struct {
	once sync.Once
	srv  server
	err  error
}

var reached = map[string]*reachability{"postgres": {}, "mysql": {}}

// reach returns the server of engine or skips the test (fails it when
// TABLEWISE_TEST_REQUIRE names the engine), saying how to start it.
func reach(t testing.TB, engine string) server {
	t.Helper()
	return reachOnce(t, reached[engine], engine)
}

// requiredPatience is how long a required server that does not answer is
// asked again before its tests fail: a loaded machine (a race build of
// many tests, a checkpoint) can keep one probe waiting past reachTimeout.
var requiredPatience = 30 * time.Second

func reachOnce(t testing.TB, r *reachability, engine string) server {
	t.Helper()
	r.once.Do(func() {
		r.srv, r.err = probe(engine)
		var u *unreachable
		for until := time.Now().Add(requiredPatience); r.err != nil && errors.As(r.err, &u) && required(engine) && time.Now().Before(until); {
			time.Sleep(time.Second)
			r.srv, r.err = probe(engine)
		}
	})
	if r.err == nil {
		return r.srv
	}
	if required(engine) {
		t.Fatalf("%v (TABLEWISE_TEST_REQUIRE=%s)", r.err, os.Getenv("TABLEWISE_TEST_REQUIRE"))
	}
	t.Skip(r.err)
	return server{}
}

// required reports whether TABLEWISE_TEST_REQUIRE names engine.
func required(engine string) bool {
	for _, e := range strings.Split(os.Getenv("TABLEWISE_TEST_REQUIRE"), ",") {
		if strings.TrimSpace(e) == engine {
			return true
		}
	}
	return false
}

// unreachable is a probe's error when the server did not answer (as
// opposed to a configuration that names none).
type unreachable struct{ msg string }

func (u *unreachable) Error() string { return u.msg }

var errOff = errors.New("turned off")

func probe(engine string) (server, error) {
	env, raw, name, start := "TABLEWISE_TEST_POSTGRES", DefaultPostgres, "PostgreSQL",
		"pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
	if engine == "mysql" {
		env, raw, name, start = "TABLEWISE_TEST_MYSQL", DefaultMySQL, "MariaDB/MySQL",
			"start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd"
	}
	if v := os.Getenv(env); v == "off" {
		return server{}, fmt.Errorf("%s tests skipped: %s=off", name, env)
	} else if v != "" {
		raw = v
	}
	srv, _, err := parseServer(raw)
	if err == nil && srv.engine != engine {
		err = fmt.Errorf("%s=%q is not a %s URL", env, raw, name)
	}
	if err != nil {
		return server{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), reachTimeout)
	defer cancel()
	if err := srv.ping(ctx); err != nil {
		return server{}, &unreachable{fmt.Sprintf("%s not reachable at %s (%v): start it with `%s` (this is what .ci/run does), or set %s to a server's URL", name, srv, err, start, env)}
	}
	return srv, nil
}

// ping makes one round trip to srv's administrative database.
func (srv server) ping(ctx context.Context) error {
	if srv.engine == "postgres" {
		return srv.pgAdminDo(ctx, func(c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SELECT 1")
			return err
		})
	}
	db, err := openMySQL(srv.admin(), nil)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// Templates: one per server and source file, made once per test binary
// (or found, made by an earlier binary).
var templates sync.Map // engine + "\x00" + abs path → *templateOnce

type templateOnce struct {
	once sync.Once
	name string
	err  error
}

func ensureTemplate(t testing.TB, srv server, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := templates.LoadOrStore(srv.engine+"\x00"+srv.String()+"\x00"+abs, &templateOnce{})
	o := v.(*templateOnce)
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		o.name, o.err = makeTemplate(ctx, srv, abs)
	})
	if o.err != nil {
		t.Fatalf("load %s into %s: %v", path, srv.engine, o.err)
	}
	return o.name
}

// templateName is the name of the template of the file at path: its stem,
// and a hash of its contents and of formatVersion. The same file loaded by
// the same loader version has the same name in every test binary.
func templateName(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	io.WriteString(h, "tablewise test template "+formatVersion+"\x00")
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	var stem strings.Builder
	for _, r := range strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))) {
		if stem.Len() >= 20 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			stem.WriteRune(r)
		}
	}
	return "tw_tpl_" + stem.String() + "_" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// templateLoaded is a table of MySQL templates, written last: a template
// without it is a load that stopped half-way.
const templateLoaded = "tablewise_template_loaded"

// makeTemplate finds or makes the template of the SQLite file at path on
// srv. Test binaries running at once take a server-wide lock (an advisory
// lock, GET_LOCK) named after the template, so one loads it and the others
// wait and find it. A load that stopped half-way is never used: PostgreSQL
// loads under another name and renames; MySQL marks a complete template.
func makeTemplate(ctx context.Context, srv server, path string) (string, error) {
	name, err := templateName(path)
	if err != nil {
		return "", err
	}
	load := func(into string) error {
		src, err := openSource(path)
		if err != nil {
			return err
		}
		defer src.Close()
		s, err := readSchema(ctx, src, path)
		if err != nil {
			return err
		}
		_, err = srv.load(ctx, into, s, src, "")
		return err
	}
	if srv.engine == "postgres" {
		admin, err := connectPG(ctx, srv.admin())
		if err != nil {
			return "", err
		}
		defer admin.Close(context.Background())
		sum := sha256.Sum256([]byte(name))
		if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(binary.BigEndian.Uint64(sum[:]))); err != nil {
			return "", fmt.Errorf("wait for another test binary loading %s: %w", name, err)
		}
		// Closing admin releases the lock.
		var exists bool
		if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			return "", err
		}
		if exists {
			return name, nil
		}
		loading := name + "_loading"
		if err := pgDropDatabase(ctx, admin, loading); err != nil {
			return "", err
		}
		if err := load(loading); err != nil {
			return "", err
		}
		for _, stmt := range []string{
			"ALTER DATABASE " + quoteIdent(loading, '"') + " RENAME TO " + quoteIdent(name, '"'),
			// Nobody connects to a template: a session on it would make
			// CREATE DATABASE … TEMPLATE fail.
			"ALTER DATABASE " + quoteIdent(name, '"') + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false",
		} {
			if _, err := admin.Exec(ctx, stmt); err != nil {
				return "", err
			}
		}
		return name, nil
	}
	db, err := openMySQL(srv.admin(), nil)
	if err != nil {
		return "", err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 180)", "tablewise:"+name).Scan(&got); err != nil || got.Int64 != 1 {
		return "", fmt.Errorf("wait for another test binary loading %s: %v (GET_LOCK returned %v)", name, err, got)
	}
	defer conn.ExecContext(context.Background(), "SELECT RELEASE_LOCK(?)", "tablewise:"+name)
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", name, templateLoaded).Scan(&n); err != nil {
		return "", err
	}
	if n == 1 {
		return name, nil
	}
	if err := mysqlDropDatabase(ctx, db, name); err != nil {
		return "", err
	}
	if err := load(name); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE "+quoteIdent(name, '`')+"."+templateLoaded+" (loaded_at DATETIME)"); err != nil {
		return "", err
	}
	return name, nil
}

// sources caches the schema read from each SQLite file (MySQL copies are
// made from it).
var sources sync.Map // abs path → *sourceOnce

type sourceOnce struct {
	once sync.Once
	s    *schema
	err  error
}

func sourceSchema(t testing.TB, path string) *schema {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := sources.LoadOrStore(abs, &sourceOnce{})
	o := v.(*sourceOnce)
	o.once.Do(func() {
		src, err := openSource(abs)
		if err != nil {
			o.err = err
			return
		}
		defer src.Close()
		o.s, o.err = readSchema(context.Background(), src, abs)
	})
	if o.err != nil {
		t.Fatalf("read %s: %v", path, o.err)
	}
	return o.s
}
