package mysql_test

import (
	"testing"

	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestPasswordWithSlashIsRefusedUnshown: a URL parser ends the user
// information at an unencoded / ? or # in the password, and its error
// ("invalid port \":S3C\" after host") quoted the password's first
// characters. The URL is refused before it is parsed, saying how to write
// the password, and no piece of it is shown.
func TestPasswordWithSlashIsRefusedUnshown(t *testing.T) {
	for _, raw := range []string{
		"mysql://root:S3C/RET@127.0.0.1/x",
		"mysql://root:S3C#RET@127.0.0.1/x",
		"mysql://root:S3C?RET@127.0.0.1:3306/x",
		"mysql://root:123/RET@127.0.0.1/x",
	} {
		_, err := twmysql.Config(raw)
		testdb.RefusedUnshown(t, raw, err, "S3C", "RET", "123")
	}
	// An @ in a MySQL password is read whole: the parser takes the last one.
	cfg, err := twmysql.Config("mysql://root:S3C@RET@127.0.0.1/x")
	if err != nil || cfg.Passwd != "S3C@RET" || cfg.Addr != "127.0.0.1:3306" {
		t.Errorf("password with @: %+v %v", cfg, err)
	}
}
