package servers

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// The figures in the package documentation:
//
//	go test ./core/testdb/servers -run '^$' -bench . -benchtime 5x
//
// BenchmarkLoad is a whole copy from the SQLite file (what a template
// costs once per server); BenchmarkFresh is what each test pays for its
// own database once the template exists.

func benchSources(b *testing.B) map[string]string {
	return map[string]string{
		"chinook": testdb.SharedData(b, "chinook.sqlite"),
		"sample":  samplePath(b),
	}
}

// eachBench runs fn as a sub-benchmark for each source file (Chinook and
// the sample) on each server engine.
func eachBench(b *testing.B, fn func(b *testing.B, engine, path string, srv server)) {
	for _, src := range []string{"chinook", "sample"} {
		for _, engine := range []string{"postgres", "mysql"} {
			b.Run(src+"/"+engine, func(b *testing.B) {
				fn(b, engine, benchSources(b)[src], reach(b, engine))
			})
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	eachBench(b, func(b *testing.B, engine, path string, srv server) {
		ctx := context.Background()
		for b.Loop() {
			name := freshName(b)
			r, err := Load(ctx, path, srv.database(name))
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if r.Rows == 0 {
				b.Fatal("no rows copied")
			}
			dropDatabase(b, srv, name)
			b.StartTimer()
		}
	})
}

func BenchmarkFresh(b *testing.B) {
	eachBench(b, func(b *testing.B, engine, path string, srv server) {
		ensureTemplate(b, srv, path)
		if engine == "mysql" {
			sourceSchema(b, path)
		}
		for b.Loop() {
			if engine == "postgres" {
				PostgresOf(b, path)
			} else {
				MySQLOf(b, path)
			}
		}
	})
}

// dropDatabase drops a database a test made with Load.
func dropDatabase(t testing.TB, srv server, name string) {
	t.Helper()
	if err := srv.dropDatabase(context.Background(), name); err != nil {
		t.Fatal(err)
	}
}
