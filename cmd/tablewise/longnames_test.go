package main

import (
	"strings"
	"testing"

	"github.com/tablewise/tablewise/core/testdb/servers"
)

// longName is a name of 100,000 characters, as a user (or a model) may
// send one.
var longName = "tw_" + strings.Repeat("x", 100_000-3)

// TestLongNamesInErrorsAreClipped: an error that names what the user gave
// (a table, a column, a PRAGMA, a flag's value, a command, a path) named
// it whole, so a name of 100 KB printed 100 KB. The name is shown by its
// start, with its length, and the error stays short.
func TestLongNamesInErrorsAreClipped(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		// code is the exit code; -1: any but 0.
		code int
		// say is what the error says before the name.
		say string
		// most is how long the error output may be: the usage text some
		// errors add counts apart.
		most int
	}{
		{"table", []string{"sql", "SELECT * FROM " + longName}, exitDatabase, "no such table: ", 1 << 10},
		{"column", []string{"sql", "SELECT " + longName + " FROM categories"}, exitDatabase, "no such column: ", 1 << 10},
		{"pragma", []string{"sql", "PRAGMA " + longName}, exitRefused, "PRAGMA ", 1 << 10},
		{"format", []string{"sql", "--format", longName, "SELECT 1"}, exitUsage, `unknown format "`, 1 << 10},
		{"path", []string{"sql", "--db", "/tmp/" + longName, "SELECT 1"}, -1, "/tmp/", 1 << 10},
		{"command", []string{longName}, exitUsage, `unknown command "`, len(usage) + 1<<10},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", c.args...)
			checkClipped(t, code, errs, c.code, c.say, c.most)
		})
	}
}

// TestLongValuesInServerErrorsAreClipped: the servers bound the names in
// their errors themselves (PostgreSQL cuts an identifier at 63 bytes,
// MariaDB at 64 characters), but PostgreSQL's error for a cast names the
// whole text it could not read: up to 4 KB of it reached the terminal.
func TestLongValuesInServerErrorsAreClipped(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		url := servers.Postgres(t)
		code, _, errs := runCLI(t, "", "sql", "--db", url, "SELECT CAST('"+longName+"' AS integer)")
		checkClipped(t, code, errs, exitDatabase, `invalid input syntax for type integer: "`, 1<<10)
	})
	t.Run("mysql", func(t *testing.T) {
		url := servers.MySQL(t)
		code, _, errs := runCLI(t, "", "sql", "--db", url, "SELECT "+longName+" FROM Genre")
		checkClipped(t, code, errs, exitDatabase, "'", 1<<10)
	})
}

// checkClipped fails t unless the command exited with want (-1: any code
// but success), and its error
// output errs, at most most bytes, says say followed by the start of
// longName.
func checkClipped(t *testing.T, code int, errs string, want int, say string, most int) {
	t.Helper()
	if code != want && (want != -1 || code == exitOK) {
		t.Errorf("exit %d, want %d", code, want)
	}
	if len(errs) > most {
		t.Errorf("the error is %d bytes, over %d: %.300q…", len(errs), most, errs)
	}
	if !strings.Contains(errs, say+longName[:100]) {
		t.Errorf("the error does not say %q and the name's start: %.300q…", say, errs)
	}
}
