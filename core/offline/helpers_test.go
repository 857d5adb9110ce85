package offline

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tablewise/tablewise/core/db"
	"github.com/tablewise/tablewise/core/eval"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/data"
	"github.com/tablewise/tablewise/data/eval/evaldb"
)

// Planners are shared between tests: building the value index is the slow
// part and the databases are read-only.
var (
	plannersMu sync.Mutex
	planners   = map[string]*testPlanner{}
)

type testPlanner struct {
	d *db.DB
	p *Planner
}

func openPlanner(t testing.TB, path string) *testPlanner {
	t.Helper()
	plannersMu.Lock()
	defer plannersMu.Unlock()
	if tp := planners[path]; tp != nil {
		return tp
	}
	d, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	p := New(d)
	if err := p.Warm(context.Background()); err != nil {
		t.Fatalf("index %s: %v", path, err)
	}
	tp := &testPlanner{d: d, p: p}
	planners[path] = tp
	return tp
}

func samplePlanner(t testing.TB) *testPlanner {
	t.Helper()
	path, err := data.SamplePath()
	if err != nil {
		t.Fatalf("sample: %v", err)
	}
	return openPlanner(t, path)
}

func chinookPlanner(t testing.TB) *testPlanner {
	t.Helper()
	return openPlanner(t, testdb.SharedData(t, "chinook.sqlite"))
}

func fixturePlanner(t testing.TB) *testPlanner {
	t.Helper()
	return freshPlanner(t, testdb.Fixture(t))
}

// rewrite runs stmt on the SQLite file at path through a connection that
// may write, closes d, and opens the database again.
func rewrite(t testing.TB, d *db.DB, path, stmt string) *db.DB {
	t.Helper()
	write, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := write.Exec(stmt); err != nil {
		t.Fatal(err)
	}
	write.Close()
	d.Close()
	return freshPlanner(t, path).d
}

// freshPlanner opens the database at url (closed when the test ends) and
// a planner of its own on it with its indexes built.
func freshPlanner(t testing.TB, url string) *testPlanner {
	t.Helper()
	d := testdb.Open(t, url)
	p := New(d)
	if err := p.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &testPlanner{d: d, p: p}
}

// The evaluation databases of data/eval/evaldb are built once per test
// binary into a temporary directory that TestMain removes.
var (
	evalDBOnce  sync.Once
	evalDBDir   string
	evalDBPaths map[string]string
	evalDBErr   error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if evalDBDir != "" {
		os.RemoveAll(evalDBDir)
	}
	os.Exit(code)
}

// evalDBPlanner returns a planner on the evaldb database called name.
func evalDBPlanner(t testing.TB, name string) *testPlanner {
	t.Helper()
	evalDBOnce.Do(func() {
		evalDBDir, evalDBErr = os.MkdirTemp("", "tablewise-evaldb-")
		if evalDBErr == nil {
			evalDBPaths, evalDBErr = evaldb.Build(evalDBDir)
		}
	})
	if evalDBErr != nil {
		t.Fatalf("build the evaluation databases: %v", evalDBErr)
	}
	path, ok := evalDBPaths[name]
	if !ok {
		t.Fatalf("evaldb has no database %q", name)
	}
	return openPlanner(t, path)
}

// goldCases reads the gold questions of file under data/eval.
func goldCases(t testing.TB, file string) []eval.Case {
	t.Helper()
	cases, err := eval.LoadCases(filepath.Join("..", "..", "data", "eval", file))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// evaluate asks tp's planner every case and grades its answers on tp's
// database.
func evaluate(t testing.TB, tp *testPlanner, cases []eval.Case) *eval.Report {
	t.Helper()
	rep, err := eval.Evaluate(context.Background(), tp.d, tp.p, cases)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
