package engine_test

import (
	"testing"

	"github.com/tablewise/tablewise/core/engine"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://alice:s3cret@db:5432/shop?sslmode=disable": "postgres://alice:xxxxx@db:5432/shop?sslmode=disable",
		"mysql://root:p@ss:w0rd@tcp/shop":                      "mysql://root:xxxxx@tcp/shop",
		"postgres://u:pa%zz@h/db":                              "postgres://u:xxxxx@h/db",
		"postgres://alice@db/shop":                             "postgres://alice@db/shop",
		"postgres://db/shop?user=a&password=s3cret&x=1":        "postgres://db/shop?user=a&password=xxxxx&x=1",
		"host=db user=a password='s 3' dbname=shop":            "host=db user=a password=xxxxx dbname=shop",
		"/data/shop.db":                                        "/data/shop.db",
		"file:/data/shop.db?mode=ro":                           "file:/data/shop.db?mode=ro",
	} {
		if got := engine.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestString: the text of a catalog value from any engine.
func TestString(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{"Track", "Track"},
		{nil, ""},
		{[]byte("Album"), "Album"},
		{int64(42), "42"},
		{1.5, "1.5"},
		{true, "true"},
	} {
		if got := engine.String(c.in); got != c.want {
			t.Errorf("String(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
