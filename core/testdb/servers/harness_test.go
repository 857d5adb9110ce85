package servers

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tablewise/tablewise/core/testdb"
)

const childEnv = "TABLEWISE_SERVERS_CHILD"

// TestConcurrentBinaries runs a second test binary (this one, on
// TestConcurrentBinariesChild) while this one does the same work: four
// tests at once in each, each taking a fresh PostgreSQL and MySQL database
// copied from a SQLite file no run has loaded before, so the two binaries
// also race to make its templates. Every database must be a different
// one, hold the source's rows and only its own test's writes; one template
// per server must be left, and no half-loaded one.
func TestConcurrentBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second test binary (-short)")
	}
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			srv := reach(t, engine)
			var r [8]byte
			rand.Read(r[:])
			path := testdb.Build(t, "race.db", fmt.Sprintf(
				`CREATE TABLE "Race" ("Id" INTEGER PRIMARY KEY, "Token" TEXT); INSERT INTO "Race" VALUES (1, '%x'), (2, 'two');`, r))
			tpl, err := templateName(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { dropTemplate(t, srv, tpl) })

			start := time.Now().Add(700 * time.Millisecond)
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentBinariesChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{engine, path, strconv.FormatInt(start.UnixNano(), 10)}, "\n"))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			mine := claimDatabases(t, engine, path, start)
			err = cmd.Wait()
			var theirs []string
			sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
			for sc.Scan() {
				if name, ok := strings.CutPrefix(sc.Text(), "database: "); ok {
					theirs = append(theirs, name)
				}
			}
			if err != nil || len(theirs) != 4 {
				t.Fatalf("the second binary: %v, %d databases:\n%s", err, len(theirs), out.String())
			}
			if len(mine) != 4 {
				t.Fatalf("this binary got %d databases, want 4", len(mine))
			}
			all := append(slices.Clone(mine), theirs...)
			slices.Sort(all)
			if len(slices.Compact(all)) != 8 {
				t.Errorf("the two binaries shared a database name: %v and %v", mine, theirs)
			}
			if got := databasesLike(t, srv, tpl); !slices.Equal(got, []string{tpl}) {
				t.Errorf("databases named after the template: %v, want only %s", got, tpl)
			}
		})
	}
}

// TestConcurrentBinariesChild is the second binary's part of
// TestConcurrentBinaries.
func TestConcurrentBinariesChild(t *testing.T) {
	env := os.Getenv(childEnv)
	if env == "" {
		t.Skip("run by TestConcurrentBinaries in a second test binary")
	}
	parts := strings.Split(env, "\n")
	ns, _ := strconv.ParseInt(parts[2], 10, 64)
	for _, name := range claimDatabases(t, parts[0], parts[1], time.Unix(0, ns)) {
		fmt.Printf("database: %s\n", name)
	}
}

// claimDatabases runs four tests at once from start on, each taking a
// fresh database of engine copied from path, writing its own mark into it,
// and checking it holds the source's two rows and that one mark. It
// returns the databases' names.
func claimDatabases(t *testing.T, engine, path string, start time.Time) []string {
	var mu sync.Mutex
	var names []string
	t.Run("claim", func(t *testing.T) {
		for i := range 4 {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				time.Sleep(time.Until(start))
				mark := fmt.Sprintf("%d/%d", os.Getpid(), i)
				var dsn string
				if engine == "postgres" {
					dsn = PostgresOf(t, path)
				} else {
					dsn = MySQLOf(t, path)
				}
				_, name, _ := parseServer(dsn)
				mu.Lock()
				names = append(names, name)
				mu.Unlock()
				var rows int
				var marks []string
				if engine == "postgres" {
					ctx := context.Background()
					conn, err := pgx.Connect(ctx, dsn)
					if err != nil {
						t.Fatal(err)
					}
					defer conn.Close(ctx)
					for _, stmt := range []string{`CREATE TABLE mark (m text)`, `INSERT INTO mark VALUES ('` + mark + `')`} {
						if _, err := conn.Exec(ctx, stmt); err != nil {
							t.Fatal(err)
						}
					}
					time.Sleep(200 * time.Millisecond) // let the other binary write too
					if err := conn.QueryRow(ctx, `SELECT count(*) FROM "Race"`).Scan(&rows); err != nil {
						t.Fatal(err)
					}
					r, _ := conn.Query(ctx, `SELECT m FROM mark`)
					marks, _ = pgx.CollectRows(r, pgx.RowTo[string])
				} else {
					d, err := openMySQL(dsn, nil)
					if err != nil {
						t.Fatal(err)
					}
					defer d.Close()
					for _, stmt := range []string{`CREATE TABLE mark (m text)`, `INSERT INTO mark VALUES ('` + mark + `')`} {
						if _, err := d.Exec(stmt); err != nil {
							t.Fatal(err)
						}
					}
					time.Sleep(200 * time.Millisecond)
					if err := d.QueryRow("SELECT count(*) FROM `Race`").Scan(&rows); err != nil {
						t.Fatal(err)
					}
					r, err := d.Query(`SELECT m FROM mark`)
					if err != nil {
						t.Fatal(err)
					}
					for r.Next() {
						var m string
						r.Scan(&m)
						marks = append(marks, m)
					}
					r.Close()
				}
				if rows != 2 || !slices.Equal(marks, []string{mark}) {
					t.Errorf("%s holds %d rows of Race (want 2) and marks %v (want only %s)", name, rows, marks, mark)
				}
			})
		}
	})
	return names
}

// mysqlAdmin opens srv's administrative connection, failing the test when
// it cannot; the caller closes it.
func mysqlAdmin(t testing.TB, srv server) *sql.DB {
	t.Helper()
	d, err := openMySQL(srv.admin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// databasesLike lists the databases on srv whose names start with tpl.
func databasesLike(t *testing.T, srv server, tpl string) []string {
	t.Helper()
	if srv.engine == "postgres" {
		admin := pgAdmin(t, srv)
		defer admin.Close(context.Background())
		return PostgresColumn[string](t, admin, "SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1", tpl)
	}
	d := mysqlAdmin(t, srv)
	defer d.Close()
	return Column[string](t, d, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, ?) = ? ORDER BY 1", len(tpl), tpl)
}

// dropTemplate drops a template a test made for a source of its own.
func dropTemplate(t testing.TB, srv server, name string) {
	if srv.engine == "postgres" {
		ctx := context.Background()
		err := srv.pgAdminDo(ctx, func(admin *pgx.Conn) error {
			admin.Exec(ctx, "ALTER DATABASE "+quoteIdent(name, '"')+" WITH IS_TEMPLATE false")
			return pgDropDatabase(ctx, admin, name)
		})
		if err != nil {
			t.Error(err)
		}
		return
	}
	dropDatabase(t, srv, name)
}

// fakeTB records how a test ended instead of ending it.
type fakeTB struct {
	*testing.T
	skipped, failed string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = fmt.Sprintf(format, a...) }

// TestUnreachable: a server that refuses connections, and one that accepts
// them and never answers, are reported within the probe's 2 s with the
// command that starts the server; TABLEWISE_TEST_REQUIRE turns the skip
// into a failure, "off" skips without trying.
func TestUnreachable(t *testing.T) {
	silent := testdb.SilentServer(t)
	refusing, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := refusing.Addr().String()
	refusing.Close()

	for _, engine := range []string{"postgres", "mysql"} {
		env, scheme, start := "TABLEWISE_TEST_POSTGRES", "postgres", "pg_ctlcluster --skip-systemctl-redirect"
		if engine == "mysql" {
			env, scheme, start = "TABLEWISE_TEST_MYSQL", "mysql", "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd"
		}
		for _, addr := range []string{refused, silent} {
			t.Run(engine+"/"+addr, func(t *testing.T) {
				t.Setenv(env, scheme+"://root@"+addr+"/x?connect_timeout=30")
				t.Setenv("TABLEWISE_TEST_REQUIRE", "")
				f := &fakeTB{T: t}
				began := time.Now()
				reachOnce(f, &reachability{}, engine)
				took := time.Since(began)
				if took > reachTimeout+time.Second {
					t.Errorf("the probe took %v, more than %v", took, reachTimeout)
				}
				for _, want := range []string{"not reachable at " + addr, start, "(this is what .ci/run does)", env} {
					if !strings.Contains(f.skipped, want) {
						t.Errorf("skip message %q does not say %q", f.skipped, want)
					}
				}
				if f.failed != "" {
					t.Errorf("failed: %s", f.failed)
				}

				// A required server is asked again for requiredPatience
				// before its tests fail.
				t.Setenv("TABLEWISE_TEST_REQUIRE", "mysql, postgres")
				defer func(p time.Duration) { requiredPatience = p }(requiredPatience)
				requiredPatience = 2 * time.Second
				f = &fakeTB{T: t}
				began = time.Now()
				reachOnce(f, &reachability{}, engine)
				if !strings.Contains(f.failed, "not reachable at "+addr) || !strings.Contains(f.failed, "TABLEWISE_TEST_REQUIRE") {
					t.Errorf("with TABLEWISE_TEST_REQUIRE: failed %q, skipped %q", f.failed, f.skipped)
				}
				if took := time.Since(began); took < requiredPatience || took > requiredPatience+reachTimeout+2*time.Second {
					t.Errorf("a required server was given up after %v, want after about %v of asking again", took, requiredPatience)
				}
			})
		}
		t.Run(engine+"/off", func(t *testing.T) {
			t.Setenv(env, "off")
			f := &fakeTB{T: t}
			reachOnce(f, &reachability{}, engine)
			if want := env + "=off"; !strings.Contains(f.skipped, want) {
				t.Errorf("skip message %q does not say %q", f.skipped, want)
			}
		})
	}
}

func TestFreshNames(t *testing.T) {
	a, b := freshName(t), freshName(t)
	if a == b {
		t.Errorf("two fresh names are both %s", a)
	}
	if !strings.HasPrefix(a, "tw_testfreshnames_") || len(a) != len("tw_testfreshnames_")+12 {
		t.Errorf("fresh name %s: want tw_testfreshnames_ and 12 hex digits", a)
	}
	if _, err := hex.DecodeString(strings.TrimPrefix(a, "tw_testfreshnames_")); err != nil {
		t.Errorf("fresh name %s does not end in hex: %v", a, err)
	}
}

// TestPostgresScratch: the scratch database is empty, connected to as a
// role that is not a superuser and owns it (it may create a schema); the
// database and the role are gone when the test that asked ends.
func TestPostgresScratch(t *testing.T) {
	var role, name string
	t.Run("scratch", func(t *testing.T) {
		u := PostgresScratch(t)
		c := PostgresClient(t, u)
		var super, owner bool
		var tables int
		if err := c.QueryRow(context.Background(), `SELECT current_user, current_database(), r.rolsuper,
			(SELECT datdba FROM pg_database WHERE datname = current_database()) = r.oid,
			(SELECT count(*) FROM pg_tables WHERE schemaname = 'public')
			FROM pg_roles r WHERE r.rolname = current_user`).Scan(&role, &name, &super, &owner, &tables); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(role, "tw_scratch_") || super || !owner || tables != 0 {
			t.Errorf("role %s (superuser %v, owner %v), %d tables", role, super, owner, tables)
		}
		if _, err := c.Exec(context.Background(), "CREATE SCHEMA s; DROP SCHEMA s"); err != nil {
			t.Errorf("the scratch role cannot create a schema: %v", err)
		}
	})
	admin := pgAdmin(t, reach(t, "postgres"))
	defer admin.Close(context.Background())
	if left := PostgresColumn[string](t, admin, "SELECT rolname::text FROM pg_roles WHERE rolname = $1 UNION ALL SELECT datname::text FROM pg_database WHERE datname = $2", role, name); role == "" || len(left) != 0 {
		t.Errorf("left after the test: %v (role %q)", left, role)
	}
}
