package mysql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/guard"
	"github.com/tablewise/tablewise/core/query"
)

// TestStatisticsResetIsRefused: MariaDB resets the server's InnoDB
// compression statistics (information_schema.INNODB_CMP,
// INNODB_CMPMEM, INNODB_CMP_PER_INDEX) whenever its *_RESET tables are
// read, inside a read-only transaction too (measured on 10.11: 754
// compressions counted, none after one SELECT of INNODB_CMP_RESET). A
// read of them, named however, directly or through a view, is refused,
// and the counters stay.
func TestStatisticsResetIsRefused(t *testing.T) {
	f := chinook(t)
	f.exec(t, "CREATE TABLE tw_packed (a INT PRIMARY KEY, b TEXT) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4")
	f.exec(t, "INSERT INTO tw_packed SELECT seq, REPEAT(MD5(seq), 20) FROM seq_1_to_2000")
	f.exec(t, "CREATE VIEW tw_reset AS SELECT * FROM information_schema.INNODB_CMP_RESET")
	counted := func() string {
		return f.scalar(t, "SELECT SUM(compress_ops) FROM information_schema.INNODB_CMP")
	}
	before := counted()
	if before == "0" || before == "" {
		t.Fatalf("no compression counted after writing a compressed table: %q", before)
	}
	for _, q := range []string{
		"SELECT * FROM information_schema.INNODB_CMP_RESET",
		"SELECT COUNT(*) FROM INFORMATION_SCHEMA.`innodb_cmpmem_reset`",
		`SELECT 1 FROM "information_schema"."INNODB_CMP_PER_INDEX_RESET"`,
		"TABLE information_schema.INNODB_CMP_RESET",
		"SELECT page_size FROM information_schema . INNODB_CMP_RESET WHERE compress_ops > 0",
		"SELECT * FROM tw_reset",
	} {
		res, err := query.Collect(context.Background(), f.eng, q, query.Options{Timeout: 2 * time.Second})
		var rej *guard.Rejection
		if !errors.As(err, &rej) {
			t.Errorf("%q: %v %v, want a refusal", q, res, err)
		}
		if err := f.eng.Check(context.Background(), q); !errors.As(err, &rej) {
			t.Errorf("Check(%q): %v, want a refusal", q, err)
		}
	}
	if after := counted(); after != before {
		t.Errorf("the server's compression statistics were reset: %s compressions counted, were %s", after, before)
	}
	// The statistics themselves can be read.
	if res, err := query.Collect(context.Background(), f.eng, "SELECT SUM(compress_ops) FROM information_schema.INNODB_CMP", query.Options{}); err != nil || len(res.Rows) != 1 {
		t.Errorf("reading INNODB_CMP: %v %v", res, err)
	}
}
