package main

import (
	"strings"
	"testing"
)

// TestOpenErrorsHidePasswords: a --db that tablewise cannot open is named
// in the error without its password, however the password was written:
// unencoded / # ? and @ in a URL's password, or a server's key=value DSN
// given where a URL or a file belongs. None of these reaches a server.
func TestOpenErrorsHidePasswords(t *testing.T) {
	for _, db := range []string{
		"postgres://postgres:ab/cdPwZ@127.0.0.1:5432/postgres",
		"postgres://postgres:ab@cdPwZ@127.0.0.1:1/postgres",
		"mysql://doors:ab/cdPwZ@127.0.0.1:3306/shop",
		"mysql://doors:ab#cdPwZ@127.0.0.1:3306/shop",
		"mysql://doors:ab@:/?cdPwZ@127.0.0.1:3306/shop",
		"host=127.0.0.1 user=postgres password=ab.cdPwZ dbname=postgres",
	} {
		for _, args := range [][]string{{"sql", "--db", db, "SELECT 1"}, {"schema", "--db", db}, {"doctor", "--db", db}} {
			code, out, errs := runCLI(t, "", args...)
			if code == 0 {
				t.Errorf("%s --db %q: exit 0, want an error", args[0], db)
			}
			if strings.Contains(out+errs, "cdPwZ") {
				t.Errorf("%s --db %q shows the password:\n%s%s", args[0], db, out, errs)
			}
		}
	}
}
