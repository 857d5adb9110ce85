package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/query"
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
		// A password written without percent-encoding its / ? # or @.
		"postgres://u:ab/cd@h:5432/shop":          "postgres://u:xxxxx@h:5432/shop",
		"mysql://u:ab#cd@h:3306/shop":             "mysql://u:xxxxx@h:3306/shop",
		"postgres://u:ab?cd@h/shop?sslmode=off":   "postgres://u:xxxxx@h/shop?sslmode=off",
		"mysql://u:S3cret@:/?x@127.0.0.1:3306/db": "mysql://u:xxxxx@127.0.0.1:3306/db",
		// An @ in a query value or after a port is not user information.
		"postgres://u:pw@h/shop?application_name=a@b":   "postgres://u:xxxxx@h/shop?application_name=a@b",
		"postgres://h:5432/shop@x":                      "postgres://h:5432/shop@x",
		"postgres://h:5432/shop?application_name=a@b/c": "postgres://h:5432/shop?application_name=a@b/c",
		// A password whose first characters are digits and that holds an
		// unencoded / ? or # reads, up to that character, like host:port;
		// it is user information all the same when an @ follows with a
		// host and a path after it, and is hidden whole.
		"postgres://u:123/RET@127.0.0.1/x":       "postgres://u:xxxxx@127.0.0.1/x",
		"mysql://root:2024?RET@127.0.0.1:3306/x": "mysql://root:xxxxx@127.0.0.1:3306/x",
		"mysql://root:7#RET@db.example/shop":     "mysql://root:xxxxx@db.example/shop",
		// The passphrase of an encrypted client key (libpq's and pgx's
		// sslpassword) is a password too.
		"postgres://u@h/shop?sslmode=verify-full&sslpassword=s3cret": "postgres://u@h/shop?sslmode=verify-full&sslpassword=xxxxx",
		"host=db user=a sslpassword='s 3' dbname=shop":               "host=db user=a sslpassword=xxxxx dbname=shop",
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

func TestFloat64(t *testing.T) {
	for _, c := range []struct {
		in   any
		want float64
	}{
		{int64(-7), -7},
		{2.5, 2.5},
		{"1234.50", 1234.5},
		{"n/a", 0},
		{nil, 0},
		{[]byte("3"), 0},
	} {
		if got := engine.Float64(c.in); got != c.want {
			t.Errorf("Float64(%#v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestCaps: the row cap ends a stream before the row past it, the byte cap
// once a row takes the total past it; a cap of 0 never ends it, and a
// stream without a byte cap never measures its rows.
func TestCaps(t *testing.T) {
	for _, c := range []struct {
		opt      query.Options
		rows     int // rows kept
		by       string
		measured int // rows whose size was read
	}{
		{query.Options{}, 10, "", 0},
		{query.Options{MaxRows: 3}, 3, "rows", 0},
		{query.Options{MaxBytes: 250}, 2, "bytes", 3},
		{query.Options{MaxBytes: 300}, 3, "bytes", 4},
		{query.Options{MaxRows: 2, MaxBytes: 250}, 2, "rows", 2},
		{query.Options{MaxRows: 3, MaxBytes: 250}, 2, "bytes", 3},
	} {
		sum := &query.Summary{}
		caps := engine.NewCaps(c.opt, sum)
		measured := 0
		size := func() int64 { measured++; return 100 }
		for range 10 {
			if caps.RowsFull() || caps.BytesOver(size) {
				break
			}
			sum.RowCount++
		}
		if sum.RowCount != c.rows || sum.Truncated != (c.by != "") || sum.TruncatedBy != c.by || measured != c.measured {
			t.Errorf("%+v: %d rows, truncated %v by %q, %d measured; want %d rows by %q, %d measured",
				c.opt, sum.RowCount, sum.Truncated, sum.TruncatedBy, measured, c.rows, c.by, c.measured)
		}
	}
}

// TestScratchError: a scratch URL that names the checked database and a
// scratch user that could reach it are both usage errors, told apart by
// their sentinels, also when wrapped.
func TestScratchError(t *testing.T) {
	same := fmt.Errorf("rehearse: %w", &engine.UsageError{Msg: "names the database", Sentinel: engine.ErrScratchIsDatabase})
	reaches := fmt.Errorf("rehearse: %w", &engine.UsageError{Msg: "is a superuser", Sentinel: engine.ErrScratchReaches})
	for _, c := range []struct {
		err                   error
		isDatabase, isReaches bool
	}{{same, true, false}, {reaches, false, true}} {
		if !errors.Is(c.err, engine.ErrBadPath) || errors.Is(c.err, engine.ErrScratchIsDatabase) != c.isDatabase || errors.Is(c.err, engine.ErrScratchReaches) != c.isReaches {
			t.Errorf("%v: ErrBadPath %v, ErrScratchIsDatabase %v, ErrScratchReaches %v", c.err,
				errors.Is(c.err, engine.ErrBadPath), errors.Is(c.err, engine.ErrScratchIsDatabase), errors.Is(c.err, engine.ErrScratchReaches))
		}
	}
}
