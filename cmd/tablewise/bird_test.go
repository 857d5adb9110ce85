package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
)

// TestBIRDGoldQueries runs all 500 BIRD mini-dev gold queries through
// "tablewise sql" on empty databases built from the benchmark's schemas:
// none may be refused by the guard and none may fail.
func TestBIRDGoldQueries(t *testing.T) {
	gold := testdb.SharedData(t, "bird-minidev/mini_dev_sqlite_gold.sql")
	schemas := filepath.Join(filepath.Dir(gold), "schemas")
	f, err := os.Open(gold)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dbs := map[string]string{}
	var total, refused, failed int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		i := strings.LastIndexByte(line, '\t')
		if i < 0 {
			t.Fatalf("bad gold line: %q", line)
		}
		sql, dbID := line[:i], line[i+1:]
		path, ok := dbs[dbID]
		if !ok {
			schema, err := os.ReadFile(filepath.Join(schemas, dbID+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			path = testdb.Build(t, dbID+".sqlite", string(schema))
			dbs[dbID] = path
		}
		total++
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"sql", "--db", path, "--format", "csv", "--", sql}, strings.NewReader(""), &out, &errb)
		switch code {
		case exitOK:
		case exitRefused:
			refused++
			t.Errorf("refused (%s): %s\n  %s", dbID, sql, strings.TrimSpace(errb.String()))
		default:
			failed++
			t.Errorf("exit %d (%s): %s\n  %s", code, dbID, sql, strings.TrimSpace(errb.String()))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("BIRD mini-dev gold: %d queries on %d databases, %d refused, %d errors", total, len(dbs), refused, failed)
	if total != 500 {
		t.Errorf("read %d gold queries, want 500", total)
	}
}
