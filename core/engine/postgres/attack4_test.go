package postgres_test

import (
	"context"
	"testing"

	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/postgres"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestPasswordWithSlashIsRefusedUnshown: pgx reads the start of a
// password up to an unencoded / as a port, so "u:123/RET@127.0.0.1/x" named
// the host u, the port 123 and the database "RET@127.0.0.1/x", and the
// connection error showed the whole password. The URL is refused before
// connecting, saying how to write the password, and no piece of it shown.
func TestPasswordWithSlashIsRefusedUnshown(t *testing.T) {
	for _, raw := range []string{
		"postgres://u:123/RET@127.0.0.1:5432/x",
		"postgres://u:S3C/RET@127.0.0.1/x",
		"postgresql://u:S3C/RET/x@127.0.0.1/x",
	} {
		_, err := postgres.Open(context.Background(), raw, engine.Options{})
		testdb.RefusedUnshown(t, raw, err, "S3C", "RET", "123")
	}
}
