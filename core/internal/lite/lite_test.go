package lite

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestHeapLimitSurvivesEarlyInit opens a database through the plain driver
// first (which initializes SQLite), then checks that memory statistics were
// on anyway and that the hard heap limit stops a big allocation.
func TestHeapLimitSurvivesEarlyInit(t *testing.T) {
	d, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec("CREATE TABLE t(a)"); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if !HeapLimitEnforced() {
		t.Fatal("memory statistics are off")
	}
	ConfigureHeap(32 << 20)
	defer ConfigureHeap(0)
	c, err := Open("file:"+filepath.Join(t.TempDir(), "y.db")+"?mode=rwc", OpenURI|OpenNoMutex|0x2|0x4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Limit(LimitLength, 200<<20)
	st, _, err := c.Prepare("SELECT length(zeroblob(100000000) || zeroblob(1))")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Finalize()
	_, err = st.Step()
	var le *Error
	if err == nil || !asError(err, &le) || le.Code != CodeNoMem {
		t.Fatalf("a 100 MB value under a 32 MiB heap limit: %v", err)
	}
	if !strings.Contains(err.Error(), "out of memory") {
		t.Errorf("message %q", err)
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}
