package engine_test

import (
	"testing"

	"github.com/tablewise/tablewise/core/engine"
)

// TestRedactPasswordThatStartsLikeAPort: a password whose first characters
// are digits and that holds an unencoded / ? or # reads, up to that
// character, like host:port; it is user information all the same when an
// @ follows with a host and a path after it, and is hidden whole.
func TestRedactPasswordThatStartsLikeAPort(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:123/RET@127.0.0.1/x":              "postgres://u:xxxxx@127.0.0.1/x",
		"mysql://root:2024?RET@127.0.0.1:3306/x":        "mysql://root:xxxxx@127.0.0.1:3306/x",
		"mysql://root:7#RET@db.example/shop":            "mysql://root:xxxxx@db.example/shop",
		"postgres://h:5432/shop@x":                      "postgres://h:5432/shop@x",
		"postgres://h:5432/shop?application_name=a@b/c": "postgres://h:5432/shop?application_name=a@b/c",
	} {
		if got := engine.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
