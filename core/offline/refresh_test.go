package offline

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/answer"
	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

const petsSchema = `CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, species TEXT NOT NULL);
INSERT INTO pets (name, species) VALUES ('Rex', 'dog'), ('Tom', 'cat'), ('Fido', 'dog'), ('Kitty', 'cat'), ('Spot', 'dog');`

// petsPlanner builds a small SQLite file, opens it and a planner kept in a
// directory of the test's own, which checks the file on every question.
// onBuild, when not nil, is the planner's build hook.
func petsPlanner(t *testing.T, onBuild func(ctx context.Context, rebuild bool) error) (path, dir string, p *Planner) {
	t.Helper()
	path = testdb.Build(t, "pets.db", petsSchema)
	dir, p = plannerAt(t, path, onBuild)
	return path, dir, p
}

func plannerAt(t *testing.T, path string, onBuild func(ctx context.Context, rebuild bool) error) (dir string, p *Planner) {
	t.Helper()
	dir = t.TempDir()
	p = NewKept(testdb.Open(t, path), dir)
	p.refresh.fileEvery, p.refresh.retry = 0, 0
	p.refresh.onBuild = onBuild
	if err := p.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// write runs stmt on the file at path through a connection that may
// write.
func write(t *testing.T, path, stmt string) {
	t.Helper()
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

// ask answers question, failing the test on an error or when it takes
// more than a few seconds (it must never wait for a rebuild).
func ask(t *testing.T, p *Planner, question string) *answer.Bundle {
	t.Helper()
	type result struct {
		b   *answer.Bundle
		err error
	}
	r := testdb.Within(t, 10*time.Second, func() result {
		b, err := p.Answer(context.Background(), question)
		return result{b, err}
	})
	if r.err != nil {
		t.Fatalf("%q: %v", question, r.err)
	}
	return r.b
}

// rebuildDone is closed when the planner's latest rebuild ends; nil when
// none has started.
func rebuildDone(p *Planner) chan struct{} {
	p.refresh.mu.Lock()
	defer p.refresh.mu.Unlock()
	return p.refresh.done
}

func waitRebuild(t *testing.T, p *Planner) {
	t.Helper()
	done := rebuildDone(p)
	if done == nil {
		t.Fatal("no rebuild started")
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("rebuild still running after 60s")
	}
}

// answeredCount requires b to be an answer of one count and returns it.
func answeredCount(t *testing.T, b *answer.Bundle) int64 {
	t.Helper()
	if b.Status != answer.StatusAnswered || len(b.Rows) != 1 || len(b.Rows[0]) != 1 {
		t.Fatalf("%q: want one count, got %s %q rows %v (sql %s)", b.Question, b.Status, b.Answer, b.Rows, b.SQL)
	}
	n, ok := b.Rows[0][0].(int64)
	if !ok {
		t.Fatalf("%q: count %#v", b.Question, b.Rows[0][0])
	}
	return n
}

func TestRefreshSeesNewValues(t *testing.T) {
	entered, release := make(chan struct{}, 10), make(chan struct{})
	var rebuilds atomic.Int32
	path, dir, p := petsPlanner(t, func(ctx context.Context, rebuild bool) error {
		if !rebuild {
			return nil
		}
		rebuilds.Add(1)
		entered <- struct{}{}
		select { // a slow rebuild: it ends when the test says so
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if n := answeredCount(t, ask(t, p, "How many pets are dogs?")); n != 3 {
		t.Fatalf("dogs: %d, want 3", n)
	}
	write(t, path, `INSERT INTO pets (name, species) VALUES ('Polly', 'parrot')`)

	// The question comes while the rebuild is held: it is answered from
	// the index built before the row, at once.
	old := p.cur.Load()
	b := ask(t, p, "How many pets are parrots?")
	if b.Status == answer.StatusAnswered {
		t.Fatalf("before the rebuild, parrot is not a known value; got %q (%s)", b.Answer, b.SQL)
	}
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the changed file started no rebuild")
	}
	if n := answeredCount(t, ask(t, p, "How many pets are dogs?")); n != 3 || p.cur.Load() != old {
		t.Fatalf("while rebuilding: dogs %d, index swapped %v", n, p.cur.Load() != old)
	}
	if rebuilds.Load() != 1 {
		t.Fatalf("%d rebuilds at once, want 1", rebuilds.Load())
	}
	close(release)
	waitRebuild(t, p)

	if n := answeredCount(t, ask(t, p, "How many pets are parrots?")); n != 1 {
		t.Fatalf("after the rebuild: parrots %d, want 1", n)
	}
	if !knowsValue(p.cur.Load(), "parrot") {
		t.Fatal("the rebuilt index does not hold parrot")
	}

	// What the rebuild built is kept for the next process: a new planner
	// reads the index from the state directory and knows the value.
	next := NewKept(testdb.Open(t, path), dir)
	if err := next.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ix := next.cur.Load(); !ix.keptIndex || !knowsValue(ix, "parrot") {
		t.Fatalf("next planner: kept index %v, knows parrot %v", ix.keptIndex, knowsValue(ix, "parrot"))
	}
}

// countRebuilds is a build hook counting rebuilds in n.
func countRebuilds(n *atomic.Int32) func(context.Context, bool) error {
	return func(_ context.Context, rebuild bool) error {
		if rebuild {
			n.Add(1)
		}
		return nil
	}
}

// knowsValue: some indexed value of ix reads text.
func knowsValue(ix *index, text string) bool {
	for _, refs := range ix.values.byKey {
		for _, r := range refs {
			if r.text == text {
				return true
			}
		}
	}
	return false
}

func TestRefreshSeesNewTables(t *testing.T) {
	path, _, p := petsPlanner(t, nil)
	ask(t, p, "How many pets are there?")
	write(t, path, `CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO owners (name) VALUES ('Ann'), ('Bob');`)
	if b := ask(t, p, "How many owners are there?"); b.Status == answer.StatusAnswered {
		t.Fatalf("owners answered before the rebuild: %s", b.SQL)
	}
	waitRebuild(t, p)
	if n := answeredCount(t, ask(t, p, "How many owners are there?")); n != 2 {
		t.Fatalf("owners %d, want 2", n)
	}
}

func TestRefreshNoRebuildWhenUnchanged(t *testing.T) {
	var builds, rebuilds atomic.Int32
	_, _, p := petsPlanner(t, func(ctx context.Context, rebuild bool) error {
		builds.Add(1)
		if rebuild {
			rebuilds.Add(1)
		}
		return nil
	})
	for _, q := range []string{"How many pets are dogs?", "How many pets are cats?", "How many pets are there?", "list the pets"} {
		ask(t, p, q)
	}
	if builds.Load() != 1 || rebuilds.Load() != 0 || rebuildDone(p) != nil {
		t.Fatalf("builds %d, rebuilds %d, want 1 and 0", builds.Load(), rebuilds.Load())
	}
}

func TestRefreshChecksFileAtMostEverySecond(t *testing.T) {
	var rebuilds atomic.Int32
	path, _, p := petsPlanner(t, countRebuilds(&rebuilds))
	p.refresh.fileEvery = time.Hour
	ask(t, p, "How many pets are dogs?") // checked now: unchanged
	write(t, path, `INSERT INTO pets (name, species) VALUES ('Polly', 'parrot')`)
	ask(t, p, "How many pets are dogs?")
	if rebuilds.Load() != 0 || rebuildDone(p) != nil {
		t.Fatalf("%d rebuilds within the check interval", rebuilds.Load())
	}
}

func TestRefreshFailureKeepsIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		hook func(ctx context.Context) error
	}{
		{"fails", func(context.Context) error { return errors.New("scan failed") }},
		{"times out", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var failing atomic.Bool
			failing.Store(true)
			path, _, p := petsPlanner(t, func(ctx context.Context, rebuild bool) error {
				if rebuild && failing.Load() {
					return tc.hook(ctx)
				}
				return nil
			})
			p.refresh.timeout = 50 * time.Millisecond
			p.refresh.retry = time.Hour
			old := p.cur.Load()
			write(t, path, `INSERT INTO pets (name, species) VALUES ('Polly', 'parrot')`)
			ask(t, p, "How many pets are dogs?")
			waitRebuild(t, p)
			if p.cur.Load() != old {
				t.Fatal("a failed rebuild replaced the index")
			}
			if n := answeredCount(t, ask(t, p, "How many pets are dogs?")); n != 3 {
				t.Fatalf("dogs %d, want 3", n)
			}
			if b := ask(t, p, "How many pets are parrots?"); b.Status == answer.StatusAnswered {
				t.Fatalf("parrots answered from the old index: %s", b.SQL)
			}
			// No new rebuild before retryAfter: the failed one is not
			// retried at every question.
			p.refresh.mu.Lock()
			running := p.refresh.running
			p.refresh.mu.Unlock()
			if running || p.cur.Load() != old {
				t.Fatal("a rebuild was retried at once")
			}
			// Once the retry is due, a rebuild that succeeds is taken.
			failing.Store(false)
			p.refresh.mu.Lock()
			p.refresh.retryAt = time.Time{}
			p.refresh.timeout = buildTimeout
			p.refresh.mu.Unlock()
			ask(t, p, "How many pets are dogs?")
			waitRebuild(t, p)
			if n := answeredCount(t, ask(t, p, "How many pets are parrots?")); n != 1 {
				t.Fatalf("parrots %d after a good rebuild, want 1", n)
			}
		})
	}
}

func TestRefreshConcurrentQuestions(t *testing.T) {
	// An application writes the file in WAL mode, its connection open
	// all along, while questions are read.
	path := filepath.Join(t.TempDir(), "pets.db")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	w.SetMaxOpenConns(1)
	if _, err := w.Exec("PRAGMA journal_mode=WAL;\n" + petsSchema); err != nil {
		t.Fatal(err)
	}
	_, p := plannerAt(t, path, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var asked atomic.Int32
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := p.Answer(context.Background(), "How many pets are dogs?")
				if err == nil && b.Status != answer.StatusAnswered {
					err = fmt.Errorf("dogs: %s %q", b.Status, b.Answer)
				}
				if err != nil {
					errs <- err
					return
				}
				p.Explain(context.Background(), "How many pets are parrots?")
				asked.Add(1)
			}
		}()
	}
	for i := 0; i < 5; i++ {
		if _, err := w.Exec(fmt.Sprintf(`INSERT INTO pets (name, species) VALUES ('P%d', 'parrot')`, i)); err != nil {
			t.Fatal(err)
		}
		ask(t, p, "How many pets are cats?")
		waitRebuild(t, p)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := answeredCount(t, ask(t, p, "How many pets are parrots?")); n != 5 {
		t.Fatalf("parrots %d, want 5", n)
	}
	if asked.Load() == 0 {
		t.Fatal("no question was asked while rebuilding")
	}
}

// A question waiting for another's first build gives up when its own
// context ends, instead of waiting for that build.
func TestFirstBuildWaitEndsWithContext(t *testing.T) {
	path := testdb.Build(t, "pets.db", petsSchema)
	p := New(testdb.Open(t, path))
	started, release := make(chan struct{}), make(chan struct{})
	p.refresh.onBuild = func(ctx context.Context, rebuild bool) error {
		close(started)
		<-release
		return nil
	}
	first := make(chan error, 1)
	go func() { first <- p.Warm(context.Background()) }()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := testdb.Within(t, 10*time.Second, func() error { _, err := p.Answer(ctx, "How many pets are there?"); return err })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting question: %v, want its deadline", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if n := answeredCount(t, ask(t, p, "How many pets are there?")); n != 5 {
		t.Fatalf("pets %d, want 5", n)
	}
}

// The first build is bounded by the planner's build deadline.
func TestFirstBuildDeadline(t *testing.T) {
	p := New(testdb.Open(t, testdb.Build(t, "pets.db", petsSchema)))
	p.refresh.timeout = 50 * time.Millisecond
	p.refresh.onBuild = func(ctx context.Context, rebuild bool) error { <-ctx.Done(); return ctx.Err() }
	err := testdb.Within(t, 10*time.Second, func() error { return p.Warm(context.Background()) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first build: %v, want its deadline", err)
	}
}

// On a server (no file stamp), the catalog is checked in the background:
// an unchanged one starts no build, a new table is seen after the
// rebuild.
func TestRefreshServers(t *testing.T) {
	lite := testdb.Build(t, "pets.db", petsSchema)
	servers.EachKind(t, lite, func(t *testing.T, e servers.Kind, url string) {
		var rebuilds atomic.Int32
		_, p := plannerAt(t, url, countRebuilds(&rebuilds))
		p.refresh.serverEvery = 0
		old := p.cur.Load()
		if n := answeredCount(t, ask(t, p, "How many pets are dogs?")); n != 3 {
			t.Fatalf("dogs %d, want 3", n)
		}
		waitRebuild(t, p) // the check: the catalog is the same
		if rebuilds.Load() != 0 || p.cur.Load() != old {
			t.Fatalf("unchanged catalog: %d rebuilds", rebuilds.Load())
		}
		e.Exec(t, url, "CREATE TABLE owners (id INTEGER PRIMARY KEY, name VARCHAR(20))",
			"INSERT INTO owners (id, name) VALUES (1, 'Ann'), (2, 'Bob')")
		if b := ask(t, p, "How many owners are there?"); b.Status == answer.StatusAnswered && rebuilds.Load() == 0 {
			t.Fatalf("owners answered before any rebuild: %s", b.SQL)
		}
		waitRebuild(t, p)
		if rebuilds.Load() != 1 {
			t.Fatalf("%d rebuilds after a new table, want 1", rebuilds.Load())
		}
		// No check left running when the test closes the database.
		p.refresh.mu.Lock()
		p.refresh.serverEvery = time.Hour
		p.refresh.mu.Unlock()
		if n := answeredCount(t, ask(t, p, "How many owners are there?")); n != 2 {
			t.Fatalf("owners %d, want 2", n)
		}
	})
}

// A write that leaves the schema and row counts as they were changes the
// file: the rebuild reads the catalog again but takes the value index's
// scans from the state directory, as a new process would, and the file's
// new stamp starts no further rebuild.
func TestRefreshReusesKeptScans(t *testing.T) {
	var rebuilds atomic.Int32
	path, _, p := petsPlanner(t, countRebuilds(&rebuilds))
	old := p.cur.Load()
	write(t, path, `UPDATE pets SET name = 'Rexy' WHERE name = 'Rex'`)
	ask(t, p, "How many pets are dogs?")
	waitRebuild(t, p)
	ix := p.cur.Load()
	if ix == old || ix.keptScans == 0 || ix.keptCatalog || ix.files == old.files {
		t.Fatalf("rebuilt %v, kept scans %d, kept catalog %v, new stamp %v", ix != old, ix.keptScans, ix.keptCatalog, ix.files != old.files)
	}
	done := rebuildDone(p)
	ask(t, p, "How many pets are cats?")
	if rebuildDone(p) != done || rebuilds.Load() != 1 || p.cur.Load() != ix {
		t.Fatalf("%d rebuilds, want 1", rebuilds.Load())
	}
}
