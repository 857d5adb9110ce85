package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb"
	"github.com/tablewise/tablewise/core/testdb/servers"
)

func TestRun(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(nil, &out, &errs); code != 2 || !strings.Contains(errs.String(), "usage: load --from") {
		t.Errorf("no arguments: exit %d, %q; want 2 and the usage", code, errs.String())
	}
	errs.Reset()
	fixture := testdb.Fixture(t)
	if code := run([]string{"--from", fixture, "--to", "http://host/db"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "is not a postgres:// or mysql:// URL") {
		t.Errorf("an http URL: exit %d, %q; want 2", code, errs.String())
	}
	errs.Reset()
	if code := run([]string{"--from", fixture, "--to", "mysql://root@127.0.0.1:3306/"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "names no database") {
		t.Errorf("a URL without a database: exit %d, %q; want 2", code, errs.String())
	}
	errs.Reset()
	if code := run([]string{"--from", "missing.sqlite", "--to", "mysql://root@127.0.0.1:3306/x"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "missing.sqlite") {
		t.Errorf("a missing file: exit %d, %q; want 2", code, errs.String())
	}

	// Into a database that exists: refused, exit 2, nothing written.
	existing := servers.PostgresOf(t, testdb.Fixture(t))
	errs.Reset()
	if code := run([]string{"--from", fixture, "--to", existing}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "already exists") {
		t.Errorf("into an existing database: exit %d, %q; want 2", code, errs.String())
	}
}
